// Declared argument types that the C++ parameters do not have.
#include "../et_types.h"

namespace types {

OPSCAN_KERNEL("t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(o!) out) -> Tensor(o!)")
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, int64_t alpha, Tensor& out);

OPSCAN_KERNEL("t::roll(Tensor self, int shifts) -> Tensor")
Tensor roll(const Tensor& self, const Scalar& shifts);

OPSCAN_KERNEL("t::norm.out(Tensor self, float p=2, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& norm_out(const Tensor& self, const Scalar& p, Tensor& out);

OPSCAN_KERNEL("t::fill.Scalar(Tensor self, Scalar value) -> Tensor")
Tensor fill(const Tensor& self, double value);

OPSCAN_KERNEL("t::any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor")
Tensor any(const Tensor& self, int64_t dim, int64_t keepdim);

OPSCAN_KERNEL("t::tril(Tensor self, int diagonal) -> Tensor")
Tensor tril(const Tensor& self, bool diagonal);

OPSCAN_KERNEL("t::dropout(Tensor input, Tensor mask) -> Tensor")
Tensor dropout(const Tensor& input, const std::optional<Tensor>& mask);

OPSCAN_KERNEL("t::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias);

OPSCAN_KERNEL("t::squeeze.dim(Tensor self, int[1] dim) -> Tensor")
Tensor squeeze(const Tensor& self, int64_t dim);

OPSCAN_KERNEL("t::permute(Tensor self, int dims) -> Tensor")
Tensor permute(const Tensor& self, ArrayRef<int64_t> dims);

OPSCAN_KERNEL("t::to_dtype(Tensor self, ScalarType dtype, bool copy=False) -> Tensor")
Tensor to_dtype(const Tensor& self, int64_t dtype, bool copy);

OPSCAN_KERNEL("t::cast.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
Tensor& cast_out(const Tensor& self, ScalarType dtype, Tensor& out);

OPSCAN_KERNEL("t::reduce(Tensor self, str mode) -> Tensor")
Tensor reduce(const Tensor& self, const Tensor& mode);

OPSCAN_KERNEL("t::lookup(Tensor table, Tensor key) -> Tensor")
Tensor lookup(const Tensor& table, std::string_view key);

OPSCAN_KERNEL("t::stack(Tensor[] tensors, int dim=0) -> Tensor")
Tensor stack(const Tensor& tensors, int64_t dim);

OPSCAN_KERNEL("t::unbind_sum(Tensor self) -> Tensor")
Tensor unbind_sum(ArrayRef<Tensor> self);

OPSCAN_KERNEL("t::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
Tensor argmax(const Tensor& self, int64_t dim, bool keepdim);

OPSCAN_KERNEL("t::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
Tensor index(const Tensor& self, ArrayRef<Tensor> indices);

OPSCAN_KERNEL("t::index_put(Tensor self, Tensor[] indices, Tensor values) -> Tensor")
Tensor index_put(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values);

OPSCAN_KERNEL("t::amax(Tensor self, int[]? dim=None) -> Tensor")
Tensor amax(const Tensor& self, ArrayRef<int64_t> dim);

OPSCAN_KERNEL("t::upsample(Tensor self, float[] scales) -> Tensor")
Tensor upsample(const Tensor& self, ArrayRef<int64_t> scales);

// Two types wrong; unbiased loses its default, and so dim must too.
OPSCAN_KERNEL("t::var(Tensor self, int dim=0, bool unbiased=True) -> Tensor")
Tensor var(const Tensor& self, int64_t dim, double unbiased);

// The arguments after the changed one keep their defaults and the '*'.
OPSCAN_KERNEL("t::scatter_reduce.out(Tensor self, int dim, Tensor index, Tensor src, str reduce='sum', *, bool include_self=True, Tensor(a!) out) -> Tensor(a!)")
Tensor& scatter_reduce_out(const Tensor& self, int64_t dim, ArrayRef<int64_t> index, const Tensor& src, std::string_view reduce, bool include_self, Tensor& out);

}  // namespace types
