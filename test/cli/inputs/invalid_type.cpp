#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("demo::scale.out")
Tensor& scale_out(KernelRuntimeContext& ctx, const Tensr& self, double factor, Tensor& out);

OPSCAN_KERNEL("demo::shift.out")
Tensor& shift_out(KernelRuntimeContext& ctx, const Tensor& self, int amount, Tensor& out);
