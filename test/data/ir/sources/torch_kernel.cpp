// The kernel of the torch base of the hostile IR corpus
// (test/data/ir/hostile/base): a dispatch key and a DispatchKeySet context.
#include "../../scan/aten_types.h"

namespace hostile_torch {

OPSCAN_KERNEL("demo::neg", dispatch = "CUDA")
at::Tensor neg(c10::DispatchKeySet keys, const at::Tensor& self);

} // namespace hostile_torch
