// OPSCAN_KERNEL on an enumerator, a function parameter and a variable
// template: clang keeps the annotation on each.
#include "et_types.h"

namespace misplaced_unvisited {

enum Enm { kA OPSCAN_KERNEL("t::enumerator") };

void takes(OPSCAN_KERNEL("t::parameter") int64_t n);

template <typename T>
OPSCAN_KERNEL("t::variable_template") T zero = T();

}  // namespace misplaced_unvisited
