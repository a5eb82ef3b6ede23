// Tensors the schema writes and the C++ function does not, and the reverse;
// and in-place operators.
#include "../et_types.h"

namespace mutability {

// The out tensor is declared read-only, though the declared return writes it.
OPSCAN_KERNEL("t::neg.out(Tensor self, *, Tensor out) -> Tensor(a!)")
Tensor& neg_out(const Tensor& self, Tensor& out);

// The out tensor is declared written; the C++ takes it by const reference.
OPSCAN_KERNEL("t::zero.out(Scalar value, *, Tensor(a!) out) -> ()")
void zero_out(KernelRuntimeContext& ctx, const Scalar& value, const Tensor& out);

// A written tensor before the out group: it needs an alias set of its own.
OPSCAN_KERNEL("t::add_relu.out(Tensor self, Tensor other, *, Tensor(a!) out) -> ()")
void add_relu_out(Tensor& self, const Tensor& other, Tensor& out);

// A running statistic declared written but taken read-only.
OPSCAN_KERNEL("t::bn_update(Tensor input, Tensor(a!) running_mean, Tensor(b!) running_var, float momentum) -> ()")
void bn_update(const Tensor& input, const Tensor& running_mean, Tensor& running_var, double momentum);

// An optional tensor declared written but taken read-only.
OPSCAN_KERNEL("t::accumulate(Tensor self, *, Tensor(a!)? grad) -> ()")
void accumulate(const Tensor& self, const std::optional<Tensor>& grad);

// An in-place operator whose self the schema forgot to write.
OPSCAN_KERNEL("t::relu_(Tensor self) -> Tensor")
Tensor& relu_(Tensor& self);

// An in-place operator with its own alias set name, which the fix keeps.
OPSCAN_KERNEL("t::mul_.Scalar(Tensor(s!) self, Scalar other) -> Tensor(s!)")
Tensor& mul_(KernelRuntimeContext& ctx, Tensor& self, double other);

}  // namespace mutability
