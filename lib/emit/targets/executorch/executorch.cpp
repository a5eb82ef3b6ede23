// The ExecuTorch target: unboxing wrappers over EValue stacks and
// registration with ExecuTorch's kernel registry (RegisterKernels.*), the
// kernels' declarations (NativeFunctions.h), typed calls in the style of
// ExecuTorch's Functions.h, and the library's operators in ExecuTorch's
// selective-build format (selected_operators.yaml) with the registry size
// it needs (kernel_count/.../selected_max_kernel_num.h). A kernel is
// registered under its operator and kernel key.
#include "emit/cpp.h"
#include "emit/targets/executorch/conversions.h"
#include "emit/generate.h"
#include "emit/target.h"
#include "executorch/kernel_key.h"
#include "executorch/runtime.h"
#include "ident/ident.h"
#include "support/cpp_literal.h"

#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <memory>
#include <set>
#include <variant>

namespace opscan::emit {
namespace executorch {
namespace {

using ::opscan::executorch::kKernelKeyField;

// ExecuTorch's name for the macro that selects a prim op, as its
// codegen/tools/gen_selected_prim_ops.py makes it: "::" and "." become "_",
// runs of "_" one, all upper case, after "INCLUDE_"
// ("aten::_local_scalar_dense" -> INCLUDE_ATEN_LOCAL_SCALAR_DENSE).
std::string prim_op_macro(std::string_view op) {
  std::string name;
  for (char c : op) {
    const char m =
        c == ':' || c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (m != '_' || name.empty() || name.back() != '_')
      name += m;
  }
  return "INCLUDE_" + name;
}

// selected_prim_ops.h, which ExecuTorch's register_prim_ops.cpp reads in a
// selective build: one #define per prim op, sorted (a define once).
TemplatedFile selected_prim_ops(const std::vector<std::string>& prim_ops) {
  std::set<std::string> macros;
  for (const std::string& op : prim_ops)
    macros.insert(prim_op_macro(op));
  std::vector<std::string> defines;
  for (const std::string& macro : macros)
    defines.push_back("#define " + macro);
  return {"selected_prim_ops.h",
          OutputKind::header,
          {{"defines", defines}, {"prim_op_count", std::to_string(defines.size())}}};
}

// Everything generated for one kernel.
struct KernelCode {
  std::string wrapper;                  // RegisterKernels.cpp
  std::string entry;                    // the kernel table
  std::string declaration;              // NativeFunctions.h
  std::string result_type;              // e.g. "::executorch::aten::Tensor&"
  std::string params;                   // ", const ::executorch::aten::Tensor& self, ..."
  std::string call_args;                // ", self, ..."
  std::vector<std::string> param_types; // to tell overloads apart
  bool is_out = false;                  // has out arguments (kwarg-only, mutable)
  std::string schema_comment;           // "// ns::op(...) -> ..."
  std::string source;                   // its entry of KernelSources.cpp: "\"k.cpp:12\","
};

// Where a kernel was written, as messages of the generated code name it:
// "kernels/op_add.cpp:12" (the path as the scan recorded it).
std::string source_of(const ir::Kernel& kernel) {
  return fmt::format("{}:{}", kernel.location.file, kernel.location.line);
}

// Where ExecuTorch declares what it defines per mode (the registry, the
// context, the event tracer's hooks): executorch::ET_RUNTIME_NAMESPACE,
// which is runtime, or runtime::aten in ATen mode. Portable code names
// executorch::runtime, which ExecuTorch releases older than the macro have.
std::string runtime_namespace(const Options& options) {
  return options.aten_mode ? "::executorch::ET_RUNTIME_NAMESPACE" : "::executorch::runtime";
}

// A canonical type ExecuTorch passes, as a kernel compiled in the mode of
// `options` sees it.
std::string in_mode(const std::string& canonical, const Options& options) {
  return options.aten_mode ? aten_mode_canonical(canonical) : canonical;
}

// The function the exception boundary's handlers call (exception_handler()).
constexpr const char* kExceptionHandler = "fail_on_exception";

// Named mode: the function that returns the library's kernel table without
// registering it, named like its registration function and like the
// runtime's get_registered_kernels().
std::string kernel_table_function(const LibrarySpec& library) {
  return "get_" + library.name + "_kernels";
}

// The table of those, in KernelSources.cpp, in torch::executor (where the
// library's registration function is): named after the library, as two
// libraries in one program have two names.
std::string kernel_sources_symbol(const LibrarySpec& library) {
  return "opscan_kernel_sources_" + library.name;
}

// What a kernel returns as ExecuTorch sees it: its C++ result type, its out
// arguments, and whether the return slot holds the returned value.
struct ResultShape {
  std::string type = "void", canonical = "void";
  std::vector<size_t> outs; // keyword-only written arguments
  bool returns_result = false;
};

// Returns: none, one value (functional), or references to out arguments.
// The return slot shows the result: the first out argument when the kernel
// returns nothing, the returned value when it has no out arguments
// (functional and in-place kernels), nothing more when it has both (the
// outs are the result).
std::variant<ResultShape, Refusal> result_shape(const ir::Kernel& kernel, const Options& options) {
  std::vector<std::string> types, canonicals;
  size_t mutable_returns = 0;
  for (size_t i = 0; i < kernel.returns.size(); ++i) {
    const schema::Type& type = kernel.returns[i].type;
    auto conv = return_conversion_of(type);
    if (const auto* why = std::get_if<std::string>(&conv)) {
      return Refusal{fmt::format("returns[{}].schema_type", i),
                     "return type " + type.str() +
                         " is not supported by the ExecuTorch target: " + *why};
    }
    const auto& c = std::get<ReturnConversion>(conv);
    types.push_back(c.cpp_type);
    canonicals.push_back(in_mode(c.canonical, options));
    mutable_returns += type.is_mutable() ? 1 : 0;
  }
  if (mutable_returns != 0 && mutable_returns != kernel.returns.size())
    return Refusal{"returns", "mixes mutable and immutable returns, which ExecuTorch cannot "
                              "return"};
  ResultShape shape;
  for (size_t i = 0; i < kernel.arguments.size(); ++i) {
    const schema::Argument& a = kernel.arguments[i].schema;
    if (a.kwarg_only && a.type.is_mutable())
      shape.outs.push_back(i);
  }
  if (kernel.returns.empty() && shape.outs.empty()) {
    return Refusal{"returns", "returns nothing and has no out arguments, so a program has no "
                              "result of it: ExecuTorch runs only operators with a result"};
  }
  shape.returns_result = !kernel.returns.empty() && shape.outs.empty();
  if (shape.returns_result && kernel.returns.size() > 1) {
    return Refusal{"returns", fmt::format("returns {} values: ExecuTorch has one return slot; "
                                          "write them to out tensors instead",
                                          kernel.returns.size())};
  }
  if (types.size() == 1) {
    shape.type = types[0];
    shape.canonical = canonicals[0];
  } else if (types.size() > 1) {
    shape.type = fmt::format("::std::tuple<{}>", fmt::join(types, ", "));
    shape.canonical = fmt::format("std::tuple<{}>", fmt::join(canonicals, ", "));
  }
  // The declaration in NativeFunctions.h must match the kernel's own.
  if (normalized(in_mode(kernel.cpp_canonical_return_type, options)) !=
      normalized(shape.canonical)) {
    std::string schema = kernel.schema().str();
    return Refusal{"cpp_canonical_return_type",
                   fmt::format("returns '{}', but ExecuTorch{} expects {} for the return{} {}",
                               kernel.cpp_return_type, options.aten_mode ? "'s ATen mode" : "",
                               shape.type, kernel.returns.size() == 1 ? "" : "s",
                               schema.substr(schema.rfind("->") + 3))};
  }
  return shape;
}

// The wrapper's locals, one per argument read from the stack (its body's
// first lines), and the parameters and call arguments they make in `code`;
// or why an argument cannot be passed.
std::variant<std::string, Refusal> unboxed_arguments(const ir::Kernel& kernel,
                                                     const Options& options, KernelCode& code) {
  // The body names these after declaring the locals: no local may hide them
  // (nor, with the exception boundary, the handler it calls).
  const std::vector<std::string> locals =
      options.exception_boundary
          ? local_names(kernel,
                        {"context", "stack", "result", "event_tracer_op_scope", kExceptionHandler})
          : local_names(kernel, {"context", "stack", "result", "event_tracer_op_scope"});
  std::string body;
  for (size_t i = 0; i < kernel.arguments.size(); ++i) {
    const ir::Argument& arg = kernel.arguments[i];
    const schema::Type& type = arg.schema.type;
    auto converted = conversion_of(type);
    if (const auto* why = std::get_if<std::string>(&converted)) {
      return Refusal{fmt::format("arguments[{}].schema_type", i),
                     "argument '" + arg.schema.name + "' of type " + type.str() +
                         " is not supported by the ExecuTorch target: " + *why};
    }
    const auto& conv = std::get<Conversion>(converted);
    const std::string expected = normalized(in_mode(conv.canonical, options));
    if (bare_canonical(in_mode(arg.cpp_canonical_type, options)) != expected) {
      return Refusal{fmt::format("arguments[{}].cpp_canonical_type", i),
                     options.aten_mode
                         ? fmt::format("parameter '{}' is '{}', but ExecuTorch's ATen mode passes "
                                       "{} as {} ({})",
                                       arg.schema.name, arg.cpp_type, type.str(), conv.cpp_type,
                                       expected)
                         : fmt::format("parameter '{}' is '{}', but ExecuTorch passes {} as {}",
                                       arg.schema.name, arg.cpp_type, type.str(), conv.cpp_type)};
    }
    const Passing passing = passing_of(arg.cpp_canonical_type);
    const std::string& local = locals[i];
    // A tensor binds by reference to the value on the stack; everything else
    // (optional tensors too) is a converted copy, non-const when the kernel
    // takes a non-const reference (Tensor(a!)?: it writes through the tensor
    // handle, which shares its data with the value on the stack).
    const bool tensor = conv.cpp_type == aten("Tensor");
    std::string local_type = tensor ? declare(conv.cpp_type, passing) : conv.cpp_type;
    if (!tensor && passing == Passing::const_ref)
      local_type = "const " + local_type;
    body += fmt::format("  {} {} = stack[{}]->{};\n", local_type, local, i, conv.accessor);
    const std::string param_type = declare(conv.cpp_type, passing);
    code.param_types.push_back(param_type);
    code.params += fmt::format(", {} {}", param_type, local);
    code.call_args += ", " + local;
  }
  return body;
}

// The wrapper's last lines: the call, the result in its slot, and (with
// profiling) the profiler scope and the event tracer's record of each
// result slot, as ExecuTorch's own wrappers do.
std::string call_and_result(const ir::Kernel& kernel, const ResultShape& shape,
                            const KernelCode& code, const Options& options) {
  const size_t n = kernel.arguments.size();
  const std::string call = fmt::format("::{}(context{})", kernel.cpp_function, code.call_args);
  std::string finish;
  std::vector<size_t> results; // the stack slots that hold the result
  if (shape.returns_result) {
    finish =
        fmt::format("  {} result = {};\n  *stack[{}] = ::executorch::runtime::EValue(result);\n",
                    shape.type, call, n);
    results = {n};
  } else if (kernel.returns.empty()) {
    finish =
        fmt::format("  {};\n  stack[{}] = stack[{}];  // the return slot shows the out argument\n",
                    call, n, shape.outs.front());
    results = {n};
  } else {
    finish = fmt::format("  {};\n", call);
    results = shape.outs;
  }
  if (!options.profiling)
    return finish;
  const std::string event =
      support::cpp_string_literal("native_call_" + kernel.op.name +
                                  (kernel.op.overload.empty() ? "" : ".") + kernel.op.overload);
  std::string logged;
  const std::string runtime = runtime_namespace(options);
  for (size_t slot : results) {
    logged += fmt::format("  {}::internal::event_tracer_log_evalue(\n"
                          "      context.internal_event_tracer(), *stack[{}]);\n",
                          runtime, slot);
  }
  return fmt::format("  {}::internal::EventTracerProfileOpScope "
                     "event_tracer_op_scope(\n"
                     "      context.internal_event_tracer(), {});\n"
                     "  EXECUTORCH_SCOPE_PROF({});\n{}{}",
                     runtime, event, event, finish, logged);
}

// With the exception boundary, `finish` (the call and what follows it) in a
// try block whose handler turns an exception into a failed call, as
// ExecuTorch's generator does with --add-exception-boundary (the same
// error, Internal; only exceptions derived from std::exception, as there).
// The argument checks before it abort or fail the call on their own. The
// handler's body is one function (kExceptionHandler) for all wrappers.
std::string with_exception_boundary(const std::string& finish, const std::string& op_literal,
                                    size_t index) {
  std::string indented;
  for (size_t at = 0; at < finish.size();) {
    const size_t end = finish.find('\n', at);
    indented += "  " + finish.substr(at, end - at + 1);
    at = end + 1;
  }
  return fmt::format("  try {{\n"
                     "{}"
                     "  }} catch (const ::std::exception& exception) {{\n"
                     "    {}(context, {}, {}, exception);\n"
                     "  }}\n",
                     indented, kExceptionHandler, op_literal, index);
}

// Its definition, before the wrappers.
std::string exception_handler() {
  return fmt::format(
      "// The exception boundary's handler: logs what kernel `index` of operator\n"
      "// `op` threw and fails the call with Internal, as ExecuTorch's generator does.\n"
      "void {}(KernelRuntimeContext& context, const char* op, std::size_t index,\n"
      "{}const ::std::exception& exception) {{\n"
      "  ET_LOG(Error, \"%s (kernel %s, library '%s') threw an exception: %s\", op,\n"
      "         kKernelSources[index], kLibrary, exception.what());\n"
      "  context.fail(Error::Internal);\n"
      "}}\n",
      kExceptionHandler,
      std::string(std::string_view("void (").size() + std::string_view(kExceptionHandler).size(),
                  ' '));
}

// What ExecuTorch generates for `kernel`, or why it cannot. `taken` holds
// the wrapper names given so far; `index` is the kernel's place in the
// kernel table, and so in the sources table its messages read.
std::variant<KernelCode, Refusal> kernel_code(const ir::Kernel& kernel, const Options& options,
                                              std::set<std::string>& taken, size_t index) {
  if (kernel.context != ir::ContextKind::runtime_context) {
    return Refusal{"context", "ExecuTorch kernels take "
                              "'executorch::runtime::KernelRuntimeContext&' as their first "
                              "parameter"};
  }
  auto shaped = result_shape(kernel, options);
  if (auto* refusal = std::get_if<Refusal>(&shaped))
    return std::move(*refusal);
  const ResultShape& shape = std::get<ResultShape>(shaped);
  KernelCode code;
  code.result_type = shape.type;
  code.is_out = !shape.outs.empty();
  auto unboxed = unboxed_arguments(kernel, options, code);
  if (auto* refusal = std::get_if<Refusal>(&unboxed))
    return std::move(*refusal);
  const std::string& body = std::get<std::string>(unboxed);

  const size_t n = kernel.arguments.size();
  const std::string name = helper_name(kernel, taken, "");
  code.schema_comment = support::cpp_comment(kernel.schema().str());
  const std::string& schema_comment = code.schema_comment;
  const std::string op_literal = support::cpp_string_literal(kernel.op.str());
  code.source = support::cpp_string_literal(source_of(kernel)) + ",";
  // The wrapper names its kernel's source by index: the file:line itself is
  // in KernelSources.cpp, so an edit that moves lines changes that file only.
  const std::string source = fmt::format("kKernelSources[{}]", index);
  std::string finish = call_and_result(kernel, shape, code, options);
  if (options.exception_boundary)
    finish = with_exception_boundary(finish, op_literal, index);
  code.wrapper = fmt::format("{}\n"
                             "void {}(KernelRuntimeContext& context, Span<EValue*> stack) {{\n"
                             "  if (stack.size() != {}) {{\n"
                             "    ET_LOG(Error, \"%s (kernel %s, library '%s'): expected {} values "
                             "on the stack, got %zu\",\n"
                             "           {}, {}, kLibrary, stack.size());\n"
                             "    context.fail(Error::InvalidProgram);\n"
                             "    return;\n"
                             "  }}\n"
                             "{}{}}}\n",
                             schema_comment, name, n + 1, n + 1, op_literal, source, body, finish);
  const std::string key(kernel.field(kKernelKeyField));
  code.entry = key.empty() ? fmt::format("Kernel({}, {}),", op_literal, name)
                           : fmt::format("Kernel({}, {}, {}),", op_literal,
                                         support::cpp_string_literal(key), name);
  code.declaration =
      fmt::format("{}\n{}\n", schema_comment,
                  function_declaration(kernel, code.result_type,
                                       fmt::format("{}({}::KernelRuntimeContext& context{})",
                                                   unqualified(kernel.cpp_function),
                                                   runtime_namespace(options), code.params)));
  return code;
}

// Functions.h: one typed call per operator with a fallback kernel, named as
// ExecuTorch names them (torchgen's C++ API name with faithful out names):
// the operator's name, plus "_outf" for out variants; overloads share the
// name and differ in their parameters.
class TypedCalls {
public:
  // `runtime`: where the context is (runtime_namespace()).
  explicit TypedCalls(std::string runtime) : runtime_(std::move(runtime)) {}

