// One operator with two kernels, for the kernel table: a fallback kernel and
// one for contiguous 1-d float tensors (kernel key), each writing a value
// that tells which one ran.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

namespace table {

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace {
Tensor& fill(Tensor& out, float value) {
  float* y = out.mutable_data_ptr<float>();
  for (decltype(out.numel()) i = 0; i < out.numel(); ++i)
    y[i] = value;
  return out;
}
} // namespace

OPSCAN_KERNEL("table::which.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& which_any(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  (void)ctx;
  (void)self;
  return fill(out, 1);
}

OPSCAN_KERNEL("table::which.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", key = "v1/6;0|6;0")
Tensor& which_float(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  (void)ctx;
  (void)self;
  return fill(out, 2);
}

} // namespace table
