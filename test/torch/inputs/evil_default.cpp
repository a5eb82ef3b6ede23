// Issue 23, finding 5: a default libtorch's schema parser cannot read (it
// throws std::out_of_range from stoll while registering, before main). The
// torch target refuses it at the value, before any code is generated.
#include <opscan/annotations.h>

#include <ATen/core/Tensor.h>

namespace evil {

OPSCAN_KERNEL("evil_ops::shift(Tensor self, int by=18446744073709551616) -> Tensor")
at::Tensor shift(const at::Tensor& self, int64_t by);

}  // namespace evil
