#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

#include <optional>

using executorch::aten::ArrayRef;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

// Each operator below is named only; its schema comes from libtorch.
OPSCAN_KERNEL("aten::add.out")
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out);

// int[1]? dim is std::optional<ArrayRef<int64_t>>.
OPSCAN_KERNEL("aten::sum.IntList_out")
Tensor& sum_out(KernelRuntimeContext& ctx, const Tensor& self,
                std::optional<ArrayRef<int64_t>> dim, bool keepdim,
                std::optional<ScalarType> dtype, Tensor& out);

// SymInt is int64_t; a list of out tensors is a TensorList.
OPSCAN_KERNEL("aten::split_copy.Tensor_out")
void split_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t split_size,
                    int64_t dim, ArrayRef<Tensor> out);

// Not a libtorch operator: inferred as usual.
OPSCAN_KERNEL("custom::twice.out")
Tensor& twice_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
