// Kernels the scan accepts but whose C++ names break the IR's rules
// (reserved identifiers): ir::validate reports them.
#include "et_types.h"

namespace reserved {

OPSCAN_KERNEL("t::dunder.out")
Tensor& dunder__out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::underscore_upper.out")
Tensor& _Upper_out(const Tensor& self, Tensor& out);

}  // namespace reserved
