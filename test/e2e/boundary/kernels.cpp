// Kernels that throw, for the exception boundary (--exception-boundary): a
// division that throws a standard exception on a zero divisor, and one
// whose result is a returned value, throwing before it is written.
#include <cstdint>
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
#include <stdexcept>

namespace boundary {

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("boundary::divide.out")
Tensor& divide_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t divisor, Tensor& out) {
  (void)ctx;
  if (divisor == 0)
    throw std::domain_error("division by zero");
  const float* x = self.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  for (decltype(out.numel()) i = 0; i < out.numel(); ++i)
    y[i] = x[i] / static_cast<float>(divisor);
  return out;
}

OPSCAN_KERNEL("boundary::checked_index")
int64_t checked_index(KernelRuntimeContext& ctx, int64_t index, int64_t size) {
  (void)ctx;
  if (index < 0 || index >= size)
    throw std::out_of_range("index out of range");
  return index;
}

} // namespace boundary
