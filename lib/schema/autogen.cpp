// torchgen's derivation of out= and functional variants (see autogen.h), on
// opscan's schema model. Every refusal names the operator it was asked of.
#include "schema/autogen.h"

#include <algorithm>
#include <set>

namespace opscan::schema {
namespace {

enum class Kind { functional, inplace, out, scratch, mutating };

// The arguments as torchgen groups them, by index into Schema::arguments.
struct Layout {
  std::optional<size_t> self;           // the positional argument named "self"
  size_t first_out = 0;                 // out arguments are [first_out, size)
  std::optional<size_t> tensor_options; // the first of the four, if grouped
};

struct Failure {
  std::string message;
};

[[noreturn]] void refuse(const Schema& from, const std::string& why) {
  throw Failure{from.name.str() + ": " + why};
}

bool is_written(const Type& type) {
  return type.alias && type.alias->is_write;
}

// The tensor-like types (torchgen's is_tensor_like): Tensor under any
// optional and list suffixes.
bool is_tensor_like(const Type& type) {
  return type.base == "Tensor";
}

// Whether torchgen can print `type` with an alias annotation: "Tensor",
// "Tensor?" or "Tensor[]" only.
bool can_annotate(const Type& type) {
  if (type.base != "Tensor")
    return false;
  if (type.suffixes.empty())
    return true;
  if (type.suffixes.size() != 1)
    return false;
  const TypeSuffix& s = type.suffixes[0];
  return s.kind == TypeSuffix::Kind::optional || !s.size;
}

// A copy of `type` without its alias annotation.
Type without_annotation(const Type& type) {
  Type out;
  out.base = type.base;
  out.suffixes = type.suffixes;
  return out;
}

Type annotated(Type type, std::string alias_set) {
  type.alias = AliasInfo{{std::move(alias_set)}, true, {}};
  return type;
}

// `type` is `base` or `base?`, unannotated: a tensor-options argument's type.
bool is_option_type(const Type& type, std::string_view base) {
  return type.base == base && !type.alias &&
         (type.suffixes.empty() ||
          (type.suffixes.size() == 1 && type.suffixes[0].kind == TypeSuffix::Kind::optional));
}

// An operator's name as torchgen splits it: "add_" is add in place,
// "__iand__" is __and__ in place (augmented assignment), and a functional
// variant of a mutable operator ends in "_functional", dropped here.
struct BaseName {
  std::string base; // "add", "and"
  bool dunder = false;
  bool inplace = false;

  std::string str() const { return dunder ? "__" + base + "__" : base; } // not in place
};

BaseName split_name(const std::string& name) {
  BaseName n;
  if (name.size() > 4 && name.starts_with("__") && name.ends_with("__") &&
      name.find('_', 2) == name.size() - 2) {
    static constexpr std::string_view kAugmented[] = {
        "add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or"};
    n.dunder = true;
    n.base = name.substr(2, name.size() - 4);
    n.inplace =
        n.base.starts_with("i") &&
        std::ranges::find(kAugmented, std::string_view(n.base).substr(1)) != std::end(kAugmented);
    if (n.inplace)
      n.base.erase(0, 1);
    return n;
  }
  n.base = name;
  n.inplace = n.base.ends_with("_");
  if (n.inplace)
    n.base.pop_back();
  constexpr std::string_view kFunctional = "_functional";
  if (n.base.size() > kFunctional.size() && n.base.ends_with(kFunctional))
    n.base.resize(n.base.size() - kFunctional.size());
  return n;
}

// Refuses what torchgen cannot read at all, then groups the arguments.
Layout layout_of_arguments(const Schema& from) {
  auto check_type = [&](const Type& type, const std::string& what) {
    for (const TypeSuffix& s : type.suffixes) {
      if (s.alias)
        refuse(from, what + ": torchgen reads no alias annotation after '[]'");
    }
    if (type.alias && !can_annotate(type))
      refuse(from,
             what + ": torchgen reads alias annotations on Tensor, Tensor? and Tensor[] only");
  };
  for (const Argument& a : from.arguments)
    check_type(a.type, "argument '" + a.name + "'");
  for (size_t i = 0; i < from.returns.size(); ++i)
    check_type(from.returns[i].type, "return " + std::to_string(i));

  Layout layout;
  const auto& args = from.arguments;
  layout.first_out = args.size();
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].kwarg_only && args[i].name == "self" && !layout.self)
      layout.self = i;
    if (args[i].kwarg_only && is_written(args[i].type) && layout.first_out == args.size())
      layout.first_out = i;
  }
  for (size_t i = layout.first_out; i < args.size(); ++i) {
    if (!is_written(args[i].type))
      refuse(from, "argument '" + args[i].name + "' is not written but follows the out arguments");
  }
  for (size_t i = 0; layout.self && i < *layout.self; ++i) {
    if (is_written(args[i].type))
      refuse(from, "argument '" + args[i].name + "' before 'self' is written");
  }
  for (size_t i = 0; i < layout.first_out; ++i) {
    if (!args[i].kwarg_only || i + 4 > layout.first_out)
      continue;
    static constexpr std::string_view kNames[] = {"dtype", "layout", "device", "pin_memory"};
    static constexpr std::string_view kTypes[] = {"ScalarType", "Layout", "Device", "bool"};
    bool grouped = true;
    for (size_t k = 0; k < 4 && grouped; ++k)
      grouped = args[i + k].name == kNames[k] && is_option_type(args[i + k].type, kTypes[k]);
    if (grouped) {
      layout.tensor_options = i;
      break;
    }
  }
  return layout;
}

