// The three shapes of a kernel's return.
#include "et_types.h"

namespace returns {

OPSCAN_KERNEL("t::functional")
Tensor functional(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim);

OPSCAN_KERNEL("t::min_max.out")
std::tuple<Tensor&, Tensor&> min_max_out(KernelRuntimeContext& ctx, const Tensor& self,
                                         Tensor& min, Tensor& max);

OPSCAN_KERNEL("t::fill.out")
void fill_out(KernelRuntimeContext& ctx, const Scalar& value, Tensor& out);

}  // namespace returns
