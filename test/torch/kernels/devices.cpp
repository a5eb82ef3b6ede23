// ATen kernels of the "devices" library for the torch target's end-to-end
// test: one operator with a CPU and a CUDA kernel, and kernels whose names
// and schema text look like what generated code names (a DispatchKeySet
// next to a parameter called keys, C linkage, an inline namespace, string
// defaults that would end a comment or form a trigraph).
#include <ATen/core/Tensor.h>
#include <c10/core/DispatchKeySet.h>
#include <cstdint>
#include <opscan/annotations.h>

namespace devices {

OPSCAN_KERNEL("devices::scale", dispatch = "CPU")
at::Tensor scale_cpu(const at::Tensor& self, double factor) {
  return self.mul(factor);
}

// Registered for CUDA; this libtorch has no CUDA, so it is never called.
OPSCAN_KERNEL("devices::scale", dispatch = "CUDA")
at::Tensor scale_cuda(const at::Tensor& self, double factor) {
  return self.mul(-factor);
}

OPSCAN_KERNEL("devices::with_keys")
at::Tensor with_keys(c10::DispatchKeySet ks, const at::Tensor& keys) {
  return keys.add(ks.has(c10::DispatchKey::CPU) ? 1 : 0);
}

inline namespace v2 {
OPSCAN_KERNEL("devices::versioned")
at::Tensor versioned(const at::Tensor& self) noexcept {
  return self.add(2);
}
} // namespace v2

OPSCAN_KERNEL(
    "devices::label(Tensor self, str tag=\"*/ #define X ?\?/\", str quote='\\\"') -> Tensor")
at::Tensor label(const at::Tensor& self, c10::string_view tag, c10::string_view quote) {
  return self.add(static_cast<int64_t>(tag.size() + quote.size()));
}

} // namespace devices

extern "C" {
OPSCAN_KERNEL("devices::count")
int64_t devices_count(const at::Tensor& self) {
  return self.numel();
}
}
