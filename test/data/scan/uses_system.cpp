// Includes a header from a system include directory.
#include <system_kernels.h>

OPSCAN_KERNEL("t::local.out")
Tensor& local_out(const Tensor& self, Tensor& out);
