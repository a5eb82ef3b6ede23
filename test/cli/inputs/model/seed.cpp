// demo::seed, called without tensors.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace model {
OPSCAN_KERNEL("demo::seed")
int64_t seed(KernelRuntimeContext& ctx, int64_t value);
} // namespace model
