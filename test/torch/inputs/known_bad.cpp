#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

// alpha and other swapped.
OPSCAN_KERNEL("aten::add.out")
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& alpha,
                const Tensor& other, Tensor& out);

// self and other swapped: same types, caught by name.
OPSCAN_KERNEL("aten::mul.out")
Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& other, const Tensor& self, Tensor& out);

// One argument too few.
OPSCAN_KERNEL("aten::clamp.out")
Tensor& clamp_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
