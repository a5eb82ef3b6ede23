// Parameters: unnamed ones, no runtime context, and the annotation's fields.
#include "et_types.h"

namespace parameters {

OPSCAN_KERNEL("t::unnamed.out")
Tensor& unnamed_out(KernelRuntimeContext& ctx, const Tensor&, Tensor& out);

OPSCAN_KERNEL("t::no_context.out")
Tensor& no_context_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::keyed.out", key = "v1/6;0,1|6;0,1", dispatch = "CPU")
Tensor& keyed_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);

}  // namespace parameters
