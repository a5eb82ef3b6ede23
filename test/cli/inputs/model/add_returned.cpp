// aten::add.out for 2-D contiguous float tensors, keyed as the runtime keys
// a call as ExecuTorch's exporter writes it: self, other, out, and out again
// in the return slot.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace model {
OPSCAN_KERNEL("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
              key = "v1/6;0,1|6;0,1|6;0,1|6;0,1")
Tensor& add_out_returned(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                         const Scalar& alpha, Tensor& out);
} // namespace model
