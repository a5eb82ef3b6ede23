// ExecuTorch custom operators written once for both of ExecuTorch's modes:
// the executorch target registers them with ExecuTorch's registry (portable
// types; test/e2e/aot/aot_ops_test.cpp), the executorch-aot target with
// PyTorch's dispatcher, compiled with -DUSE_ATEN_LIB=1
// (test/torch_current/aot_test.cpp). Both tests call them with the inputs of
// aot_ops_expected.h and compare with its values.
#include <cstdint>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <opscan/annotations.h>

namespace aot_ops {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
// Not executorch::runtime::KernelRuntimeContext, which ATen mode has not:
// its context is executorch::runtime::aten's.
using torch::executor::KernelRuntimeContext;

namespace {

// Whether `t` is a float tensor of `n` elements: what the kernels take.
bool floats_of(const Tensor& t, int64_t n) {
  return t.scalar_type() == ScalarType::Float && static_cast<int64_t>(t.numel()) == n;
}

} // namespace

// out = a + b + c, elementwise.
OPSCAN_KERNEL("my_ops::add3.out(Tensor a, Tensor b, Tensor c, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& add3_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Tensor& c,
                 Tensor& out) {
  const int64_t n = static_cast<int64_t>(out.numel());
  if (!floats_of(a, n) || !floats_of(b, n) || !floats_of(c, n) || !floats_of(out, n)) {
    ctx.fail(Error::InvalidArgument);
    return out;
  }
  const float* pa = a.const_data_ptr<float>();
  const float* pb = b.const_data_ptr<float>();
  const float* pc = c.const_data_ptr<float>();
  float* po = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < n; ++i)
    po[i] = pa[i] + pb[i] + pc[i];
  return out;
}

// A functional operator: the sum of the elements, times `factor`.
OPSCAN_KERNEL("my_ops::scaled_sum(Tensor self, float factor) -> float")
double scaled_sum(KernelRuntimeContext& ctx, const Tensor& self, double factor) {
  const int64_t n = static_cast<int64_t>(self.numel());
  if (!floats_of(self, n)) {
    ctx.fail(Error::InvalidArgument);
    return 0;
  }
  const float* p = self.const_data_ptr<float>();
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += p[i];
  return sum * factor;
}

// out = the square of each element, which must not be negative: a negative
// one fails the context (and the call) with InvalidArgument.
OPSCAN_KERNEL("my_ops::square_nonneg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& square_nonneg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  const int64_t n = static_cast<int64_t>(out.numel());
  if (!floats_of(self, n) || !floats_of(out, n)) {
    ctx.fail(Error::InvalidArgument);
    return out;
  }
  const float* p = self.const_data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] < 0) {
      ctx.fail(Error::InvalidArgument);
      return out;
    }
  }
  float* po = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < n; ++i)
    po[i] = p[i] * p[i];
  return out;
}

} // namespace aot_ops
