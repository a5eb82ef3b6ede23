// The custom operators of aot_ops.cpp registered with ExecuTorch's registry
// (the executorch target, portable types) and called as the executor calls
// them: the values of aot_ops_expected.h, which the same kernels give
// through PyTorch's dispatcher in test/torch_current/aot_test.cpp.
#include "RegisterKernels.h"
#include "aot_ops_expected.h"
#include "boxed_call.h"

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>
#include <vector>

namespace {

namespace expected = aot_ops_expected;
using et_stand_in::OwnedTensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using opscan::testing::call_registered;
using opscan::testing::floats;

class Registered : public ::testing::Environment {
public:
  void SetUp() override { ASSERT_EQ(torch::executor::register_aot_ops_kernels(), Error::Ok); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

std::vector<float> values_of(const OwnedTensor& t) {
  const float* p = t.tensor().const_data_ptr<float>();
  return std::vector<float>(p, p + t.tensor().numel());
}

TEST(AotOpsInExecuTorch, Add3OutWritesTheSum) {
  OwnedTensor a = floats(expected::kA), b = floats(expected::kB), c = floats(expected::kC);
  OwnedTensor out = floats({0, 0, 0, 0});
  std::vector<EValue> stack = {EValue(a.tensor()), EValue(b.tensor()), EValue(c.tensor()),
                               EValue(out.tensor()), EValue()};
  ASSERT_EQ(call_registered("my_ops::add3.out", stack), Error::Ok);
  EXPECT_EQ(values_of(out), expected::kAdd3);
}

TEST(AotOpsInExecuTorch, ScaledSumReturnsItsValue) {
  OwnedTensor a = floats(expected::kA);
  std::vector<EValue> stack = {EValue(a.tensor()), EValue(expected::kFactor), EValue()};
  ASSERT_EQ(call_registered("my_ops::scaled_sum", stack), Error::Ok);
  EXPECT_EQ(stack[2].toDouble(), expected::kScaledSum);
}

TEST(AotOpsInExecuTorch, SquareNonnegFailsTheCallOnANegativeElement) {
  OwnedTensor a = floats(expected::kA), out = floats({0, 0, 0, 0});
  std::vector<EValue> ok = {EValue(a.tensor()), EValue(out.tensor()), EValue()};
  ASSERT_EQ(call_registered("my_ops::square_nonneg.out", ok), Error::Ok);
  EXPECT_EQ(values_of(out), expected::kSquares);

  OwnedTensor b = floats(expected::kB), untouched = floats({7, 7, 7, 7});
  std::vector<EValue> bad = {EValue(b.tensor()), EValue(untouched.tensor()), EValue()};
  EXPECT_EQ(call_registered("my_ops::square_nonneg.out", bad), Error::InvalidArgument);
  EXPECT_EQ(values_of(untouched), (std::vector<float>{7, 7, 7, 7}));
}

} // namespace
