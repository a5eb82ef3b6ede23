// A typo in a parameter type: clang reports it, and so does opscan.
#include "et_types.h"

namespace invalid {

OPSCAN_KERNEL("t::typo.out")
Tensor& typo_out(KernelRuntimeContext& ctx, const Tensr& self, Tensor& out);

}  // namespace invalid
