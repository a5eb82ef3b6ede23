// The registry of targets by name (the built-in ones: targets/builtin_targets.cpp).
#include "emit/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace opscan::emit {

bool TargetRegistry::add(std::shared_ptr<const Target> target) {
  std::string name(target->name());
  auto [added, fresh] = targets_.emplace(std::move(name), std::move(target));
  if (!fresh)
    return false;
  // Gathered again in the targets' order, so the IR's order of fields does
  // not depend on the order targets were added in.
  ir::Fields fields;
  for (const auto& [_, each] : targets_) {
    for (const ir::Field& field : each->fields()) {
      if (!fields.add(field)) {
        targets_.erase(added);
        return false;
      }
    }
  }
  fields_ = std::move(fields);
  return true;
}

const Target* TargetRegistry::find(std::string_view name) const {
  auto it = targets_.find(name);
  return it == targets_.end() ? nullptr : it->second.get();
}

std::vector<std::string> TargetRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, target] : targets_)
    names.push_back(name);
  return names;
}

std::string TargetRegistry::listed() const {
  return fmt::format("{}", fmt::join(names(), ", "));
}

} // namespace opscan::emit
