// A third library that registers an operator "arith" registers too: opscan
// must refuse to generate the two together.
#include <opscan/annotations.h>

#include <ATen/core/Tensor.h>

namespace overlap {

OPSCAN_KERNEL("arith_ops::scale(Tensor self, float factor=2.0) -> Tensor")
at::Tensor scale(const at::Tensor& self, double factor) { return self.mul(factor * 10); }

}  // namespace overlap
