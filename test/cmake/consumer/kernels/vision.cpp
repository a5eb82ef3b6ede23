// Kernels of the "vision" library.
#include <opscan/annotations.h>

#include <ATen/core/Tensor.h>

namespace vision {

OPSCAN_KERNEL("vision_ops::brighten(Tensor image, float amount=0.5) -> Tensor")
at::Tensor brighten(const at::Tensor& image, double amount) { return image.add(amount); }

OPSCAN_KERNEL("vision_ops::invert")
at::Tensor invert(const at::Tensor& image) { return image.neg().add(1.0); }

} // namespace vision
