// Kernels of the "both" libraries: written against ATen (at::Tensor), as
// for the torch target, and generated both for it and for torch-stable,
// whose wrappers convert the stable ABI's types to these at the boundary.
#include <ATen/ATen.h>
#include <cstdint>
#include <opscan/annotations.h>
#include <optional>
#include <tuple>

namespace both {

OPSCAN_KERNEL("both_ops::madd(Tensor self, Tensor other, float alpha=1) -> Tensor")
at::Tensor madd(const at::Tensor& self, const at::Tensor& other, double alpha) {
  return self + other * alpha;
}

// An out variant: the elements of `self`, none above `high`.
OPSCAN_KERNEL("both_ops::clamp_high.out")
at::Tensor& clamp_high_out(const at::Tensor& self, int64_t high, at::Tensor& out) {
  return at::clamp_max_out(out, self, high);
}

// An int list and an optional tensor.
OPSCAN_KERNEL("both_ops::pick")
at::Tensor pick(const at::Tensor& x, at::IntArrayRef idx, const std::optional<at::Tensor>& bias) {
  at::Tensor rows = x.index_select(0, at::tensor(idx, at::kLong));
  return bias ? rows.add(*bias) : rows;
}

// A list of tensors and a ScalarType.
OPSCAN_KERNEL("both_ops::concat")
at::Tensor concat(at::TensorList tensors, at::ScalarType dtype) {
  return at::cat(tensors).to(dtype);
}

// A tuple of tensors and a value.
OPSCAN_KERNEL("both_ops::halves")
std::tuple<at::Tensor, at::Tensor, int64_t> halves(const at::Tensor& x) {
  const int64_t half = x.size(0) / 2;
  return {x.slice(0, 0, half), x.slice(0, half), half};
}

} // namespace both
