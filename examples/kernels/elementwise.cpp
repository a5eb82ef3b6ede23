// Element-wise kernels of the example library. Operators of PyTorch's `aten`
// namespace declare their full schema (so opscan checks the signature
// against it); the `demo` operators let opscan infer the schema.
#include <cmath>
#include <cstdint>
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
#include <optional>

namespace example::elementwise {

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace {
// The examples handle float tensors of equal shape only; a real library
// would dispatch on dtype and broadcast.
// Scalars hold integers, floats or booleans; read any of them as a float.
float as_float(const Scalar& s) {
  if (s.isFloatingPoint())
    return static_cast<float>(s.to<double>());
  if (s.isBoolean())
    return s.to<bool>() ? 1.0f : 0.0f;
  return static_cast<float>(s.to<int64_t>());
}

template <typename F>
Tensor& map2(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const float* x = a.const_data_ptr<float>();
  const float* y = b.const_data_ptr<float>();
  float* z = out.mutable_data_ptr<float>();
  for (decltype(out.numel()) i = 0; i < out.numel(); ++i)
    z[i] = f(x[i], y[i]);
  return out;
}
} // namespace

OPSCAN_KERNEL(
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  (void)ctx;
  const float a = as_float(alpha);
  return map2(self, other, out, [a](float x, float y) { return x + a * y; });
}

OPSCAN_KERNEL("aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  (void)ctx;
  return map2(self, other, out, [](float x, float y) { return x * y; });
}

OPSCAN_KERNEL("aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) "
              "-> Tensor(a!)")
Tensor& clamp_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max, Tensor& out) {
  (void)ctx;
  const float lo = min ? as_float(*min) : -INFINITY;
  const float hi = max ? as_float(*max) : INFINITY;
  return map2(self, self, out, [=](float x, float) { return std::fmin(std::fmax(x, lo), hi); });
}

OPSCAN_KERNEL("demo::scale.out")
Tensor& scale_out(KernelRuntimeContext& ctx, const Tensor& self, double factor, bool round,
                  Tensor& out) {
  (void)ctx;
  return map2(self, self, out, [=](float x, float) {
    const float y = static_cast<float>(x * factor);
    return round ? std::nearbyint(y) : y;
  });
}

OPSCAN_KERNEL("demo::relu_")
Tensor& relu_(KernelRuntimeContext& ctx, Tensor& self) {
  (void)ctx;
  return map2(self, self, self, [](float x, float) { return x > 0 ? x : 0.0f; });
}

} // namespace example::elementwise
