// Two kernels of one operator that differ only by an ExecuTorch kernel key:
// PyTorch's dispatcher has no kernel keys, and would keep only one of them.
#include "../../data/scan/aten_types.h"

OPSCAN_KERNEL("demo::neg", key = "v1/6;0")
at::Tensor neg_float(const at::Tensor& self);

OPSCAN_KERNEL("demo::neg", key = "v1/3;0")
at::Tensor neg_int(const at::Tensor& self);
