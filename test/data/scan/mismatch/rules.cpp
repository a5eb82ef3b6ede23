#include "../et_types.h"

namespace rules {

// An out tensor without '*': the schema breaks torchgen's out-group rule
// although the signature fits it.
OPSCAN_KERNEL("t::sign.out(Tensor self, Tensor(a!) out) -> Tensor(a!)")
Tensor& sign_out(const Tensor& self, Tensor& out);

}  // namespace rules
