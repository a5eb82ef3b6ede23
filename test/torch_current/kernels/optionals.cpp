// Kernels of the "optionals" library, spelled as current libtorch's users
// spell them: std::optional and std::string_view, which libtorch 2 makes the
// dispatcher's types (c10::optional and c10::string_view are their aliases
// there). libtorch 1.13 passes types of its own: the torch tests refuse
// these kernels against it (test/torch).
#include <ATen/ATen.h>
#include <opscan/annotations.h>
#include <optional>
#include <string_view>

namespace optionals {

// The reproducer: an int list and an optional tensor.
OPSCAN_KERNEL("opt_ops::pick")
at::Tensor pick(const at::Tensor& x, at::IntArrayRef idx, const std::optional<at::Tensor>& bias) {
  at::Tensor rows = x.index_select(0, at::tensor(idx, at::kLong));
  return bias ? rows.add(*bias) : rows;
}

OPSCAN_KERNEL("opt_ops::axpy(Tensor self, Tensor? other=None, float? alpha=None) -> Tensor")
at::Tensor axpy(const at::Tensor& self, const std::optional<at::Tensor>& other,
                std::optional<double> alpha) {
  return other ? self.add(*other, alpha.value_or(1.0)) : self.clone();
}

// Tensor?[]: the first tensor given.
OPSCAN_KERNEL("opt_ops::first_given")
at::Tensor first_given(const c10::List<std::optional<at::Tensor>>& tensors) {
  for (const std::optional<at::Tensor>& t : tensors) {
    if (t)
      return t->clone();
  }
  return at::empty({0});
}

// str and str?: "double" doubles; a suffix "+1" adds one.
OPSCAN_KERNEL("opt_ops::apply")
at::Tensor apply(const at::Tensor& self, std::string_view mode,
                 std::optional<std::string_view> suffix) {
  at::Tensor out = mode == "double" ? self.mul(2) : self.clone();
  return suffix && *suffix == "+1" ? out.add(1) : out;
}

// The same optional spelled c10::optional, which is std::optional here.
OPSCAN_KERNEL("opt_ops::scaled.out")
at::Tensor& scaled_out(const at::Tensor& self, const c10::optional<at::Tensor>& factor,
                       c10::optional<at::ScalarType> dtype, at::Tensor& out) {
  at::Tensor result = factor ? self.mul(*factor) : self;
  return out.copy_(dtype ? result.to(*dtype) : result);
}

} // namespace optionals
