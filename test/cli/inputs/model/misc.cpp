// aten::mul.out and aten::relu, which the model calls, and an operator it
// does not call.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace model {
OPSCAN_KERNEL("aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);

OPSCAN_KERNEL("aten::relu(Tensor self) -> Tensor")
Tensor relu(KernelRuntimeContext& ctx, const Tensor& self);

OPSCAN_KERNEL("demo::unused.out")
Tensor& unused_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
} // namespace model
