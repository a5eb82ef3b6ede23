// Invariants of operator schemas, after torchgen's FunctionSchema and
// Arguments checks (torchgen/model.py), and the names and default values
// that libtorch's schema parser (1.13, Debian's) and torchgen can read: what
// either runtime refuses is refused here, so that no generated registration
// fails when it runs. No real schema is refused: libtorch_schemas_test runs
// every rule over the schemas the installed libtorch registers, and
// schema_parity_test checks refusals against torch::jit::parseSchema. The
// rules for default values are schema/defaults.cpp.
#include "ident/ident.h"
#include "schema/defaults.h"
#include "schema/schema.h"

#include <algorithm>
#include <map>
#include <set>

namespace opscan::schema {
namespace {

// Base types that may carry an alias annotation. PyTorch annotates Tensor
// almost exclusively; Storage and Generator are mutable objects too.
bool can_alias(std::string_view base) {
  return base == "Tensor" || base == "Storage" || base == "Generator";
}

// The annotation torchgen compares: the one right after the base type, or
// failing that the first one on a list suffix ("Tensor[](a!)").
const AliasInfo* annotation(const Type& type) {
  if (type.alias)
    return &*type.alias;
  for (const TypeSuffix& s : type.suffixes)
    if (s.alias)
      return &*s.alias;
  return nullptr;
}

bool same_annotation(const Type& a, const Type& b) {
  const AliasInfo* x = annotation(a);
  const AliasInfo* y = annotation(b);
  return x && y ? *x == *y : x == y;
}

std::string annotation_str(const Type& type) {
  const AliasInfo* a = annotation(type);
  if (!a)
    return "no annotation";
  Type only;
  only.alias = *a;
  return only.str(); // an empty base prints just "(a!)"
}

// "Tensor" exactly: torchgen lets only these out arguments be returned.
bool is_plain_tensor(const Type& type) {
  return type.base == "Tensor" && type.suffixes.empty();
}

std::string plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

// ---------------------------------------------------------------------------
// The checker

class Checker {
public:
  Checker(const Schema& schema, const SchemaLayout& layout) : s_(schema), l_(layout) {}

  std::vector<Error> run() {
    for (Error e : check_operator_name(s_.name)) {
      e.offset += l_.name;
      errors_.push_back(std::move(e));
    }
    names();
    alias_types();
    defaults();
    default_order();
    out_group();
    duplicate_alias();
    returns();
    std::stable_sort(errors_.begin(), errors_.end(),
                     [](const Error& a, const Error& b) { return a.offset < b.offset; });
    return std::move(errors_);
  }

private:
  size_t arg_at(size_t i) const { return i < l_.arguments.size() ? l_.arguments[i] : l_.name; }
  size_t default_at(size_t i) const {
    return i < l_.defaults.size() && l_.defaults[i] ? *l_.defaults[i] : arg_at(i);
  }
  size_t name_at(size_t i) const {
    return i < l_.argument_names.size() ? l_.argument_names[i] : arg_at(i);
  }
  size_t ret_at(size_t i) const {
    return i < l_.returns.size() ? l_.returns[i] : std::max(l_.return_list, l_.name);
  }
  size_t return_list_at() const { return std::max(l_.return_list, l_.name); }

  void add(size_t offset, std::string_view code, std::string message) {
    errors_.push_back({offset, "opscan-schema-" + std::string(code), std::move(message)});
  }

  std::string arg_name(size_t i) const { return quoted_part(s_.arguments[i].name); }
  std::string ret_name(size_t i) const {
    const Return& r = s_.returns[i];
    return "return " + std::to_string(i) + " " +
           quoted_part(r.type.str() + (r.name.empty() ? "" : " " + r.name));
  }

