// Prim-op selection (test/e2e/CMakeLists.txt): the prim ops a model calls,
// as `opscan run --operators-from` selected them in selected_prim_ops.h,
// are the only ones the stand-in's prim-op registration registers (it reads
// the header as ExecuTorch's register_prim_ops.cpp does), and they run.
// With a checkout, test/et_real runs this test on ExecuTorch's own
// register_prim_ops.cpp instead.
#include "RegisterKernels.h"
#include "selected_prim_ops.h"

#include <et_stand_in/tensor_maker.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>

namespace {

using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::registry_has_op_function;

TEST(PrimOpSelection, TheHeaderDefinesTheModelsPrimOps) {
#if !defined(INCLUDE_ATEN_SYM_SIZE_INT) || !defined(INCLUDE_EXECUTORCH_PRIM_ADD_SCALAR) ||         \
    !defined(INCLUDE_ATEN_LOCAL_SCALAR_DENSE)
  ADD_FAILURE() << "a prim op the model calls is not selected";
#endif
#if defined(INCLUDE_ATEN_ADD_OUT)
  ADD_FAILURE() << "aten::add.out is a kernel library's, not a prim op";
#endif
}

TEST(PrimOpSelection, OnlyTheSelectedPrimOpsRegister) {
  EXPECT_TRUE(registry_has_op_function("aten::sym_size.int"));
  EXPECT_TRUE(registry_has_op_function("executorch_prim::add.Scalar"));
  EXPECT_TRUE(registry_has_op_function("aten::_local_scalar_dense"));
  for (const char* other : {"aten::sym_numel", "executorch_prim::mul.Scalar",
                            "executorch_prim::sub.Scalar", "executorch_prim::et_view.default"})
    EXPECT_FALSE(registry_has_op_function(other)) << other;
  // Nothing else registers before the library does; then its kernel alone.
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), 3u);
  EXPECT_FALSE(registry_has_op_function("aten::add.out"));
  ASSERT_EQ(torch::executor::register_prim_kernels(), Error::Ok);
  EXPECT_TRUE(registry_has_op_function("aten::add.out"));
  EXPECT_FALSE(registry_has_op_function("aten::mul.out"));
}

TEST(PrimOpSelection, TheSelectedPrimOpsRun) {
  auto sym_size = executorch::runtime::get_op_function_from_registry("aten::sym_size.int");
  ASSERT_TRUE(sym_size.ok());
  et_stand_in::OwnedTensor t = et_stand_in::make_float_tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  EValue self(t.tensor()), dim(int64_t(1)), out;
  EValue* stack[] = {&self, &dim, &out};
  KernelRuntimeContext context;
  (*sym_size)(context, executorch::runtime::Span<EValue*>(stack, 3));
  EXPECT_EQ(context.failure_state(), Error::Ok);
  EXPECT_EQ(out.toInt(), 3);
}

} // namespace
