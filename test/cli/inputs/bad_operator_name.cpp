#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("demo::neg_out")
Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);

OPSCAN_KERNEL("abs.out")
Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