  // Names libtorch's lexer reads as keywords; argument names that are
  // macros where generated code names its parameters after them.
  void names() {
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const std::string& name = s_.arguments[i].name;
      if (is_reserved_word(name))
        add(name_at(i), "reserved-word",
            "argument " + arg_name(i) +
                " is named with a keyword of libtorch's schema parser, which refuses it; "
                "choose another name");
      else if (auto from = ident::macro_origin(name))
        add(name_at(i), "macro-name",
            "argument " + arg_name(i) + " is named with a macro in generated code, from " +
                std::string(*from) +
                "; the preprocessor would replace it there: choose another name");
    }
    for (size_t i = 0; i < s_.returns.size(); ++i)
      if (is_reserved_word(s_.returns[i].name))
        add(ret_at(i), "reserved-word",
            ret_name(i) + " is named with a keyword of libtorch's schema parser, which refuses "
                          "it; choose another name");
  }

  // The first alias annotation on `type` that its base may not carry.
  static const AliasInfo* misplaced_alias(const Type& type) {
    return can_alias(type.base) ? nullptr : annotation(type);
  }

  void alias_types() {
    auto message = [](std::string what, const Type& type, const AliasInfo& alias) {
      Type only;
      only.alias = alias;
      return what + " has type " + quoted_part(type.str()) + ", but only Tensor (and Storage, " +
             "Generator) values carry alias annotations: remove " + quoted_part(only.str());
    };
    for (size_t i = 0; i < s_.arguments.size(); ++i)
      if (const AliasInfo* a = misplaced_alias(s_.arguments[i].type))
        add(arg_at(i), "alias-type", message("argument " + arg_name(i), s_.arguments[i].type, *a));
    for (size_t i = 0; i < s_.returns.size(); ++i)
      if (const AliasInfo* a = misplaced_alias(s_.returns[i].type))
        add(ret_at(i), "alias-type", message(ret_name(i), s_.returns[i].type, *a));
  }

  void defaults() {
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const Argument& a = s_.arguments[i];
      if (!a.default_value)
        continue;
      if (auto problem = default_value_problem(a.type, *a.default_value))
        add(default_at(i), "default-type",
            "default " + shown_default(*a.default_value) + " of argument " + arg_name(i) +
                " does not fit its type " + quoted_part(a.type.str()) + ": " + *problem);
    }
  }

