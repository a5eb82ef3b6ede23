// Declarations of kernels defined in decl_def.cpp, and a kernel declared and
// defined in this header only.
#pragma once

#include "../et_types.h"

namespace decl_def {

OPSCAN_KERNEL("t::declared.out")
Tensor& declared_out(const Tensor& self, Tensor& out);

Tensor& defined_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::both.out",key="v1/6;0|6;0")
Tensor& both_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::in_header")
inline Tensor in_header(const Tensor& self) { return self; }

}  // namespace decl_def