Kind kind_of(const Schema& from, const Layout& layout) {
  const auto& args = from.arguments;
  const bool inplace = split_name(from.name.name).inplace;
  const bool has_out = layout.first_out < args.size();
  if (inplace && has_out)
    refuse(from, "an in-place operator with out arguments is outside torchgen's model");
  if (inplace) {
    if (!layout.self || !is_written(args[*layout.self].type))
      refuse(from, "an in-place operator without a written 'self' is outside torchgen's model");
    return Kind::inplace;
  }
  for (size_t i = layout.first_out; i < args.size(); ++i) {
    if (args[i].name.starts_with("_scratch_"))
      return Kind::scratch;
  }
  if (has_out)
    return Kind::out;
  const size_t first_after_self = layout.self ? *layout.self + 1 : 0;
  for (size_t i = first_after_self; i < args.size(); ++i) {
    if (!args[i].kwarg_only && is_written(args[i].type))
      return Kind::mutating;
  }
  return Kind::functional;
}

// torchgen derives nothing for views: a return aliasing without writing, or
// an argument whose alias set after the call is "*".
void refuse_views(const Schema& from) {
  for (const Return& r : from.returns) {
    if (r.type.alias && !r.type.alias->is_write)
      refuse(from, "a view (a return aliases an argument): torchgen derives no variants of views");
  }
  for (const Argument& a : from.arguments) {
    if (a.type.alias && std::ranges::find(a.type.alias->after, "*") != a.type.alias->after.end())
      refuse(from, "a view (argument '" + a.name +
                       "' aliases into '*'): torchgen derives no variants of views");
  }
}

OperatorName out_name(const Schema& from) {
  const std::string& o = from.name.overload;
  return {from.name.ns, split_name(from.name.name).str(), o.empty() ? "out" : o + "_out"};
}

OperatorName functional_name(const Schema& from, Kind kind) {
  const BaseName base = split_name(from.name.name);
  if (kind == Kind::mutating && base.dunder)
    refuse(from, "torchgen gives no functional variant to a mutable dunder operator");
  return {from.name.ns, base.str() + (kind == Kind::mutating ? "_functional" : ""),
          from.name.overload};
}

void check_name(const Schema& from, const OperatorName& name, const OperatorName& expected,
                std::string_view what) {
  if (name != expected)
    refuse(from, "torchgen names its " + std::string(what) + " variant " + expected.str() +
                     ", not " + name.str());
}

void add_argument(const Schema& from, Schema& to, Argument arg) {
  for (const Argument& a : to.arguments) {
    if (a.name == arg.name)
      refuse(from, "the derived argument '" + arg.name + "' would repeat an argument's name");
  }
  to.arguments.push_back(std::move(arg));
}

// F's arguments as torchgen's signature() keeps them: no annotations, no
// tensor options, no out arguments.
std::vector<Argument> signature_arguments(const Schema& from, const Layout& layout) {
  std::vector<Argument> out;
  for (size_t i = 0; i < layout.first_out; ++i) {
    if (layout.tensor_options && i >= *layout.tensor_options && i < *layout.tensor_options + 4)
      continue;
    Argument a = from.arguments[i];
    a.type.alias.reset();
    out.push_back(std::move(a));
  }
  return out;
}

