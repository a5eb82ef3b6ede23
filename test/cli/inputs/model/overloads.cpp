// aten::add's Scalar overload and aten::abs.out, but not aten::add.out: the
// suggestion for a model calling aten::add.out must be the other overload.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace model {
OPSCAN_KERNEL("aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out);

OPSCAN_KERNEL("aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
} // namespace model
