// Kernels the generated registration code cannot call or name.
#include "et_types.h"

namespace linkage {

OPSCAN_KERNEL("t::file_static.out")
static Tensor& file_static_out(const Tensor& self, Tensor& out);

namespace {
OPSCAN_KERNEL("t::anonymous.out")
Tensor& anonymous_out(const Tensor& self, Tensor& out);
}  // namespace

template <typename T>
OPSCAN_KERNEL("t::templated.out")
Tensor& templated_out(const Tensor& self, Tensor& out);

struct Ops {
  OPSCAN_KERNEL("t::method.out")
  Tensor& method_out(const Tensor& self, Tensor& out);
};

}  // namespace linkage
