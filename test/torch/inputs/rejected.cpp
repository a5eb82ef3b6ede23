// A declared schema libtorch would refuse at registration (one argument too
// many): opscan refuses it first, at the kernel, with its own message.
#include <opscan/annotations.h>

#include <ATen/core/Tensor.h>

namespace rejected {

OPSCAN_KERNEL("bad_ops::scale(Tensor self, float factor, int extra) -> Tensor")
at::Tensor scale(const at::Tensor& self, double factor);

}  // namespace rejected

namespace rejected {

// A type the dispatcher would refuse to match: the schema says int, the
// kernel takes a double.
OPSCAN_KERNEL("bad_ops::shift(Tensor self, int amount) -> Tensor")
at::Tensor shift(const at::Tensor& self, double amount);

}  // namespace rejected
