// The exception boundary end to end: test/e2e/boundary/kernels.cpp generated
// twice in named mode, as library 'guarded' with --exception-boundary and as
// 'unguarded' without, compiled with -Wall -Wextra -Werror against the
// runtime. Through the registry, a guarded kernel that throws fails its call
// with Error::Internal (as ExecuTorch's generator does) and logs what it
// threw, and the program goes on; an unguarded one lets the exception out of
// its wrapper.
#include "boxed_call.h"
#include "guarded/RegisterKernels.h"
#include "unguarded/RegisterKernels.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using et_stand_in::OwnedTensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::OpFunction;
using opscan::testing::call_boxed;
using opscan::testing::floats;

// Registers the guarded library once for the whole test program.
class Registered : public ::testing::Environment {
public:
  void SetUp() override { ASSERT_EQ(torch::executor::register_guarded_kernels(), Error::Ok); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

OpFunction registered(const char* name) {
  auto op = executorch::runtime::get_op_function_from_registry(name);
  EXPECT_TRUE(op.ok()) << name << " is not registered";
  return op.ok() ? op.get() : nullptr;
}

TEST(ExceptionBoundary, AThrowingKernelFailsItsCallWithInternal) {
  OwnedTensor a = floats({2, 4}), out = floats({7, 7});
  std::vector<EValue> stack = {a.tensor(), EValue(int64_t(0)), out.tensor(), EValue()};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(call_boxed(registered("boundary::divide.out"), stack), Error::Internal);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("boundary::divide.out (kernel "), std::string::npos) << log;
  EXPECT_NE(log.find("library 'guarded') threw an exception: division by zero"), std::string::npos)
      << log;
  EXPECT_EQ(out.values<float>(), (std::vector<float>{7, 7}));

  // The program goes on: the same kernel, called again, succeeds.
  std::vector<EValue> again = {a.tensor(), EValue(int64_t(2)), out.tensor(), EValue()};
  EXPECT_EQ(call_boxed(registered("boundary::divide.out"), again), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2}));
}

TEST(ExceptionBoundary, AReturnedValueIsNotWrittenWhenTheKernelThrows) {
  std::vector<EValue> stack = {EValue(int64_t(5)), EValue(int64_t(3)), EValue(int64_t(-1))};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(call_boxed(registered("boundary::checked_index"), stack), Error::Internal);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("threw an exception: index out of range"),
            std::string::npos);
  EXPECT_EQ(stack[2].toInt(), -1);

  std::vector<EValue> in_range = {EValue(int64_t(2)), EValue(int64_t(3)), EValue()};
  EXPECT_EQ(call_boxed(registered("boundary::checked_index"), in_range), Error::Ok);
  EXPECT_EQ(in_range[2].toInt(), 2);
}

// Without the option the wrapper has no try/catch: the exception leaves it
// (a runtime built without exceptions terminates there). Called through the
// unguarded library's table, which nothing registers.
TEST(ExceptionBoundary, WithoutItTheExceptionLeavesTheWrapper) {
  auto op = executorch::runtime::get_op_function_from_registry(
      "boundary::divide.out", {}, torch::executor::get_unguarded_kernels());
  ASSERT_TRUE(op.ok());
  ASSERT_NE(op.get(), registered("boundary::divide.out"));
  OwnedTensor a = floats({2, 4}), out = floats({7, 7});
  std::vector<EValue> stack = {a.tensor(), EValue(int64_t(0)), out.tensor(), EValue()};
  EXPECT_THROW(call_boxed(op.get(), stack), std::domain_error);
}

} // namespace
