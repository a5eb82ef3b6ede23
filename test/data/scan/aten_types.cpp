// ATen spellings of the type table, with PyTorch's runtime context.
#include "aten_types.h"

namespace aten_types {

OPSCAN_KERNEL("t::aten_types")
at::Tensor aten_types(c10::DispatchKeySet keys, const at::Tensor& self, const at::Scalar& alpha,
                      at::SymInt size, at::IntArrayRef dims, at::SymIntArrayRef sizes,
                      at::OptionalIntArrayRef maybe_dims, std::vector<int64_t> shape,
                      const c10::List<std::optional<at::Tensor>>& indices, at::TensorList others,
                      c10::complex<double> z, std::string name, std::optional<at::ScalarType> dtype);

}  // namespace aten_types
