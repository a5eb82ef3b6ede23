// An include that cannot be found.
#include "et_types.h"
#include "no_such_header.h"

OPSCAN_KERNEL("t::after_missing.out")
Tensor& after_missing_out(const Tensor& self, Tensor& out);