// Out arguments for the tensor-like returns of a functional or mutable F,
// appended to `to`, and the returns that go with them.
void add_outs_for_returns(const Schema& from, Schema& to) {
  std::set<std::string> used;
  for (const Argument& a : from.arguments) {
    if (a.type.alias)
      used.insert(a.type.alias->before.begin(), a.type.alias->before.end());
  }
  std::vector<std::string> free;
  for (char c = 'a'; c <= 'z'; ++c) {
    if (!used.contains(std::string(1, c)))
      free.emplace_back(1, c);
  }
  bool any_tensor = false;
  bool all_plain = true;
  for (const Return& r : from.returns) {
    if (is_written(r.type))
      refuse(from, "a return is written: torchgen derives no out= variant");
    any_tensor = any_tensor || is_tensor_like(r.type);
    all_plain = all_plain && r.type.base == "Tensor" && r.type.suffixes.empty();
  }
  if (!any_tensor)
    refuse(from, "no tensor is returned: torchgen derives no out= variant");
  to.returns.clear();
  const size_t n = from.returns.size();
  for (size_t i = 0; i < n; ++i) {
    const Return& r = from.returns[i];
    if (!is_tensor_like(r.type)) {
      to.returns.push_back(r);
      continue;
    }
    if (!can_annotate(r.type))
      refuse(from, "return " + std::to_string(i) + " is a '" + r.type.str() +
                       "': torchgen annotates only Tensor, Tensor? and Tensor[] outs");
    if (i >= free.size())
      refuse(from, "more returns than alias letters a..z left free");
    Argument out{annotated(r.type, free[i]), n == 1 ? "out" : "out" + std::to_string(i),
                 std::nullopt, true};
    if (all_plain)
      to.returns.push_back(Return{out.type, ""});
    add_argument(from, to, std::move(out));
  }
}

Schema derive_out(const Schema& from, const Layout& layout, Kind kind) {
  Schema to;
  to.name = out_name(from);
  if (kind == Kind::inplace) {
    to.arguments = from.arguments;
    to.returns = from.returns;
    const Type self = from.arguments[*layout.self].type;
    to.arguments[*layout.self].type.alias.reset();
    add_argument(from, to, Argument{self, "out", std::nullopt, true});
    return to;
  }
  // Functional: torchgen's signature() of the arguments; mutable: as they are.
  to.arguments = kind == Kind::functional ? signature_arguments(from, layout) : from.arguments;
  add_outs_for_returns(from, to);
  return to;
}

Schema derive_functional(const Schema& from, const Layout& layout, Kind kind) {
  const auto& args = from.arguments;
  Schema to;
  to.name = functional_name(from, kind);
  to.arguments = signature_arguments(from, layout);
  for (const Return& r : from.returns)
    to.returns.push_back(Return{without_annotation(r.type), r.name});
  // Written arguments become returns unless F returns them already: self
  // first, then the positional ones after it.
  auto returned = [&](const AliasInfo& alias) {
    return std::ranges::any_of(from.returns,
                               [&](const Return& r) { return r.type.alias == alias; });
  };
  const size_t first_after_self = layout.self ? *layout.self + 1 : 0;
  std::vector<size_t> written;
  if (layout.self)
    written.push_back(*layout.self);
  for (size_t i = first_after_self; i < layout.first_out; ++i) {
    if (!args[i].kwarg_only)
      written.push_back(i);
  }
  for (size_t i : written) {
    const Type& type = args[i].type;
    if (is_written(type) && !returned(*type.alias))
      to.returns.push_back(Return{without_annotation(type), args[i].name + "_out"});
  }
  return to;
}

struct Prepared {
  Layout layout;
  Kind kind = Kind::functional;
};

// What every derivation starts with: F grouped and classified, and refused
// when torchgen derives nothing from it.
Prepared prepare(const Schema& from) {
  Prepared p;
  p.layout = layout_of_arguments(from);
  p.kind = kind_of(from, p.layout);
  refuse_views(from);
  if (p.kind == Kind::out || p.kind == Kind::scratch)
    refuse(from, "an out= variant already: torchgen derives nothing from it");
  return p;
}

bool has_functional_variant(Kind kind) {
  return kind == Kind::inplace || kind == Kind::mutating;
}

template <typename F>
Derived attempt(F derive) {
  try {
    return Derived{derive(), {}};
  } catch (Failure& f) {
    return Derived{std::nullopt, std::move(f.message)};
  }
}

} // namespace

Derived out_variant(const Schema& from, const OperatorName& name) {
  return attempt([&] {
    const Prepared p = prepare(from);
    check_name(from, name, out_name(from), "out=");
    return derive_out(from, p.layout, p.kind);
  });
}

Derived functional_variant(const Schema& from, const OperatorName& name) {
  return attempt([&] {
    const Prepared p = prepare(from);
    if (!has_functional_variant(p.kind))
      refuse(from, "functional already: torchgen derives no functional variant");
    check_name(from, name, functional_name(from, p.kind), "functional");
    return derive_functional(from, p.layout, p.kind);
  });
}

Derived autogen_variant(const Schema& from, const OperatorName& name) {
  return attempt([&] {
    const Prepared p = prepare(from);
    if (name == out_name(from))
      return derive_out(from, p.layout, p.kind);
    if (has_functional_variant(p.kind) && name == functional_name(from, p.kind))
      return derive_functional(from, p.layout, p.kind);
    std::string expected = out_name(from).str() + " (out=)";
    if (has_functional_variant(p.kind))
      expected += " and " + functional_name(from, p.kind).str() + " (functional)";
    refuse(from, "torchgen derives " + expected + ", not " + name.str());
  });
}

} // namespace opscan::schema
