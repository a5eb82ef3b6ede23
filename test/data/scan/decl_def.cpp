// Kernels annotated on their declaration (in a header), on their definition,
// or on both (alike, if differently written): each is one kernel.
#include "include/decl_kernels.h"

namespace decl_def {

Tensor& declared_out(const Tensor& self, Tensor& out) { return out; }

OPSCAN_KERNEL("t::defined.out")
Tensor& defined_out(const Tensor& self, Tensor& out) { return out; }

OPSCAN_KERNEL("t::" "both.out", key = "v1/6;0|6;0")
Tensor& both_out(const Tensor& self, Tensor& out) { return out; }

}  // namespace decl_def
