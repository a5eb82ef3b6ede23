// ATen kernels of the "logic" library: a second named library linked into
// the same executable as "arith".
#include <opscan/annotations.h>

#include <ATen/core/Tensor.h>

namespace logic {

OPSCAN_KERNEL("logic_ops::clip.out")
at::Tensor& clip_out(const at::Tensor& self, const at::Scalar& lo, const at::Scalar& hi, at::Tensor& out) {
  return out.copy_(self.clamp(lo, hi));
}

OPSCAN_KERNEL("logic_ops::count_positive")
int64_t count_positive(const at::Tensor& self) { return self.gt(0).sum().item<int64_t>(); }

}  // namespace logic
