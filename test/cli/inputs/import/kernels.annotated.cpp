// What `opscan import-yaml functions.yaml kernels.cpp` makes of kernels.cpp
// (this file's first three lines aside): the expected output of the CLI
// test.
#include <opscan_examples/executorch_types.h>
#include <opscan/annotations.h>

namespace torch {
namespace executor {
namespace native {

using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::aten::TensorList;
using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("aten::add.out")
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Scalar& alpha,
                Tensor& out);

Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Scalar& alpha,
                Tensor& out) {
  (void)ctx;
  (void)a;
  (void)b;
  (void)alpha;
  return out;
}

  OPSCAN_KERNEL("aten::copy_")
  Tensor& copy_(KernelRuntimeContext& ctx, Tensor& in, const Tensor& src, bool non_blocking) {
    (void)ctx;
    (void)src;
    (void)non_blocking;
    return in;
  }

#define UNARY_KERNEL(name)                                                                         \
  Tensor& name##_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {                   \
    (void)ctx;                                                                                     \
    (void)in;                                                                                      \
    return out;                                                                                    \
  }
OPSCAN_KERNEL("aten::abs.out")
UNARY_KERNEL(abs)

static int calls = 0; OPSCAN_KERNEL("aten::unbind_copy.int_out") void unbind_copy_int_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                 int64_t dim, TensorList out) {
  (void)ctx;
  (void)input;
  (void)dim;
  (void)out;
  ++calls;
}

OPSCAN_KERNEL("aten::mul.out", key = "v1/6;0,1|6;0,1|6;0,1")
Tensor& mul_out_float(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  (void)ctx;
  (void)a;
  (void)b;
  return out;
}

// One function for two dtypes (Int, Long): not annotated.
Tensor& mul_out_ints(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  (void)ctx;
  (void)a;
  (void)b;
  return out;
}

} // namespace native
} // namespace executor
} // namespace torch