  // Keyword-only arguments are passed by name, so only positional ones need
  // their defaults at the end.
  void default_order() {
    std::optional<size_t> defaulted;
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const Argument& a = s_.arguments[i];
      if (a.kwarg_only)
        break;
      if (a.default_value) {
        if (!defaulted)
          defaulted = i;
      } else if (defaulted) {
        add(arg_at(i), "default-order",
            "argument " + arg_name(i) + " has no default but follows " + arg_name(*defaulted) +
                ", which has one: give " + arg_name(i) + " a default, move it before " +
                arg_name(*defaulted) + ", or make it keyword-only (after '*')");
      }
    }
  }

  // torchgen: the first keyword-only mutable argument starts the out group,
  // and everything after it must be mutable too.
  void out_group() {
    std::optional<size_t> first;
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const Argument& a = s_.arguments[i];
      const bool is_mutable = a.type.is_mutable();
      if (!first) {
        if (a.kwarg_only && is_mutable)
          first = i;
        continue;
      }
      if (is_mutable) {
        outs_.push_back(i);
        continue;
      }
      add(arg_at(i), "out-group",
          "argument " + arg_name(i) + " follows out argument " + arg_name(*first) +
              " but is not mutable: out arguments come last; move " + arg_name(i) + " before " +
              arg_name(*first));
    }
    if (first)
      outs_.insert(outs_.begin(), *first);
    is_out_.assign(s_.arguments.size(), false);
    for (size_t i : outs_)
      is_out_[i] = true;
  }

  void duplicate_alias() {
    // alias set name -> the mutable argument that first wrote it
    std::map<std::string, size_t, std::less<>> writers;
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const Type& t = s_.arguments[i].type;
      std::vector<const AliasInfo*> written;
      if (t.alias && t.alias->is_write)
        written.push_back(&*t.alias);
      for (const TypeSuffix& suffix : t.suffixes)
        if (suffix.alias && suffix.alias->is_write)
          written.push_back(&*suffix.alias);
      bool reported = false;
      std::set<std::string> mine;
      for (const AliasInfo* alias : written) {
        for (const std::string& set : alias->before) {
          if (set == "*" || !mine.insert(set).second)
            continue;
          auto [it, fresh] = writers.emplace(set, i);
          if (!fresh && !reported) {
            reported = true;
            add(arg_at(i), "duplicate-alias",
                "arguments " + arg_name(it->second) + " and " + arg_name(i) +
                    " both write alias set " + quoted_part(set) + ": give " + arg_name(i) +
                    " an alias set of its own");
          }
        }
      }
    }
  }

  // Whether argument i is one a mutable return may alias: an out argument
  // or the positional 'self' (torchgen's out_and_self).
  bool returnable(size_t i) const {
    if (is_out_[i])
      return true;
    return !s_.arguments[i].kwarg_only && s_.arguments[i].name == "self";
  }

  void returns() {
    const size_t n = s_.returns.size();
    reported_.assign(n, false);
    size_t mutable_count = 0;
    for (const Return& r : s_.returns)
      mutable_count += r.type.is_mutable();
    if (mutable_count != 0 && mutable_count != n) {
      // The returns need rewriting anyway; the finer rules would only echo.
      const bool first_mutable = s_.returns[0].type.is_mutable();
      size_t odd = 1;
      while (odd < n && s_.returns[odd].type.is_mutable() == first_mutable)
        ++odd;
      add(ret_at(odd), "mixed-returns",
          ret_name(odd) + " is " + (first_mutable ? "immutable" : "mutable") + " but " +
              ret_name(0) + " is " + (first_mutable ? "mutable" : "immutable") +
              ": return either only out arguments (annotated like them) or only new values");
      inplace(false);
      return;
    }
    inplace(true);
    out_returns();
    // Mutable arguments by annotation: whether one a return may alias has
    // it, else the first other one (for the message).
    std::map<std::string, std::pair<bool, size_t>> mutable_args;
    for (size_t a = 0; a < s_.arguments.size(); ++a) {
      if (!s_.arguments[a].type.is_mutable())
        continue;
      auto [it, fresh] =
          mutable_args.emplace(annotation_str(s_.arguments[a].type), std::pair{returnable(a), a});
      if (!fresh && !it->second.first && returnable(a))
        it->second = {true, a};
    }
    for (size_t i = 0; i < n; ++i) {
      const Type& t = s_.returns[i].type;
      if (reported_[i] || !t.is_mutable())
        continue;
      auto it = mutable_args.find(annotation_str(t));
      if (it != mutable_args.end() && it->second.first)
        continue;
      if (it != mutable_args.end()) {
        const std::string other = arg_name(it->second.second);
        add(ret_at(i), "return-alias",
            ret_name(i) + " aliases argument " + other +
                ", which is neither an out argument nor 'self': make " + other +
                " keyword-only (after '*') or do not return it");
      } else {
        add(ret_at(i), "return-alias",
            ret_name(i) + " is mutable but aliases no out argument and not 'self': annotate it " +
                "like the out argument it returns, or drop the '!'");
      }
    }
  }

  void out_returns() {
    const size_t n = s_.returns.size();
    if (outs_.empty() || n == 0)
      return;
    for (size_t i : outs_) {
      if (!is_plain_tensor(s_.arguments[i].type)) {
        add(ret_at(0), "out-returns",
            "out argument " + arg_name(i) + " is " + quoted_part(s_.arguments[i].type.str()) +
                ", not a plain Tensor, so the operator cannot return it: return nothing (-> ())");
        reported_.assign(n, true);
        return;
      }
    }
    // Scratch tensors (memory planning) are out arguments nobody returns.
    std::vector<size_t> returned;
    for (size_t i : outs_)
      if (!s_.arguments[i].name.starts_with("_scratch_"))
        returned.push_back(i);
    if (n != returned.size()) {
      std::string names;
      for (size_t k = 0; k < returned.size() && k < 4; ++k)
        names += (k ? ", " : "") + arg_name(returned[k]);
      if (returned.size() > 4)
        names += ", ...";
      add(ret_at(n > returned.size() ? returned.size() : 0), "out-returns",
          plural(n, "return") + " but " + plural(returned.size(), "out argument") + " (" + names +
              "): return each out argument in order, or nothing (-> ())");
      reported_.assign(n, true);
      return;
    }
    for (size_t k = 0; k < n && k < outs_.size(); ++k) {
      const size_t a = outs_[k];
      if (reported_[k] || same_annotation(s_.arguments[a].type, s_.returns[k].type))
        continue;
      reported_[k] = true;
      add(ret_at(k), "out-return-alias",
          "out argument " + arg_name(a) + " is annotated " + annotation_str(s_.arguments[a].type) +
              " but " + ret_name(k) + " has " + annotation_str(s_.returns[k].type) + ": return " +
              std::to_string(k) + " must carry the annotation of out argument " +
              std::to_string(k) + ", " + annotation_str(s_.arguments[a].type));
    }
  }

  // torchgen: "name_" mutates a positional 'self' and returns it (a plain
  // Tensor) or nothing (anything else, e.g. Tensor(a!)[] self).
  void inplace(bool check_returns) {
    const std::string& name = s_.name.name;
    if (name.empty() || name.back() != '_' || name.starts_with("__"))
      return;
    const std::string op = quoted_part(s_.name.name);
    std::optional<size_t> self;
    for (size_t i = 0; i < s_.arguments.size() && !self; ++i)
      if (!s_.arguments[i].kwarg_only && s_.arguments[i].name == "self")
        self = i;
    // Without a mutable self there is nothing the returns could alias;
    // this finding covers them.
    if (!self) {
      add(l_.name, "inplace",
          "in-place operator " + op +
              " (its name ends in '_') needs a positional argument "
              "'Tensor(a!) self' to modify; add it first, or drop the trailing '_'");
      reported_.assign(reported_.size(), true);
      return;
    }
    const Type& st = s_.arguments[*self].type;
    if (!st.is_mutable()) {
      add(arg_at(*self), "inplace",
          "in-place operator " + op + " must modify 'self', but 'self' is " +
              quoted_part(st.str()) + ": declare it 'Tensor(a!) self'");
      reported_.assign(reported_.size(), true);
      return;
    }
    if (!check_returns)
      return;
    const size_t n = s_.returns.size();
    if (is_plain_tensor(st)) {
      if (n == 1 && same_annotation(s_.returns[0].type, st))
        return;
      std::string found = n == 0   ? "nothing"
                          : n == 1 ? quoted_part(s_.returns[0].type.str())
                                   : plural(n, "value");
      add(n == 0 ? return_list_at() : ret_at(0), "inplace",
          "in-place operator " + op + " must return 'self' as " + quoted_part(st.str()) +
              " (its annotation), but returns " + found + ": write '-> " + st.str() + "'");
    } else if (n != 0) {
      add(ret_at(0), "inplace",
          "in-place operator " + op + " takes 'self' as " + quoted_part(st.str()) +
              ", which it cannot return: return nothing (-> ())");
    } else {
      return;
    }
    reported_.assign(n, true);
  }

  const Schema& s_;
  const SchemaLayout& l_;
  std::vector<bool> is_out_;   // by argument index
  std::vector<size_t> outs_;   // indices of the out group's mutable arguments
  std::vector<bool> reported_; // returns already diagnosed, to report each once
  std::vector<Error> errors_;
};

} // namespace

std::vector<Error> check_schema(const Schema& schema, const SchemaLayout& layout) {
  return Checker(schema, layout).run();
}

} // namespace opscan::schema
