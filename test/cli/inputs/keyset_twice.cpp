// A kernel for PyTorch's dispatcher: it takes c10::DispatchKeySet first. The
// ExecuTorch target must refuse it, not pass it the runtime context.
#include "../../data/scan/aten_types.h"

OPSCAN_KERNEL("demo::twice")
int64_t twice(c10::DispatchKeySet keys, int64_t x);
