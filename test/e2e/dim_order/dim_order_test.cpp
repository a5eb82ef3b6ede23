// A channels-last model against a library keyed only for contiguous
// tensors (test/e2e/CMakeLists.txt): what `opscan check --model` predicts
// is what the runtime's registry does. The check names the dim order and
// the closest key; the registry finds no kernel for the channels-last
// tensors' key, and finds the library's for the contiguous one.
#include "RegisterKernels.h"
#include "run.h"

#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>
#include <string>

namespace {

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::Span;
using executorch::runtime::TensorMeta;

TEST(DimOrder, CheckModelPredictsWhatTheRegistryFinds) {
  opscan::testing::RunResult check = opscan::testing::run_command(
      ".", "'" OPSCAN_BINARY "' check --model '" OPSCAN_NHWC_MODEL "' '" OPSCAN_LIBRARY_IR "'");
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_NE(check.err.find("operator 'aten::add.out' is called with argument 'self' in dim order "
                           "0,2,3,1 (channels-last), argument 'other' in dim order 0,2,3,1 "
                           "(channels-last), argument 'out' in dim order 0,2,3,1 (channels-last)"),
            std::string::npos)
      << check.err;
  EXPECT_NE(check.err.find("the closest key is 'v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3' "
                           "[opscan-model-dim-order]"),
            std::string::npos)
      << check.err;

  ASSERT_EQ(torch::executor::register_dim_order_kernels(), Error::Ok);
  DimOrderType channels_last[] = {0, 2, 3, 1};
  DimOrderType contiguous[] = {0, 1, 2, 3};
  const TensorMeta nhwc(ScalarType::Float, Span<DimOrderType>(channels_last, 4));
  const TensorMeta nchw(ScalarType::Float, Span<DimOrderType>(contiguous, 4));
  const TensorMeta model_call[] = {nhwc, nhwc, nhwc};
  const TensorMeta contiguous_call[] = {nchw, nchw, nchw};
  auto missing = executorch::runtime::get_op_function_from_registry(
      "aten::add.out", Span<const TensorMeta>(model_call, 3));
  EXPECT_EQ(missing.error(), Error::OperatorMissing);
  EXPECT_TRUE(executorch::runtime::get_op_function_from_registry(
                  "aten::add.out", Span<const TensorMeta>(contiguous_call, 3))
                  .ok());
}

} // namespace
