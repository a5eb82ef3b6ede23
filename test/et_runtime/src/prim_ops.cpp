// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// The prim ops: the operators ExecuTorch's runtime registers itself
// (kernels/prim_ops/register_prim_ops.cpp), by the names and selection
// macros of ExecuTorch 1.5.0 (commit cff6f4dd), registered when the program
// loads. Like ExecuTorch's file it reads selected_prim_ops.h (made by
// opscan with --operators-from, or by ExecuTorch's
// codegen/tools/gen_selected_prim_ops.py) when ET_PRIM_OPS_SELECTIVE_BUILD is
// defined, and with EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD registers only
// the prim ops whose INCLUDE_<NAME> macro it defines. Three compute (what the
// tests call); the others fail the call with NotImplemented.
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

#ifdef ET_PRIM_OPS_SELECTIVE_BUILD
#include "selected_prim_ops.h"
#endif

#include <vector>

namespace {

using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

// Each checks its stack's size as ExecuTorch's do.
bool has_args(KernelRuntimeContext& context, Span<EValue*> stack, size_t n) {
  if (stack.size() == n)
    return true;
  context.fail(Error::InvalidProgram);
  return false;
}

// aten::sym_size.int(Tensor self, int dim) -> SymInt
[[maybe_unused]] void sym_size_int(KernelRuntimeContext& context, Span<EValue*> stack) {
  if (has_args(context, stack, 3))
    *stack[2] = EValue(int64_t(stack[0]->toTensor().size(stack[1]->toInt())));
}

// aten::sym_numel(Tensor self) -> SymInt
[[maybe_unused]] void sym_numel(KernelRuntimeContext& context, Span<EValue*> stack) {
  if (has_args(context, stack, 2))
    *stack[1] = EValue(int64_t(stack[0]->toTensor().numel()));
}

// executorch_prim::add.Scalar(Scalar a, Scalar b) -> Scalar (ints only here)
[[maybe_unused]] void add_scalar(KernelRuntimeContext& context, Span<EValue*> stack) {
  if (has_args(context, stack, 3))
    *stack[2] = EValue(stack[0]->toInt() + stack[1]->toInt());
}

[[maybe_unused]] void not_in_stand_in(KernelRuntimeContext& context, Span<EValue*>) {
  context.fail(Error::NotImplemented);
}

// A vector, not an array: a selection of no prim op registers none.
const std::vector<Kernel>& prim_ops() {
  static const std::vector<Kernel> kernels = {
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) || defined(INCLUDE_ATEN_SYM_SIZE_INT)
    Kernel("aten::sym_size.int", sym_size_int),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) || defined(INCLUDE_ATEN_LOCAL_SCALAR_DENSE)
    Kernel("aten::_local_scalar_dense", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) || defined(INCLUDE_ATEN_SYM_NUMEL)
    Kernel("aten::sym_numel", sym_numel),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_SYM_MAX_SCALAR)
    Kernel("executorch_prim::sym_max.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_SYM_MIN_SCALAR)
    Kernel("executorch_prim::sym_min.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_ADD_SCALAR)
    Kernel("executorch_prim::add.Scalar", add_scalar),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_SUB_SCALAR)
    Kernel("executorch_prim::sub.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_MUL_SCALAR)
    Kernel("executorch_prim::mul.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_FLOORDIV_SCALAR)
    Kernel("executorch_prim::floordiv.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_TRUEDIV_SCALAR)
    Kernel("executorch_prim::truediv.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_SYM_FLOAT_SCALAR)
    Kernel("executorch_prim::sym_float.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_SYM_INT_SCALAR)
    Kernel("executorch_prim::sym_int.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_EQ_SCALAR)
    Kernel("executorch_prim::eq.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_GT_SCALAR)
    Kernel("executorch_prim::gt.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_LT_SCALAR)
    Kernel("executorch_prim::lt.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_GE_SCALAR)
    Kernel("executorch_prim::ge.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_LE_SCALAR)
    Kernel("executorch_prim::le.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_NEG_SCALAR)
    Kernel("executorch_prim::neg.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_SYM_NOT_SCALAR)
    Kernel("executorch_prim::sym_not.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_SYM_ITE_SCALAR)
    Kernel("executorch_prim::sym_ite.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_FLOORDIV_INT)
    Kernel("executorch_prim::floordiv.int", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) || defined(INCLUDE_EXECUTORCH_PRIM_MOD_INT)
    Kernel("executorch_prim::mod.int", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_MOD_SCALAR)
    Kernel("executorch_prim::mod.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_CEIL_SCALAR)
    Kernel("executorch_prim::ceil.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_ROUND_SCALAR)
    Kernel("executorch_prim::round.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_TRUNC_SCALAR)
    Kernel("executorch_prim::trunc.Scalar", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_ET_COPY_INDEX_TENSOR)
    Kernel("executorch_prim::et_copy_index.tensor", not_in_stand_in),
#endif
#if !defined(EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD) ||                                        \
    defined(INCLUDE_EXECUTORCH_PRIM_ET_VIEW_DEFAULT)
    Kernel("executorch_prim::et_view.default", not_in_stand_in),
#endif
  };
  return kernels;
}

[[maybe_unused]] const Error kRegisteredAtLoad =
    prim_ops().empty()
        ? Error::Ok
        : executorch::runtime::register_kernels({prim_ops().data(), prim_ops().size()});

} // namespace
