// Declared schemas, checked against the signature; and a return the
// signature cannot explain.
#include "et_types.h"

namespace declared {

OPSCAN_KERNEL("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out);

OPSCAN_KERNEL("aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
Tensor& sub_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                int64_t alpha, Tensor& out);

OPSCAN_KERNEL("t::split.out")
Tensor& split_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& first, Tensor& second);

}  // namespace declared
