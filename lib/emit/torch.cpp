// The torch target: wrappers with the dispatcher's C++ signatures, schema
// definitions for custom namespaces, and registration with PyTorch's
// dispatcher, eager (static blocks) or deferred (a named function)
// (REFERENCE.md §D).
#include "emit/target.h"
#include "support/cpp_literal.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace opscan::emit {
namespace {

// The dispatcher's C++ type for a schema type (argument or return), and the
// canonical type libclang reports for a kernel parameter taking it.
struct TorchType {
  std::string cpp;
  std::string canonical; // without reference and const; empty: not checked
};

std::optional<TorchType> torch_type(const schema::Type& type, bool is_return) {
  using Kind = schema::TypeSuffix::Kind;
  std::vector<Kind> suffixes;
  for (const auto& s : type.suffixes)
    suffixes.push_back(s.kind);
  const bool mutable_ = type.is_mutable();
  static const std::map<std::string_view, std::pair<std::string_view, std::string_view>> kValues = {
      {"int", {"int64_t", "long"}},
      {"SymInt", {"int64_t", "long"}},
      {"float", {"double", "double"}},
      {"bool", {"bool", "bool"}},
      {"str", {"c10::string_view", "c10::basic_string_view<char>"}},
      {"ScalarType", {"at::ScalarType", "c10::ScalarType"}},
      {"Layout", {"at::Layout", "c10::Layout"}},
      {"MemoryFormat", {"at::MemoryFormat", "c10::MemoryFormat"}},
      {"Device", {"at::Device", "c10::Device"}},
  };
  if (type.base == "Tensor") {
    if (suffixes.empty()) {
      if (is_return)
        return TorchType{mutable_ ? "at::Tensor&" : "at::Tensor", "at::Tensor"};
      return TorchType{mutable_ ? "at::Tensor&" : "const at::Tensor&", "at::Tensor"};
    }
    if (suffixes == std::vector{Kind::optional}) {
      return TorchType{"const c10::optional<at::Tensor>&", "c10::optional<at::Tensor>"};
    }
    if (suffixes == std::vector{Kind::list})
      return TorchType{"at::TensorList", "c10::ArrayRef<at::Tensor>"};
    if (suffixes == std::vector{Kind::optional, Kind::list}) {
      return TorchType{"const c10::List<c10::optional<at::Tensor>>&",
                       "c10::List<c10::optional<at::Tensor>>"};
    }
    return std::nullopt;
  }
  if (type.base == "Scalar") {
    if (suffixes.empty())
      return TorchType{is_return ? "at::Scalar" : "const at::Scalar&", "c10::Scalar"};
    if (suffixes == std::vector{Kind::optional}) {
      return TorchType{"const c10::optional<at::Scalar>&", "c10::optional<c10::Scalar>"};
    }
    return std::nullopt;
  }
  auto value = kValues.find(type.base);
  if (value == kValues.end())
    return std::nullopt;
  const std::string cpp(value->second.first), canonical(value->second.second);
  if (suffixes.empty())
    return TorchType{cpp, canonical};
  if (suffixes == std::vector{Kind::optional}) {
    return TorchType{"c10::optional<" + cpp + ">", "c10::optional<" + canonical + ">"};
  }
  if (suffixes == std::vector{Kind::list} && (type.base == "int" || type.base == "SymInt")) {
    return TorchType{"at::IntArrayRef", "c10::ArrayRef<long>"};
  }
  if (suffixes == std::vector{Kind::list} && type.base == "float") {
    return TorchType{"at::ArrayRef<double>", "c10::ArrayRef<double>"};
  }
  if (suffixes == std::vector{Kind::list, Kind::optional} &&
      (type.base == "int" || type.base == "SymInt")) {
    return TorchType{"at::OptionalIntArrayRef", "c10::OptionalArrayRef<long>"};
  }
  return std::nullopt;
}

// The dispatch keys a kernel may be registered under (c10::DispatchKey).
bool is_dispatch_key(std::string_view key) {
  static constexpr std::array<std::string_view, 38> kKeys = {
      "CPU",
      "CUDA",
      "HIP",
      "XLA",
      "MPS",
      "IPU",
      "XPU",
      "HPU",
      "VE",
      "Lazy",
      "Meta",
      "MTIA",
      "PrivateUse1",
      "PrivateUse2",
      "PrivateUse3",
      "QuantizedCPU",
      "QuantizedCUDA",
      "SparseCPU",
      "SparseCUDA",
      "SparseCsrCPU",
      "SparseCsrCUDA",
      "MkldnnCPU",
      "NestedTensorCPU",
      "NestedTensorCUDA",
      "BackendSelect",
      "Python",
      "Functionalize",
      "ADInplaceOrView",
      "AutogradCPU",
      "AutogradCUDA",
      "AutogradOther",
      "AutogradPrivateUse1",
      "Autograd",
      "CompositeImplicitAutograd",
      "CompositeExplicitAutograd",
      "CompositeExplicitAutogradNonFunctional",
      "AutocastCPU",
      "AutocastCUDA"};
  return std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end();
}

struct KernelCode {
  std::string wrapper;
  std::string declaration;
  std::string wrapper_name;
};

std::optional<KernelCode> kernel_code(const ir::Kernel& kernel, std::set<std::string>& taken,
                                      diag::Diagnostics& diags) {
  auto fail = [&](const std::string& message) {
    diags.push_back(diag::make_error("opscan-torch-unsupported", kernel.location,
                                     "kernel '" + kernel.cpp_function + "' (" + kernel.op.str() +
                                         "): " + message));
    return std::nullopt;
  };
  std::vector<std::string> ret_types;
  for (const ir::Return& r : kernel.returns) {
    auto parsed = schema::parse_type(r.schema_type);
    auto t = parsed ? torch_type(*parsed.value, true) : std::nullopt;
    if (!t)
      return fail("return type " + r.schema_type + " is not supported by the torch target");
    ret_types.push_back(t->cpp);
  }
  std::string ret = ret_types.empty() ? "void"
                    : ret_types.size() == 1
                        ? ret_types[0]
                        : fmt::format("std::tuple<{}>", fmt::join(ret_types, ", "));
  std::vector<std::string> params, args, declared;
  for (const ir::Argument& a : kernel.arguments) {
    auto parsed = schema::parse_type(a.schema_type);
    auto t = parsed ? torch_type(*parsed.value, false) : std::nullopt;
    if (!t)
      return fail("argument '" + a.name + "' of type " + a.schema_type +
                  " is not supported by the torch target");
    if (!t->canonical.empty() && bare_canonical(a.cpp_canonical_type) != normalized(t->canonical)) {
      return fail(fmt::format("parameter '{}' is '{}', but the dispatcher passes {} as {}", a.name,
                              a.cpp_type, a.schema_type, t->cpp));
    }
    std::string local = local_name(a.name);
    params.push_back(t->cpp + " " + local);
    args.push_back(local);
    declared.push_back(a.cpp_canonical_type + " " + local);
  }
  std::string name = wrapper_name(kernel, taken, "wrap_");

  // A kernel taking a DispatchKeySet first gets it from the dispatcher.
  std::string keys_param = kernel.has_context ? "c10::DispatchKeySet keys" : "";
  std::string all_params = keys_param;
  for (const auto& p : params)
    all_params += (all_params.empty() ? "" : ", ") + p;
  std::string call_args = kernel.has_context ? "keys" : "";
  for (const auto& a : args)
    call_args += (call_args.empty() ? "" : ", ") + a;

  KernelCode code;
  code.wrapper_name = name;
  code.wrapper = fmt::format("// {}\n{} {}({}) {{\n  return ::{}({});\n}}\n", kernel.schema, ret,
                             name, all_params, kernel.cpp_function, call_args);
  std::string decl_params = kernel.has_context ? "c10::DispatchKeySet keys" : "";
  for (const auto& d : declared)
    decl_params += (decl_params.empty() ? "" : ", ") + d;
  code.declaration =
      fmt::format("// {}\n{} {}({});\n", kernel.schema, kernel.cpp_canonical_return_type,
                  unqualified(kernel.cpp_function), decl_params);
  return code;
}

} // namespace

