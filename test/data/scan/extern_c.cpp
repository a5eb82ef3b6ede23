// Kernels with C language linkage: in an extern "C" block and with extern "C"
// before the declaration, at global and at namespace scope. A linkage
// specification is not a scope: it is no part of the qualified name.
#include "et_types.h"

extern "C" {
OPSCAN_KERNEL("t::c_block_global")
void c_block_global(const Tensor& self);
}

extern "C" OPSCAN_KERNEL("t::c_decl_global") void c_decl_global(const Tensor& self);

namespace ext {

extern "C" {
OPSCAN_KERNEL("t::c_block_ns")
void c_block_ns(const Tensor& self);

extern "C++" {
OPSCAN_KERNEL("t::cxx_in_c_block")
void cxx_in_c_block(const Tensor& self);
}
}

extern "C" OPSCAN_KERNEL("t::c_decl_ns") void c_decl_ns(const Tensor& self);

OPSCAN_KERNEL("t::cxx_ns")
void cxx_ns(const Tensor& self);

}  // namespace ext
