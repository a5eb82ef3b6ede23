// An ExecuTorch kernel, built here in ATen mode only (its tensors are
// at::Tensor, whose operations it uses).
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <opscan/annotations.h>

namespace my_ops {

using executorch::aten::Tensor;
using torch::executor::KernelRuntimeContext;

// out = 2 * self; tensors of different sizes fail the context.
OPSCAN_KERNEL("my_ops::twice.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& twice_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (self.numel() != out.numel()) {
    ctx.fail(executorch::runtime::Error::InvalidArgument);
    return out;
  }
  return out.copy_(self.mul(2));
}

} // namespace my_ops
