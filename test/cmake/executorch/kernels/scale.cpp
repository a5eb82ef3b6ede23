// One kernel of the test library, with a local header.
#include "common.h"
#include "scale.h"

namespace demo_scale {

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("demo::triple.out")
Tensor& triple_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  (void)ctx;
  for (decltype(self.numel()) i = 0; i < self.numel(); ++i)
    out.mutable_data_ptr<float>()[i] = self.const_data_ptr<float>()[i] * kFactor;
  return out;
}

} // namespace demo_scale
