#include "ir/ir.h"

#include <algorithm>
#include <set>

namespace opscan::ir {

SelectResult select_operators(const Module& module, const std::vector<std::string>& names) {
  SelectResult result;
  std::set<std::string> implemented;
  for (const Kernel& k : module.kernels)
    implemented.insert(k.op.str());
  const std::vector<std::string_view> candidates(implemented.begin(), implemented.end());

  std::set<std::string> selected, reported;
  for (const std::string& name : names) {
    if (!reported.insert(name).second)
      continue;
    auto parsed = schema::parse_operator_name(name);
    if (!parsed) {
      result.diagnostics.push_back(diag::make_error(
          parsed.error->code, {},
          "operator name '" + name + "' is malformed: " + parsed.error->message +
              " (write namespace::name.overload, or namespace::name without overload)"));
      continue;
    }
    // Compared as the IR spells names, so "aten :: add" is "aten::add".
    const std::string op = parsed.value->str();
    if (implemented.contains(op)) {
      selected.insert(op);
      continue;
    }
    std::string message = "no kernel implements operator '" + op + "'";
    std::optional<std::string_view> suggestion = schema::closest_match(op, candidates);
    if (!suggestion) {
      // "aten::add" for "aten::add.out": another overload of the name given.
      const std::string base = parsed.value->ns + "::" + parsed.value->name;
      auto same_name = std::find_if(candidates.begin(), candidates.end(), [&](std::string_view c) {
        return c == base || c.starts_with(base + ".");
      });
      if (same_name != candidates.end())
        suggestion = *same_name;
    }
    if (suggestion)
      message += "; did you mean '" + std::string(*suggestion) + "'?";
    result.diagnostics.push_back(diag::make_error("opscan-unknown-operator", {}, message));
  }

  result.module = module;
  std::erase_if(result.module.kernels,
                [&](const Kernel& k) { return !selected.contains(k.op.str()); });
  // Sources go with their kernels: a source where only kernels left out
  // are annotated goes too. One where none is annotated stays (its kernels
  // may be annotated in a header it includes).
  std::set<std::string_view> annotated, kept;
  for (const Kernel& k : module.kernels)
    annotated.insert(k.location.file);
  for (const Kernel& k : result.module.kernels)
    kept.insert(k.location.file);
  std::erase_if(result.module.sources, [&](const SourceFile& source) {
    return annotated.contains(source.path) && !kept.contains(source.path);
  });
  return result;
}

} // namespace opscan::ir
