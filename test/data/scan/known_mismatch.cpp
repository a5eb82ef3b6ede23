// A kernel whose signature does not fit its operator's known schema.
#include "et_types.h"

namespace known_mismatch {

OPSCAN_KERNEL("aten::mul.out")
Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out);

}  // namespace known_mismatch
