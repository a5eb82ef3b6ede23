// The built-in targets, one line each in targets.def.
#include "emit/registry.h"

namespace opscan::emit {

// Each built-in target's factory, defined in its own folder.
#define OPSCAN_TARGET(name) std::shared_ptr<const Target> make_##name##_target();
#include "emit/targets/targets.def"
#undef OPSCAN_TARGET

const TargetRegistry& builtin_targets() {
  static const TargetRegistry registry = [] {
    TargetRegistry r;
#define OPSCAN_TARGET(name) r.add(make_##name##_target());
#include "emit/targets/targets.def"
#undef OPSCAN_TARGET
    return r;
  }();
  return registry;
}

} // namespace opscan::emit