void generate_torch(const ir::Module& module, const Library& library, const Options& options,
                    Output& output) {
  std::vector<std::string> wrappers;
  std::map<std::string, std::string> declarations_by_namespace;
  // Schemas to define per operator namespace; impl lines per (namespace, key).
  std::map<std::string, std::vector<std::string>> defs;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> impls;
  std::set<std::string> taken;
  std::set<schema::OperatorName> defined;
  for (const ir::Kernel& kernel : module.kernels) {
    const std::string key =
        kernel.dispatch_key.empty() ? options.dispatch_key : kernel.dispatch_key;
    if (!is_dispatch_key(key)) {
      output.diagnostics.push_back(diag::make_error(
          "opscan-torch-dispatch-key", kernel.location,
          "kernel '" + kernel.cpp_function + "': '" + key +
              "' is not a dispatch key (e.g. CPU, CUDA, Meta, CompositeExplicitAutograd)"));
      continue;
    }
    auto code = kernel_code(kernel, taken, output.diagnostics);
    if (!code)
      continue;
    wrappers.push_back(code->wrapper);
    declarations_by_namespace[namespace_of(kernel.cpp_function)] += code->declaration;
    // aten's operators are defined by libtorch itself.
    if (kernel.op.ns != "aten" && defined.insert(kernel.op).second) {
      defs[kernel.op.ns].push_back(fmt::format("m.def({});", support::cpp_string_literal(kernel.schema)));
    }
    impls[{kernel.op.ns, key}].push_back(
        fmt::format("m.impl(\"{}\", TORCH_FN({}));", kernel.op.unqualified(), code->wrapper_name));
  }
  if (diag::has_errors(output.diagnostics))
    return;
  if (wrappers.empty()) {
    output.diagnostics.push_back(diag::make_error(
        "opscan-no-kernels", {},
        "no annotated kernels found: nothing to register (annotate kernels with OPSCAN_KERNEL)"));
    return;
  }
  for (size_t i = 0; i + 1 < wrappers.size(); ++i)
    wrappers[i] += "\n";

  auto indented = [](const std::vector<std::string>& lines, const char* indent) {
    std::string out;
    for (const auto& l : lines)
      out += indent + l + "\n";
    return out;
  };
  std::vector<std::string> blocks;
  if (library.registration_symbol.empty()) {
    for (const auto& [ns, lines] : defs) {
      blocks.push_back(
          fmt::format("TORCH_LIBRARY_FRAGMENT({}, m) {{\n{}}}", ns, indented(lines, "  ")));
    }
    for (const auto& [where, lines] : impls) {
      blocks.push_back(fmt::format("TORCH_LIBRARY_IMPL({}, {}, m) {{\n{}}}", where.first,
                                   where.second, indented(lines, "  ")));
    }
    // After a blank line (fmt, not operator+: GCC 12 -O3 warns falsely on it).
    blocks.push_back(fmt::format("\n{}", link_anchor_definition(library)));
  } else {
    std::string body;
    for (const auto& [ns, lines] : defs) {
      body += fmt::format("    {{\n      torch::Library& m = "
                          "*libraries.emplace_back(std::make_unique<torch::Library>(\n"
                          "          torch::Library::FRAGMENT, \"{}\", c10::nullopt, __FILE__, "
                          "__LINE__));\n{}    }}\n",
                          ns, indented(lines, "      "));
    }
    for (const auto& [where, lines] : impls) {
      body += fmt::format("    {{\n      torch::Library& m = "
                          "*libraries.emplace_back(std::make_unique<torch::Library>(\n"
                          "          torch::Library::IMPL, \"{}\", c10::DispatchKey::{}, __FILE__, "
                          "__LINE__));\n{}    }}\n",
                          where.first, where.second, indented(lines, "      "));
    }
    blocks.push_back(fmt::format(
        "void {}() {{\n"
        "  // Built on the first call and kept for the life of the program: a second\n"
        "  // call registers nothing again.\n"
        "  static const std::vector<std::unique_ptr<torch::Library>> registered = [] {{\n"
        "    std::vector<std::unique_ptr<torch::Library>> libraries;\n"
        "{}"
        "    return libraries;\n"
        "  }}();\n"
        "  (void)registered;\n"
        "}}",
        library.registration_symbol, body));
  }

  std::vector<std::string> declarations;
  for (const auto& [ns, decls] : declarations_by_namespace) {
    declarations.push_back(
        ns.empty() ? decls
                   : fmt::format("namespace {} {{\n\n{}\n}}  // namespace {}", ns, decls, ns));
  }
  std::string register_declaration =
      library.registration_symbol.empty()
          ? fmt::format(
                "// The kernels of library '{}' register themselves when the program loads\n"
                "// (static registration): there is nothing to call. Linking them from a\n"
                "// static archive needs -Wl,--undefined={}\n"
                "// (RegisterKernels.cpp defines it), or the linker drops them.",
                library.name, library.link_anchor)
          : fmt::format(
                "// Registers the {} kernels of library '{}' with PyTorch's dispatcher (and\n"
                "// defines the schemas of its own operator namespaces). Registers once,\n"
                "// however often it is called.\n"
                "void {}();",
                wrappers.size(), library.name, library.registration_symbol);
  if (!library.registration_symbol.empty())
    output.registration_function = library.registration_symbol;

  const std::string dir = library.name + "/";
  TemplateEnv common = {{"generator", options.generator}, {"library", library.name}};
  auto add = [&](const std::string& file, TemplateEnv env) {
    env.insert(common.begin(), common.end());
    if (auto text = render("torch/" + file, env, options, output.diagnostics)) {
      output.files.push_back({dir + file, std::move(*text)});
    }
  };
  auto guard = [&](std::string_view file) {
    return fmt::format("OPSCAN_GENERATED_{}_{}", library.name, file);
  };
  add("RegisterKernels.h",
      {{"include_guard", guard("REGISTER_KERNELS_H")}, {"declarations", register_declaration}});
  add("RegisterKernels.cpp", {{"wrappers", wrappers}, {"registration", blocks}});
  add("NativeFunctions.h",
      {{"include_guard", guard("NATIVE_FUNCTIONS_H")}, {"declarations", declarations}});
}

} // namespace opscan::emit
