// Kernels annotated with only the names of operators whose schemas are
// spread over two files: native_functions.yaml (aten's) and
// et_functions.yaml (ExecuTorch's own, dim_order_ops::).
#include "../scan/et_types.h"

namespace dim_order_kernels {

// Only et_functions.yaml knows it: with native_functions.yaml alone, its
// schema is inferred (no defaults, non_blocking not keyword-only).
OPSCAN_KERNEL("dim_order_ops::_clone_dim_order.out")
Tensor& clone_dim_order_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                            std::optional<ArrayRef<int64_t>> dim_order, Tensor& out);

// Both know it (derived from an autogen, and written out): the same schema.
OPSCAN_KERNEL("aten::native_dropout.out")
std::tuple<Tensor&, Tensor&> native_dropout_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                double p, std::optional<bool> train, Tensor& out0,
                                                Tensor& out1);

} // namespace dim_order_kernels
