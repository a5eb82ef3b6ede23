// What every kernel source of the library includes: the annotations and the
// ExecuTorch types (precompiled for the scans with -DWITH_SCAN_PCH=ON).
#pragma once

#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
