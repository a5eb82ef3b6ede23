// aten::add.out for contiguous 4-D float tensors only (kernel key, no
// fallback): the library test/e2e/dim_order checks a channels-last model
// against, with `opscan check --model` and with the runtime's registry.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace dim_order {
OPSCAN_KERNEL(
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    key = "v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3")
Tensor& add_out_nchw(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     const Scalar& alpha, Tensor& out) {
  (void)ctx;
  (void)alpha;
  const float* a = self.const_data_ptr<float>();
  const float* b = other.const_data_ptr<float>();
  float* o = out.mutable_data_ptr<float>();
  for (ssize_t i = 0; i < out.numel(); ++i)
    o[i] = a[i] + b[i];
  return out;
}
} // namespace dim_order
