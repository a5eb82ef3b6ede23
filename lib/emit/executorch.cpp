// The ExecuTorch target (REFERENCE.md §C): unboxing wrappers over EValue
// stacks and registration with ExecuTorch's kernel registry
// (RegisterKernels.*), the kernels' declarations (NativeFunctions.h), typed
// calls in the style of ExecuTorch's Functions.h, and the library's operators
// in ExecuTorch's selective-build format (selected_operators.yaml).
#include "emit/target.h"
#include "ident/ident.h"

#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <variant>

namespace opscan::emit {
namespace {

std::string aten(std::string_view name) {
  return fmt::format("executorch::aten::{}", name);
}

// A schema base type an EValue can carry: its C++ type in ExecuTorch, the
// canonical name libclang gives it (int64_t is long here), and the EValue
// accessor of a list of it, if EValue has lists of it.
struct Element {
  std::string cpp;
  std::string canonical;
  std::string list_accessor;
};

const Element* element_of(std::string_view base) {
  static const std::map<std::string_view, Element> kElements = {
      {"Tensor", {aten("Tensor"), "executorch::runtime::etensor::Tensor", "toTensorList"}},
      {"Scalar", {aten("Scalar"), "executorch::runtime::etensor::Scalar", ""}},
      {"ScalarType", {aten("ScalarType"), "executorch::runtime::etensor::ScalarType", ""}},
      {"MemoryFormat", {aten("MemoryFormat"), "executorch::runtime::etensor::MemoryFormat", ""}},
      {"Layout", {aten("Layout"), "executorch::runtime::etensor::Layout", ""}},
      {"Device", {aten("Device"), "executorch::runtime::etensor::Device", ""}},
      {"int", {"int64_t", "long", "toIntList"}},
      // ExecuTorch has no symbolic shapes: SymInt is int, as in its own generator.
      {"SymInt", {"int64_t", "long", "toIntList"}},
      {"float", {"double", "double", "toDoubleList"}},
      {"bool", {"bool", "bool", "toBoolList"}},
      {"str", {"std::string_view", "std::basic_string_view<char>", ""}},
  };
  auto it = kElements.find(base);
  return it == kElements.end() ? nullptr : &it->second;
}

// How an argument of one schema type travels from the EValue stack to the
// kernel: its C++ type in ExecuTorch, the EValue accessor that yields it, and
// the canonical C++ type libclang reports for a kernel taking it.
struct Conversion {
  std::string cpp_type;
  std::string accessor; // "to<int64_t>()", "toTensorList()", ...
  std::string canonical;
};

std::string optional_of(const std::string& t) {
  return "std::optional<" + t + ">";
}
std::string list_of(const std::string& t) {
  return aten("ArrayRef<" + t + ">");
}
std::string canonical_list_of(const std::string& t) {
  return "executorch::runtime::ArrayRef<" + t + ">";
}

// The conversion of an argument type, or why ExecuTorch cannot pass it. Only
// what the real EValue defines is generated: to<T>() for every value type and
// their optionals, the list accessors, toOptional<ArrayRef<T>>() for optional
// lists and toListOptionalTensor() for Tensor?[].
std::variant<Conversion, std::string> conversion_of(const schema::Type& type) {
  const Element* e = element_of(type.base);
  if (e == nullptr)
    return "ExecuTorch has no " + type.base + " type";
  using Kind = schema::TypeSuffix::Kind;
  std::vector<Kind> suffixes;
  for (const auto& s : type.suffixes)
    suffixes.push_back(s.kind);

  if (suffixes.empty())
    return Conversion{e->cpp, "to<" + e->cpp + ">()", e->canonical};
  if (suffixes == std::vector{Kind::optional}) {
    return Conversion{optional_of(e->cpp), "toOptional<" + e->cpp + ">()",
                      optional_of(e->canonical)};
  }
  if (suffixes == std::vector{Kind::list} || suffixes == std::vector{Kind::list, Kind::optional}) {
    if (e->list_accessor.empty())
      return "ExecuTorch has no list of " + type.base;
    if (suffixes.size() == 1) {
      return Conversion{list_of(e->cpp), e->list_accessor + "()", canonical_list_of(e->canonical)};
    }
    return Conversion{optional_of(list_of(e->cpp)), "toOptional<" + list_of(e->cpp) + ">()",
                      optional_of(canonical_list_of(e->canonical))};
  }
  if (suffixes == std::vector{Kind::optional, Kind::list}) {
    if (type.base != "Tensor")
      return "ExecuTorch has lists of optional Tensors only, not of optional " + type.base;
    return Conversion{list_of(optional_of(e->cpp)), "toListOptionalTensor()",
                      canonical_list_of(optional_of(e->canonical))};
  }
  return "ExecuTorch has no value of this shape (nested lists or optionals)";
}

// The C++ type of one return, or why the return slot cannot hold it.
struct ReturnConversion {
  std::string cpp_type;
  std::string canonical;
};

std::variant<ReturnConversion, std::string> return_conversion_of(const schema::Type& type) {
  const Element* e = element_of(type.base);
  if (e == nullptr)
    return "ExecuTorch has no " + type.base + " type";
  if (type.suffixes.empty() && type.base == "Tensor") {
    if (type.is_mutable())
      return ReturnConversion{e->cpp + "&", e->canonical + " &"};
    return ReturnConversion{e->cpp, e->canonical};
  }
  static const std::set<std::string_view> kValues = {"int", "SymInt", "float", "bool", "Scalar"};
  if (type.suffixes.empty() && kValues.contains(type.base))
    return ReturnConversion{e->cpp, e->canonical};
  return std::string("the return slot (an EValue) holds only a Tensor, int, float, bool or Scalar");
}

enum class Passing { value, const_ref, ref };

Passing passing_of(std::string_view canonical) {
  if (!canonical.ends_with('&'))
    return Passing::value;
  return canonical.starts_with("const ") ? Passing::const_ref : Passing::ref;
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

// Types in the headers, which open other namespaces (the kernels' own, and
// torch::executor::<operator namespace>), are qualified from the global
// namespace so a namespace named "executorch" there cannot capture them.
std::string global(const std::string& type) {
  static constexpr std::string_view kRoot = "executorch::";
  std::string out;
  size_t pos = 0;
  for (size_t at; (at = type.find(kRoot, pos)) != std::string::npos; pos = at + kRoot.size()) {
    out.append(type, pos, at - pos);
    char before = at == 0 ? ' ' : type[at - 1];
    // Only where a name starts: not "::executorch::" or "my_executorch::".
    if (before != ':' && before != '_' && !std::isalnum(static_cast<unsigned char>(before)))
      out += "::";
    out += kRoot;
  }
  out.append(type, pos);
  return out;
}

// Everything generated for one kernel.
struct KernelCode {
  std::string wrapper;     // RegisterKernels.cpp
  std::string entry;       // the kernel table
  std::string declaration; // NativeFunctions.h
  std::string result_type; // header spelling, e.g. "::executorch::aten::Tensor&"
  std::string params;      // header spelling, ", const ::executorch::aten::Tensor& self, ..."
  std::string call_args;   // ", self, ..."
  std::vector<std::string> param_types; // header spelling, to tell overloads apart
  bool is_out = false;                  // has out arguments (kwarg-only, mutable)
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

  // Returns: none, one value (functional), or references to out arguments.
  std::vector<std::string> result_types, result_canonicals;
  size_t mutable_returns = 0;
  for (const ir::Return& r : kernel.returns) {
    auto type = schema::parse_type(r.schema_type);
    if (!type)
      return fail("return type " + r.schema_type + " does not parse");
    auto conv = return_conversion_of(*type.value);
    if (const auto* why = std::get_if<std::string>(&conv)) {
      return fail("return type " + r.schema_type +
                  " is not supported by the ExecuTorch target: " + *why);
    }
    const auto& c = std::get<ReturnConversion>(conv);
    result_types.push_back(c.cpp_type);
    result_canonicals.push_back(c.canonical);
    mutable_returns += type.value->is_mutable() ? 1 : 0;
  }
  const bool functional = !kernel.returns.empty() && mutable_returns == 0;
  if (mutable_returns != 0 && mutable_returns != kernel.returns.size())
    return fail("mixes mutable and immutable returns, which ExecuTorch cannot return");
  if (functional && kernel.returns.size() > 1) {
    return fail(fmt::format("returns {} values: ExecuTorch has one return slot; write them to out "
                            "tensors instead",
                            kernel.returns.size()));
  }
  std::string result_type = "void", result_canonical = "void";
  if (result_types.size() == 1) {
    result_type = result_types[0];
    result_canonical = result_canonicals[0];
  } else if (result_types.size() > 1) {
    result_type = fmt::format("std::tuple<{}>", fmt::join(result_types, ", "));
    result_canonical = fmt::format("std::tuple<{}>", fmt::join(result_canonicals, ", "));
  }
  // The declaration in NativeFunctions.h must match the kernel's own.
  if (!kernel.cpp_canonical_return_type.empty() &&
      normalized(kernel.cpp_canonical_return_type) != normalized(result_canonical)) {
    return fail(fmt::format("returns '{}', but ExecuTorch expects {} for the return{} {}",
                            kernel.cpp_return_type, result_type,
                            kernel.returns.size() == 1 ? "" : "s",
                            kernel.schema.substr(kernel.schema.rfind("->") + 3)));
  }

  const size_t n = kernel.arguments.size();
  KernelCode code;
  code.result_type = global(result_type);
  std::string body;
  std::optional<size_t> first_out;
  for (size_t i = 0; i < n; ++i) {
    const ir::Argument& arg = kernel.arguments[i];
    auto type = schema::parse_type(arg.schema_type);
    if (!type)
      return fail("argument '" + arg.name + "' has type " + arg.schema_type +
                  ", which does not parse");
    auto converted = conversion_of(*type.value);
    if (const auto* why = std::get_if<std::string>(&converted)) {
      return fail("argument '" + arg.name + "' of type " + arg.schema_type +
                  " is not supported by the ExecuTorch target: " + *why);
    }
    const auto& conv = std::get<Conversion>(converted);
    if (bare_canonical(arg.cpp_canonical_type) != normalized(conv.canonical)) {
      return fail(fmt::format("parameter '{}' is '{}', but ExecuTorch passes {} as {}", arg.name,
                              arg.cpp_type, arg.schema_type, conv.cpp_type));
    }
    const Passing passing = passing_of(arg.cpp_canonical_type);
    const std::string local = local_name(arg.name);
    if (arg.kwarg_only && type.value->is_mutable() && !first_out)
      first_out = i;
    code.is_out = code.is_out || (arg.kwarg_only && type.value->is_mutable());
    // A tensor binds by reference to the value on the stack; everything else
    // (optional tensors too) is a converted copy, non-const when the kernel
    // takes a non-const reference (Tensor(a!)?: it writes through the tensor
    // handle, which shares its data with the value on the stack).
    static const std::string kTensor = aten("Tensor");
    const bool tensor = conv.cpp_type == kTensor;
    std::string local_type = tensor ? declare(conv.cpp_type, passing) : conv.cpp_type;
    if (!tensor && passing == Passing::const_ref)
      local_type = "const " + local_type;
    body += fmt::format("  {} {} = stack[{}]->{};\n", local_type, local, i, conv.accessor);
    const std::string param_type = declare(global(conv.cpp_type), passing);
    code.param_types.push_back(param_type);
    code.params += fmt::format(", {} {}", param_type, local);
    code.call_args += ", " + local;
  }

  std::string name = wrapper_name(kernel, taken, "");
  std::string call = fmt::format("::{}(context{})", kernel.cpp_function, code.call_args);
  std::string finish;
  if (functional) {
    finish =
        fmt::format("  {} result = {};\n  *stack[{}] = EValue(result);\n", result_type, call, n);
  } else if (kernel.returns.empty() && first_out) {
    // As ExecuTorch's own wrappers do for out variants that return nothing.
    finish =
        fmt::format("  {};\n  stack[{}] = stack[{}];  // the return slot shows the out argument\n",
                    call, n, *first_out);
  } else {
    finish = fmt::format("  {};\n", call);
  }

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
      fmt::format("// {}\n{} {}(::executorch::runtime::KernelRuntimeContext& context{});\n",
                  kernel.schema, code.result_type, unqualified(kernel.cpp_function), code.params);
  return code;
}

// A blank line between the items of a block placeholder (which ignores one
// trailing newline of an item).
void separate_blocks(std::vector<std::string>& items) {
  for (size_t i = 0; i + 1 < items.size(); ++i)
    items[i] += items[i].ends_with('\n') ? "\n" : "\n\n";
}

// Functions.h: one typed call per operator with a fallback kernel, named as
// ExecuTorch names them (torchgen's C++ API name with faithful out names):
// the operator's name, plus "_outf" for out variants; overloads share the
// name and differ in their parameters.
class TypedCalls {
public:
  void add(const ir::Kernel& kernel, const KernelCode& code, diag::Diagnostics& diags) {
    if (!kernel.kernel_key.empty()) {
      // Kernels are in canonical order, so an operator's fallback comes first.
      if (seen_.insert(kernel.op.str()).second) {
        blocks_[kernel.op.ns].push_back(fmt::format(
            "// {}: no typed call: its kernels are all dtype-specialised (kernel keys), and a "
            "typed call needs a fallback kernel.\n",
            kernel.op.str()));
      }
      return;
    }
    seen_.insert(kernel.op.str());
    const std::string name = kernel.op.name + (code.is_out ? "_outf" : "");
    const std::string qualified = "torch::executor::" + kernel.op.ns + "::" + name;
    auto skip = [&](const std::string& why) {
      diags.push_back(diag::make_warning(
          "opscan-functions-skipped", kernel.location,
          fmt::format("no typed call in Functions.h for {}: {}", kernel.op.str(), why)));
      blocks_[kernel.op.ns].push_back(
          fmt::format("// {}: no typed call: {}\n", kernel.op.str(), why));
    };
    if (!ident::is_valid_identifier(kernel.op.ns) || !ident::is_valid_identifier(name))
      return skip(qualified + " is not a valid C++ name");
    if (kernel.cpp_function == qualified)
      return skip("the kernel itself is " + qualified);
    std::string signature = fmt::format("{}({})", qualified, fmt::join(code.param_types, ", "));
    auto [it, inserted] = signatures_.emplace(signature, kernel.op.str());
    if (!inserted) {
      return skip(fmt::format("it would be {}({}), the typed call of {}", qualified,
                              fmt::join(code.param_types, ", "), it->second));
    }
    blocks_[kernel.op.ns].push_back(
        fmt::format("// {}\n"
                    "inline {} {}(::executorch::runtime::KernelRuntimeContext& context{}) {{\n"
                    "  {}::{}(context{});\n"
                    "}}\n",
                    kernel.schema, code.result_type, name, code.params,
                    kernel.returns.empty() ? "" : "return ", kernel.cpp_function, code.call_args));
  }

  // One namespace block per operator namespace, its calls separated by
  // blank lines.
  std::vector<std::string> render() const {
    std::vector<std::string> out;
    for (const auto& [ns, calls] : blocks_) {
      out.push_back(fmt::format("namespace torch::executor::{} {{\n\n{}\n}}  // namespace "
                                "torch::executor::{}",
                                ns, fmt::join(calls, "\n"), ns));
    }
    separate_blocks(out);
    return out;
  }

private:
  std::map<std::string, std::vector<std::string>> blocks_;
  std::map<std::string, std::string> signatures_; // typed call -> operator
  std::set<std::string> seen_;                    // operators already given a call or a comment
};

// A YAML scalar: plain when YAML reads it back as the same string, else
// single-quoted. `in_flow`: inside [...], where ",[]{}" end a plain scalar.
std::string yaml_scalar(std::string_view s, bool in_flow) {
  static constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@` ";
  static const std::set<std::string_view> kReserved = {"true", "false", "yes", "no", "on",
                                                       "off",  "null",  "y",   "n",  "~"};
  std::string lower;
  for (char c : s)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool plain = !s.empty() && kIndicators.find(s.front()) == std::string_view::npos &&
               !std::isdigit(static_cast<unsigned char>(s.front())) && s.front() != '.' &&
               s.back() != ' ' && s.back() != ':' && s.find(": ") == std::string_view::npos &&
               s.find(" #") == std::string_view::npos && !kReserved.contains(lower);
  for (char c : s) {
    bool control = static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    if (control || (in_flow && std::string_view(",[]{}").find(c) != std::string_view::npos))
      plain = false;
  }
  if (plain)
    return std::string(s);
  std::string quoted = "'";
  for (char c : s)
    quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

// selected_operators.yaml: every operator of the library is a root operator,
// with its kernel keys ("default" for the fallback kernel), in the order of
// ExecuTorch's own tools (operators by name, keys sorted).
std::pair<std::vector<std::string>, std::vector<std::string>>
selected_operators(const ir::Module& module) {
  std::map<std::string, std::set<std::string>> keys;
  for (const ir::Kernel& k : module.kernels)
    keys[k.op.str()].insert(k.kernel_key.empty() ? "default" : k.kernel_key);
  std::vector<std::string> operators, metadata;
  for (const auto& [op, op_keys] : keys) {
    operators.push_back(yaml_scalar(op, false) + ":\n"
                                                 "  is_root_operator: true\n"
                                                 "  is_used_for_training: true\n"
                                                 "  include_all_overloads: false\n"
                                                 "  debug_info: []");
    std::vector<std::string> quoted;
    for (const std::string& key : op_keys)
      quoted.push_back(yaml_scalar(key, true));
    metadata.push_back(fmt::format("{}: [{}]", yaml_scalar(op, false), fmt::join(quoted, ", ")));
  }
  return {operators, metadata};
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
  TypedCalls calls;
  for (const ir::Kernel& kernel : module.kernels) {
    auto code = kernel_code(kernel, taken, output.diagnostics);
    if (!code)
      continue;
    wrappers.push_back(std::move(code->wrapper));
    entries.push_back(std::move(code->entry));
    declarations_by_namespace[namespace_of(kernel.cpp_function)] += code->declaration;
    calls.add(kernel, *code, output.diagnostics);
  }
  if (diag::has_errors(output.diagnostics))
    return;
  separate_blocks(wrappers);
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
  separate_blocks(declarations);

  std::string registration, register_declaration;
  const size_t count = entries.size();
  if (!library.registration_symbol.empty()) {
    output.registration_function = "torch::executor::" + library.registration_symbol;
  }
  if (library.registration_symbol.empty()) {
    registration = "namespace {\n"
                   "// Static registration: the kernels register when the program loads.\n"
                   "[[maybe_unused]] const Error kRegisteredAtLoad = register_library();\n"
                   "}  // namespace\n\n" +
                   link_anchor_definition(library);
    register_declaration =
        fmt::format("// The {} kernels of library '{}' register themselves when the program loads\n"
                    "// (static registration): there is nothing to call. Linking them from a\n"
                    "// static archive needs -Wl,--undefined={}\n"
                    "// (RegisterKernels.cpp defines it), or the linker drops them.",
                    count, library.name, library.link_anchor);
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

  auto [operators, kernel_metadata] = selected_operators(module);
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
  add("Functions.h",
      {{"include_guard", include_guard(library, "FUNCTIONS_H")}, {"functions", calls.render()}});
  add("selected_operators.yaml",
      {{"operators", operators}, {"et_kernel_metadata", kernel_metadata}});
}

} // namespace opscan::emit
