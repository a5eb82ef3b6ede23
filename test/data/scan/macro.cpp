// A macro that defines an annotated kernel, used once per operator.
#include "et_types.h"

#define UNARY_KERNEL(name)                                                     \
  OPSCAN_KERNEL("t::" #name ".out")                                            \
  Tensor& name##_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);

namespace macro {

UNARY_KERNEL(neg)
  UNARY_KERNEL(exp)
UNARY_KERNEL(log_out)

}  // namespace macro
