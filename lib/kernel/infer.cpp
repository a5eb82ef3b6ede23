// Schemas inferred from kernel signatures, and a declared schema checked against one.
#include "kernel/infer.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace opscan::kernel {
namespace {

schema::AliasInfo write_alias(size_t index) {
  // a..z, then a1..z1, ...: enough for any real kernel.
  std::string name(1, static_cast<char>('a' + index % 26));
  if (index >= 26)
    name += std::to_string(index / 26);
  return {{name}, true, {}};
}

// Places the alias on the tensor itself: "Tensor(a!)" or "Tensor(a!)?".
schema::Type with_alias(schema::Type type, const schema::AliasInfo& alias) {
  type.alias = alias;
  return type;
}

// The type with alias names dropped, so that "Tensor(a!)" and "Tensor(b!)"
// compare equal; fixed list sizes and SymInt are normalised too.
std::string comparable(schema::Type type) {
  auto strip = [](std::optional<schema::AliasInfo>& alias) {
    if (alias && alias->is_write)
      alias = schema::AliasInfo{{"_"}, true, {}};
    else
      alias.reset();
  };
  strip(type.alias);
  // A C++ list of tensors (ArrayRef<Tensor>) cannot say whether the kernel
  // writes its tensors: "Tensor(a!)[]" and "Tensor[]" both fit it.
  if (type.is_list() && type.alias)
    type.alias.reset();
  for (auto& suffix : type.suffixes) {
    strip(suffix.alias);
    suffix.size.reset();
  }
  if (type.base == "SymInt")
    type.base = "int";
  if (type.base == "SymBool")
    type.base = "bool";
  return type.str();
}

bool is_tensor_list(const schema::Type& type) {
  return type.base == "Tensor" && type.suffixes.size() == 1 &&
         type.suffixes[0].kind == schema::TypeSuffix::Kind::list;
}

// torchgen's out variants: overload "out" or "<something>_out".
bool is_out_overload(const schema::OperatorName& name) {
  return name.overload == "out" || name.overload.ends_with("_out");
}

// The schema a signature reads as, and why the rules cannot infer it from
// the signature, if they cannot (the schema is complete all the same).
struct Reading {
  schema::Schema schema;
  std::optional<InferError> error;
};

Reading read(const schema::OperatorName& name, const std::vector<CppParam>& params,
             const CppReturn& ret) {
  Reading reading;
  schema::Schema& result = reading.schema;
  result.name = name;
  const bool in_place = !name.name.empty() && name.name.back() == '_';

  // Which tensors the kernel writes. A list of tensors cannot say so in
  // C++; its place does: first in an in-place operator, or last in an out
  // variant (overload "out" or "..._out") that returns nothing and writes
  // no other tensor.
  std::vector<bool> written;
  for (const CppParam& p : params)
    written.push_back(p.is_mutable);
  const bool writes_any = std::find(written.begin(), written.end(), true) != written.end();
  if (in_place && !params.empty() && is_tensor_list(params[0].type)) {
    written[0] = true;
  } else if (!in_place && !writes_any && ret.values.empty() && is_out_overload(name) &&
             !params.empty() && is_tensor_list(params.back().type)) {
    written.back() = true;
  }

  // The out group: the trailing run of written tensors.
  size_t out_begin = params.size();
  if (!in_place) {
    while (out_begin > 0 && written[out_begin - 1])
      --out_begin;
  }
  std::vector<schema::AliasInfo> mutable_aliases;
  for (size_t i = 0; i < params.size(); ++i) {
    const CppParam& p = params[i];
    schema::Argument arg{p.type, p.name, std::nullopt, i >= out_begin};
    if (written[i]) {
      mutable_aliases.push_back(write_alias(mutable_aliases.size()));
      arg.type = with_alias(p.type, mutable_aliases.back());
    }
    result.arguments.push_back(std::move(arg));
  }
  // What an in-place operator modifies is its first argument, 'self',
  // whatever C++ calls it (ExecuTorch's kernels call it 'in').
  if (in_place && !params.empty() && written[0]) {
    bool self_taken = false;
    for (size_t i = 1; i < params.size(); ++i)
      self_taken = self_taken || params[i].name == "self";
    if (!self_taken)
      result.arguments[0].name = "self";
  }

  size_t mutable_returns = 0;
  for (const CppParam& r : ret.values)
    mutable_returns += r.is_mutable;
  if (mutable_returns == 0) {
    for (const CppParam& r : ret.values)
      result.returns.push_back({r.type, ""});
    return reading;
  }
  // Returned references alias the out group, or else every mutable tensor,
  // in order; when neither fits, the last mutable tensors (to compare).
  const size_t out_group = params.size() - out_begin;
  const size_t first_returned =
      mutable_returns == out_group && out_group > 0 ? mutable_aliases.size() - out_group
      : mutable_returns <= mutable_aliases.size()   ? mutable_aliases.size() - mutable_returns
                                                    : 0;
  for (size_t i = 0; i < ret.values.size(); ++i) {
    const size_t set = first_returned + i;
    result.returns.push_back({ret.values[i].is_mutable && set < mutable_aliases.size()
                                  ? with_alias(ret.values[i].type, mutable_aliases[set])
                                  : ret.values[i].type,
                              ""});
  }
  if (mutable_returns != ret.values.size()) {
    reading.error = InferError{-1, "opscan-infer-mixed-returns",
                               "returns mix references to tensors with values: return references "
                               "to all out tensors, or values only"};
  } else if (mutable_returns != out_group && mutable_returns != mutable_aliases.size()) {
    reading.error = InferError{
        -1, "opscan-infer-return-count",
        fmt::format("returns {} tensor reference{} but takes {} mutable tensor{}{}: a returned "
                    "reference must be one of the out tensors, in order{}",
                    mutable_returns, mutable_returns == 1 ? "" : "s", mutable_aliases.size(),
                    mutable_aliases.size() == 1 ? "" : "s",
                    out_group > 0 && out_group != mutable_aliases.size()
                        ? fmt::format(" ({} of them out tensors)", out_group)
                        : "",
                    mutable_aliases.size() > 1 ? " (return std::tuple<Tensor&, ...>)" : "")};
  }
  return reading;
}

} // namespace

