// An ExecuTorch kernel: it takes KernelRuntimeContext& first. The torch
// target must refuse it, not pass it the dispatcher's DispatchKeySet.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("demo::twice")
int64_t twice(KernelRuntimeContext& ctx, int64_t x);
