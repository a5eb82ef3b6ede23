// Parameter types that are not kernel types, each with the one to use.
#include "et_types.h"

#include <vector>

namespace unsupported {

OPSCAN_KERNEL("t::plain_int") void plain_int(int x);
OPSCAN_KERNEL("t::plain_float") void plain_float(float x);
OPSCAN_KERNEL("t::c_string") void c_string(const char* x);
OPSCAN_KERNEL("t::pointer") void pointer(Tensor* x);
OPSCAN_KERNEL("t::int_ref") void int_ref(int64_t& x);
OPSCAN_KERNEL("t::bool_vector") void bool_vector(std::vector<bool> x);

}  // namespace unsupported
