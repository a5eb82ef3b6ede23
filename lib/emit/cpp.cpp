// Hygienic C++ spelling for generated code: locals, helpers, namespaces and include guards.
#include "emit/cpp.h"

#include "emit/templates.h"
#include "ident/ident.h"

#include <fmt/format.h>

namespace opscan::emit {
namespace {

bool usable_local(const std::string& name) {
  return ident::is_valid_identifier(name, ident::Scope::local);
}

// The components of a qualified name: "a::b" -> {"a", "b"}.
std::vector<std::string> components(const std::string& qualified) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t end = qualified.find("::", start);
    parts.push_back(qualified.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 2;
  }
}

} // namespace

std::vector<std::string> local_names(const ir::Kernel& kernel,
                                     std::initializer_list<std::string_view> taken) {
  std::set<std::string, std::less<>> used(taken.begin(), taken.end());
  std::vector<std::string> names(kernel.arguments.size());
  // Names that can stay as they are stay, before any other is renamed, so a
  // renamed one never takes the name of a later argument.
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = kernel.arguments[i].schema.name;
    if (usable_local(name) && used.insert(name).second)
      names[i] = name;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i].empty())
      continue;
    const std::string& name = kernel.arguments[i].schema.name;
    // A keyword takes a '_'; a reserved name ("_Tensor") cannot be mended so.
    // Neither base ends in '_', so no candidate holds a reserved "__".
    const std::string base = usable_local(name + "_") ? name : "arg" + std::to_string(i);
    std::string candidate = base + "_";
    for (int n = 2; !usable_local(candidate) || used.contains(candidate); ++n)
      candidate = base + "_" + std::to_string(n);
    used.insert(candidate);
    names[i] = candidate;
  }
  return names;
}

std::string helper_name(const ir::Kernel& kernel, std::set<std::string>& taken,
                        std::string_view prefix) {
  const std::string joined = std::string(prefix) + kernel.op.ns + "_" + kernel.op.name +
                             (kernel.op.overload.empty() ? "" : "_" + kernel.op.overload);
  // Operator names may start or end with '_' (aten::_softmax, add_): one '_'
  // between parts, none first, so no "__" or "_Upper" makes it reserved.
  std::string base;
  for (char c : joined) {
    if (c != '_' || (!base.empty() && base.back() != '_'))
      base += c;
  }
  if (!usable_local(base))
    base = "op_" + base;
  std::string name = base;
  for (int n = 2; !taken.insert(name).second; ++n)
    name = fmt::format("{}_{}", base, n);
  return name;
}

std::set<std::string> global_kernel_names(const ir::Module& module) {
  std::set<std::string> names;
  for (const ir::Kernel& k : module.kernels) {
    if (namespace_of(k.cpp_function).empty())
      names.insert(k.cpp_function);
  }
  return names;
}

std::string include_guard(std::string_view library, std::string_view tag) {
  return fmt::format("OPSCAN_GENERATED_{}_FOR_{}", tag, library);
}

std::string in_namespace(const std::string& ns, const std::vector<std::string>& inline_namespaces,
                         const std::string& body) {
  if (ns.empty())
    return body;
  bool any_inline = false;
  for (const std::string& in : inline_namespaces)
    any_inline = any_inline || ns == in || ns.starts_with(in + "::");
  if (!any_inline)
    return fmt::format("namespace {} {{\n\n{}\n}}  // namespace {}", ns, body, ns);
  // C++17 has no "namespace a::inline b": one block per namespace.
  const std::vector<std::string> parts = components(ns);
  std::string open, close, qualified;
  for (const std::string& part : parts) {
    qualified += (qualified.empty() ? "" : "::") + part;
    bool is_inline = false;
    for (const std::string& in : inline_namespaces)
      is_inline = is_inline || in == qualified;
    open += fmt::format("{}namespace {} {{\n", is_inline ? "inline " : "", part);
    close = fmt::format("}}  // namespace {}\n", part) + close;
  }
  close.pop_back();
  return fmt::format("{}\n{}\n{}", open, body, close);
}

std::string function_declaration(const ir::Kernel& kernel, const std::string& result_type,
                                 const std::string& name_and_parameters) {
  return fmt::format("{}{} {}{};", kernel.cpp_linkage == ir::Linkage::c ? "extern \"C\" " : "",
                     result_type, name_and_parameters, kernel.cpp_noexcept ? " noexcept" : "");
}

std::string normalized(std::string canonical) {
  auto replace_all = [&](std::string_view from, std::string_view to) {
    for (size_t at = 0; (at = canonical.find(from, at)) != std::string::npos; at += to.size())
      canonical.replace(at, from.size(), to);
  };
  replace_all("long long", "long");
  replace_all("std::__1::", "std::");     // libc++'s inline namespace
  replace_all("std::__cxx11::", "std::"); // libstdc++'s (std::string)
  std::erase(canonical, ' ');
  return canonical;
}

std::string bare_canonical(std::string canonical) {
  if (canonical.ends_with('&'))
    canonical.erase(canonical.find_last_not_of(" &") + 1);
  if (canonical.starts_with("const "))
    canonical.erase(0, 6);
  return normalized(canonical);
}

