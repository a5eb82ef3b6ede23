// A syntax error after a good kernel.
#include "et_types.h"

namespace syntax {

OPSCAN_KERNEL("t::good.out")
Tensor& good_out(const Tensor& self, Tensor& out);

int64_t misplaced = ;

}  // namespace syntax
