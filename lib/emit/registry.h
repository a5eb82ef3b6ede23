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
  // Adds `target`; false (and nothing added) when one of its name is
  // there, or when one of its fields is not the field another target
  // defines under that IR key or annotation name.
  bool add(std::shared_ptr<const Target> target);
  const Target* find(std::string_view name) const;
  std::vector<std::string> names() const; // sorted
  // "executorch, torch": for messages.
  std::string listed() const;
  // Every target's annotation fields, in the order of the targets' names:
  // what a scan accepts in annotations and an IR's kernels name.
  const ir::Fields& fields() const { return fields_; }

private:
  std::map<std::string, std::shared_ptr<const Target>, std::less<>> targets_;
  ir::Fields fields_;
};

// Every built-in target.
const TargetRegistry& builtin_targets();

} // namespace opscan::emit
