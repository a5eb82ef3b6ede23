// ExecuTorch kernels written for ExecuTorch's ATen mode: they take ATen's
// types (at::Tensor, c10::ArrayRef, c10::Scalar) and compute with ATen's
// operators, as kernels built with USE_ATEN_LIB may. The executorch target
// registers them with --use-aten-lib in the registry of ExecuTorch's ATen
// mode runtime (test/torch_current/et_aten_test.cpp).
#include <ATen/ATen.h>
#include <cstdint>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <opscan/annotations.h>
#include <optional>

namespace et_aten {

using torch::executor::KernelRuntimeContext;

// out = self[idx] * alpha (+ bias): rows of `self` picked by index.
OPSCAN_KERNEL("aten_ops::pick.out(Tensor self, int[] idx, Tensor? bias, Scalar alpha, *, "
              "Tensor(a!) out) -> Tensor(a!)")
at::Tensor& pick_out(KernelRuntimeContext& ctx, const at::Tensor& self, c10::ArrayRef<int64_t> idx,
                     const std::optional<at::Tensor>& bias, const c10::Scalar& alpha,
                     at::Tensor& out) {
  for (int64_t i : idx) {
    if (i < 0 || i >= self.size(0)) {
      ctx.fail(executorch::runtime::Error::InvalidArgument);
      return out;
    }
  }
  at::Tensor picked = self.index_select(0, at::tensor(idx.vec(), at::kLong)) * alpha;
  if (bias.has_value())
    picked = picked + *bias;
  out.resize_(picked.sizes());
  out.copy_(picked);
  return out;
}

// The sum of every element of every tensor, computed in `dtype`, negated
// when asked.
OPSCAN_KERNEL("aten_ops::total(Tensor[] xs, ScalarType dtype, bool negate) -> float")
double total(KernelRuntimeContext&, at::TensorList xs, c10::ScalarType dtype, bool negate) {
  double sum = 0;
  for (const at::Tensor& x : xs)
    sum += x.to(dtype).sum().item<double>();
  return negate ? -sum : sum;
}

// How many of the tensors are given.
OPSCAN_KERNEL("aten_ops::count_given(Tensor?[] maybe) -> int")
int64_t count_given(KernelRuntimeContext&, c10::ArrayRef<std::optional<at::Tensor>> maybe) {
  int64_t n = 0;
  for (const std::optional<at::Tensor>& t : maybe)
    n += t.has_value() ? 1 : 0;
  return n;
}

} // namespace et_aten
