// Operator names that break the naming rules; each error points into the
// string literal, at the problem.
#include "et_types.h"

namespace bad_names {

OPSCAN_KERNEL("add.out") Tensor& no_namespace(const Tensor& self, Tensor& out);
OPSCAN_KERNEL("aten::add_out") Tensor& out_suffix(const Tensor& self, Tensor& out);
OPSCAN_KERNEL("aten::add.default") Tensor& default_overload(const Tensor& self, Tensor& out);
OPSCAN_KERNEL("aten::__x") Tensor& reserved(const Tensor& self, Tensor& out);
OPSCAN_KERNEL(  "my_ops::mul.out(Tensor self, Tensor other, *, Tensor(a!) out -> Tensor(a!)")
Tensor& bad_schema(const Tensor& self, const Tensor& other, Tensor& out);
OPSCAN_KERNEL(" aten::mul_out") Tensor& leading_space(const Tensor& self, Tensor& out);

}  // namespace bad_names