schema::Schema read_signature(const schema::OperatorName& name, const std::vector<CppParam>& params,
                              const CppReturn& ret) {
  return read(name, params, ret).schema;
}

std::variant<schema::Schema, InferError> infer_schema(const schema::OperatorName& name,
                                                      const std::vector<CppParam>& params,
                                                      const CppReturn& ret) {
  Reading reading = read(name, params, ret);
  if (reading.error)
    return *reading.error;
  return std::move(reading.schema);
}

namespace {

// Whether a type is written by the kernel (a write alias on the value itself).
bool writes(const schema::Type& type) {
  return type.alias && type.alias->is_write;
}

std::string plural(size_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string returns_of(const schema::Schema& s) {
  std::string text = s.str();
  return text.substr(text.rfind(" -> ") + 4);
}

} // namespace

std::vector<InferError> cross_check(const schema::Schema& reference, const schema::Schema& inferred,
                                    const CppSpelling& cpp, Reference kind) {
  const std::string says = kind == Reference::declared
                               ? std::string("schema says")
                               : "the known schema of " + reference.name.str() + " says";
  const std::string schema_word = kind == Reference::declared
                                      ? std::string("schema")
                                      : "the known schema of " + reference.name.str();
  std::vector<InferError> errors;
  const auto& want = reference.arguments;
  const auto& have = inferred.arguments;
  if (want.size() != have.size()) {
    errors.push_back({-1, "opscan-mismatch-count",
                      fmt::format("{} has {}, the C++ function takes {}{}", schema_word,
                                  plural(want.size(), "argument"), have.size(),
                                  cpp.has_context ? " (after the runtime context)" : "")});
    return errors;
  }
  std::vector<bool> type_ok(want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const schema::Type& w = want[i].type;
    const schema::Type& h = have[i].type;
    const std::string& cpp_type = i < cpp.params.size() ? cpp.params[i] : h.str();
    schema::Type w_read = w, h_read = h;
    w_read.alias.reset();
    h_read.alias.reset();
    if (comparable(w) == comparable(h)) {
      type_ok[i] = true;
    } else if (comparable(w_read) == comparable(h_read) && writes(w) != writes(h)) {
      errors.push_back(
          {static_cast<int>(i), "opscan-mismatch-mutability",
           writes(w) ? fmt::format("argument {} '{}': {} {} (written by the kernel), C++ parameter "
                                   "is '{}' (read-only): take it as a non-const reference",
                                   i + 1, want[i].name, says, w.str(), cpp_type)
                     : fmt::format("argument {} '{}': {} {} (read-only), C++ parameter is '{}' "
                                   "(written by the kernel): take it as a const reference",
                                   i + 1, want[i].name, says, w.str(), cpp_type)});
    } else {
      errors.push_back({static_cast<int>(i), "opscan-mismatch-type",
                        fmt::format("argument {} '{}': {} {}, C++ parameter is '{}'", i + 1,
                                    want[i].name, says, w.str(), cpp_type)});
    }
  }
  // Arguments of one type in a different order: only the names tell.
  for (size_t i = 0; i < want.size(); ++i) {
    if (!type_ok[i] || want[i].name == have[i].name)
      continue;
    for (size_t j = 0; j < want.size(); ++j) {
      if (j != i && want[j].name == have[i].name) {
        errors.push_back({static_cast<int>(i), "opscan-mismatch-order",
                          fmt::format("argument {}: {} '{}', the C++ parameter here is '{}', which "
                                      "is argument {} in {}",
                                      i + 1, says, want[i].name, have[i].name, j + 1,
                                      kind == Reference::declared ? "the schema" : schema_word),
                          kind == Reference::known});
        break;
      }
    }
  }
  bool same_returns = reference.returns.size() == inferred.returns.size();
  for (size_t i = 0; same_returns && i < reference.returns.size(); ++i) {
    same_returns = comparable(reference.returns[i].type) == comparable(inferred.returns[i].type);
  }
  if (!same_returns) {
    errors.push_back(
        {-1, "opscan-mismatch-returns",
         fmt::format("{} returns {}, the C++ function returns '{}', which is {} in a schema",
                     schema_word, returns_of(reference), cpp.ret, returns_of(inferred))});
  }
  return errors;
}

namespace {

// Each inferred argument's declared counterpart, or -1: the declared argument
// of its name; else, when the counts agree, the one at its position (so a
// type fix keeps the declared name); else, in order, the next declared
// argument of its type that is left.
std::vector<int> counterparts(const schema::Schema& declared, const schema::Schema& inferred) {
  const auto& want = declared.arguments;
  const auto& have = inferred.arguments;
  std::vector<int> pair(have.size(), -1);
  std::vector<bool> taken(want.size());
  auto take = [&](size_t i, size_t j) {
    pair[i] = static_cast<int>(j);
    taken[j] = true;
  };
  for (size_t i = 0; i < have.size(); ++i) {
    for (size_t j = 0; j < want.size(); ++j) {
      if (want[j].name == have[i].name)
        take(i, j);
    }
  }
  if (want.size() == have.size()) {
    for (size_t i = 0; i < have.size(); ++i) {
      if (pair[i] < 0 && !taken[i])
        take(i, i);
    }
  }
  size_t next = 0;
  for (size_t i = 0; i < have.size(); ++i) {
    for (size_t j = next; pair[i] < 0 && j < want.size(); ++j) {
      if (!taken[j] && comparable(want[j].type) == comparable(have[i].type)) {
        take(i, j);
        next = j + 1;
      }
    }
  }
  return pair;
}

// Every alias set a type names, written or not.
void add_alias_sets(const schema::Type& type, std::set<std::string>& sets) {
  auto add = [&](const std::optional<schema::AliasInfo>& alias) {
    if (!alias)
      return;
    sets.insert(alias->before.begin(), alias->before.end());
    sets.insert(alias->after.begin(), alias->after.end());
  };
  add(type.alias);
  for (const schema::TypeSuffix& suffix : type.suffixes)
    add(suffix.alias);
}

} // namespace

schema::Schema repair(const schema::Schema& declared, const schema::Schema& inferred) {
  schema::Schema fixed = inferred;
  fixed.name = declared.name;
  const std::vector<int> pair = counterparts(declared, inferred);
  // Inferred alias set -> the alias the repaired schema uses for it.
  std::map<std::string, schema::AliasInfo> aliases;
  std::vector<bool> kept(fixed.arguments.size());
  for (size_t i = 0; i < fixed.arguments.size(); ++i) {
    if (pair[i] < 0)
      continue;
    schema::Argument& arg = fixed.arguments[i];
    const schema::Argument& d = declared.arguments[static_cast<size_t>(pair[i])];
    if (comparable(d.type) == comparable(arg.type)) {
      if (arg.type.alias && d.type.alias)
        aliases[arg.type.alias->before.front()] = *d.type.alias;
      arg = d;
      kept[i] = true;
    } else {
      // The C++ type, without the declared default; the out group stays
      // keyword-only.
      arg.name = d.name;
      arg.kwarg_only = d.kwarg_only || arg.kwarg_only;
    }
  }
  // Tensors written with the C++ type get alias sets no kept argument uses.
  std::set<std::string> used;
  for (size_t i = 0; i < fixed.arguments.size(); ++i) {
    if (kept[i])
      add_alias_sets(fixed.arguments[i].type, used);
  }
  for (size_t i = 0; i < fixed.arguments.size(); ++i) {
    std::optional<schema::AliasInfo>& alias = fixed.arguments[i].type.alias;
    if (kept[i] || !alias)
      continue;
    const std::string set = alias->before.front();
    std::string name = set;
    for (size_t n = 0; used.count(name); ++n)
      name = write_alias(n).before.front();
    used.insert(name);
    alias = aliases[set] = schema::AliasInfo{{name}, true, {}};
  }
  // Keep the schema valid: once keyword-only, always keyword-only; and no
  // positional argument without a default after one with a default.
  for (size_t i = 1; i < fixed.arguments.size(); ++i) {
    fixed.arguments[i].kwarg_only =
        fixed.arguments[i].kwarg_only || fixed.arguments[i - 1].kwarg_only;
  }
  bool later_required = false;
  for (size_t i = fixed.arguments.size(); i-- > 0;) {
    schema::Argument& arg = fixed.arguments[i];
    if (arg.kwarg_only)
      continue;
    if (later_required)
      arg.default_value.reset();
    later_required = later_required || !arg.default_value;
  }

  // Returns: a written one aliases the argument the C++ returns; it keeps
  // the name of the declared return of that alias set. Others keep the
  // declared return at their position, or its name when the type changed.
  for (schema::Return& r : fixed.returns) {
    if (r.type.alias) {
      auto it = aliases.find(r.type.alias->before.front());
      if (it != aliases.end())
        r.type.alias = it->second;
    }
  }
  if (declared.returns.size() != fixed.returns.size())
    return fixed;
  std::set<std::string> argument_sets;
  for (const schema::Argument& arg : fixed.arguments)
    add_alias_sets(arg.type, argument_sets);
  std::set<std::string> names;
  for (size_t i = 0; i < fixed.returns.size(); ++i) {
    schema::Return& r = fixed.returns[i];
    const schema::Return* d = &declared.returns[i];
    if (writes(r.type)) {
      for (const schema::Return& other : declared.returns) {
        if (writes(other.type) && other.type.alias->before == r.type.alias->before)
          d = &other;
      }
    } else if (comparable(d->type) == comparable(r.type)) {
      // A view's alias set stays while an argument still has it.
      std::set<std::string> sets;
      add_alias_sets(d->type, sets);
      if (std::includes(argument_sets.begin(), argument_sets.end(), sets.begin(), sets.end()))
        r.type = d->type;
    }
    if (!d->name.empty() && names.insert(d->name).second)
      r.name = d->name;
  }
  return fixed;
}

} // namespace opscan::kernel
