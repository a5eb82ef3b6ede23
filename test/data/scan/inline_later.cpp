// A kernel declared without 'inline' and defined inline afterwards: it is
// inline all the same.
#include "et_types.h"

namespace inl {

OPSCAN_KERNEL("t::later_inline")
void later_inline(const Tensor& self);

inline void later_inline(const Tensor& self) {}

}  // namespace inl
