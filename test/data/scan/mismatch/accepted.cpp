// Declared schemas that differ from the inferred one only where C++ cannot
// tell: none of them is a mismatch, and each is kept as declared.
#include "../et_types.h"

namespace accepted {

// A view's alias set.
OPSCAN_KERNEL("t::alias(Tensor(a) self) -> Tensor(a)")
Tensor alias(const Tensor& self);

OPSCAN_KERNEL("t::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)")
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);

// Written tensors in a list.
OPSCAN_KERNEL("t::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()")
void split_copy_out(const Tensor& self, int64_t split_size, int64_t dim, ArrayRef<Tensor> out);

// SymInt is int64_t, and a fixed list size is not part of the type.
OPSCAN_KERNEL("t::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)")
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);

OPSCAN_KERNEL("t::view(Tensor(a) self, SymInt[] size) -> Tensor(a)")
Tensor view(const Tensor& self, ArrayRef<int64_t> size);

OPSCAN_KERNEL("t::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, *, Tensor(out!) out) -> Tensor(out!)")
Tensor& avg_pool2d_out(const Tensor& self, ArrayRef<int64_t> kernel_size, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding, Tensor& out);

// Other names, defaults, and a '*' the C++ cannot have.
OPSCAN_KERNEL("t::cumprod(Tensor input, *, int dim=0, ScalarType? dtype=None) -> Tensor")
Tensor cumprod(const Tensor& self, int64_t d, std::optional<ScalarType> dtype);

}  // namespace accepted
