#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
#include "kernel_utils.h"

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("demo::neg.out")
Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
