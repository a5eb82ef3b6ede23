#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

// The operator of good.cpp again, in another library.
namespace other {
OPSCAN_KERNEL("demo::neg.out")
Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
} // namespace other