  void add(const ir::Kernel& kernel, const KernelCode& code, diag::Diagnostics& diags) {
    if (!kernel.field(kKernelKeyField).empty()) {
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
    // Both are declared inside torch::executor, not at global scope, where
    // alone a leading '_' is reserved (as in "_softmax_outf").
    if (!ident::is_valid_identifier(kernel.op.ns, ident::Scope::local) ||
        !ident::is_valid_identifier(name, ident::Scope::local))
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
        fmt::format("{}\n"
                    "inline {} {}({}::KernelRuntimeContext& context{}) {{\n"
                    "  {}::{}(context{});\n"
                    "}}\n",
                    code.schema_comment, code.result_type, name, runtime_, code.params,
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
  std::string runtime_;
  std::map<std::string, std::vector<std::string>> blocks_;
  std::map<std::string, std::string> signatures_; // typed call -> operator
  std::set<std::string> seen_;                    // operators already given a call or a comment
};

// A YAML scalar: plain when YAML reads it back as the same string, else
// single-quoted. `in_flow`: inside [...], where ",[]{}" end a plain scalar.
// (Operator names and kernel keys are validated: no control characters.)
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
    if (in_flow && std::string_view(",[]{}").find(c) != std::string_view::npos)
      plain = false;
  }
  if (plain)
    return std::string(s);
  std::string quoted = "'";
  for (char c : s)
    quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

// A mapping entry `key: value` YAML reads back for any key: an implicit key
// is at most 1,024 characters (YAML 1.2; yaml-cpp and PyYAML refuse longer
// ones), and operator names have no such bound, so a long key is an
// explicit one (`? key`, then `:` and the value on the next line).
// `value` starts with its separator: " [...]" or "\n  nested: ...".
std::string yaml_entry(std::string_view key, std::string_view value) {
  constexpr size_t kMaxImplicitKey = 1000; // below YAML's limit, however a reader counts
  const std::string written = yaml_scalar(key, false);
  if (written.size() <= kMaxImplicitKey)
    return written + ":" + std::string(value);
  return "? " + written + "\n:" + std::string(value);
}

// selected_operators.yaml: every operator of the library is a root operator,
// with its kernel keys ("default" for the fallback kernel), in the order of
// ExecuTorch's own tools (operators by name, keys sorted).
std::pair<std::vector<std::string>, std::vector<std::string>>
selected_operators(const ir::Module& module) {
  std::map<std::string, std::set<std::string>> keys;
  for (const ir::Kernel& k : module.kernels) {
    const std::string key(k.field(kKernelKeyField));
    keys[k.op.str()].insert(key.empty() ? "default" : key);
  }
  std::vector<std::string> operators, metadata;
  for (const auto& [op, op_keys] : keys) {
    operators.push_back(yaml_entry(op, "\n"
                                       "  is_root_operator: true\n"
                                       "  is_used_for_training: true\n"
                                       "  include_all_overloads: false\n"
                                       "  debug_info: []"));
    std::vector<std::string> quoted;
    for (const std::string& key : op_keys)
      quoted.push_back(yaml_scalar(key, true));
    metadata.push_back(yaml_entry(op, fmt::format(" [{}]", fmt::join(quoted, ", "))));
  }
  return {operators, metadata};
}

class ExecuTorchTarget final : public Target {
public:
  std::string_view name() const override { return ::opscan::executorch::kTargetName; }
  std::string_view description() const override {
    return "ExecuTorch's kernel registry: unboxing wrappers over EValue stacks";
  }
  bool accepts(ir::ContextKind context) const override {
    return context == ir::ContextKind::runtime_context;
  }
  bool accepts(ir::Registration) const override { return true; }
  bool reads(TargetOption option) const override {
    return option == TargetOption::exception_boundary || option == TargetOption::aten_mode;
  }
  const ir::Fields& fields() const override { return fields_; }

  std::string identity(const ir::Kernel& kernel) const override {
    return kernel.op.str() + "\n" + std::string(kernel.field(kKernelKeyField));
  }

  // As the wrapper reads them (kernel_code): the arguments in schema order,
  // then the return slot.
  std::vector<std::string> stack_layout(const ir::Kernel& kernel) const override {
    std::vector<std::string> slots;
    std::vector<size_t> outs;
    const size_t n = kernel.arguments.size();
    for (size_t i = 0; i < n; ++i) {
      const schema::Argument& arg = kernel.arguments[i].schema;
      if (arg.kwarg_only && arg.type.is_mutable())
        outs.push_back(i);
      slots.push_back(fmt::format("stack[{}]: {} {}", i, arg.type.str(), arg.name));
    }
    if (outs.empty() && !kernel.returns.empty())
      slots.push_back(fmt::format("stack[{}]: the result", n));
    else if (!outs.empty() && kernel.returns.empty())
      slots.push_back(fmt::format("stack[{}]: the return slot, set to stack[{}]", n, outs.front()));
    else if (!outs.empty())
      slots.push_back(
          fmt::format("stack[{}]: the return slot; the results are the out arguments", n));
    return slots;
  }

  Symbols symbols(const LibrarySpec& library) const override {
    // In torch::executor, like ExecuTorch's own generator's.
    return registration_symbols(library, "torch::executor::");
  }

  void generate(const ir::Module& module, const LibrarySpec& library, const Options& options,
                Problems& problems, OutputSink& sink) const override;

private:
  const ir::Fields fields_{{::opscan::executorch::kernel_key_field()}};
};

// The registration code of RegisterKernels.cpp and its declaration in
// RegisterKernels.h, by registration mode.
std::pair<std::string, std::string> registration_code(const LibrarySpec& library,
                                                      const Symbols& symbols, size_t count,
                                                      const Options& options) {
  const std::string span =
      fmt::format("::executorch::runtime::Span<const {}::Kernel>", runtime_namespace(options));
  const std::string registration_name = unqualified(symbols.registration_function);
  std::string registration, register_declaration;
  if (library.registration == ir::Registration::static_init) {
    registration = "namespace {\n"
                   "// Static registration: the kernels register when the program loads.\n"
                   "[[maybe_unused]] const Error kRegisteredAtLoad = register_library();\n"
                   "}  // namespace\n\n" +
                   link_anchor_definition(symbols);
    register_declaration =
        fmt::format("// The {} kernels of library '{}' register themselves when the program loads\n"
                    "// (static registration): there is nothing to call. Linking them from a\n"
                    "// static archive needs -Wl,--undefined={}\n"
                    "// (RegisterKernels.cpp defines it), or the linker drops them.",
                    count, library.name, symbols.link_anchor);
  } else if (library.registration == ir::Registration::manual) {
    registration =
        fmt::format("namespace torch::executor {{\n\n"
                    "::executorch::runtime::Error {}() {{\n  return register_library();\n}}\n\n"
                    "}}  // namespace torch::executor",
                    registration_name);
    register_declaration = fmt::format(
        "namespace torch::executor {{\n\n"
        "// Registers the {} kernels of library '{}' with ExecuTorch's kernel registry.\n"
        "// Registers none and returns Error::RegistrationAlreadyRegistered when any of\n"
        "// them is already registered.\n"
        "::executorch::runtime::Error {}();\n\n"
        "}}  // namespace torch::executor",
        count, library.name, registration_name);
  } else {
    // Named mode also gives the kernel table itself, registered or not: what
    // a method-scoped registry (Program::load_method's kernel_registry) or
    // get_op_function_from_registry(name, meta, kernels) takes.
    const std::string table_name = kernel_table_function(library);
    registration =
        fmt::format("namespace torch::executor {{\n\n"
                    "{} {}() {{\n"
                    "  return {{kKernels}};\n}}\n\n"
                    "::executorch::runtime::Error {}() {{\n  return register_library();\n}}\n\n"
                    "}}  // namespace torch::executor",
                    span, table_name, registration_name);
    register_declaration = fmt::format(
        "namespace torch::executor {{\n\n"
        "// The kernels of library '{}', each an operator name, kernel key and\n"
        "// boxed wrapper: the table {}() registers, returned without\n"
        "// registering anything (for a method-scoped kernel registry, or a lookup\n"
        "// with get_op_function_from_registry(name, meta, {}())).\n"
        "{} {}();\n\n"
        "// Registers the {} kernels of library '{}' with ExecuTorch's kernel registry.\n"
        "// Registers none and returns Error::RegistrationAlreadyRegistered when any of\n"
        "// them is already registered.\n"
        "::executorch::runtime::Error {}();\n\n"
        "}}  // namespace torch::executor",
        library.name, registration_name, table_name, span, table_name, count, library.name,
        registration_name);
  }
  return {registration, register_declaration};
}

void ExecuTorchTarget::generate(const ir::Module& module, const LibrarySpec& library,
                                const Options& options, Problems& problems,
                                OutputSink& sink) const {
  diag::Diagnostics& diags = problems.diagnostics();
  const Symbols symbols = this->symbols(library);
  std::vector<std::string> wrappers, entries, sources, keys;
  Declarations declarations;
  std::set<std::string> taken = global_kernel_names(module);
  taken.insert({"kLibrary", "kKernels", "kKernelSources", "kKernelKeys", "kRegistryCapacity",
                "register_library", "kRegisteredAtLoad"});
  if (options.exception_boundary)
    taken.insert(kExceptionHandler);
  TypedCalls calls(runtime_namespace(options));
  for (const ir::Kernel& kernel : module.kernels) {
    auto generated = kernel_code(kernel, options, taken, entries.size());
    if (const auto* refusal = std::get_if<Refusal>(&generated)) {
      report(*refusal, kernel, "opscan-executorch-unsupported", problems);
      continue;
    }
    const KernelCode& code = std::get<KernelCode>(generated);
    wrappers.push_back(code.wrapper);
    entries.push_back(code.entry);
    sources.push_back(code.source);
    keys.push_back(support::cpp_string_literal(kernel.field(kKernelKeyField)) + ",");
    declarations.add(kernel, code.declaration);
    calls.add(kernel, code, diags);
  }
  if (options.exception_boundary && !wrappers.empty())
    wrappers.insert(wrappers.begin(), exception_handler());
  separate_blocks(wrappers);

  const size_t count = entries.size();
  const auto [registration, register_declaration] =
      registration_code(library, symbols, count, options);

  auto [operators, kernel_metadata] = selected_operators(module);
  std::vector<std::string> profiling_includes, exception_boundary_includes;
  if (options.profiling) {
    profiling_includes = {"#include <executorch/runtime/core/event_tracer_hooks.h>",
                          "#include <executorch/runtime/platform/profiler.h>"};
  }
  if (options.exception_boundary)
    exception_boundary_includes = {"#include <exception>"};
  // ATen mode's code names ATen's types and runtime::aten's registry: it
  // must be compiled in ATen mode, as its kernels are.
  std::vector<std::string> aten_mode_check;
  if (options.aten_mode) {
    aten_mode_check = {
        "",
        "// Generated for ExecuTorch's ATen mode (--use-aten-lib): the kernels take",
        "// ATen's types and register with the ATen mode runtime's registry.",
        "#ifndef USE_ATEN_LIB",
        "#error \"generated for ExecuTorch's ATen mode: compile with -DUSE_ATEN_LIB=1\"",
        "#endif"};
  }
  const TemplateEnv common = {{"generator", options.generator},
                              {"library", library.name},
                              {"library_literal", support::cpp_string_literal(library.name)},
                              {"sources_table", kernel_sources_symbol(library)}};
  std::vector<TemplatedFile> files =
      registration_files(register_declaration,
                         {{"wrappers", wrappers},
                          {"runtime_namespace", runtime_namespace(options)},
                          {"aten_mode_check", aten_mode_check},
                          {"kernels", entries},
                          {"kernel_keys", keys},
                          {"registration", registration},
                          {"profiling_includes", profiling_includes},
                          {"exception_boundary_includes", exception_boundary_includes}},
                         sources, declarations);
  // RegisterKernels.h: the kernel table's types, in named mode.
  files.front().values["registration_includes"] =
      library.registration == ir::Registration::named
          ? std::vector<std::string>{"#include <executorch/runtime/kernel/operator_registry.h>"}
          : std::vector<std::string>{};
  files.push_back(
      {"Functions.h", OutputKind::header, {{"functions", calls.render()}}, "FUNCTIONS_H"});
  files.push_back({"selected_operators.yaml",
                   OutputKind::data,
                   {{"operators", operators}, {"et_kernel_metadata", kernel_metadata}}});
  files.push_back({"kernel_count/executorch/runtime/kernel/selected_max_kernel_num.h",
                   OutputKind::header,
                   {{"kernel_count", std::to_string(count)}},
                   "SELECTED_MAX_KERNEL_NUM_H"});
  if (options.prim_ops)
    files.push_back(selected_prim_ops(*options.prim_ops));
  render_files(name(), library, files, common, options, diags, sink);
}

} // namespace
} // namespace executorch

std::shared_ptr<const Target> make_executorch_target() {
  return std::make_shared<executorch::ExecuTorchTarget>();
}

} // namespace opscan::emit
