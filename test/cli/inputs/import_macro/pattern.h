// Kernels made by a macro call, as ExecuTorch's portable library makes them
// (kernels/portable/cpu/pattern/pattern.h): one call, one kernel.
#pragma once

#include <opscan_examples/executorch_types.h>

namespace torch {
namespace executor {
namespace native {

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace internal {
inline Tensor& unary_ufunc(double (*)(double), KernelRuntimeContext&, const Tensor&,
                          Tensor& out) {
  return out;
}
} // namespace internal

#define DEFINE_UNARY_UFUNC_REALHBBF16_TO_FLOATHBF16(op_name, fn)              \
  Tensor& op_name(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) { \
    return internal::unary_ufunc(fn, ctx, in, out);                           \
  }

#define DEFINE_UNARY_UFUNC_REALHBF16(op_name, fn)                             \
  Tensor& op_name(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) { \
    return internal::unary_ufunc(fn, ctx, in, out);                           \
  }

// One call, two kernels: an annotation above the call would be the first's.
#define DEFINE_UNARY_PAIR(a, b, fn)                                          \
  Tensor& a(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {      \
    return internal::unary_ufunc(fn, ctx, in, out);                          \
  }                                                                          \
  Tensor& b(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {      \
    return internal::unary_ufunc(fn, ctx, in, out);                          \
  }

} // namespace native
} // namespace executor
} // namespace torch
