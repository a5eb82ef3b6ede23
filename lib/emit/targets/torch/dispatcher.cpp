// The pieces every PyTorch dispatcher target shares (dispatcher.h).
#include "emit/targets/torch/dispatcher.h"

#include "emit/generate.h"
#include "support/cpp_literal.h"
#include "support/text.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

namespace opscan::emit::torch {
namespace {

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

} // namespace

// aten's operators are defined by libtorch itself; a library defines the
// others it implements.
bool defines_schema(const ir::Kernel& kernel) {
  return kernel.op.ns != "aten";
}

// Each line of each item, indented.
std::string indented(const std::vector<std::string>& items, const char* indent) {
  std::string out;
  for (const std::string& item : items) {
    for (size_t begin = 0, end; begin <= item.size(); begin = end + 1) {
      end = std::min(item.find('\n', begin), item.size());
      out += fmt::format("{}{}\n", indent, std::string_view(item).substr(begin, end - begin));
    }
  }
  return out;
}

void warn_if_no_tensor_dispatch(const ir::Kernel& kernel, Problems& problems) {
  const std::string_view key = kernel.field(kDispatchKeyField);
  // The keys whose kernels the dispatcher also calls when a call's
  // arguments give it no key (its table's Undefined entry, or a key it
  // always includes).
  static constexpr std::array<std::string_view, 4> kServeTensorless = {
      "CompositeExplicitAutograd", "CompositeImplicitAutograd",
      "CompositeExplicitAutogradNonFunctional", "BackendSelect"};
  if (std::find(kServeTensorless.begin(), kServeTensorless.end(), key) != kServeTensorless.end())
    return;
  if (std::ranges::any_of(kernel.arguments,
                          [](const ir::Argument& a) { return a.schema.type.base == "Tensor"; }))
    return;
  problems.kernel_warning(
      kernel, "", "opscan-dispatch-without-tensor",
      fmt::format("{} takes no Tensor, so its calls carry no dispatch key: a boxed call (every "
                  "call from Python) does not find its kernel under {}; register it under "
                  "CompositeExplicitAutograd (dispatch = \"CompositeExplicitAutograd\"), which "
                  "serves calls without tensors",
                  kernel.op.str(), key));
}

std::string dispatcher_identity(const ir::Kernel& kernel) {
  return kernel.op.str() + "\n" + std::string(kernel.field(kDispatchKeyField));
}

std::vector<Target::Claim> with_schema_claim(const ir::Kernel& kernel,
                                             std::vector<Target::Claim> claimed) {
  if (defines_schema(kernel))
    claimed.push_back({"schema\n" + kernel.op.str(), "the schema of " + kernel.op.str()});
  return claimed;
}

std::string static_registration_note(const LibrarySpec& library, const Symbols& symbols) {
  return fmt::format("// The kernels of library '{}' register themselves when the program loads\n"
                     "// (static registration): there is nothing to call. Linking them from a\n"
                     "// static archive needs -Wl,--undefined={}\n"
                     "// (RegisterKernels.cpp defines it), or the linker drops them.",
                     library.name, symbols.link_anchor);
}

HeaderTypes::HeaderTypes(const std::map<std::string, std::string>& aliases) {
  if (auto it = aliases.find("c10::optional"); it != aliases.end())
    optional = it->second;
  if (auto it = aliases.find("c10::string_view"); it != aliases.end())
    string_view = it->second;
}

std::optional<TorchType> torch_type(const schema::Type& type, bool is_return,
                                    const HeaderTypes& headers) {
  using Kind = schema::TypeSuffix::Kind;
  std::vector<Kind> suffixes;
  for (const auto& s : type.suffixes)
    suffixes.push_back(s.kind);
  const bool mutable_ = type.is_mutable();
  const std::string& optional = headers.optional;
  // The canonical type of str is the headers' (empty here).
  static const std::map<std::string_view, std::pair<std::string_view, std::string_view>> kValues = {
      {"int", {"::std::int64_t", "long"}},
      {"SymInt", {"::std::int64_t", "long"}},
      {"float", {"double", "double"}},
      {"bool", {"bool", "bool"}},
      {"str", {"::c10::string_view", ""}},
      {"ScalarType", {"::at::ScalarType", "c10::ScalarType"}},
      {"Layout", {"::at::Layout", "c10::Layout"}},
      {"MemoryFormat", {"::at::MemoryFormat", "c10::MemoryFormat"}},
      {"Device", {"::at::Device", "c10::Device"}},
  };
  if (type.base == "Tensor") {
    if (suffixes.empty()) {
      if (mutable_)
        return TorchType{"::at::Tensor", Passing::ref, "at::Tensor"};
      return TorchType{"::at::Tensor", is_return ? Passing::value : Passing::const_ref,
                       "at::Tensor"};
    }
    if (suffixes == std::vector{Kind::optional} && !is_return) {
      return TorchType{"::c10::optional<::at::Tensor>", Passing::const_ref,
                       optional + "<at::Tensor>"};
    }
    if (suffixes == std::vector{Kind::list} && !is_return)
      return TorchType{"::at::TensorList", Passing::value, "c10::ArrayRef<at::Tensor>"};
    if (suffixes == std::vector{Kind::optional, Kind::list} && !is_return) {
      return TorchType{"::c10::List<::c10::optional<::at::Tensor>>", Passing::const_ref,
                       "c10::List<" + optional + "<at::Tensor>>"};
    }
    return std::nullopt;
  }
  if (type.base == "Scalar") {
    if (suffixes.empty()) {
      return TorchType{"::at::Scalar", is_return ? Passing::value : Passing::const_ref,
                       "c10::Scalar"};
    }
    if (suffixes == std::vector{Kind::optional} && !is_return) {
      return TorchType{"::c10::optional<::at::Scalar>", Passing::const_ref,
                       optional + "<c10::Scalar>"};
    }
    return std::nullopt;
  }
  auto value = kValues.find(type.base);
  if (value == kValues.end())
    return std::nullopt;
  const std::string cpp(value->second.first);
  const std::string canonical(type.base == "str" ? headers.string_view : value->second.second);
  if (suffixes.empty())
    return TorchType{cpp, Passing::value, canonical};
  if (is_return)
    return std::nullopt;
  if (suffixes == std::vector{Kind::optional}) {
    return TorchType{"::c10::optional<" + cpp + ">", Passing::value,
                     optional + "<" + canonical + ">"};
  }
  if (suffixes == std::vector{Kind::list} && (type.base == "int" || type.base == "SymInt"))
    return TorchType{"::at::IntArrayRef", Passing::value, "c10::ArrayRef<long>"};
  if (suffixes == std::vector{Kind::list} && type.base == "float")
    return TorchType{"::at::ArrayRef<double>", Passing::value, "c10::ArrayRef<double>"};
  if (suffixes == std::vector{Kind::list, Kind::optional} &&
      (type.base == "int" || type.base == "SymInt")) {
    return TorchType{"::at::OptionalIntArrayRef", Passing::value, "c10::OptionalArrayRef<long>"};
  }
  return std::nullopt;
}

ir::Field dispatch_key_field() {
  return {"dispatch",
          kDispatchKeyField,
          "opscan-dispatch-key",
          "dispatch key",
          "dispatch key {}",
          "CPU",
          [](std::string_view value, const ir::Kernel&) -> std::optional<ir::FieldProblem> {
            if (is_dispatch_key(value))
              return std::nullopt;
            return ir::FieldProblem{0, support::quoted(value) +
                                           " is not a dispatch key (e.g. CPU, CUDA, Meta, "
                                           "CompositeExplicitAutograd)"};
          }};
}

std::variant<Signature, Refusal> signature(const ir::Kernel& kernel, const HeaderTypes& headers,
                                           const std::vector<std::string>& locals,
                                           std::string_view target) {
  std::vector<std::string> ret_types, ret_canonicals;
  for (size_t i = 0; i < kernel.returns.size(); ++i) {
    const schema::Type& type = kernel.returns[i].type;
    auto t = torch_type(type, true, headers);
    if (!t) {
      return Refusal{
          fmt::format("returns[{}].schema_type", i),
          fmt::format("return type {} is not supported by the {} target", type.str(), target)};
    }
    ret_types.push_back(t->spelled());
    ret_canonicals.push_back(t->passing == Passing::ref ? t->canonical + " &" : t->canonical);
  }
  Signature sig;
  std::string ret_canonical = "void";
  if (ret_types.size() == 1) {
    sig.ret = ret_types[0];
    ret_canonical = ret_canonicals[0];
  } else if (ret_types.size() > 1) {
    sig.ret = fmt::format("::std::tuple<{}>", fmt::join(ret_types, ", "));
    ret_canonical = fmt::format("std::tuple<{}>", fmt::join(ret_canonicals, ", "));
  }
  // NativeFunctions.h declares the kernel as it is.
  if (normalized(kernel.cpp_canonical_return_type) != normalized(ret_canonical)) {
    return Refusal{"cpp_canonical_return_type",
                   fmt::format("returns '{}', but the dispatcher expects {} for its schema",
                               kernel.cpp_return_type, sig.ret)};
  }
  if (kernel.context == ir::ContextKind::dispatch_key_set) {
    // A kernel taking a DispatchKeySet first gets it from the dispatcher.
    sig.params.push_back("::c10::DispatchKeySet keys");
    sig.args.push_back("keys");
    sig.declared.push_back("::c10::DispatchKeySet keys");
  }
  for (size_t i = 0; i < kernel.arguments.size(); ++i) {
    const ir::Argument& a = kernel.arguments[i];
    auto t = torch_type(a.schema.type, false, headers);
    if (!t) {
      return Refusal{fmt::format("arguments[{}].schema_type", i),
                     fmt::format("argument '{}' of type {} is not supported by the {} target",
                                 a.schema.name, a.schema.type.str(), target)};
    }
    // The kernel may copy what the dispatcher passes, but not take by
    // non-const reference what it passes as const.
    const bool writable =
        passing_of(a.cpp_canonical_type) != Passing::ref || t->passing == Passing::ref;
    if (bare_canonical(a.cpp_canonical_type) != normalized(t->canonical) || !writable) {
      return Refusal{fmt::format("arguments[{}].cpp_canonical_type", i),
                     fmt::format("parameter '{}' is '{}', but the dispatcher passes {} as {}",
                                 a.schema.name, a.cpp_type, a.schema.type.str(), t->spelled())};
    }
    sig.params.push_back(t->spelled() + " " + locals[i]);
    sig.args.push_back(locals[i]);
    sig.declared.push_back(declare(t->value, passing_of(a.cpp_canonical_type)) + " " + locals[i]);
  }
  return sig;
}

std::string DispatcherTarget::identity(const ir::Kernel& kernel) const {
  return dispatcher_identity(kernel);
}

// The dispatcher's boxed calling convention: the arguments are the last
// values on the stack, in schema order; the wrapper pops them and pushes
// the returns.
std::vector<std::string> DispatcherTarget::stack_layout(const ir::Kernel& kernel) const {
  std::vector<std::string> slots;
  const size_t n = kernel.arguments.size();
  for (size_t i = 0; i < n; ++i) {
    const schema::Argument& arg = kernel.arguments[i].schema;
    slots.push_back(fmt::format("stack[end-{}]: {} {}", n - i, arg.type.str(), arg.name));
  }
  for (size_t i = 0; i < kernel.returns.size(); ++i)
    slots.push_back(
        fmt::format("pushed after the call: return {} ({})", i, kernel.returns[i].type.str()));
  return slots;
}

// Besides its kernel under its key, a library defines the schema of each
// operator outside aten: the dispatcher takes one definition of each.
std::vector<Target::Claim> DispatcherTarget::claims(const ir::Kernel& kernel) const {
  return with_schema_claim(kernel, Target::claims(kernel));
}

Symbols DispatcherTarget::symbols(const LibrarySpec& library) const {
  // In the global namespace: the dispatcher's libraries are C++ code of the
  // program, not of a runtime's namespace.
  return registration_symbols(library, "");
}

std::string DispatcherTarget::sources_table(const LibrarySpec& library) {
  return "opscan_kernel_sources_" + library.name;
}

void DispatcherTarget::generate(const ir::Module& module, const LibrarySpec& library,
                                const Options& options, Problems& problems,
                                OutputSink& sink) const {
  diag::Diagnostics& diags = problems.diagnostics();
  const Symbols symbols = this->symbols(library);
  std::vector<std::string> wrappers;
  std::vector<std::string> sources; // the entries of KernelSources.cpp
  const std::string sources_table = DispatcherTarget::sources_table(library);
  Declarations declarations;
  // Schemas to define per operator namespace; impl lines per (namespace, key).
  std::map<std::string, std::vector<std::string>> defs;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> impls;
  std::set<std::string> taken = global_kernel_names(module);
  taken.insert(unqualified(symbols.registration_function));
  taken.insert(sources_table);
  for (std::string& name : shared_names())
    taken.insert(std::move(name));
  std::set<schema::OperatorName> defined;
  const HeaderTypes headers = header_types(module);
  for (const ir::Kernel& kernel : module.kernels) {
    auto generated = kernel_code(kernel, headers, taken, sources.size());
    if (const auto* refusal = std::get_if<Refusal>(&generated)) {
      report(*refusal, kernel, unsupported_code(), problems);
      continue;
    }
    warn_if_no_tensor_dispatch(kernel, problems);
    const KernelCode& code = std::get<KernelCode>(generated);
    wrappers.push_back(code.wrapper);
    declarations.add(kernel, code.declaration);
    if (defines_schema(kernel) && defined.insert(kernel.op).second) {
      defs[kernel.op.ns].push_back(
          fmt::format("m.def({});", support::cpp_string_literal(kernel.schema().str())));
    }
    // The dispatcher shows a kernel's debug text where it names the kernel
    // (overriding a registered kernel, "registered at ..."): the kernel's
    // own source and library, rather than this generated file. The text is
    // in KernelSources.cpp, so an edit that moves lines changes that file only.
    const size_t index = sources.size();
    sources.push_back(
        support::cpp_string_literal(fmt::format("{}:{} (kernel library '{}')", kernel.location.file,
                                                kernel.location.line, library.name)) +
        ",");
    impls[{kernel.op.ns, std::string(kernel.field(kDispatchKeyField))}].push_back(fmt::format(
        "m.impl({},\n       ::torch::CppFunction::makeFromUnboxedFunction(TORCH_FN({}))\n"
        "           .debug(::{}[{}]));",
        support::cpp_string_literal(kernel.op.unqualified()), code.wrapper_name, sources_table,
        index));
  }
  if (const std::string shared = shared_definitions(library); !shared.empty() && !wrappers.empty())
    wrappers.insert(wrappers.begin(), shared);
  for (size_t i = 0; i + 1 < wrappers.size(); ++i)
    wrappers[i] += "\n";

  std::vector<std::string> blocks;
  if (library.registration == ir::Registration::static_init) {
    for (const auto& [ns, lines] : defs) {
      blocks.push_back(
          fmt::format("TORCH_LIBRARY_FRAGMENT({}, m) {{\n{}}}", ns, indented(lines, "  ")));
    }
    for (const auto& [where, lines] : impls) {
      blocks.push_back(fmt::format("TORCH_LIBRARY_IMPL({}, {}, m) {{\n{}}}", where.first,
                                   where.second, indented(lines, "  ")));
    }
    // After a blank line (fmt, not operator+: GCC 12 -O3 warns falsely on it).
    blocks.push_back(fmt::format("\n{}", link_anchor_definition(symbols)));
  } else {
    std::string body;
    for (const auto& [ns, lines] : defs) {
      body += fmt::format("    {{\n      ::torch::Library& m = "
                          "*libraries.emplace_back(::std::make_unique<::torch::Library>(\n"
                          "          ::torch::Library::FRAGMENT, {}, ::c10::nullopt, __FILE__, "
                          "__LINE__));\n{}    }}\n",
                          support::cpp_string_literal(ns), indented(lines, "      "));
    }
    for (const auto& [where, lines] : impls) {
      body += fmt::format("    {{\n      ::torch::Library& m = "
                          "*libraries.emplace_back(::std::make_unique<::torch::Library>(\n"
                          "          ::torch::Library::IMPL, {}, ::c10::DispatchKey::{}, __FILE__, "
                          "__LINE__));\n{}    }}\n",
                          support::cpp_string_literal(where.first), where.second,
                          indented(lines, "      "));
    }
    blocks.push_back(fmt::format(
        "void {}() {{\n"
        "  // Built on the first call and kept for the life of the program: a second\n"
        "  // call registers nothing again.\n"
        "  static const ::std::vector<::std::unique_ptr<::torch::Library>> registered = [] {{\n"
        "    ::std::vector<::std::unique_ptr<::torch::Library>> libraries;\n"
        "{}"
        "    return libraries;\n"
        "  }}();\n"
        "  (void)registered;\n"
        "}}",
        symbols.registration_function, body));
  }

  std::string register_declaration =
      library.registration == ir::Registration::static_init
          ? static_registration_note(library, symbols)
          : fmt::format(
                "// Registers the {} kernels of library '{}' with PyTorch's dispatcher (and\n"
                "// defines the schemas of its own operator namespaces). Registers once,\n"
                "// however often it is called.\n"
                "void {}();",
                wrappers.size(), library.name, symbols.registration_function);

  const TemplateEnv common = {{"generator", options.generator},
                              {"library", library.name},
                              {"sources_table", sources_table}};
  render_files(name(), library,
               registration_files(register_declaration,
                                  {{"wrappers", wrappers}, {"registration", blocks}}, sources,
                                  declarations),
               common, options, diags, sink);
}

} // namespace opscan::emit::torch
