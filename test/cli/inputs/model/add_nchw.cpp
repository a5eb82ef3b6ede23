// aten::add.out for 4-D float tensors in the contiguous dim order only
// (0,1,2,3), with no fallback: a channels-last call (0,2,3,1) is not served.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace model {
OPSCAN_KERNEL("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
              key = "v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3")
Tensor& add_out_nchw(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     const Scalar& alpha, Tensor& out);

OPSCAN_KERNEL("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
              key = "v1/3;0,1,2,3|3;0,1,2,3|3;0,1,2,3")
Tensor& add_out_nchw_i32(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                         const Scalar& alpha, Tensor& out);
} // namespace model
