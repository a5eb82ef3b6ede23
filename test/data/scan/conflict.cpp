// One function annotated differently on its declaration and definition.
#include "et_types.h"

namespace conflict {

OPSCAN_KERNEL("t::first.out")
Tensor& conflict_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::second.out")
Tensor& conflict_out(const Tensor& self, Tensor& out) { return out; }

}  // namespace conflict
