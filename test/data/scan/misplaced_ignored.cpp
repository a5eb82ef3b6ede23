// OPSCAN_KERNEL before a class or enum definition: clang ignores the
// attribute there (it applies to declarators, and these have none), so the
// annotation is not in the AST at all.
#include "et_types.h"

namespace misplaced_ignored {

OPSCAN_KERNEL("t::cls") struct Cls {};

OPSCAN_KERNEL("t::enm") enum Enm { kA };

}  // namespace misplaced_ignored
