// End to end for the ExecuTorch target: the example kernels and the code
// opscan generated for them (named registration) are compiled together with
// -Wall -Wextra -Werror, registered, and called through the kernel registry
// the way ExecuTorch's executor calls them: with an EValue stack.
#include "RegisterKernels.h"
#include "boxed_call.h"
#include "files.h"

#include <et_stand_in/tensor_maker.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>
#include <vector>

namespace {

using et_stand_in::OwnedTensor;
using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::OpFunction;

OwnedTensor floats(std::vector<float> values) {
  return OwnedTensor::make<float>({int32_t(values.size())}, values);
}

// Registers the library once for the whole test program.
class Registered : public ::testing::Environment {
public:
  void SetUp() override { ASSERT_EQ(torch::executor::register_examples_kernels(), Error::Ok); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

// Calls operator `name` through the registry with `values` as its stack.
Error call(const char* name, std::vector<EValue>& values) {
  return opscan::testing::call_registered(name, values);
}

TEST(ExecuTorchExamples, EveryOperatorIsRegistered) {
  for (const char* name :
       {"aten::add.out", "aten::mul.out", "aten::clamp.out", "demo::scale.out", "demo::relu_",
        "demo::sum_dims.out", "demo::mean.out", "demo::pick", "demo::total.out"}) {
    EXPECT_TRUE(executorch::runtime::registry_has_op_function(name)) << name;
  }
}

// Where the generated code says a kernel of examples/kernels/elementwise.cpp
// comes from: the path the scan was given, and the line of the function.
std::string source_of(const std::string& function) {
  const std::string path = OPSCAN_EXAMPLES_DIR "/kernels/elementwise.cpp";
  return path + ":" + std::to_string(opscan::testing::line_of(path, " " + function + "("));
}

TEST(ExecuTorchExamples, RegisteringTwiceReportsInsteadOfAborting) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(torch::executor::register_examples_kernels(), Error::RegistrationAlreadyRegistered);
  // The first kernel of the library, named with its source and library.
  EXPECT_NE(::testing::internal::GetCapturedStderr().find(
                "Operator aten::add.out (kernel " + source_of("add_out") +
                ", library 'examples') is already registered"),
            std::string::npos);
}

TEST(ExecuTorchExamples, AddOutWithIntegerAlpha) {
  OwnedTensor a = floats({1, 2, 3}), b = floats({10, 20, 30}), out = floats({0, 0, 0});
  std::vector<EValue> stack = {a.tensor(), b.tensor(), EValue(int64_t(2)), out.tensor(), EValue()};
  ASSERT_EQ(call("aten::add.out", stack), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{21, 42, 63}));
}

TEST(ExecuTorchExamples, MulOut) {
  OwnedTensor a = floats({1, 2, 3}), b = floats({4, 5, 6}), out = floats({0, 0, 0});
  std::vector<EValue> stack = {a.tensor(), b.tensor(), out.tensor(), EValue()};
  ASSERT_EQ(call("aten::mul.out", stack), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{4, 10, 18}));
}

TEST(ExecuTorchExamples, ClampOutWithOptionalScalars) {
  OwnedTensor a = floats({-5, 0.5, 7}), out = floats({0, 0, 0});
  std::vector<EValue> stack = {a.tensor(), EValue(0.0), EValue(), out.tensor(), EValue()};
  ASSERT_EQ(call("aten::clamp.out", stack), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 0.5, 7}));

  std::vector<EValue> both = {a.tensor(), EValue(int64_t(-1)), EValue(1.0), out.tensor(), EValue()};
  ASSERT_EQ(call("aten::clamp.out", both), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-1, 0.5, 1}));
}

TEST(ExecuTorchExamples, ScaleOutWithFloatAndBool) {
  OwnedTensor a = floats({1.2f, 2.6f}), out = floats({0, 0});
  std::vector<EValue> stack = {a.tensor(), EValue(2.0), EValue(true), out.tensor(), EValue()};
  ASSERT_EQ(call("demo::scale.out", stack), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2, 5}));
}

TEST(ExecuTorchExamples, InPlaceRelu) {
  OwnedTensor a = floats({-1, 2, -3});
  std::vector<EValue> stack = {a.tensor(), EValue()};
  ASSERT_EQ(call("demo::relu_", stack), Error::Ok);
  EXPECT_EQ(a.values<float>(), (std::vector<float>{0, 2, 0}));
}

TEST(ExecuTorchExamples, IntListArgument) {
  OwnedTensor a = floats({1, 2, 3, 4}), out = floats({0});
  int64_t dims[] = {0};
  EValue dim_values[] = {EValue(dims[0])};
  EValue* wrapped[] = {&dim_values[0]};
  executorch::runtime::BoxedEvalueList<int64_t> list(wrapped, dims, 1);
  std::vector<EValue> stack = {a.tensor(), EValue(&list), EValue(false), out.tensor(), EValue()};
  ASSERT_EQ(call("demo::sum_dims.out", stack), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{10}));
}

TEST(ExecuTorchExamples, OptionalListAndOptionalScalarTypeAbsent) {
  OwnedTensor a = floats({1, 2, 3, 4}), out = floats({0});
  std::vector<EValue> stack = {a.tensor(), EValue(), EValue(), out.tensor(), EValue()};
  ASSERT_EQ(call("demo::mean.out", stack), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2.5}));
}

TEST(ExecuTorchExamples, FunctionalOpWritesTheReturnSlot) {
  OwnedTensor a = floats({1}), b = floats({2});
  std::vector<EValue> stack = {a.tensor(), b.tensor(), EValue(int64_t(1)), EValue()};
  ASSERT_EQ(call("demo::pick", stack), Error::Ok);
  ASSERT_TRUE(stack[3].isTensor());
  EXPECT_EQ(stack[3].toTensor().const_data_ptr<float>(), b.tensor().const_data_ptr<float>());

  std::vector<EValue> no_fallback = {a.tensor(), EValue(), EValue(int64_t(1)), EValue()};
  ASSERT_EQ(call("demo::pick", no_fallback), Error::Ok);
  EXPECT_EQ(no_fallback[3].toTensor().const_data_ptr<float>(), a.tensor().const_data_ptr<float>());
}

TEST(ExecuTorchExamples, TensorListArgument) {
  OwnedTensor a = floats({1, 2}), b = floats({3}), out = floats({0});
  executorch::aten::Tensor tensors[] = {a.tensor(), b.tensor()};
  EValue values[] = {EValue(tensors[0]), EValue(tensors[1])};
  EValue* wrapped[] = {&values[0], &values[1]};
  executorch::runtime::BoxedEvalueList<executorch::aten::Tensor> list(wrapped, tensors, 2);
  std::vector<EValue> stack = {EValue(&list), out.tensor(), EValue()};
  ASSERT_EQ(call("demo::total.out", stack), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{6}));
}

TEST(ExecuTorchExamples, WrongStackSizeFailsTheContext) {
  OwnedTensor a = floats({1}), out = floats({0});
  std::vector<EValue> stack = {a.tensor(), out.tensor()}; // mul.out needs 4 values
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(call("aten::mul.out", stack), Error::InvalidProgram);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find(
                "aten::mul.out (kernel " + source_of("mul_out") +
                ", library 'examples'): expected 4 values on the stack, got 2"),
            std::string::npos);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0}));
}

} // namespace
