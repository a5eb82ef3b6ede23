// Kernels annotated with only the names of operators that
// native_functions.yaml (beside this file) has only through `autogen:`:
// checked against, and recorded with, the schemas torchgen derives.
#include "../scan/et_types.h"

namespace autogen_kernels {

// Functional -> out=: the tensor options dropped.
OPSCAN_KERNEL("aten::_to_copy.out")
Tensor& to_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                    std::optional<MemoryFormat> memory_format, Tensor& out);

// Functional with two returns -> out0, out1.
OPSCAN_KERNEL("aten::native_dropout.out")
std::tuple<Tensor&, Tensor&> native_dropout_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                double p, std::optional<bool> train, Tensor& out0,
                                                Tensor& out1);

// In-place -> out=.
OPSCAN_KERNEL("aten::_add_relu.Scalar_out")
Tensor& add_relu_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                            const Scalar& alpha, Tensor& out);

// In-place on a tensor list, returning nothing -> a list out, returning nothing.
OPSCAN_KERNEL("aten::_foreach_add.List_out")
void foreach_add_list_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> self,
                          ArrayRef<Tensor> other, const Scalar& alpha, ArrayRef<Tensor> out);

// In-place -> functional.
OPSCAN_KERNEL("aten::resize")
Tensor resize(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> size,
              std::optional<MemoryFormat> memory_format);

} // namespace autogen_kernels
