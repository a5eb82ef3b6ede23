// Kernels of the "stable_2_9" library: only what torch 2.9's stable ABI
// converts (tensors, int, float, bool, ScalarType and their optionals), so
// opscan builds its registration for that version, and the tests build the
// kernels for it too (TORCH_TARGET_VERSION): on a newer libtorch, the
// headers then hold the code to what 2.9 had (data_ptr() rather than 2.10's
// typed accessors).
#include <cstdint>
#include <opscan/annotations.h>
#include <optional>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <tuple>

namespace stable_2_9 {

using torch::stable::Tensor;

// self * factor, plus `bias` when given.
OPSCAN_KERNEL("v29_ops::scale(Tensor self, float factor, Tensor? bias=None) -> Tensor")
Tensor scale(const Tensor& self, double factor, const std::optional<Tensor>& bias) {
  Tensor out = torch::stable::empty_like(self);
  const float* a = static_cast<const float*>(self.data_ptr());
  float* o = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < self.numel(); ++i)
    o[i] = a[i] * static_cast<float>(factor) +
           (bias ? static_cast<const float*>(bias->data_ptr())[i] : 0.0f);
  return out;
}

// out = the count of elements above `threshold` (or above 0), as every element.
OPSCAN_KERNEL("v29_ops::count_above.out")
Tensor& count_above_out(const Tensor& self, std::optional<int64_t> threshold, bool strict,
                        Tensor& out) {
  const float* a = static_cast<const float*>(self.data_ptr());
  const float limit = static_cast<float>(threshold.value_or(0));
  float count = 0;
  for (int64_t i = 0; i < self.numel(); ++i)
    count += strict ? a[i] > limit : a[i] >= limit;
  float* o = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < out.numel(); ++i)
    o[i] = count;
  return out;
}

// Whether the tensor has `dtype`, and its element count.
OPSCAN_KERNEL("v29_ops::check")
std::tuple<bool, int64_t> check(const Tensor& self, torch::headeronly::ScalarType dtype) {
  return {self.scalar_type() == dtype, self.numel()};
}

} // namespace stable_2_9
