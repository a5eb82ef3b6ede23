// Declared schemas with more or fewer arguments than the C++ function takes.
#include "../et_types.h"

namespace count {

// One too many: keepdim is not in the signature.
OPSCAN_KERNEL("t::sum.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& sum_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, Tensor& out);

// One too few: the signature also takes dim.
OPSCAN_KERNEL("t::cumsum.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& cumsum_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, Tensor& out);

// No arguments declared; no runtime context.
OPSCAN_KERNEL("t::seed() -> ()")
void seed(int64_t value);

// Arguments declared, none taken.
OPSCAN_KERNEL("t::now(int unit) -> int")
int64_t now(KernelRuntimeContext& ctx);

// Two too many, named unlike the C++ parameters: the rest pair up by type.
OPSCAN_KERNEL("t::clamp.out(Tensor input, Scalar? min=None, Scalar? max=None, Tensor? weight=None, *, Tensor(a!) result) -> Tensor(a!)")
Tensor& clamp_out(const Tensor& self, const std::optional<Scalar>& min, Tensor& out);

// A forgotten out tensor: its alias set must not be the declared one's.
OPSCAN_KERNEL("t::aminmax.out(Tensor self, *, Tensor(a!) max) -> Tensor(a!)")
std::tuple<Tensor&, Tensor&> aminmax_out(const Tensor& self, Tensor& min, Tensor& max);

// A forgotten argument before one with a default, in a string with escapes.
OPSCAN_KERNEL("t::join(Tensor[] parts, str sep=\"-\") -> ()")
void join(ArrayRef<Tensor> parts, int64_t limit, std::string_view sep);

}  // namespace count
