// The kernel of the ExecuTorch bases of the hostile IR corpus
// (test/data/ir/hostile/base): a declared schema with a default value, a
// kernel key, an inline namespace and noexcept, so that every field a
// hostile file damages is set.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

namespace hostile {
inline namespace v1 {

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL(
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    key = "v1/6;0|6;0|6;0")
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) noexcept;

} // namespace v1
} // namespace hostile
