// Kernels opscan can scan but ExecuTorch cannot call: each is refused when
// generating for ExecuTorch, naming the type.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
#include <tuple>

namespace c10 {
template <typename T>
struct complex {
  T real, imag;
};
} // namespace c10

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

// ExecuTorch has no complex scalars.
OPSCAN_KERNEL("demo::rotate.out")
Tensor& rotate_out(KernelRuntimeContext& ctx, const Tensor& self, c10::complex<double> angle,
                   Tensor& out);

// A functional operator with two results: ExecuTorch has one return slot.
OPSCAN_KERNEL("demo::minmax(Tensor self) -> (Tensor min, Tensor max)")
std::tuple<Tensor, Tensor> minmax(KernelRuntimeContext& ctx, const Tensor& self);
