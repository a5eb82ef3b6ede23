// The language-server tests open this file in real editor clients: each
// kernel below has one problem that opscan offers a quick fix for, and
// kernels.fixed.cpp is this file once every fix is applied.
#include <cstdint>
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

namespace lsp_scenario {
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

// The declared schema says float; the C++ parameter is an int64_t.
OPSCAN_KERNEL("lsp::scale.out(Tensor self, int factor, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& scale_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t factor, Tensor& out);

// The second tensor has no name.
OPSCAN_KERNEL("lsp::mul.out")
Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& arg2, Tensor& out);

// The declared schema lacks the flag the C++ signature has.
OPSCAN_KERNEL("lsp::clamp(Tensor self, float low, bool inclusive) -> Tensor")
Tensor clamp(KernelRuntimeContext& ctx, const Tensor& self, double low, bool inclusive);
} // namespace lsp_scenario
