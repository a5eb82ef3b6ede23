// One kernel per row of the type table: each takes its type as `x`.
#include "et_types.h"

namespace types {

OPSCAN_KERNEL("t::tensor") void tensor(Tensor x);
OPSCAN_KERNEL("t::const_tensor_ref") void const_tensor_ref(const Tensor& x);
OPSCAN_KERNEL("t::tensor_ref") void tensor_ref(Tensor& x);
OPSCAN_KERNEL("t::scalar") void scalar(Scalar x);
OPSCAN_KERNEL("t::const_scalar_ref") void const_scalar_ref(const Scalar& x);
OPSCAN_KERNEL("t::int64") void int64(int64_t x);
OPSCAN_KERNEL("t::f64") void f64(double x);
OPSCAN_KERNEL("t::boolean") void boolean(bool x);
OPSCAN_KERNEL("t::optional_tensor") void optional_tensor(std::optional<Tensor> x);
OPSCAN_KERNEL("t::optional_scalar") void optional_scalar(std::optional<Scalar> x);
OPSCAN_KERNEL("t::optional_int") void optional_int(std::optional<int64_t> x);
OPSCAN_KERNEL("t::int_list") void int_list(ArrayRef<int64_t> x);
OPSCAN_KERNEL("t::optional_int_list") void optional_int_list(std::optional<ArrayRef<int64_t>> x);
OPSCAN_KERNEL("t::tensor_list") void tensor_list(ArrayRef<Tensor> x);
OPSCAN_KERNEL("t::optional_tensor_list")
void optional_tensor_list(ArrayRef<std::optional<Tensor>> x);
OPSCAN_KERNEL("t::float_list") void float_list(ArrayRef<double> x);
OPSCAN_KERNEL("t::bool_list") void bool_list(ArrayRef<bool> x);
OPSCAN_KERNEL("t::scalar_type") void scalar_type(ScalarType x);
OPSCAN_KERNEL("t::optional_scalar_type") void optional_scalar_type(std::optional<ScalarType> x);
OPSCAN_KERNEL("t::string_view") void string_view(std::string_view x);
OPSCAN_KERNEL("t::layout") void layout(Layout x);
OPSCAN_KERNEL("t::device") void device(Device x);
OPSCAN_KERNEL("t::memory_format") void memory_format(MemoryFormat x);

}  // namespace types
