// aten::relu again, for a second library that registers it too.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace other {
OPSCAN_KERNEL("aten::relu(Tensor self) -> Tensor")
Tensor relu(KernelRuntimeContext& ctx, const Tensor& self);
} // namespace other
