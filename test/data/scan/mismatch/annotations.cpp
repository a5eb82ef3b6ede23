// Mismatches in annotations written in every way OPSCAN_KERNEL allows: the
// fix-it replaces the spec's string literal(s), and nothing else.
#include "../et_types.h"

namespace annotations {

// On a line of its own.
OPSCAN_KERNEL(
    "t::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& pow_out(const Tensor& self, double exponent, Tensor& out);

// Split into adjacent literals over two lines.
OPSCAN_KERNEL("t::lerp.Scalar_out(Tensor self, Tensor end, "
              "Scalar weight, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& lerp_out(const Tensor& self, const Tensor& end, int64_t weight, Tensor& out);

// Adjacent literals on one line, as a macro might write them.
OPSCAN_KERNEL("t::" "elu.out" "(Tensor self, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& elu_out(const Tensor& self, double alpha, Tensor& out);

// A kernel key after the spec.
OPSCAN_KERNEL("t::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> Tensor(a!)", key = "v1/6;0,1|6;0,1")
Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& self, double min_val, double max_val, Tensor& out);

// A dispatch key on the next line.
OPSCAN_KERNEL("t::softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
              dispatch = "CPU")
Tensor& softmax_out(const Tensor& self, int64_t dim, int64_t half_to_float, Tensor& out);

// Odd spacing, and both fields.
OPSCAN_KERNEL(   "t::gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)"  ,dispatch="CPU",   key =  "v1/6;0,1|6;0,1"  )
Tensor& gelu_out(const Tensor& self, bool approximate, Tensor& out);

}  // namespace annotations
