// The registry of targets by name (the built-in ones: targets/builtin_targets.cpp).
#include "emit/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace opscan::emit {

bool TargetRegistry::add(std::shared_ptr<const Target> target) {
  std::string name(target->name());
  return targets_.emplace(std::move(name), std::move(target)).second;
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
