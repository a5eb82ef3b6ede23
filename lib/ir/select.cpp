// Keeping the kernels of listed operators (`--operators`) or of a model (`--operators-from`).
#include "ir/ir.h"

#include <algorithm>
#include <map>
#include <set>

namespace opscan::ir {
namespace {

// " (from X)" for a need that came from a file, "" for --operators.
std::string from(const OperatorNeed& need) {
  return need.from.empty() ? "" : " (needed by " + need.from + ")";
}

// What is kept of one operator: every kernel, or the fallback and those keys.
struct Kept {
  bool all_keys = false;
  std::set<std::string, std::less<>> keys;
};

} // namespace

SelectResult select_operators(const Module& module, const std::vector<std::string>& names) {
  OperatorSelection selection;
  for (const std::string& name : names)
    selection.operators.push_back({name, std::nullopt, false, {}, ""});
  return select_kernels(module, selection);
}

SelectResult select_kernels(const Module& module, const OperatorSelection& selection) {
  SelectResult result;
  result.module = module;
  if (selection.all_operators)
    return result;
  std::set<std::string> implemented;
  for (const Kernel& k : module.kernels)
    implemented.insert(k.op.str());
  const std::vector<std::string_view> candidates(implemented.begin(), implemented.end());

  std::map<std::string, Kept> kept;
  // The needs checked for keys, after every operator's kernels are known.
  std::vector<std::pair<std::string, const OperatorNeed*>> keyed;
  std::set<std::string> reported;
  for (const OperatorNeed& need : selection.operators) {
    auto parsed = schema::parse_operator_name(need.name);
    if (!parsed) {
      if (reported.insert(need.name).second) {
        result.diagnostics.push_back(diag::make_error(
            parsed.error->code, need.location,
            "operator name '" + need.name + "' is malformed" + from(need) + ": " +
                parsed.error->message +
                " (write namespace::name.overload, or namespace::name without overload)"));
      }
      continue;
    }
    // Compared as the IR spells names, so "aten :: add" is "aten::add".
    const std::string op = parsed.value->str();
    const std::string base = parsed.value->ns + "::" + parsed.value->name;
    std::vector<std::string> matches;
    if (need.all_overloads) {
      for (std::string_view c : candidates)
        if (c == base || c.starts_with(base + "."))
          matches.emplace_back(c);
    } else if (implemented.contains(op)) {
      matches.push_back(op);
    }
    if (matches.empty()) {
      if (!reported.insert(op).second)
        continue;
      std::string message = "no kernel implements operator '" + op + "'" + from(need);
      std::optional<std::string_view> suggestion = schema::closest_match(op, candidates);
      if (!suggestion) {
        // "aten::add" for "aten::add.out": another overload of the name given.
        auto same_name =
            std::find_if(candidates.begin(), candidates.end(), [&](std::string_view c) {
              return c == base || c.starts_with(base + ".");
            });
        if (same_name != candidates.end())
          suggestion = *same_name;
      }
      if (suggestion)
        message += "; did you mean '" + std::string(*suggestion) + "'?";
      result.diagnostics.push_back(
          diag::make_error("opscan-unknown-operator", need.location, message));
      continue;
    }
    for (const std::string& match : matches) {
      Kept& k = kept[match];
      if (!need.keys) {
        k.all_keys = true;
        continue;
      }
      k.keys.insert(need.keys->begin(), need.keys->end());
      keyed.emplace_back(match, &need);
    }
  }

  // Each needed key is served: by its kernel, or by the fallback.
  for (const auto& [op, need] : keyed) {
    bool fallback = false;
    std::set<std::string_view> keys;
    for (const Kernel& k : module.kernels) {
      if (k.op.str() != op)
        continue;
      fallback = fallback || k.field(selection.keyed_by).empty();
      keys.insert(k.field(selection.keyed_by));
    }
    if (fallback)
      continue;
    for (const std::string& key : *need->keys) {
      if (keys.contains(key) || !reported.insert(op + "\n" + key).second)
        continue;
      std::string message =
          key.empty()
              ? "operator '" + op + "' is called without tensors" + from(*need) +
                    ", which only a fallback kernel (one without kernel key) serves, "
                    "and it has none"
              : "operator '" + op + "' is needed with kernel key '" + key + "'" + from(*need) +
                    ", and has neither a kernel with that key nor a "
                    "fallback kernel (one without kernel key)";
      result.diagnostics.push_back(
          diag::make_error("opscan-unknown-kernel-key", need->location, message));
    }
  }

  std::erase_if(result.module.kernels, [&](const Kernel& k) {
    auto it = kept.find(k.op.str());
    if (it == kept.end())
      return true;
    const std::string_view key = k.field(selection.keyed_by);
    return !it->second.all_keys && !key.empty() && !it->second.keys.contains(key);
  });
  // Sources go with their kernels: a source where only kernels left out
  // are annotated goes too. One where none is annotated stays (its kernels
  // may be annotated in a header it includes).
  std::set<std::string_view> annotated, kept_files;
  for (const Kernel& k : module.kernels)
    annotated.insert(k.location.file);
  for (const Kernel& k : result.module.kernels)
    kept_files.insert(k.location.file);
  std::erase_if(result.module.sources, [&](const SourceFile& source) {
    return annotated.contains(source.path) && !kept_files.contains(source.path);
  });
  return result;
}

} // namespace opscan::ir
