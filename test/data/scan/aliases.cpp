// Typedefs and using-declarations of kernel types map like the types they
// name: types are matched on their canonical spelling.
#include "et_types.h"

namespace aliases {

typedef Tensor MyTensor;
using MutableTensor = executorch::aten::Tensor&;
using TensorCRef = const Tensor&;
using IntList = executorch::aten::IntArrayRef;
using Tensors = executorch::aten::TensorList;
typedef std::optional<MyTensor> MaybeTensor;
typedef int64_t Dim;
typedef double Factor;
using Name = std::string_view;

OPSCAN_KERNEL("t::aliased.out")
MutableTensor aliased_out(const MyTensor& self, TensorCRef other, IntList dims, Tensors others, MaybeTensor weight,
                          Dim dim, Factor factor, Name name, MutableTensor out);

}  // namespace aliases
