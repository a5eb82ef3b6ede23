// demo::neg.out for PyTorch's dispatcher (ATen stand-in types).
#include "../../data/scan/aten_types.h"

OPSCAN_KERNEL("demo::neg.out")
at::Tensor& neg_out(const at::Tensor& self, at::Tensor& out);
