// Malformed OPSCAN_KERNEL arguments. Errors point at the offending token,
// wherever it is: the macro's arguments are mapped back to the source.
#include "et_types.h"

namespace annotation_syntax {

OPSCAN_KERNEL(t::bare.out)
Tensor& bare_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::twice.out",key="a",key = "b")
Tensor& twice_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::spaced.out",    colour   = "red")
Tensor& spaced_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL(
    "t::lines.out",
    dispatch = "CPU", wrong = "x")
Tensor& lines_out(const Tensor& self, Tensor& out);

OPSCAN_KERNEL("t::" "split_out")
Tensor& split_out(const Tensor& self, Tensor& out);

}  // namespace annotation_syntax
