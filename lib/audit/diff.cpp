// `opscan diff`: matching two sets of libraries and classifying each change to their operators.
#include "audit/diff.h"

#include "support/text.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <tuple>

namespace opscan::audit {

namespace {

constexpr Compatibility kBreaking = Compatibility::breaking;
constexpr Compatibility kCompatible = Compatibility::compatible;

const std::vector<ChangeClass> kClasses = {
    {"library-added", kCompatible, "a library is new", true},
    {"library-removed", kBreaking, "a library is gone, with every operator it registered", true},
    {"registration-function-changed", kBreaking,
     "a library's registration function has another name: callers of the old one no longer link",
     true},
    {"registration-mode-changed", kBreaking,
     "a library registers another way (static, manual, named): its users must register it "
     "differently",
     true},
    {"target-changed", kBreaking, "a library is generated for another runtime", true},
    {"operator-added", kCompatible, "an operator is new in a library"},
    {"operator-removed", kBreaking, "an operator is gone from a library"},
    {"library-changed", kBreaking,
     "an operator moved to another library: a program linking only the old library loses it"},
    {"kernel-key-added", kCompatible, "an operator has a new (dtype-specialised) kernel"},
    {"kernel-key-removed", kBreaking, "a kernel key of an operator is gone"},
    {"dispatch-key-added", kCompatible, "an operator is registered for a new dispatch key"},
    {"dispatch-key-removed", kBreaking, "an operator is no longer registered for a dispatch key"},
    {"argument-added-with-default", kCompatible,
     "a new argument at the end, with a default: old calls still mean the same"},
    {"argument-added-without-default", kBreaking,
     "a new argument at the end without a default: old calls lack it"},
    {"argument-inserted", kBreaking,
     "a new argument before existing ones: their positions shift (even with a default)"},
    {"argument-removed", kBreaking, "an argument is gone"},
    {"argument-reordered", kBreaking, "an argument moved to another position"},
    {"argument-renamed", kCompatible,
     "a positional argument has a new name (callers pass it by position)"},
    {"keyword-argument-renamed", kBreaking,
     "a keyword-only argument has a new name (callers pass it by name)"},
    {"argument-type-changed", kBreaking, "an argument has another type"},
    {"argument-made-keyword-only", kBreaking,
     "a positional argument became keyword-only (after '*')"},
    {"argument-made-positional", kCompatible, "a keyword-only argument became positional"},
    {"default-added", kCompatible, "an argument has a default now"},
    {"default-removed", kBreaking, "an argument lost its default: calls that omit it break"},
    {"default-changed", kBreaking, "an argument's default is another value"},
    {"mutability-changed", kBreaking,
     "an argument's alias annotation gained or lost '!': it is written now, or no longer"},
    {"alias-changed", kBreaking,
     "an argument's alias set changed (a -> b, or added or removed without '!')"},
    {"out-argument-added", kBreaking, "a new out argument (keyword-only, written tensor)"},
    {"out-argument-removed", kBreaking, "an out argument is gone"},
    {"return-added", kBreaking, "the operator returns one more value"},
    {"return-removed", kBreaking, "the operator returns one value fewer"},
    {"return-type-changed", kBreaking, "a return has another type"},
    {"return-alias-changed", kBreaking, "a return's alias annotation changed"},
    {"return-renamed", kCompatible, "a named return has a new name"},
    {"cpp-function-changed", kCompatible,
     "another C++ function implements the kernel (callers of the operator are unaffected)"},
    {"cpp-signature-changed", kCompatible,
     "a C++ parameter or return type changed while the schema did not"},
    {"context-changed", kCompatible,
     "the kernel takes a runtime context (KernelRuntimeContext, DispatchKeySet) now, or no "
     "longer"},
    {"schema-origin-changed", kCompatible,
     "the schema comes from elsewhere now (declared, inferred, known)"},
};

size_t class_rank(std::string_view id) {
  for (size_t i = 0; i < kClasses.size(); ++i) {
    if (kClasses[i].id == id)
      return i;
  }
  return kClasses.size();
}

std::string q(std::string_view text) {
  return support::quoted(text, 200);
}

// A type without its alias annotations: what "the type" of a value is.
schema::Type plain(schema::Type type) {
  type.alias.reset();
  for (schema::TypeSuffix& suffix : type.suffixes)
    suffix.alias.reset();
  return type;
}

std::vector<std::optional<schema::AliasInfo>> aliases_of(const schema::Type& type) {
  std::vector<std::optional<schema::AliasInfo>> out{type.alias};
  for (const schema::TypeSuffix& suffix : type.suffixes)
    out.push_back(suffix.alias);
  return out;
}

bool is_out(const schema::Argument& a) {
  return a.kwarg_only && a.type.base == "Tensor" && a.type.is_mutable();
}

std::string spelled(const schema::Argument& a) {
  std::string text = a.type.str() + " " + a.name;
  if (a.default_value)
    text += "=" + *a.default_value;
  return a.kwarg_only ? "*, " + text : text;
}

std::string spelled(const schema::Return& r) {
  return r.name.empty() ? r.type.str() : r.type.str() + " " + r.name;
}

// The identity of a kernel within its operator: the annotation fields it
// sets.
using KernelId = std::map<std::string, std::string, std::less<>>;

// A kernel's identity as a change shows it: by the first of `fields` it
// sets; a kernel without any is the fallback, one kernel key more or fewer.
struct ShownKey {
  std::string change; // the field's IR key spelled with '-': "kernel-key"
  std::string value;  // "" for the fallback
  std::string text;   // "kernel key 'v1/6;0'"
};
ShownKey shown_key(const KernelId& id, const ir::Fields& fields) {
  for (const ir::Field& field : fields) {
    auto it = id.find(field.key);
    if (it == id.end())
      continue;
    std::string change = field.key;
    std::replace(change.begin(), change.end(), '_', '-');
    return {change, it->second, field.noun + " " + q(it->second)};
  }
  return {"kernel-key", "", "the kernel without a key"};
}

// Old and new arguments matched as diff.h describes.
struct Pairing {
  std::vector<std::optional<size_t>> new_of_old;
  std::vector<std::optional<size_t>> old_of_new;
  std::vector<bool> reordered; // by old index
};

// The indices (into `values`) of a longest strictly increasing subsequence.
std::vector<size_t> longest_increasing(const std::vector<size_t>& values) {
  std::vector<size_t> tails;                           // index of the last item of each length
  std::vector<size_t> before(values.size(), SIZE_MAX); // predecessor in the subsequence
  for (size_t i = 0; i < values.size(); ++i) {
    auto at = std::lower_bound(tails.begin(), tails.end(), values[i],
                               [&](size_t t, size_t v) { return values[t] < v; });
    if (at != tails.begin())
      before[i] = *(at - 1);
    if (at == tails.end())
      tails.push_back(i);
    else
      *at = i;
  }
  std::vector<size_t> out;
  for (size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = before[i])
    out.push_back(i);
  std::reverse(out.begin(), out.end());
  return out;
}

Pairing pair_arguments(const std::vector<ir::Argument>& olds,
                       const std::vector<ir::Argument>& news) {
  Pairing p;
  p.new_of_old.resize(olds.size());
  p.old_of_new.resize(news.size());
  p.reordered.resize(olds.size());
  std::map<std::string_view, size_t> new_by_name;
  for (size_t j = 0; j < news.size(); ++j)
    new_by_name.emplace(news[j].schema.name, j);
  std::vector<std::pair<size_t, size_t>> named;
  for (size_t i = 0; i < olds.size(); ++i) {
    if (auto it = new_by_name.find(olds[i].schema.name); it != new_by_name.end()) {
      named.emplace_back(i, it->second);
      p.new_of_old[i] = it->second;
      p.old_of_new[it->second] = i;
    }
  }
  std::vector<size_t> new_indices;
  for (const auto& [i, j] : named)
    new_indices.push_back(j);
  std::vector<std::pair<size_t, size_t>> anchors;
  std::set<size_t> in_order;
  for (size_t k : longest_increasing(new_indices)) {
    anchors.push_back(named[k]);
    in_order.insert(named[k].first);
  }
  for (const auto& [i, j] : named)
    p.reordered[i] = !in_order.contains(i);
  // Between consecutive anchors, what is left pairs up in order.
  anchors.insert(anchors.begin(), {SIZE_MAX, SIZE_MAX});
  anchors.emplace_back(olds.size(), news.size());
  for (size_t a = 0; a + 1 < anchors.size(); ++a) {
    std::vector<size_t> gap_old, gap_new;
    for (size_t i = anchors[a].first + 1; i < anchors[a + 1].first; ++i) {
      if (!p.new_of_old[i])
        gap_old.push_back(i);
    }
    for (size_t j = anchors[a].second + 1; j < anchors[a + 1].second; ++j) {
      if (!p.old_of_new[j])
        gap_new.push_back(j);
    }
    for (size_t t = 0; t < gap_old.size() && t < gap_new.size(); ++t) {
      p.new_of_old[gap_old[t]] = gap_new[t];
      p.old_of_new[gap_new[t]] = gap_old[t];
    }
  }
  return p;
}

// Collects the changes of one comparison.
class Differ {
public:
  explicit Differ(const ir::Fields& fields) : fields_(fields) {}
  std::vector<Change> changes;

