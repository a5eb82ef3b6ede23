// aten::add.out for three 2-D contiguous double tensors (no model calls it).
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace model {
OPSCAN_KERNEL("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
              key = "v1/7;0,1|7;0,1|7;0,1")
Tensor& add_out_f64(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                    const Scalar& alpha, Tensor& out);
} // namespace model
