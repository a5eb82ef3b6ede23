// An extern "C" kernel in an unnamed namespace.
#include "et_types.h"

namespace {
extern "C" OPSCAN_KERNEL("t::c_in_anonymous") void c_in_anonymous(const Tensor& self);
}  // namespace
