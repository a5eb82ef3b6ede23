// The torch-stable target: PyTorch's stable ABI (torch/csrc/stable). Each
// kernel gets a boxed wrapper, void(StableIValue*, uint64_t, uint64_t), that
// unboxes its arguments with the stable headers' conversions, calls it and
// boxes its results; the library defines the schemas of its own operator
// namespaces and registers the wrappers through StableLibrary objects. The
// generated code reaches libtorch through its C shim only, so a library of
// kernels written in stable types works across torch versions.
//
// A kernel written against ATen (at::Tensor) is accepted too where its
// types convert exactly at the boundary: the same source then builds for
// the torch target and for this one (it still links libtorch's C++ ABI
// itself, through its own code).
#include "emit/cpp.h"
#include "emit/generate.h"
#include "emit/target.h"
#include "emit/targets/torch/dispatcher.h"
#include "support/cpp_literal.h"
#include "support/text.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <memory>
#include <set>

namespace opscan::emit {
namespace torch_stable {
namespace {

using torch::defines_schema;
using torch::indented;
using torch::kDispatchKeyField;
using torch::warn_if_no_tensor_dispatch;

// The stable ABI of torch 2.<minor>. 2.9 is the first whose library API
// (StableLibrary, STABLE_TORCH_LIBRARY*) this target generates for; 2.10
// added the conversions of lists, strings, Layout, MemoryFormat and Device;
// 2.13 those of Generator (torch::stable::Generator, and the shim's handle).
constexpr int kOldestMinor = 9;
constexpr int kListsMinor = 10;
constexpr int kGeneratorMinor = 13;

// How the wrapper turns what it unboxed into what the kernel takes.
enum class Convert {
  none,                 // passed as it is (or by an implicit conversion that copies nothing)
  aten_tensor,          // torch::stable::Tensor -> at::Tensor&: the object its handle holds
  aten_optional_tensor, // std::optional<torch::stable::Tensor> -> std::optional<at::Tensor>
  aten_tensor_list,     // std::vector<torch::stable::Tensor> -> std::vector<at::Tensor>
  aten_generator,       // torch::stable::Generator -> at::Generator&: the object its handle holds
  aten_optional_generator, // std::optional of it -> std::optional<at::Generator>
};

// A C++ type a kernel may take (or return) for a schema type: its bare
// canonical type as libclang reports it, how generated declarations spell
// it, and how the wrapper converts to it.
struct Form {
  std::string canonical;
  std::string spelled;
  Convert convert = Convert::none;
};

// A schema type on the stable ABI: the type the stable headers unbox it as
// (their to<T>/from<T>), the oldest stable ABI that converts it, the
// kernel types it converts to exactly, or why it cannot be passed.
struct StableType {
  std::string unboxed;
  int minor = kOldestMinor;
  std::vector<Form> forms;
  std::string refusal; // set: the type has no stable conversion
};

StableType refused(std::string why) {
  StableType t;
  t.refusal = std::move(why);
  return t;
}

// The forms of a list of `element`'s forms.
std::vector<Form> list_forms(const std::vector<Form>& element) {
  std::vector<Form> forms;
  for (const Form& e : element) {
    if (e.convert == Convert::aten_tensor) {
      forms.push_back({"c10::ArrayRef<" + e.canonical + ">", "::c10::ArrayRef<" + e.spelled + ">",
                       Convert::aten_tensor_list});
      forms.push_back({"std::vector<" + e.canonical + ">", "::std::vector<" + e.spelled + ">",
                       Convert::aten_tensor_list});
      continue;
    }
    forms.push_back({"c10::HeaderOnlyArrayRef<" + e.canonical + ">",
                     "::torch::headeronly::HeaderOnlyArrayRef<" + e.spelled + ">"});
    forms.push_back({"std::vector<" + e.canonical + ">", "::std::vector<" + e.spelled + ">"});
    // at::IntArrayRef and at::ArrayRef<double>, for kernels written against ATen.
    if (e.canonical != "torch::stable::Tensor") {
      forms.push_back({"c10::ArrayRef<" + e.canonical + ">", "::c10::ArrayRef<" + e.spelled + ">"});
    }
  }
  return forms;
}

StableType stable_type(const schema::Type& type) {
  using Kind = schema::TypeSuffix::Kind;
  struct Base {
    std::string_view unboxed;
    int minor;
    std::vector<Form> forms;
  };
  static const std::map<std::string_view, Base> kBases = {
      {"Tensor",
       {"::torch::stable::Tensor",
        kOldestMinor,
        {{"torch::stable::Tensor", "::torch::stable::Tensor"},
         {"at::Tensor", "::at::Tensor", Convert::aten_tensor}}}},
      {"int", {"::std::int64_t", kOldestMinor, {{"long", "::std::int64_t"}}}},
      {"SymInt", {"::std::int64_t", kOldestMinor, {{"long", "::std::int64_t"}}}},
      {"float", {"double", kOldestMinor, {{"double", "double"}}}},
      {"bool", {"bool", kOldestMinor, {{"bool", "bool"}}}},
      {"ScalarType",
       {"::torch::headeronly::ScalarType",
        kOldestMinor,
        {{"c10::ScalarType", "::torch::headeronly::ScalarType"}}}},
      // Unboxed as an owning string; the kernel may take a view of it.
      {"str",
       {"::std::string",
        kListsMinor,
        {{"std::basic_string_view<char>", "::std::string_view"},
         {"std::basic_string<char>", "::std::string"}}}},
      {"Layout",
       {"::torch::headeronly::Layout",
        kListsMinor,
        {{"c10::Layout", "::torch::headeronly::Layout"}}}},
      {"MemoryFormat",
       {"::torch::headeronly::MemoryFormat",
        kListsMinor,
        {{"c10::MemoryFormat", "::torch::headeronly::MemoryFormat"}}}},
      {"Device",
       {"::torch::stable::Device",
        kListsMinor,
        {{"torch::stable::Device", "::torch::stable::Device"}}}},
      // The shim's generator handle is an at::Generator*, as its tensor
      // handle is an at::Tensor*: ATen kernels take the object it holds.
      {"Generator",
       {"::torch::stable::Generator",
        kGeneratorMinor,
        {{"torch::stable::Generator", "::torch::stable::Generator"},
         {"at::Generator", "::at::Generator", Convert::aten_generator}}}},
  };
  auto base = kBases.find(type.base);
  if (base == kBases.end()) {
    return refused(type.base == "Scalar" ? "the stable ABI passes no Scalar: take int or float"
                                         : "the stable ABI has no conversion of " + type.base);
  }
  StableType t{std::string(base->second.unboxed), base->second.minor, base->second.forms, {}};
  std::vector<Kind> suffixes;
  for (const auto& s : type.suffixes)
    suffixes.push_back(s.kind);
  // Lists are unboxed as vectors, which the kernel may take as they are or
  // as a view (HeaderOnlyArrayRef, ATen's ArrayRef).
  const bool list = !suffixes.empty() && suffixes.front() == Kind::list;
  if (list) {
    if (type.base != "Tensor" && type.base != "int" && type.base != "SymInt" &&
        type.base != "float") {
      return refused("the stable ABI converts lists of Tensor, int and float only");
    }
    t.unboxed = "::std::vector<" + t.unboxed + ">";
    t.minor = std::max(t.minor, kListsMinor);
    t.forms = list_forms(t.forms);
    suffixes.erase(suffixes.begin());
  }
  if (suffixes.empty())
    return t;
  if (suffixes != std::vector{Kind::optional})
    return refused("the stable ABI has no conversion of " + type.str());
  std::vector<Form> optional;
  for (const Form& f : t.forms) {
    if (f.convert == Convert::aten_tensor_list)
      continue; // an optional list of ATen tensors: no exact conversion
    Convert convert = Convert::none;
    if (f.convert == Convert::aten_tensor)
      convert = Convert::aten_optional_tensor;
    else if (f.convert == Convert::aten_generator)
      convert = Convert::aten_optional_generator;
    optional.push_back(
        {"std::optional<" + f.canonical + ">", "::std::optional<" + f.spelled + ">", convert});
  }
  t.unboxed = "::std::optional<" + t.unboxed + ">";
  t.forms = std::move(optional);
  return t;
}

// A return type on the stable ABI: only what from<T> boxes.
StableType stable_return_type(const schema::Type& type) {
  StableType t = stable_type(type);
  if (!t.refusal.empty())
    return t;
  if (type.is_optional() || type.base == "str" || (type.is_list() && type.base != "Tensor")) {
    return refused("the stable ABI returns no " + type.str());
  }
  // A returned ATen list would need a new handle per tensor, and a returned
  // at::Generator a new handle of the shim's: not offered. A kernel returns
  // a torch::stable::Generator, which from<T> boxes with a handle of its own.
  std::erase_if(t.forms, [](const Form& f) {
    return f.convert == Convert::aten_tensor_list || f.convert == Convert::aten_generator;
  });
  return t;
}

const Form* form_of(const StableType& type, const std::string& canonical) {
  const std::string bare = bare_canonical(canonical);
  for (const Form& f : type.forms) {
    if (normalized(f.canonical) == bare)
      return &f;
  }
  return nullptr;
}

std::string spelled_forms(const StableType& type) {
  std::vector<std::string> spelled;
  for (const Form& f : type.forms)
    spelled.push_back(f.spelled);
  return fmt::format("{}", fmt::join(spelled, " or "));
}

// The top-level template arguments of a canonical "std::tuple<A, B<C, D>>".
std::optional<std::vector<std::string>> tuple_elements(const std::string& canonical) {
  const std::string_view prefix = "std::tuple<";
  if (!canonical.starts_with(prefix) || !canonical.ends_with('>'))
    return std::nullopt;
  std::vector<std::string> elements;
  int depth = 0;
  size_t begin = prefix.size();
  for (size_t i = begin; i + 1 < canonical.size(); ++i) {
    const char c = canonical[i];
    depth += c == '<' || c == '(' ? 1 : c == '>' || c == ')' ? -1 : 0;
    if (c == ',' && depth == 0) {
      elements.push_back(canonical.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  elements.push_back(canonical.substr(begin, canonical.size() - 1 - begin));
  return elements;
}

// The stable ABI version a library needs, and the first thing that needs
// it: what, and its field in the kernel.
struct Need {
  int minor = kOldestMinor;
  std::string why;
  std::string field;
  void add(const Need& other) {
    if (other.minor > minor)
      *this = other;
  }
};

// Names the generated code gives its own helpers, none a kernel's.
struct Helpers {
  std::string ns;      // the stable headers' namespace of StableLibrary, to and from
  std::string to_aten; // stable tensor -> at::Tensor&
  std::string to_aten_optional;
  std::string to_aten_list;
  std::string from_aten;         // at::Tensor -> stable tensor
  std::string to_aten_generator; // stable generator -> at::Generator&
  std::string to_aten_optional_generator;
};

std::string free_name(std::string name, std::set<std::string>& taken) {
  while (taken.contains(name))
    name += '_';
  taken.insert(name);
  return name;
}

struct KernelCode {
  std::string wrapper;
  std::string declaration;
  std::string wrapper_name;
  bool aten = false;           // converts ATen types
  bool generator = false;      // passes a Generator
  bool aten_generator = false; // converts one to ATen's
};

std::string convert(Convert how, const std::string& local, const Helpers& h) {
  switch (how) {
  case Convert::none:
    return local;
  case Convert::aten_tensor:
    return fmt::format("{}({})", h.to_aten, local);
  case Convert::aten_optional_tensor:
    return fmt::format("{}({})", h.to_aten_optional, local);
  case Convert::aten_tensor_list:
    return fmt::format("{}({})", h.to_aten_list, local);
  case Convert::aten_generator:
    return fmt::format("{}({})", h.to_aten_generator, local);
  case Convert::aten_optional_generator:
    return fmt::format("{}({})", h.to_aten_optional_generator, local);
  }
  return local;
}

std::variant<KernelCode, Refusal> kernel_code(const ir::Kernel& kernel, const Helpers& helpers,
                                              Need& need, std::set<std::string>& taken) {
  if (kernel.context != ir::ContextKind::none) {
    return Refusal{"context", "takes a runtime context first; kernels for PyTorch's stable ABI "
                              "take their schema's arguments only"};
  }
  KernelCode code;
  // Returns: each element of the kernel's return type in a form of its schema type.
  std::vector<std::string> return_canonicals;
  if (kernel.returns.size() == 1) {
    return_canonicals.push_back(kernel.cpp_canonical_return_type);
  } else if (kernel.returns.size() > 1) {
    auto elements = tuple_elements(normalized(kernel.cpp_canonical_return_type));
    if (!elements || elements->size() != kernel.returns.size()) {
      return Refusal{"cpp_canonical_return_type",
                     fmt::format("returns '{}', but its schema returns {} values: return a "
                                 "std::tuple of them",
                                 kernel.cpp_return_type, kernel.returns.size())};
    }
    return_canonicals = *elements;
  } else if (normalized(kernel.cpp_canonical_return_type) != "void") {
    return Refusal{
        "cpp_canonical_return_type",
        fmt::format("returns '{}', but its schema returns nothing", kernel.cpp_return_type)};
  }
  std::vector<std::string> boxing;   // "stack[i] = from<T>(value);" with {} for the value
  std::vector<std::string> returned; // each returned type as declarations spell it
  for (size_t i = 0; i < kernel.returns.size(); ++i) {
    const schema::Type& type = kernel.returns[i].type;
    const StableType t = stable_return_type(type);
    const std::string field = fmt::format("returns[{}].schema_type", i);
    if (!t.refusal.empty())
      return Refusal{field, "returns " + type.str() + ": " + t.refusal};
    const Form* form = form_of(t, return_canonicals[i]);
    if (!form) {
      return Refusal{"cpp_canonical_return_type",
                     fmt::format("returns '{}', but the stable ABI returns {} as {}",
                                 kernel.cpp_return_type, type.str(), spelled_forms(t))};
    }
    need.add({t.minor, fmt::format("{} returns {}", kernel.op.str(), type.str()), field});
    code.aten |= form->convert != Convert::none;
    code.generator |= type.base == "Generator";
    returned.push_back(form->spelled + (return_canonicals[i].ends_with('&') ? "&" : ""));
    const std::string value =
        form->convert == Convert::aten_tensor ? helpers.from_aten + "({})" : "{}";
    boxing.push_back(fmt::format(
        "stack[{}] = {}::from<{}>({});", i, helpers.ns,
        form->convert == Convert::aten_tensor ? "::torch::stable::Tensor" : t.unboxed, value));
  }
  // Names the body uses unqualified.
  const std::vector<std::string> locals =
      local_names(kernel, {"stack", "result", helpers.ns, helpers.to_aten, helpers.to_aten_optional,
                           helpers.to_aten_list, helpers.from_aten, helpers.to_aten_generator,
                           helpers.to_aten_optional_generator});
  std::vector<std::string> body, args, declared;
  for (size_t i = 0; i < kernel.arguments.size(); ++i) {
    const ir::Argument& a = kernel.arguments[i];
    const StableType t = stable_type(a.schema.type);
    if (!t.refusal.empty()) {
      return Refusal{fmt::format("arguments[{}].schema_type", i),
                     fmt::format("argument '{}' of type {}: {}", a.schema.name, a.schema.type.str(),
                                 t.refusal)};
    }
    const Form* form = form_of(t, a.cpp_canonical_type);
    if (!form) {
      return Refusal{fmt::format("arguments[{}].cpp_canonical_type", i),
                     fmt::format("parameter '{}' is '{}', but the stable ABI passes {} as {}",
                                 a.schema.name, a.cpp_type, a.schema.type.str(), spelled_forms(t))};
    }
    need.add({t.minor,
              fmt::format("argument '{}' of {} is {}", a.schema.name, kernel.op.str(),
                          a.schema.type.str()),
              fmt::format("arguments[{}].schema_type", i)});
    code.aten |= form->convert != Convert::none;
    code.generator |= a.schema.type.base == "Generator";
    code.aten_generator |= form->convert == Convert::aten_generator ||
                           form->convert == Convert::aten_optional_generator;
    // Unboxing takes the argument's reference off the stack; the local owns it.
    body.push_back(
        fmt::format("auto {} = {}::to<{}>(stack[{}]);", locals[i], helpers.ns, t.unboxed, i));
    args.push_back(convert(form->convert, locals[i], helpers));
    std::string type = form->spelled;
    if (a.cpp_canonical_type.ends_with('&'))
      type = (a.cpp_canonical_type.starts_with("const ") ? "const " : "") + type + "&";
    declared.push_back(type + " " + locals[i]);
  }
  const std::string call = fmt::format("::{}({})", kernel.cpp_function, fmt::join(args, ", "));
  if (boxing.empty()) {
    body.push_back(call + ";");
  } else if (boxing.size() == 1) {
    body.push_back(fmt::format(fmt::runtime(boxing[0]), call));
  } else {
    body.push_back(fmt::format("auto result = {};", call));
    for (size_t i = 0; i < boxing.size(); ++i)
      body.push_back(
          fmt::format(fmt::runtime(boxing[i]), fmt::format("::std::get<{}>(result)", i)));
  }
  code.wrapper_name = helper_name(kernel, taken, "boxed_");
  const std::string comment = support::cpp_comment(kernel.schema().str());
  // The counts are the schema's, which the library defines (or libtorch does,
  // for aten): the wrapper has no other use for them.
  code.wrapper =
      fmt::format("{}\nvoid {}(StableIValue* stack, ::std::uint64_t, ::std::uint64_t) {{\n"
                  "  {}\n}}\n",
                  comment, code.wrapper_name, fmt::join(body, "\n  "));
  code.declaration = fmt::format(
      "{}\n{}\n", comment,
      function_declaration(
          kernel,
          returned.empty()       ? std::string("void")
          : returned.size() == 1 ? returned[0]
                                 : fmt::format("::std::tuple<{}>", fmt::join(returned, ", ")),
          fmt::format("{}({})", unqualified(kernel.cpp_function), fmt::join(declared, ", "))));
  return code;
}

// "2.10" -> 10; nullopt for anything that is not 2.<minor> from 2.9 on.
std::optional<int> parse_version(std::string_view text) {
  if (!text.starts_with("2."))
    return std::nullopt;
  text.remove_prefix(2);
  int minor = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), minor);
  if (ec != std::errc() || end != text.data() + text.size() || minor < kOldestMinor || minor > 99 ||
      (text.size() > 1 && text[0] == '0')) {
    return std::nullopt;
  }
  return minor;
}

// TORCH_TARGET_VERSION's encoding: major in the top byte, minor in the next.
std::string version_macro(int minor) {
  return fmt::format("0x02{:02x}000000000000ULL", minor);
}

class TorchStableTarget final : public Target {
public:
  std::string_view name() const override { return "torch-stable"; }
  std::string_view description() const override {
    return "PyTorch's stable ABI: boxed wrappers registered through its C shim, per dispatch key";
  }
  bool accepts(ir::ContextKind context) const override { return context == ir::ContextKind::none; }
  bool accepts(ir::Registration registration) const override {
    return registration != ir::Registration::manual;
  }
  bool reads(TargetOption option) const override {
    return option == TargetOption::torch_target_version;
  }
  const ir::Fields& fields() const override { return fields_; }

  // PyTorch's dispatcher, as the torch target's: their libraries' claims meet.
  std::string_view runtime() const override { return "torch"; }

  std::string identity(const ir::Kernel& kernel) const override {
    return torch::dispatcher_identity(kernel);
  }

  // The stable ABI's boxed calling convention: the arguments fill the first
  // slots of the stack; the wrapper takes them and puts the returns there.
  std::vector<std::string> stack_layout(const ir::Kernel& kernel) const override {
    std::vector<std::string> slots;
    for (size_t i = 0; i < kernel.arguments.size(); ++i) {
      const schema::Argument& arg = kernel.arguments[i].schema;
      slots.push_back(fmt::format("stack[{}]: {} {}", i, arg.type.str(), arg.name));
    }
    for (size_t i = 0; i < kernel.returns.size(); ++i) {
      slots.push_back(fmt::format("stack[{}] after the call: return {} ({})", i, i,
                                  kernel.returns[i].type.str()));
    }
    return slots;
  }

  // Besides its kernel under its key, a library defines the schema of each
  // operator outside aten.
  std::vector<Claim> claims(const ir::Kernel& kernel) const override {
    return torch::with_schema_claim(kernel, Target::claims(kernel));
  }

  Symbols symbols(const LibrarySpec& library) const override {
    return registration_symbols(library, "");
  }

  void generate(const ir::Module& module, const LibrarySpec& library, const Options& options,
                Problems& problems, OutputSink& sink) const override;

private:
  const ir::Fields fields_{{torch::dispatch_key_field()}};
};

void TorchStableTarget::generate(const ir::Module& module, const LibrarySpec& library,
                                 const Options& options, Problems& problems,
                                 OutputSink& sink) const {
  std::optional<int> requested;
  if (options.torch_target_version) {
    requested = parse_version(*options.torch_target_version);
    if (!requested) {
      problems.error("opscan-torch-target-version",
                     fmt::format("--torch-target-version {}: expected 2.<minor>, from 2.{} on "
                                 "(the first stable ABI with a library API)",
                                 support::quoted(*options.torch_target_version), kOldestMinor));
      return;
    }
  }
  const Symbols symbols = this->symbols(library);
  std::set<std::string> taken = global_kernel_names(module);
  taken.insert(unqualified(symbols.registration_function));
  Helpers helpers{free_name("opscan_stable", taken),
                  free_name("opscan_to_aten", taken),
                  free_name("opscan_to_aten_optional", taken),
                  free_name("opscan_to_aten_list", taken),
                  free_name("opscan_from_aten", taken),
                  free_name("opscan_to_aten_generator", taken),
                  free_name("opscan_to_aten_optional_generator", taken)};
  Need need;
  bool aten = false, generator = false, aten_generator = false;
  std::vector<std::string> wrappers;
  Declarations declarations;
  std::map<std::string, std::vector<std::string>> defs; // by operator namespace
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> impls;
  std::set<schema::OperatorName> defined;
  for (const ir::Kernel& kernel : module.kernels) {
    Need kernel_need;
    auto generated = kernel_code(kernel, helpers, kernel_need, taken);
    if (const auto* refusal = std::get_if<Refusal>(&generated)) {
      report(*refusal, kernel, "opscan-torch-stable-unsupported", problems);
      continue;
    }
    if (requested && kernel_need.minor > *requested) {
      report(Refusal{kernel_need.field,
                     fmt::format("needs the stable ABI of torch 2.{} ({}), newer than "
                                 "--torch-target-version 2.{}",
                                 kernel_need.minor, kernel_need.why, *requested)},
             kernel, "opscan-torch-target-version", problems);
      continue;
    }
    warn_if_no_tensor_dispatch(kernel, problems);
    need.add(kernel_need);
    const KernelCode& code = std::get<KernelCode>(generated);
    aten |= code.aten;
    generator |= code.generator;
    aten_generator |= code.aten_generator;
    wrappers.push_back(code.wrapper);
    declarations.add(kernel, code.declaration);
    if (defines_schema(kernel) && defined.insert(kernel.op).second) {
      defs[kernel.op.ns].push_back(
          fmt::format("m.def({});", support::cpp_string_literal(kernel.schema().str())));
    }
    impls[{kernel.op.ns, std::string(kernel.field(kDispatchKeyField))}].push_back(
        fmt::format("m.impl({}, &{});", support::cpp_string_literal(kernel.op.unqualified()),
                    code.wrapper_name));
  }

  const int minor = requested.value_or(need.minor);
  std::string version_reason =
      requested          ? "as --torch-target-version asks"
      : need.why.empty() ? "the oldest with a library API"
                         : fmt::format("the oldest that converts all it passes: {}", need.why);

  std::vector<std::string> blocks;
  const std::string& ns = helpers.ns;
  if (library.registration == ir::Registration::static_init) {
    for (const auto& [op_ns, lines] : defs) {
      blocks.push_back(fmt::format("STABLE_TORCH_LIBRARY_FRAGMENT({}, m) {{\n{}}}", op_ns,
                                   indented(lines, "  ")));
    }
    for (const auto& [where, lines] : impls) {
      blocks.push_back(fmt::format("STABLE_TORCH_LIBRARY_IMPL({}, {}, m) {{\n{}}}", where.first,
                                   where.second, indented(lines, "  ")));
    }
    blocks.push_back(fmt::format("\n{}", link_anchor_definition(symbols)));
  } else {
    std::string body;
    auto library_block = [&](std::string_view kind, const std::string& op_ns,
                             const std::string& key, const std::vector<std::string>& lines) {
      body +=
          fmt::format("    {{\n      {0}::StableLibrary& m = *libraries.emplace_back(\n"
                      "          ::std::make_unique<{0}::StableLibrary>({0}::StableLibrary::"
                      "Kind::{1}, {2}, {3}, __FILE__, __LINE__));\n{4}    }}\n",
                      ns, kind, support::cpp_string_literal(op_ns), key, indented(lines, "      "));
    };
    for (const auto& [op_ns, lines] : defs)
      library_block("FRAGMENT", op_ns, "nullptr", lines);
    for (const auto& [where, lines] : impls)
      library_block("IMPL", where.first, support::cpp_string_literal(where.second), lines);
    blocks.push_back(fmt::format(
        "void {0}() {{\n"
        "  // Built on the first call and kept for the life of the program: a second\n"
        "  // call registers nothing again.\n"
        "  static const ::std::vector<::std::unique_ptr<{1}::StableLibrary>> registered = [] {{\n"
        "    ::std::vector<::std::unique_ptr<{1}::StableLibrary>> libraries;\n"
        "{2}"
        "    return libraries;\n"
        "  }}();\n"
        "  (void)registered;\n"
        "}}",
        symbols.registration_function, ns, body));
  }

  std::string register_declaration =
      library.registration == ir::Registration::static_init
          ? torch::static_registration_note(library, symbols)
          : fmt::format(
                "// Registers the {} kernels of library '{}' with PyTorch's dispatcher through\n"
                "// its stable ABI (and defines the schemas of its own operator namespaces).\n"
                "// Registers once, however often it is called.\n"
                "void {}();",
                wrappers.size(), library.name, symbols.registration_function);

  // The headers the declarations need: the stable tensor always, the
  // others as the kernels' types ask.
  std::vector<std::string> includes = {"#include <torch/csrc/stable/library.h>",
                                       "#include <torch/csrc/stable/tensor.h>"};
  if (need.minor >= kListsMinor) {
    includes.push_back("#include <torch/csrc/stable/device.h>");
    includes.push_back("#include <torch/headeronly/util/HeaderOnlyArrayRef.h>");
  }
  if (generator)
    includes.push_back("#include <torch/csrc/stable/generator.h>");
  if (aten_generator)
    includes.push_back("#include <ATen/core/Generator.h>");
  std::vector<std::string> source_includes;
  if (aten_generator) {
    wrappers.insert(
        wrappers.begin(),
        fmt::format(
            "// Kernels written against ATen take the generator a stable generator's\n"
            "// handle holds: the caller's, whose state they share.\n"
            "[[maybe_unused]] ::at::Generator& {0}(const ::torch::stable::Generator& g) {{\n"
            "  return *::torch::aot_inductor::generator_handle_to_generator_pointer(g.get());\n"
            "}}\n"
            "[[maybe_unused]] ::std::optional<::at::Generator> {1}(const "
            "::std::optional<::torch::stable::Generator>& g) {{\n"
            "  return g ? ::std::optional<::at::Generator>({0}(*g)) : ::std::nullopt;\n"
            "}}",
            helpers.to_aten_generator, helpers.to_aten_optional_generator));
  }
  if (aten) {
    includes.push_back("#include <ATen/core/Tensor.h>");
    source_includes.push_back("#include <torch/csrc/inductor/aoti_torch/utils.h>");
    wrappers.insert(
        wrappers.begin(),
        fmt::format(
            "// Kernels written against ATen take the tensor a stable tensor's handle\n"
            "// holds (no copy), and return tensors given a handle of their own.\n"
            "[[maybe_unused]] ::at::Tensor& {0}(const ::torch::stable::Tensor& t) {{\n"
            "  return *::torch::aot_inductor::tensor_handle_to_tensor_pointer(t.get());\n"
            "}}\n"
            "[[maybe_unused]] ::std::optional<::at::Tensor> {1}(const "
            "::std::optional<::torch::stable::Tensor>& t) {{\n"
            "  return t ? ::std::optional<::at::Tensor>({0}(*t)) : ::std::nullopt;\n"
            "}}\n"
            "[[maybe_unused]] ::std::vector<::at::Tensor> {2}(const "
            "::std::vector<::torch::stable::Tensor>& ts) {{\n"
            "  ::std::vector<::at::Tensor> aten;\n"
            "  for (const ::torch::stable::Tensor& t : ts)\n"
            "    aten.push_back({0}(t));\n"
            "  return aten;\n"
            "}}\n"
            "[[maybe_unused]] ::torch::stable::Tensor {3}(const ::at::Tensor& t) {{\n"
            "  return "
            "::torch::stable::Tensor(::torch::aot_inductor::new_tensor_handle(::at::Tensor(t)));\n"
            "}}",
            helpers.to_aten, helpers.to_aten_optional, helpers.to_aten_list, helpers.from_aten));
  }

  separate_blocks(wrappers);
  for (const char* header : {"cstdint", "memory", "optional", "tuple", "vector"})
    source_includes.push_back(fmt::format("#include <{}>", header));

  const TemplateEnv common = {{"generator", options.generator}, {"library", library.name}};
  // TORCH_TARGET_VERSION holds the code to the stable ABI of that version;
  // libtorch's headers then refuse ATen's, which ATen kernels need.
  std::vector<std::string> version_lines;
  if (aten) {
    version_lines = {
        "// Its kernels take ATen's types, whose headers a build for a stable ABI version",
        "// (TORCH_TARGET_VERSION) may not include: it is built for the libtorch it",
        "// compiles with, and its kernels call libtorch's C++ API."};
  } else {
    const std::string macro = version_macro(minor);
    version_lines = {
        "// Its kernels and wrappers reach libtorch through its C shim only.",
        fmt::format("// The stable ABI this file is built for: torch 2.{}", minor),
        fmt::format("// ({}).", version_reason),
        "// A build that sets TORCH_TARGET_VERSION itself keeps its own, if not older.",
        "#ifndef TORCH_TARGET_VERSION",
        fmt::format("#define TORCH_TARGET_VERSION {}", macro),
        fmt::format("#elif TORCH_TARGET_VERSION < {}", macro),
        fmt::format("#error \"kernel library '{}' needs the stable ABI of torch 2.{} or newer "
                    "(TORCH_TARGET_VERSION)\"",
                    library.name, minor),
        "#endif"};
  }
  TemplateEnv register_kernels = {{"target_version", version_lines},
                                  {"includes", source_includes},
                                  {"stable_namespace", ns},
                                  {"wrappers", wrappers},
                                  {"registration", blocks}};
  const std::vector<TemplatedFile> files = {
      {"RegisterKernels.h",
       OutputKind::header,
       {{"declarations", register_declaration}},
       "REGISTER_KERNELS_H"},
      {"RegisterKernels.cpp", OutputKind::source, register_kernels},
      {"NativeFunctions.h",
       OutputKind::header,
       {{"includes", includes}, {"declarations", declarations.blocks()}},
       "NATIVE_FUNCTIONS_H"}};
  render_files(name(), library, files, common, options, problems.diagnostics(), sink);
}

} // namespace
} // namespace torch_stable

std::shared_ptr<const Target> make_torch_stable_target() {
  return std::make_shared<torch_stable::TorchStableTarget>();
}

} // namespace opscan::emit
