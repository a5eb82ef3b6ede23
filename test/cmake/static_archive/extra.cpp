// A kernel that registers itself when the program loads.
#include <opscan/annotations.h>

#include <ATen/core/Tensor.h>

namespace extra {

OPSCAN_KERNEL("extra_ops::twice")
at::Tensor twice(const at::Tensor& self) { return self.mul(2); }

} // namespace extra
