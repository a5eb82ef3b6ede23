// aten::clone.out for 4-D float tensors, keyed for the contiguous dim order
// only, as a library built for contiguous tensors keys its kernels.
#include <cstring>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <opscan/annotations.h>
#include <optional>

namespace contiguous {

using executorch::aten::MemoryFormat;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) "
              "-> Tensor(a!)",
              key = "v1/6;0,1,2,3|6;0,1,2,3")
Tensor& clone_out(KernelRuntimeContext&, const Tensor& self,
                  [[maybe_unused]] std::optional<MemoryFormat> memory_format, Tensor& out) {
  std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  return out;
}

} // namespace contiguous
