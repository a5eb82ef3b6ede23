// The targets opscan can generate for, by name. The built-in ones are
// listed in emit/targets/targets.def, one line each; tests add their own to
// a copy.
#pragma once

#include "emit/target.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::emit {

class TargetRegistry {
public:
  // Adds `target`; false (and nothing added) when one of its name is there.
  bool add(std::shared_ptr<const Target> target);
  const Target* find(std::string_view name) const;
  std::vector<std::string> names() const; // sorted
  // "executorch, torch": for messages.
  std::string listed() const;

private:
  std::map<std::string, std::shared_ptr<const Target>, std::less<>> targets_;
};

// Every built-in target.
const TargetRegistry& builtin_targets();

} // namespace opscan::emit