  void compare_libraries(const Library& o, const Library& n);
  void library_alone(const Library& library, bool added);
  void operator_alone(const Library& library, const std::string& op, const ir::Kernel& kernel,
                      bool added);
  void moved(const Library& from, const ir::Kernel& old_kernel, const Library& to,
             const ir::Kernel& new_kernel);
  void compare_operator(const Library& ol, const std::vector<const ir::Kernel*>& olds,
                        const Library& nl, const std::vector<const ir::Kernel*>& news);

private:
  const ir::Fields& fields_;
  // A record of class `id`; the library is the new side's, else the old's.
  Change& add(std::string_view id, std::string op, std::string message,
              std::optional<Site> old_site, std::optional<Site> new_site) {
    const ChangeClass* c = find_change_class(id);
    Change change;
    change.library = new_site ? new_site->library : old_site ? old_site->library : "";
    change.op = std::move(op);
    change.change = std::string(id);
    change.compatibility = c ? c->compatibility : kBreaking;
    change.message = std::move(message);
    change.old_site = std::move(old_site);
    change.new_site = std::move(new_site);
    return changes.emplace_back(std::move(change));
  }
  static Site site(const Library& library, std::string value, const diag::Location& where) {
    return {library.name, std::move(value), where};
  }

  void compare_schemas(const Library& ol, const ir::Kernel& o, const Library& nl,
                       const ir::Kernel& n, const Pairing& p);
  void compare_argument(const Library& ol, const ir::Kernel& o, size_t i, const Library& nl,
                        const ir::Kernel& n, size_t j, bool reordered);
  void compare_returns(const Library& ol, const ir::Kernel& o, const Library& nl,
                       const ir::Kernel& n);
  void compare_cpp(const Library& ol, const ir::Kernel& o, const Library& nl, const ir::Kernel& n,
                   const Pairing& p);
};

void Differ::library_alone(const Library& library, bool added) {
  const diag::Location where{library.path, 0, 0, 0};
  const std::string what = fmt::format("library {} {} ({} kernel{})", q(display_name(library.name)),
                                       added ? "added" : "removed", library.kernels.size(),
                                       library.kernels.size() == 1 ? "" : "s");
  Site s = site(library, display_name(library.name), where);
  if (added)
    add("library-added", "", what, std::nullopt, s);
  else
    add("library-removed", "", what, s, std::nullopt);
}

void Differ::compare_libraries(const Library& o, const Library& n) {
  if (!o.info || !n.info)
    return;
  auto changed = [&](std::string_view id, std::string_view what, const std::string& before,
                     const std::string& after) {
    if (before == after)
      return;
    add(id, "", fmt::format("library {}: {} {} -> {}", q(n.name), what, q(before), q(after)),
        site(o, before, o.record), site(n, after, n.record));
  };
  changed("target-changed", "target", o.info->target, n.info->target);
  changed("registration-mode-changed", "registration mode",
          std::string(ir::to_string(o.info->registration)),
          std::string(ir::to_string(n.info->registration)));
  // Static registration has no function: the mode change says it all.
  if (!o.info->function.empty() && !n.info->function.empty()) {
    changed("registration-function-changed", "registration function", o.info->function,
            n.info->function);
  }
}

void Differ::operator_alone(const Library& library, const std::string& op, const ir::Kernel& kernel,
                            bool added) {
  const std::string schema = kernel.schema().str();
  Site s = site(library, schema, kernel.location);
  if (added) {
    add("operator-added", op,
        fmt::format("operator {} added to library {}: {}", op, q(display_name(library.name)),
                    schema),
        std::nullopt, s);
  } else {
    add("operator-removed", op,
        fmt::format("operator {} removed from library {} (was {})", op,
                    q(display_name(library.name)), schema),
        s, std::nullopt);
  }
}

void Differ::moved(const Library& from, const ir::Kernel& old_kernel, const Library& to,
                   const ir::Kernel& new_kernel) {
  add("library-changed", old_kernel.op.str(),
      fmt::format("operator {} moved from library {} to library {}", old_kernel.op.str(),
                  q(display_name(from.name)), q(display_name(to.name))),
      site(from, display_name(from.name), old_kernel.location),
      site(to, display_name(to.name), new_kernel.location));
}

void Differ::compare_operator(const Library& ol, const std::vector<const ir::Kernel*>& olds,
                              const Library& nl, const std::vector<const ir::Kernel*>& news) {
  const std::string op = olds.front()->op.str();
  std::map<KernelId, const ir::Kernel*> old_by_id, new_by_id;
  for (const ir::Kernel* k : olds)
    old_by_id.emplace(k->fields, k);
  for (const ir::Kernel* k : news)
    new_by_id.emplace(k->fields, k);
  std::vector<std::pair<const ir::Kernel*, const ir::Kernel*>> pairs;
  for (const auto& [id, k] : old_by_id) {
    if (auto it = new_by_id.find(id); it != new_by_id.end()) {
      pairs.emplace_back(k, it->second);
      continue;
    }
    const ShownKey key = shown_key(id, fields_);
    add(key.change + "-removed", op,
        fmt::format("{} of {} removed (C++ function {})", key.text, op, k->cpp_function),
        site(ol, key.value, k->location), std::nullopt);
  }
  for (const auto& [id, k] : new_by_id) {
    if (old_by_id.contains(id))
      continue;
    const ShownKey key = shown_key(id, fields_);
    add(key.change + "-added", op,
        fmt::format("{} of {} added (C++ function {})", key.text, op, k->cpp_function),
        std::nullopt, site(nl, key.value, k->location));
  }
  // The schemas of kernels with one key; of the first kernels when none has.
  if (pairs.empty())
    pairs.emplace_back(olds.front(), news.front());
  for (const auto& [o, n] : pairs) {
    const Pairing p = pair_arguments(o->arguments, n->arguments);
    compare_schemas(ol, *o, nl, *n, p);
    compare_cpp(ol, *o, nl, *n, p);
  }
}

void Differ::compare_schemas(const Library& ol, const ir::Kernel& o, const Library& nl,
                             const ir::Kernel& n, const Pairing& p) {
  const std::string op = n.op.str();
  for (size_t i = 0; i < o.arguments.size(); ++i) {
    if (p.new_of_old[i])
      continue;
    const schema::Argument& a = o.arguments[i].schema;
    Change& c = add(is_out(a) ? "out-argument-removed" : "argument-removed", op,
                    fmt::format("{}argument {} removed (was at position {}: {})",
                                is_out(a) ? "out " : "", q(a.name), i, spelled(a)),
                    site(ol, spelled(a), o.location), std::nullopt);
    c.argument = a.name;
    c.position = i;
  }
  // An added argument is trailing when no old argument follows it.
  std::optional<size_t> last_matched;
  for (size_t j = 0; j < n.arguments.size(); ++j) {
    if (p.old_of_new[j])
      last_matched = j;
  }
  for (size_t j = 0; j < n.arguments.size(); ++j) {
    if (p.old_of_new[j])
      continue;
    const schema::Argument& a = n.arguments[j].schema;
    const bool trailing = !last_matched || j > *last_matched;
    std::string_view id;
    std::string how;
    if (is_out(a)) {
      id = "out-argument-added";
      how = fmt::format("out argument {} added at position {}", q(a.name), j);
    } else if (!trailing) {
      id = "argument-inserted";
      how = fmt::format("argument {} inserted at position {} (the arguments after it shift)",
                        q(a.name), j);
    } else {
      id = a.default_value ? "argument-added-with-default" : "argument-added-without-default";
      how = fmt::format("argument {} added at the end (position {}), {} a default", q(a.name), j,
                        a.default_value ? "with" : "without");
    }
    Change& c = add(id, op, fmt::format("{}: {}", how, spelled(a)), std::nullopt,
                    site(nl, spelled(a), n.location));
    c.argument = a.name;
    c.position = j;
  }
  for (size_t i = 0; i < o.arguments.size(); ++i) {
    if (p.new_of_old[i])
      compare_argument(ol, o, i, nl, n, *p.new_of_old[i], p.reordered[i]);
  }
  compare_returns(ol, o, nl, n);
}

void Differ::compare_argument(const Library& ol, const ir::Kernel& o, size_t i, const Library& nl,
                              const ir::Kernel& n, size_t j, bool reordered) {
  const schema::Argument& a = o.arguments[i].schema;
  const schema::Argument& b = n.arguments[j].schema;
  const std::string op = n.op.str();
  auto record = [&](std::string_view id, std::string message, std::string before,
                    std::string after) {
    Change& c = add(id, op, std::move(message), site(ol, std::move(before), o.location),
                    site(nl, std::move(after), n.location));
    c.argument = b.name;
    c.position = j;
  };
  const std::string which = fmt::format("argument {} (position {})", q(b.name), j);
  if (reordered) {
    record("argument-reordered",
           fmt::format("argument {} moved from position {} to {}", q(b.name), i, j),
           std::to_string(i), std::to_string(j));
  }
  if (a.name != b.name) {
    record(a.kwarg_only ? "keyword-argument-renamed" : "argument-renamed",
           fmt::format("{}argument at position {} renamed {} -> {}",
                       a.kwarg_only ? "keyword-only " : "", j, q(a.name), q(b.name)),
           a.name, b.name);
  }
  if (a.kwarg_only != b.kwarg_only) {
    record(
        b.kwarg_only ? "argument-made-keyword-only" : "argument-made-positional",
        fmt::format("{} made {}", which, b.kwarg_only ? "keyword-only (after '*')" : "positional"),
        a.kwarg_only ? "keyword-only" : "positional", b.kwarg_only ? "keyword-only" : "positional");
  }
  if (plain(a.type) != plain(b.type)) {
    record("argument-type-changed",
           fmt::format("{}: type {} -> {}", which, q(a.type.str()), q(b.type.str())), a.type.str(),
           b.type.str());
  } else if (a.type.is_mutable() != b.type.is_mutable()) {
    record("mutability-changed",
           fmt::format("{}: {} -> {} ({})", which, q(a.type.str()), q(b.type.str()),
                       b.type.is_mutable() ? "written now" : "no longer written"),
           a.type.str(), b.type.str());
  } else if (aliases_of(a.type) != aliases_of(b.type)) {
    record("alias-changed",
           fmt::format("{}: alias annotation {} -> {}", which, q(a.type.str()), q(b.type.str())),
           a.type.str(), b.type.str());
  }
  if (a.default_value != b.default_value) {
    if (!a.default_value) {
      record("default-added", fmt::format("{}: default {} added", which, q(*b.default_value)), "",
             *b.default_value);
    } else if (!b.default_value) {
      record("default-removed", fmt::format("{}: default {} removed", which, q(*a.default_value)),
             *a.default_value, "");
    } else {
      record("default-changed",
             fmt::format("{}: default {} -> {}", which, q(*a.default_value), q(*b.default_value)),
             *a.default_value, *b.default_value);
    }
  }
}

void Differ::compare_returns(const Library& ol, const ir::Kernel& o, const Library& nl,
                             const ir::Kernel& n) {
  const std::string op = n.op.str();
  auto record = [&](std::string_view id, size_t k, std::string message, std::string before,
                    std::string after) {
    Change& c = add(id, op, std::move(message), site(ol, std::move(before), o.location),
                    site(nl, std::move(after), n.location));
    c.argument = k < n.returns.size() ? n.returns[k].name : o.returns[k].name;
    c.position = k;
  };
  for (size_t k = 0; k < std::max(o.returns.size(), n.returns.size()); ++k) {
    if (k >= o.returns.size()) {
      record("return-added", k, fmt::format("return {} added: {}", k, q(spelled(n.returns[k]))), "",
             spelled(n.returns[k]));
      continue;
    }
    if (k >= n.returns.size()) {
      record("return-removed", k,
             fmt::format("return {} removed (was {})", k, q(spelled(o.returns[k]))),
             spelled(o.returns[k]), "");
      continue;
    }
    const schema::Return& a = o.returns[k];
    const schema::Return& b = n.returns[k];
    if (plain(a.type) != plain(b.type)) {
      record("return-type-changed", k,
             fmt::format("return {}: type {} -> {}", k, q(a.type.str()), q(b.type.str())),
             a.type.str(), b.type.str());
    } else if (a.type != b.type) {
      record(
          "return-alias-changed", k,
          fmt::format("return {}: alias annotation {} -> {}", k, q(a.type.str()), q(b.type.str())),
          a.type.str(), b.type.str());
    }
    if (a.name != b.name) {
      record("return-renamed", k,
             fmt::format("return {} renamed {} -> {}", k, q(a.name), q(b.name)), a.name, b.name);
    }
  }
}

void Differ::compare_cpp(const Library& ol, const ir::Kernel& o, const Library& nl,
                         const ir::Kernel& n, const Pairing& p) {
  const std::string op = n.op.str();
  const std::string kernel = ir::describe(n, fields_);
  auto record = [&](std::string_view id, std::string message, std::string before,
                    std::string after) -> Change& {
    return add(id, op, std::move(message), site(ol, std::move(before), o.location),
               site(nl, std::move(after), n.location));
  };
  if (o.cpp_function != n.cpp_function) {
    record("cpp-function-changed",
           fmt::format("{}: C++ function {} -> {}", kernel, o.cpp_function, n.cpp_function),
           o.cpp_function, n.cpp_function);
  }
  for (size_t i = 0; i < o.arguments.size(); ++i) {
    if (!p.new_of_old[i])
      continue;
    const ir::Argument& a = o.arguments[i];
    const ir::Argument& b = n.arguments[*p.new_of_old[i]];
    if (plain(a.schema.type) != plain(b.schema.type) ||
        a.cpp_canonical_type == b.cpp_canonical_type)
      continue;
    Change& c =
        record("cpp-signature-changed",
               fmt::format("{}: the C++ type of argument {} {} -> {}", kernel, q(b.schema.name),
                           q(a.cpp_canonical_type), q(b.cpp_canonical_type)),
               a.cpp_canonical_type, b.cpp_canonical_type);
    c.argument = b.schema.name;
    c.position = *p.new_of_old[i];
  }
  auto plain_returns = [](const ir::Kernel& k) {
    std::vector<schema::Type> types;
    for (const schema::Return& r : k.returns)
      types.push_back(plain(r.type));
    return types;
  };
  if (plain_returns(o) == plain_returns(n) &&
      o.cpp_canonical_return_type != n.cpp_canonical_return_type) {
    record("cpp-signature-changed",
           fmt::format("{}: the C++ return type {} -> {}", kernel, q(o.cpp_canonical_return_type),
                       q(n.cpp_canonical_return_type)),
           o.cpp_canonical_return_type, n.cpp_canonical_return_type);
  }
  if (o.context != n.context) {
    record("context-changed",
           fmt::format("{}: context {} -> {}", kernel, ir::to_string(o.context),
                       ir::to_string(n.context)),
           std::string(ir::to_string(o.context)), std::string(ir::to_string(n.context)));
  }
  if (o.schema_origin != n.schema_origin) {
    record("schema-origin-changed",
           fmt::format("{}: schema {} -> {}", kernel, ir::to_string(o.schema_origin),
                       ir::to_string(n.schema_origin)),
           std::string(ir::to_string(o.schema_origin)),
           std::string(ir::to_string(n.schema_origin)));
  }
}

// A library's kernels by operator name.
using Operators = std::map<std::string, std::vector<const ir::Kernel*>>;

Operators operators_of(const Library& library) {
  Operators out;
  for (const ir::Kernel& k : library.kernels)
    out[k.op.str()].push_back(&k);
  return out;
}

} // namespace

std::string_view to_string(Compatibility compatibility) {
  return compatibility == kBreaking ? "breaking" : "compatible";
}

const std::vector<ChangeClass>& change_classes() {
  return kClasses;
}

const ChangeClass* find_change_class(std::string_view id) {
  const size_t rank = class_rank(id);
  return rank < kClasses.size() ? &kClasses[rank] : nullptr;
}

size_t DiffResult::count(Compatibility compatibility) const {
  return static_cast<size_t>(std::count_if(changes.begin(), changes.end(), [&](const Change& c) {
    return c.compatibility == compatibility;
  }));
}

size_t DiffResult::allowed() const {
  return static_cast<size_t>(std::count_if(changes.begin(), changes.end(), [](const Change& c) {
    return c.compatibility == kBreaking && c.allowed.has_value();
  }));
}

size_t DiffResult::not_allowed() const {
  return count(kBreaking) - allowed();
}

DiffResult diff(const std::vector<ir::File>& old_side, const std::vector<ir::File>& new_side,
                const ir::Fields& fields) {
  DiffResult result;
  Libraries olds = group_libraries(old_side, fields);
  Libraries news = group_libraries(new_side, fields);
  result.diagnostics = std::move(olds.diagnostics);
  result.diagnostics.insert(result.diagnostics.end(), news.diagnostics.begin(),
                            news.diagnostics.end());

  struct Side {
    const Library* library;
    Operators operators;
  };
  std::map<std::string, Side> old_by_name, new_by_name;
  for (const Library& l : olds.libraries)
    old_by_name.emplace(l.name, Side{&l, operators_of(l)});
  for (const Library& l : news.libraries)
    new_by_name.emplace(l.name, Side{&l, operators_of(l)});

  Differ differ(fields);
  for (const auto& [name, side] : old_by_name) {
    if (!new_by_name.contains(name))
      differ.library_alone(*side.library, /*added=*/false);
  }
  for (const auto& [name, side] : new_by_name) {
    if (!old_by_name.contains(name))
      differ.library_alone(*side.library, /*added=*/true);
  }
  // Operators that moved: (new library, operator) arrived from elsewhere.
  std::set<std::pair<std::string, std::string>> arrived;
  for (const auto& [name, o] : old_by_name) {
    auto n = new_by_name.find(name);
    if (n == new_by_name.end())
      continue;
    differ.compare_libraries(*o.library, *n->second.library);
    for (const auto& [op, kernels] : o.operators) {
      if (auto same = n->second.operators.find(op); same != n->second.operators.end()) {
        differ.compare_operator(*o.library, kernels, *n->second.library, same->second);
        continue;
      }
      // Gone from here: into a library that did not have it before?
      const Side* to = nullptr;
      for (const auto& [other, candidate] : new_by_name) {
        auto before = old_by_name.find(other);
        const bool had = before != old_by_name.end() && before->second.operators.contains(op);
        if (other != name && candidate.operators.contains(op) && !had) {
          to = &candidate;
          break;
        }
      }
      if (to == nullptr) {
        differ.operator_alone(*o.library, op, *kernels.front(), /*added=*/false);
        continue;
      }
      const std::vector<const ir::Kernel*>& there = to->operators.at(op);
      arrived.emplace(to->library->name, op);
      differ.moved(*o.library, *kernels.front(), *to->library, *there.front());
      differ.compare_operator(*o.library, kernels, *to->library, there);
    }
  }
  for (const auto& [name, o] : old_by_name) {
    auto n = new_by_name.find(name);
    if (n == new_by_name.end())
      continue;
    for (const auto& [op, kernels] : n->second.operators) {
      if (!o.operators.contains(op) && !arrived.contains({name, op}))
        differ.operator_alone(*n->second.library, op, *kernels.front(), /*added=*/true);
    }
  }

  // One record per change, however many kernels share it.
  std::vector<Change>& changes = differ.changes;
  auto key = [](const Change& c) {
    return std::tuple(c.library, c.op, c.compatibility == kCompatible, class_rank(c.change),
                      c.position.value_or(0), c.argument, c.message);
  };
  std::stable_sort(changes.begin(), changes.end(),
                   [&](const Change& a, const Change& b) { return key(a) < key(b); });
  changes.erase(std::unique(changes.begin(), changes.end(),
                            [&](const Change& a, const Change& b) { return key(a) == key(b); }),
                changes.end());
  result.changes = std::move(changes);
  return result;
}

} // namespace opscan::audit