Passing passing_of(std::string_view canonical) {
  if (!canonical.ends_with('&'))
    return Passing::value;
  return canonical.starts_with("const ") ? Passing::const_ref : Passing::ref;
}

std::string declare(const std::string& type, Passing passing) {
  switch (passing) {
  case Passing::value:
    return type;
  case Passing::const_ref:
    return "const " + type + "&";
  case Passing::ref:
    return type + "&";
  }
  return type;
}

std::string namespace_of(const std::string& qualified) {
  size_t at = qualified.rfind("::");
  return at == std::string::npos ? std::string() : qualified.substr(0, at);
}

std::string unqualified(const std::string& qualified) {
  size_t at = qualified.rfind("::");
  return at == std::string::npos ? qualified : qualified.substr(at + 2);
}

void separate_blocks(std::vector<std::string>& items) {
  for (size_t i = 0; i + 1 < items.size(); ++i)
    items[i] += items[i].ends_with('\n') ? "\n" : "\n\n";
}

Symbols registration_symbols(const LibrarySpec& library, std::string_view scope) {
  switch (library.registration) {
  case ir::Registration::static_init:
    return {"", "opscan_static_registration_" + library.name};
  case ir::Registration::manual:
    return {std::string(scope) + "register_all_kernels", ""};
  case ir::Registration::named:
    return {std::string(scope) + "register_" + library.name + "_kernels", ""};
  }
  return {};
}

void report(const Refusal& refusal, const ir::Kernel& kernel, std::string code,
            Problems& problems) {
  problems.kernel(kernel, refusal.field, std::move(code),
                  "kernel '" + kernel.cpp_function + "' (" + kernel.op.str() +
                      "): " + refusal.message);
}

void Declarations::add(const ir::Kernel& kernel, const std::string& declaration) {
  const std::string ns = namespace_of(kernel.cpp_function);
  text_[ns] += declaration;
  auto& names = inline_names_[ns];
  names.insert(names.end(), kernel.cpp_inline_namespaces.begin(),
               kernel.cpp_inline_namespaces.end());
}

std::vector<std::string> Declarations::blocks() const {
  std::vector<std::string> out;
  for (const auto& [ns, text] : text_)
    out.push_back(in_namespace(ns, inline_names_.at(ns), text));
  separate_blocks(out);
  return out;
}

std::vector<TemplatedFile> registration_files(std::string register_declaration,
                                              TemplateEnv register_kernels,
                                              std::vector<std::string> sources,
                                              const Declarations& declarations) {
  return {{"RegisterKernels.h",
           OutputKind::header,
           {{"declarations", std::move(register_declaration)}},
           "REGISTER_KERNELS_H"},
          {"RegisterKernels.cpp", OutputKind::source, std::move(register_kernels)},
          {"KernelSources.cpp", OutputKind::source, {{"kernel_sources", std::move(sources)}}},
          {"NativeFunctions.h",
           OutputKind::header,
           {{"declarations", declarations.blocks()}},
           "NATIVE_FUNCTIONS_H"}};
}

void render_files(std::string_view target, const LibrarySpec& library,
                  const std::vector<TemplatedFile>& files, const TemplateEnv& common,
                  const Options& options, diag::Diagnostics& diags, OutputSink& sink) {
  for (const TemplatedFile& f : files) {
    sink.file(library.name + "/" + f.path, f.kind, [&] {
      TemplateEnv env = f.values;
      env.insert(common.begin(), common.end());
      if (!f.guard_tag.empty())
        env.emplace("include_guard", include_guard(library.name, f.guard_tag));
      const std::string name = std::string(target) + "/" + f.path.substr(f.path.rfind('/') + 1);
      return render(name, env, options, diags).value_or("");
    });
  }
}

std::string link_anchor_definition(const Symbols& symbols) {
  return fmt::format(
      "// Nothing references this file in static mode, so a linker taking it from a\n"
      "// static archive would drop it, registration and all. The CMake integration\n"
      "// links with\n"
      "//   -Wl,--undefined={0}\n"
      "// which makes the linker keep this object, and the kernels it references.\n"
      "extern \"C\" {{\n"
      "extern const int {0};\n"
      "const int {0} = 1;\n"
      "}}",
      symbols.link_anchor);
}

std::optional<std::string> render(const std::string& name, const TemplateEnv& env,
                                  const Options& options, diag::Diagnostics& diags) {
  auto report = [&](const TemplateError& e) {
    diags.push_back(diag::make_error(
        "opscan-template", {e.template_name, uint32_t(e.line), uint32_t(e.column), 0}, e.message));
    return std::nullopt;
  };
  auto loaded = load_template(name, options.templates_dir);
  if (auto* e = std::get_if<TemplateError>(&loaded))
    return report(*e);
  auto rendered = std::get<CodeTemplate>(loaded).render(env);
  if (auto* e = std::get_if<TemplateError>(&rendered))
    return report(*e);
  return std::get<std::string>(std::move(rendered));
}

} // namespace opscan::emit
