#include "emit/emit.h"

#include "emit/target.h"
#include "emit/templates.h"
#include "ident/ident.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <map>
#include <set>
#include <tuple>

namespace opscan::emit {

std::optional<Target> parse_target(std::string_view name) {
  if (name == "executorch")
    return Target::executorch;
  if (name == "torch")
    return Target::torch;
  return std::nullopt;
}

const char* to_string(Target target) {
  return target == Target::torch ? "torch" : "executorch";
}

std::optional<Registration> parse_registration(std::string_view name) {
  if (name == "static")
    return Registration::static_init;
  if (name == "manual")
    return Registration::manual;
  if (name == "named")
    return Registration::named;
  return std::nullopt;
}

const char* to_string(Registration registration) {
  switch (registration) {
  case Registration::static_init:
    return "static";
  case Registration::manual:
    return "manual";
  case Registration::named:
    return "named";
  }
  return "named";
}

std::string local_name(const std::string& schema_name) {
  static constexpr std::array<std::string_view, 4> kTaken = {"context", "stack", "result",
                                                             "kKernels"};
  bool taken =
      std::find(kTaken.begin(), kTaken.end(), std::string_view(schema_name)) != kTaken.end();
  if (taken || !ident::is_valid_identifier(schema_name, ident::Scope::local))
    return schema_name + "_";
  return schema_name;
}

// A canonical type spelled so that equal types compare equal: "long long" is
// "long" (int64_t differs between platforms), libc++'s inline namespace is
// dropped, and spaces do not count ("T &" and "T&").
std::string normalized(std::string canonical) {
  auto replace_all = [&](std::string_view from, std::string_view to) {
    for (size_t at = 0; (at = canonical.find(from, at)) != std::string::npos; at += to.size())
      canonical.replace(at, from.size(), to);
  };
  replace_all("long long", "long");
  replace_all("std::__1::", "std::");
  std::erase(canonical, ' ');
  return canonical;
}

// The canonical type without its reference and top-level const.
std::string bare_canonical(std::string canonical) {
  if (canonical.ends_with('&'))
    canonical.erase(canonical.find_last_not_of(" &") + 1);
  if (canonical.starts_with("const "))
    canonical.erase(0, 6);
  return normalized(canonical);
}

std::string namespace_of(const std::string& qualified) {
  size_t at = qualified.rfind("::");
  return at == std::string::npos ? std::string() : qualified.substr(0, at);
}

std::string unqualified(const std::string& qualified) {
  size_t at = qualified.rfind("::");
  return at == std::string::npos ? qualified : qualified.substr(at + 2);
}

// A readable wrapper name, unique in the file: "aten_add_out", then
// "aten_add_out_2" for the next kernel whose name folds to the same text
// (add.out and add_out, or kernels of one operator with different keys).
std::string wrapper_name(const ir::Kernel& kernel, std::set<std::string>& taken,
                         std::string_view prefix) {
  std::string base = std::string(prefix) + kernel.op.ns + "_" + kernel.op.name +
                     (kernel.op.overload.empty() ? "" : "_" + kernel.op.overload);
  std::string name = base;
  for (int n = 2; !taken.insert(name).second; ++n)
    name = fmt::format("{}_{}", base, n);
  return name;
}

std::string link_anchor_definition(const Library& library) {
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
      library.link_anchor);
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

Output generate(const ir::Module& module, const Options& options) {
  Output output;
  // The name is checked in every mode: it also names the output directory
  // and appears in generated code.
  ident::RegistrationSymbol symbol = ident::registration_symbol(options.library);
  for (const ident::Finding& f : symbol.findings) {
    output.diagnostics.push_back(f.is_error ? diag::make_error(f.code, {}, f.message)
                                            : diag::make_warning(f.code, {}, f.message));
  }
  if (!symbol.ok())
    return output;

  Library library{options.library.value_or("all"), symbol.symbol, ""};
  if (options.registration == Registration::static_init) {
    library.registration_symbol.clear();
    library.link_anchor = "opscan_static_registration_" + library.name;
  }
  if (options.registration == Registration::manual)
    library.registration_symbol = "register_all_kernels";
  output.library_dir = library.name;
  output.link_anchor = library.link_anchor;

  // Generated code follows the canonical order, whatever order the IR came in.
  ir::Module library_ir = module;
  ir::canonicalize(library_ir);
  library_ir.generator = options.generator;
  switch (options.target) {
  case Target::executorch:
    generate_executorch(library_ir, library, options, output);
    break;
  case Target::torch:
    generate_torch(library_ir, library, options, output);
    break;
  }
  diag::sort(output.diagnostics); // in source order, whatever the kernels' order
  if (diag::has_errors(output.diagnostics)) {
    output.files.clear();
    return output;
  }
  // The IR records the library, so a later run can regenerate it as it is.
  library_ir.library =
      ir::LibraryInfo{library.name, to_string(options.registration), output.registration_function,
                      to_string(options.target), library.link_anchor};
  output.files.push_back({library.name + "/ir.json", ir::to_json(library_ir)});
  return output;
}

namespace {

// The registration function a library will define: empty in static mode (and
// for a name generate() will refuse).
std::string registration_function(const Options& options) {
  if (options.registration == Registration::static_init)
    return {};
  // ExecuTorch's live in torch::executor, like its own generator's; the
  // torch target's in the global namespace.
  const std::string scope = options.target == Target::torch ? "" : "torch::executor::";
  if (options.registration == Registration::manual)
    return scope + "register_all_kernels";
  ident::RegistrationSymbol symbol = ident::registration_symbol(options.library);
  return symbol.ok() ? scope + symbol.symbol : std::string();
}

std::string describe(const ir::Kernel& k) {
  return k.op.str() + (k.kernel_key.empty() ? "" : " (kernel key '" + k.kernel_key + "')");
}

// How to generate a library IR again: `base` with the name, registration
// mode and target its record gives; nullopt (with `why`) for an input
// without a usable record.
std::optional<Options> library_options(const LibraryIr& input, const Options& base,
                                       diag::Diagnostic* why = nullptr) {
  if (!input.module.library) {
    if (why) {
      *why = diag::make_error(
          "opscan-ir-not-library", {},
          input.path + " is scan output (a fragment), not a library IR: generate it with --lib");
    }
    return std::nullopt;
  }
  const ir::LibraryInfo& lib = *input.module.library;
  auto registration = parse_registration(lib.registration);
  auto target = parse_target(lib.target);
  if (!registration || !target) {
    if (why) {
      *why = diag::make_error("opscan-ir-invalid", {},
                              input.path + ": unknown registration '" + lib.registration +
                                  "' or target '" + lib.target + "'");
    }
    return std::nullopt;
  }
  Options o = base;
  // "all" is how the IR names the unnamed default library.
  o.library = lib.name == "all" ? std::nullopt : std::optional<std::string>(lib.name);
  o.registration = *registration;
  o.target = *target;
  return o;
}

} // namespace

diag::Diagnostics check_libraries(const std::vector<LibraryIr>& inputs) {
  diag::Diagnostics diags;
  struct Planned {
    const LibraryIr* input;
    std::string name;
    Target target;
    std::string function; // empty in static mode
  };
  std::vector<Planned> planned;
  for (const LibraryIr& input : inputs) {
    diag::Diagnostic why;
    if (auto o = library_options(input, Options{}, &why))
      planned.push_back({&input, input.module.library->name, o->target, registration_function(*o)});
    else
      diags.push_back(std::move(why));
  }

  // One error per later library: the first clash explains it.
  for (size_t j = 0; j < planned.size(); ++j) {
    const Planned& b = planned[j];
    for (size_t i = 0; i < j; ++i) {
      const Planned& a = planned[i];
      if (a.name == b.name) {
        diags.push_back(diag::make_error(
            "opscan-duplicate-library", {},
            fmt::format("two libraries named '{}': {} and {}; each library needs its own name (it "
                        "names the output directory)",
                        b.name, a.input->path, b.input->path)));
        break;
      }
      if (!a.function.empty() && a.function == b.function) {
        diags.push_back(diag::make_error(
            "opscan-duplicate-registration", {},
            fmt::format("libraries '{}' ({}) and '{}' ({}) both define {}(), so they cannot be "
                        "linked into one program; give them named registration",
                        a.name, a.input->path, b.name, b.input->path, a.function)));
        break;
      }
    }
  }

  // Operators (name and kernel key) that two libraries register with the
  // same runtime: it would refuse the second library. ExecuTorch's registry
  // and PyTorch's dispatcher are separate, so one library for each may
  // register the same operator.
  using Key = std::tuple<Target, std::string, std::string>;
  std::map<Key, std::pair<size_t, const ir::Kernel*>> owners;
  for (size_t j = 0; j < planned.size(); ++j) {
    const Target target = planned[j].target;
    for (const ir::Kernel& k : planned[j].input->module.kernels) {
      auto [it, inserted] = owners.try_emplace({target, k.op.str(), k.kernel_key}, j, &k);
      const auto [i, first] = it->second;
      if (inserted || i == j || planned[i].name == planned[j].name)
        continue;
      auto d = diag::make_error(
          "opscan-library-overlap", k.location,
          fmt::format("operator {} is registered by library '{}' and by library '{}'; {}",
                      describe(k), planned[i].name, planned[j].name,
                      target == Target::torch
                          ? "PyTorch's dispatcher takes one definition of an operator"
                          : "ExecuTorch registers each operator and kernel key once"));
      d.notes.push_back({fmt::format("library '{}' registers it here, with '{}'", planned[i].name,
                                     first->cpp_function),
                         first->location});
      diags.push_back(std::move(d));
    }
  }
  return diags;
}

Generation generate_libraries(const std::vector<LibraryIr>& inputs, const Options& options) {
  Generation generation;
  diag::Diagnostics& diags = generation.diagnostics;
  diags = check_libraries(inputs);
  for (const LibraryIr& input : inputs) {
    auto o = library_options(input, options); // the inputs it refuses, check_libraries reported
    if (!o)
      continue;
    Output output = generate(input.module, *o);
    diags.insert(diags.end(), output.diagnostics.begin(), output.diagnostics.end());
    output.diagnostics.clear(); // reported once, in the generation's
    generation.libraries.push_back(std::move(output));
  }
  if (diag::has_errors(diags))
    generation.libraries.clear();
  return generation;
}

} // namespace opscan::emit
