// Kernels annotated with the name of an operator the known-schemas file
// (known_schemas.txt) lists: checked against, and recorded with, its schema.
#include "et_types.h"

namespace known {

// Known: the schema's names and default, the C++ types.
OPSCAN_KERNEL("aten::add.out")
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Scalar& alpha,
                Tensor& out);

// Known, but declared: the declaration wins.
OPSCAN_KERNEL("aten::neg.out(Tensor input, *, Tensor(a!) result) -> Tensor(a!)")
Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& input, Tensor& result);

// Not known: inferred.
OPSCAN_KERNEL("t::other.out")
Tensor& other_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);

}  // namespace known
