// Declared returns that the C++ return type does not have.
#include "../et_types.h"

namespace returns {

OPSCAN_KERNEL("t::frexp(Tensor self) -> (Tensor mantissa, Tensor exponent)")
Tensor frexp(const Tensor& self);

OPSCAN_KERNEL("t::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor")
Tensor& abs_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> Tensor(a!)")
std::tuple<Tensor&, Tensor&> max_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& max, Tensor& max_values);

OPSCAN_KERNEL("t::copy.out(Tensor self, *, Tensor(a!) out) -> ()")
Tensor& copy_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::ceil.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void ceil_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::numel(Tensor self) -> int")
double numel(const Tensor& self);

OPSCAN_KERNEL("t::item(Tensor self) -> Scalar")
bool item(const Tensor& self);

OPSCAN_KERNEL("t::mean_count(Tensor self) -> (Tensor mean, int count)")
std::tuple<Tensor, double> mean_count(const Tensor& self);

OPSCAN_KERNEL("t::norm_value(Tensor self) -> float")
Tensor norm_value(const Tensor& self);

// The returns still fit: their names stay.
OPSCAN_KERNEL("t::kthvalue(Tensor self, int k, int dim=-1) -> (Tensor values, Tensor indices)")
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, double k, int64_t dim);

// A view: the return keeps its alias set.
OPSCAN_KERNEL("t::select.int(Tensor(a) self, int dim, int index) -> Tensor(a)")
Tensor select(const Tensor& self, int64_t dim, double index);

}  // namespace returns
