// The ExecuTorch target: unboxing wrappers over EValue stacks and
// registration with ExecuTorch's kernel registry (REFERENCE.md §C).
#include "emit/target.h"

#include <fmt/format.h>
#include <map>
#include <set>

namespace opscan::emit {
namespace {

// How an argument of one schema type travels from the EValue stack to the
// kernel: its C++ type in ExecuTorch, the conversion of an EValue `v`, and
// the canonical C++ type libclang reports for a kernel taking it.
struct Conversion {
  std::string cpp_type;
  std::string convert; // with "{}" standing for "stack[i]->"
  std::string canonical;
};

std::string aten(std::string_view name) {
  return fmt::format("executorch::aten::{}", name);
}

// Canonical names libclang gives ExecuTorch's types; int64_t is long here.
std::string canonical_of(std::string_view base) {
  static const std::map<std::string_view, std::string_view> kNames = {
      {"Tensor", "executorch::runtime::etensor::Tensor"},
      {"Scalar", "executorch::runtime::etensor::Scalar"},
      {"ScalarType", "executorch::runtime::etensor::ScalarType"},
      {"MemoryFormat", "executorch::runtime::etensor::MemoryFormat"},
      {"Layout", "executorch::runtime::etensor::Layout"},
      {"Device", "executorch::runtime::etensor::Device"},
      {"int", "long"},
      {"SymInt", "long"},
      {"float", "double"},
      {"bool", "bool"},
      {"str", "std::basic_string_view<char>"},
  };
  auto it = kNames.find(base);
  return it == kNames.end() ? std::string() : std::string(it->second);
}

std::optional<Conversion> conversion_of(const schema::Type& type) {
  static const std::map<std::string_view, std::string_view> kValueTypes = {
      {"Tensor", "Tensor"},         {"Scalar", "Scalar"},
      {"ScalarType", "ScalarType"}, {"MemoryFormat", "MemoryFormat"},
      {"Layout", "Layout"},         {"Device", "Device"},
  };
  static const std::map<std::string_view, std::string_view> kBuiltin = {
      {"int", "int64_t"}, {"SymInt", "int64_t"},       {"float", "double"},
      {"bool", "bool"},   {"str", "std::string_view"},
  };
  std::string element;
  if (auto it = kValueTypes.find(type.base); it != kValueTypes.end()) {
    element = aten(it->second);
  } else if (auto b = kBuiltin.find(type.base); b != kBuiltin.end()) {
    element = std::string(b->second);
  } else {
    return std::nullopt;
  }
  std::string canonical = canonical_of(type.base);

  using Kind = schema::TypeSuffix::Kind;
  std::vector<Kind> suffixes;
  for (const auto& s : type.suffixes)
    suffixes.push_back(s.kind);
  auto optional_of = [](const std::string& t) { return "std::optional<" + t + ">"; };
  auto list_of = [](const std::string& t) { return aten("ArrayRef<" + t + ">"); };
  auto canonical_list_of = [](const std::string& t) {
    return "executorch::runtime::ArrayRef<" + t + ">";
  };

  if (suffixes.empty())
    return Conversion{element, "{}to<" + element + ">()", canonical};
  if (suffixes == std::vector{Kind::optional}) {
    return Conversion{optional_of(element), "{}toOptional<" + element + ">()",
                      optional_of(canonical)};
  }
  static const std::map<std::string_view, std::string_view> kListAccessor = {
      {"Tensor", "toTensorList"},
      {"int", "toIntList"},
      {"SymInt", "toIntList"},
      {"float", "toDoubleList"},
      {"bool", "toBoolList"}};
  auto accessor = kListAccessor.find(type.base);
  if (suffixes == std::vector{Kind::list} && accessor != kListAccessor.end()) {
    return Conversion{list_of(element), fmt::format("{{}}{}()", accessor->second),
                      canonical_list_of(canonical)};
  }
  if (suffixes == std::vector{Kind::list, Kind::optional} && accessor != kListAccessor.end() &&
      type.base != "Tensor") {
    return Conversion{optional_of(list_of(element)), "{}toOptional<" + list_of(element) + ">()",
                      optional_of(canonical_list_of(canonical))};
  }
  if (suffixes == std::vector{Kind::optional, Kind::list} && type.base == "Tensor") {
    return Conversion{list_of(optional_of(element)), "{}toListOptionalTensor()",
                      canonical_list_of(optional_of(canonical))};
  }
  return std::nullopt;
}

enum class Passing { value, const_ref, ref };

Passing passing_of(std::string_view canonical) {
  if (!canonical.ends_with('&'))
    return Passing::value;
  return canonical.starts_with("const ") ? Passing::const_ref : Passing::ref;
}

// The canonical type without its reference and top-level const, with
// "long long" spelled "long" (int64_t differs between platforms).
std::string bare_canonical(std::string canonical) {
  if (canonical.ends_with('&'))
    canonical.erase(canonical.find_last_not_of(" &") + 1);
  if (canonical.starts_with("const "))
    canonical.erase(0, 6);
  for (size_t at; (at = canonical.find("long long")) != std::string::npos;)
    canonical.replace(at, 9, "long");
  return canonical;
}

std::string declare(const std::string& cpp_type, Passing passing) {
  switch (passing) {
  case Passing::value:
    return cpp_type;
  case Passing::const_ref:
    return "const " + cpp_type + "&";
  case Passing::ref:
    return cpp_type + "&";
  }
  return cpp_type;
}

std::string return_type(const ir::Kernel& kernel, std::string& error) {
  std::vector<std::string> types;
  for (const ir::Return& r : kernel.returns) {
    auto type = schema::parse_type(r.schema_type);
    auto conv = type ? conversion_of(*type.value) : std::nullopt;
    if (!conv) {
      error = "return type " + r.schema_type + " is not supported by the ExecuTorch target";
      return {};
    }
    types.push_back(type.value->is_mutable() ? conv->cpp_type + "&" : conv->cpp_type);
  }
  if (types.empty())
    return "void";
  if (types.size() == 1)
    return types[0];
  return "std::tuple<" + fmt::format("{}", fmt::join(types, ", ")) + ">";
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
std::string wrapper_name(const ir::Kernel& kernel, std::set<std::string>& taken) {
  std::string base = kernel.op.ns + "_" + kernel.op.name +
                     (kernel.op.overload.empty() ? "" : "_" + kernel.op.overload);
  std::string name = base;
  for (int n = 2; !taken.insert(name).second; ++n)
    name = fmt::format("{}_{}", base, n);
  return name;
}

struct KernelCode {
  std::string wrapper;
  std::string entry;
  std::string declaration;
};

std::optional<KernelCode> kernel_code(const ir::Kernel& kernel, std::set<std::string>& taken,
                                      diag::Diagnostics& diags) {
  auto fail = [&](const std::string& message) {
    diags.push_back(diag::make_error("opscan-executorch-unsupported", kernel.location,
                                     "kernel '" + kernel.cpp_function + "' (" + kernel.op.str() +
                                         "): " + message));
    return std::nullopt;
  };
  if (!kernel.has_context) {
    return fail("ExecuTorch kernels take 'executorch::runtime::KernelRuntimeContext&' as their "
                "first parameter");
  }
  std::string error;
  std::string result_type = return_type(kernel, error);
  if (!error.empty())
    return fail(error);
  bool functional = !kernel.returns.empty();
  for (const ir::Return& r : kernel.returns)
    functional = functional && r.schema_type.find('!') == std::string::npos;
  if (functional && kernel.returns.size() > 1) {
    return fail(
        "returns several values: ExecuTorch has one return slot; write them to out tensors");
  }

  const size_t n = kernel.arguments.size();
  std::string body, params, call_args;
  std::optional<size_t> first_out;
  for (size_t i = 0; i < n; ++i) {
    const ir::Argument& arg = kernel.arguments[i];
    auto type = schema::parse_type(arg.schema_type);
    auto conv = type ? conversion_of(*type.value) : std::nullopt;
    if (!conv)
      return fail("argument '" + arg.name + "' of type " + arg.schema_type +
                  " is not supported by the ExecuTorch target");
    if (bare_canonical(arg.cpp_canonical_type) != conv->canonical) {
      return fail(fmt::format("parameter '{}' is '{}', but ExecuTorch passes {} as {}", arg.name,
                              arg.cpp_type, arg.schema_type, conv->cpp_type));
    }
    Passing passing = passing_of(arg.cpp_canonical_type);
    std::string local = local_name(arg.name);
    std::string value = fmt::format(fmt::runtime(conv->convert), fmt::format("stack[{}]->", i));
    if (type.value->is_mutable() && !first_out)
      first_out = i;
    // Tensors bind by reference to the stack's own value; other types are converted copies.
    std::string local_type =
        conv->cpp_type == aten("Tensor") ? declare(conv->cpp_type, passing) : conv->cpp_type;
    if (passing == Passing::const_ref && conv->cpp_type != aten("Tensor"))
      local_type = "const " + local_type;
    body += fmt::format("  {} {} = {};\n", local_type, local, value);
    params += fmt::format(", {} {}", declare(conv->cpp_type, passing), local);
    call_args += ", " + local;
  }

  std::string name = wrapper_name(kernel, taken);
  std::string call = fmt::format("::{}(context{})", kernel.cpp_function, call_args);
  std::string finish;
  if (functional) {
    finish =
        fmt::format("  {} result = {};\n  *stack[{}] = EValue(result);\n", result_type, call, n);
  } else if (kernel.returns.empty() && first_out) {
    finish =
        fmt::format("  {};\n  stack[{}] = stack[{}];  // the return slot shows the out argument\n",
                    call, n, *first_out);
  } else {
    finish = fmt::format("  {};\n", call);
  }

  KernelCode code;
  code.wrapper = fmt::format(
      "// {}\n"
      "void {}(KernelRuntimeContext& context, Span<EValue*> stack) {{\n"
      "  if (stack.size() != {}) {{\n"
      "    ET_LOG(Error, \"{}: expected {} values on the stack, got %zu\", stack.size());\n"
      "    context.fail(Error::InvalidProgram);\n"
      "    return;\n"
      "  }}\n"
      "{}{}}}\n",
      kernel.schema, name, n + 1, kernel.op.str(), n + 1, body, finish);
  code.entry = kernel.kernel_key.empty() ? fmt::format("Kernel(\"{}\", {}),", kernel.op.str(), name)
                                         : fmt::format("Kernel(\"{}\", \"{}\", {}),",
                                                       kernel.op.str(), kernel.kernel_key, name);
  code.declaration =
      fmt::format("// {}\n{} {}(executorch::runtime::KernelRuntimeContext& context{});\n",
                  kernel.schema, result_type, unqualified(kernel.cpp_function), params);
  return code;
}

std::string include_guard(const Library& library, std::string_view file) {
  return fmt::format("OPSCAN_GENERATED_{}_{}", library.name, file);
}

} // namespace

void generate_executorch(const ir::Module& module, const Library& library, const Options& options,
                         Output& output) {
  std::vector<std::string> wrappers, entries;
  std::map<std::string, std::string> declarations_by_namespace;
  std::set<std::string> taken;
  for (const ir::Kernel& kernel : module.kernels) {
    auto code = kernel_code(kernel, taken, output.diagnostics);
    if (!code)
      continue;
    wrappers.push_back(std::move(code->wrapper));
    entries.push_back(std::move(code->entry));
    declarations_by_namespace[namespace_of(kernel.cpp_function)] += code->declaration;
  }
  if (diag::has_errors(output.diagnostics))
    return;
  // A blank line between wrappers.
  for (size_t i = 0; i + 1 < wrappers.size(); ++i)
    wrappers[i] += "\n";
  if (entries.empty()) {
    output.diagnostics.push_back(diag::make_error(
        "opscan-no-kernels", {},
        "no annotated kernels found: nothing to register (annotate kernels with OPSCAN_KERNEL)"));
    return;
  }

  std::vector<std::string> declarations;
  for (const auto& [ns, decls] : declarations_by_namespace) {
    declarations.push_back(
        ns.empty() ? decls
                   : fmt::format("namespace {} {{\n\n{}\n}}  // namespace {}", ns, decls, ns));
  }

  std::string registration, register_declaration;
  const size_t count = entries.size();
  if (!library.registration_symbol.empty()) {
    output.registration_function = "torch::executor::" + library.registration_symbol;
  }
  if (library.registration_symbol.empty()) {
    registration = "namespace {\n"
                   "// Static registration: the kernels register when the program loads.\n"
                   "[[maybe_unused]] const Error kRegisteredAtLoad = register_library();\n"
                   "}  // namespace";
    register_declaration =
        fmt::format("// The {} kernels of library '{}' register themselves when the program loads\n"
                    "// (static registration): there is nothing to call.",
                    count, library.name);
  } else {
    registration =
        fmt::format("namespace torch::executor {{\n\n"
                    "::executorch::runtime::Error {}() {{\n  return register_library();\n}}\n\n"
                    "}}  // namespace torch::executor",
                    library.registration_symbol);
    register_declaration = fmt::format(
        "namespace torch::executor {{\n\n"
        "// Registers the {} kernels of library '{}' with ExecuTorch's kernel registry.\n"
        "// Registers none and returns Error::RegistrationAlreadyRegistered when any of\n"
        "// them is already registered.\n"
        "::executorch::runtime::Error {}();\n\n"
        "}}  // namespace torch::executor",
        count, library.name, library.registration_symbol);
  }

  const std::string dir = library.name + "/";
  TemplateEnv common = {{"generator", options.generator}, {"library", library.name}};
  auto add = [&](const std::string& file, TemplateEnv env) {
    env.insert(common.begin(), common.end());
    if (auto text = render("executorch/" + file, env, options, output.diagnostics)) {
      output.files.push_back({dir + file, std::move(*text)});
    }
  };
  add("RegisterKernels.h", {{"include_guard", include_guard(library, "REGISTER_KERNELS_H")},
                            {"declarations", register_declaration}});
  add("RegisterKernels.cpp",
      {{"wrappers", wrappers}, {"kernels", entries}, {"registration", registration}});
  add("NativeFunctions.h", {{"include_guard", include_guard(library, "NATIVE_FUNCTIONS_H")},
                            {"declarations", declarations}});
}

} // namespace opscan::emit
