// Two kernels for one operator and dispatch key: PyTorch's dispatcher would
// keep one of them and drop the other with a warning.
#include <opscan/annotations.h>

#include <ATen/core/Tensor.h>

namespace same_key {

// The first for CUDA.
OPSCAN_KERNEL("same_key::scale", dispatch = "CUDA")
at::Tensor first(const at::Tensor& self, double factor);

OPSCAN_KERNEL("same_key::scale", dispatch = "CUDA")
at::Tensor second(const at::Tensor& self, double factor);

} // namespace same_key
