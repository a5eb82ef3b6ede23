// A mismatch in an annotation written by another macro: the text is not in
// the file as written, so there is no fix-it.
#include "../et_types.h"

#define OUT_KERNEL(name, schema) OPSCAN_KERNEL("t::" #name ".out" schema)

namespace macro {

OUT_KERNEL(trunc, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& trunc_out(const Tensor& self, int64_t decimals, Tensor& out);

}  // namespace macro
