// Diagnostics with fix-its: with every fix-it applied, the file scans clean.
#include "../et_types.h"

namespace fixits {

// Operator names: an out variant's overload is "out"; "default" is no overload.
OPSCAN_KERNEL("t::add_out")
Tensor& add_out(const Tensor& self, const Tensor& other, Tensor& out);

OPSCAN_KERNEL("t::sub_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& sub_out(const Tensor& self, const Tensor& other, Tensor& out);

OPSCAN_KERNEL("t::div_out.Scalar", key = "v1/6;0,1|6;0,1")
Tensor& div_out(const Tensor& self, double other, Tensor& out);

OPSCAN_KERNEL("t::" "rsub_out")
Tensor& rsub_out(const Tensor& self, const Tensor& other, Tensor& out);

OPSCAN_KERNEL("t::mul.default")
Tensor mul(const Tensor& self, const Tensor& other);

// Types with one replacement, only the refused part rewritten.
OPSCAN_KERNEL("t::fill.out")
Tensor& fill_out(const Tensor& self, int value, Tensor& out);

OPSCAN_KERNEL("t::clamp.out")
Tensor& clamp_out(const Tensor& self, const int min, unsigned int max, Tensor& out);

OPSCAN_KERNEL("t::pow.out")
Tensor& pow_out(const Tensor& self, const float& exponent, Tensor& out);

OPSCAN_KERNEL("t::sum.out")
Tensor& sum_out(const Tensor& self, ArrayRef<int> dims, std::optional<float> scale,
                short keep, Tensor& out);

OPSCAN_KERNEL("t::narrow.out")
Tensor& narrow_out(const Tensor& self, char dim, unsigned long start, int64_t length, Tensor& out);

OPSCAN_KERNEL("t::gelu.out")
Tensor& gelu_out(const Tensor& self, const char* approximate, Tensor& out);

OPSCAN_KERNEL("t::count_nonzero")
int count_nonzero(const Tensor& self);

// Rvalue references: a const reference.
OPSCAN_KERNEL("t::lerp.out")
Tensor& lerp_out(const Tensor& self, Tensor&& end, const double&& weight, Tensor& out);

// Out tensors taken by const reference: written, so taken by reference.
OPSCAN_KERNEL("t::neg.out")
Tensor& neg_out(const Tensor& self, const Tensor& out);

OPSCAN_KERNEL("t::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& abs_out(const Tensor& self, Tensor const& out);

OPSCAN_KERNEL("t::relu_")
Tensor& relu_(const Tensor& self);

OPSCAN_KERNEL("t::zero.out(Tensor self, *, Tensor(a!) out) -> ()")
void zero_out(const Tensor& self, const Tensor& out);

}  // namespace fixits
