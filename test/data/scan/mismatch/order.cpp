// Arguments in another order than the schema's, caught by their names.
#include "../et_types.h"

namespace order {

OPSCAN_KERNEL("t::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
Tensor& sub_out(const Tensor& other, const Tensor& self, const Scalar& alpha, Tensor& out);

// Two out tensors swapped: the returns follow them, by alias set.
OPSCAN_KERNEL("t::sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)")
std::tuple<Tensor&, Tensor&> sort_values(const Tensor& self, int64_t dim, bool descending, Tensor& indices, Tensor& values);

// Keyword-only scalars swapped: they keep their defaults.
OPSCAN_KERNEL("t::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha, const Scalar& beta);

// Moved arguments of different types: wrong types, and one out of place.
OPSCAN_KERNEL("t::topk(Tensor self, int k, int dim=-1, bool largest=True) -> Tensor")
Tensor topk(const Tensor& self, bool largest, int64_t k, int64_t dim);

// Three tensors rotated.
OPSCAN_KERNEL("t::where(Tensor condition, Tensor self, Tensor other) -> Tensor")
Tensor where(const Tensor& self, const Tensor& other, const Tensor& condition);

}  // namespace order
