// A second library's kernel for an operator the first library registers.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

namespace other {

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("demo::triple.out")
Tensor& triple_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  (void)ctx, (void)self;
  return out;
}

} // namespace other
