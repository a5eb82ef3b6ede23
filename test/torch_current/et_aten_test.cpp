// The executorch target in ExecuTorch's ATen mode (--use-aten-lib): the
// kernels of test/e2e/aot/aot_ops.cpp (written once for both modes) and of
// kernels/et_aten.cpp (ATen's types), compiled with USE_ATEN_LIB=1 against
// libtorch, registered by the generated register_et_aten_kernels() with the
// registry of the ATen mode runtime (the stand-in's, compiled in that mode),
// and called as the executor calls them: EValue stacks holding at::Tensor.
// aot_ops' values are those of aot_ops_expected.h, which the same kernels
// give through ExecuTorch's portable registry (test/e2e/aot) and PyTorch's
// dispatcher (aot_test.cpp).
#include "aot_ops_expected.h"
#include "et_aten/RegisterKernels.h"

#include <ATen/ATen.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>
#include <type_traits>
#include <vector>

namespace {

namespace expected = aot_ops_expected;
namespace et_runtime = executorch::ET_RUNTIME_NAMESPACE;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;

static_assert(std::is_same_v<executorch::aten::Tensor, at::Tensor>, "built in ATen mode");
static_assert(std::is_same_v<et_runtime::KernelRuntimeContext,
                             executorch::runtime::aten::KernelRuntimeContext>,
              "the ATen mode runtime's own namespace");

class Registered : public ::testing::Environment {
public:
  void SetUp() override {
    ASSERT_EQ(torch::executor::register_et_aten_kernels(), Error::Ok);
    // Named registration registers all or nothing, once.
    ASSERT_EQ(torch::executor::register_et_aten_kernels(), Error::RegistrationAlreadyRegistered);
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

at::Tensor floats(const std::vector<float>& values) {
  return at::tensor(values, at::kFloat);
}

std::vector<float> values_of(const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// Calls operator `name` through the ATen mode registry with `values` as its
// stack (the last is the return slot); returns the context's failure state.
Error call(const char* name, std::vector<EValue>& values) {
  auto op = et_runtime::get_op_function_from_registry(name);
  EXPECT_TRUE(op.ok()) << name << " is not registered";
  if (!op.ok())
    return op.error();
  std::vector<EValue*> stack;
  for (EValue& v : values)
    stack.push_back(&v);
  et_runtime::KernelRuntimeContext context;
  (*op.get())(context, executorch::runtime::Span<EValue*>(stack.data(), stack.size()));
  return context.failure_state();
}

TEST(EtAtenMode, TheLibrarysKernelsAreInTheAtenRegistry) {
  const auto table = torch::executor::get_et_aten_kernels();
  EXPECT_EQ(table.size(), 6u);
  EXPECT_EQ(et_runtime::get_registered_kernels().size(), 6u);
}

TEST(EtAtenMode, Add3OutWritesTheSumAsInTheOtherRuntimes) {
  at::Tensor out = at::zeros({4}, at::kFloat);
  std::vector<EValue> stack = {EValue(floats(expected::kA)), EValue(floats(expected::kB)),
                               EValue(floats(expected::kC)), EValue(out), EValue()};
  ASSERT_EQ(call("my_ops::add3.out", stack), Error::Ok);
  EXPECT_EQ(values_of(out), expected::kAdd3);
}

TEST(EtAtenMode, ScaledSumReturnsItsValueAsInTheOtherRuntimes) {
  std::vector<EValue> stack = {EValue(floats(expected::kA)), EValue(expected::kFactor), EValue()};
  ASSERT_EQ(call("my_ops::scaled_sum", stack), Error::Ok);
  EXPECT_EQ(stack[2].toDouble(), expected::kScaledSum);
}

TEST(EtAtenMode, AFailedContextFailsTheCall) {
  at::Tensor out = at::zeros({4}, at::kFloat);
  std::vector<EValue> ok = {EValue(floats(expected::kA)), EValue(out), EValue()};
  ASSERT_EQ(call("my_ops::square_nonneg.out", ok), Error::Ok);
  EXPECT_EQ(values_of(out), expected::kSquares);

  at::Tensor untouched = at::full({4}, 7.0f, at::kFloat);
  std::vector<EValue> bad = {EValue(floats(expected::kB)), EValue(untouched), EValue()};
  EXPECT_EQ(call("my_ops::square_nonneg.out", bad), Error::InvalidArgument);
  EXPECT_EQ(values_of(untouched), (std::vector<float>{7, 7, 7, 7}));
}

TEST(EtAtenMode, PickTakesAnIntListAnOptionalTensorAndAScalar) {
  at::Tensor self = at::arange(6, at::kFloat).reshape({3, 2}); // rows {0,1} {2,3} {4,5}
  int64_t idx_values[] = {2, 0};
  EValue idx_boxed[] = {EValue(idx_values[0]), EValue(idx_values[1])};
  EValue* idx_wrapped[] = {&idx_boxed[0], &idx_boxed[1]};
  int64_t idx_unwrapped[2] = {};
  BoxedEvalueList<int64_t> idx(idx_wrapped, idx_unwrapped, 2);

  at::Tensor out = at::zeros({1}, at::kFloat); // resized by the kernel
  std::vector<EValue> with_bias = {
      EValue(self), EValue(&idx), EValue(floats({0.5f, -1.0f})), EValue(c10::Scalar(2.0)),
      EValue(out),  EValue()};
  ASSERT_EQ(call("aten_ops::pick.out", with_bias), Error::Ok);
  EXPECT_EQ(values_of(out), (std::vector<float>{8.5f, 9.0f, 0.5f, 1.0f}));

  std::vector<EValue> without_bias = {
      EValue(self), EValue(&idx), EValue(), EValue(c10::Scalar(int64_t{3})), EValue(out), EValue()};
  ASSERT_EQ(call("aten_ops::pick.out", without_bias), Error::Ok);
  EXPECT_EQ(values_of(out), (std::vector<float>{12, 15, 0, 3}));

  int64_t bad_values[] = {3};
  EValue bad_boxed[] = {EValue(bad_values[0])};
  EValue* bad_wrapped[] = {&bad_boxed[0]};
  int64_t bad_unwrapped[1] = {};
  BoxedEvalueList<int64_t> bad_idx(bad_wrapped, bad_unwrapped, 1);
  std::vector<EValue> out_of_range = {
      EValue(self), EValue(&bad_idx), EValue(), EValue(c10::Scalar(1.0)), EValue(out), EValue()};
  EXPECT_EQ(call("aten_ops::pick.out", out_of_range), Error::InvalidArgument);
}

TEST(EtAtenMode, TotalTakesATensorListAScalarTypeAndABool) {
  EValue xs_boxed[] = {EValue(floats({1.5f, 2.5f})), EValue(floats({10.25f}))};
  EValue* xs_wrapped[] = {&xs_boxed[0], &xs_boxed[1]};
  at::Tensor xs_unwrapped[2];
  BoxedEvalueList<at::Tensor> xs(xs_wrapped, xs_unwrapped, 2);
  std::vector<EValue> as_float = {EValue(&xs), EValue(static_cast<int64_t>(at::kFloat)),
                                  EValue(false), EValue()};
  ASSERT_EQ(call("aten_ops::total", as_float), Error::Ok);
  EXPECT_EQ(as_float[3].toDouble(), 14.25);
  // In int64 each element is truncated first: 1 + 2 + 10, then negated.
  std::vector<EValue> as_long = {EValue(&xs), EValue(static_cast<int64_t>(at::kLong)), EValue(true),
                                 EValue()};
  ASSERT_EQ(call("aten_ops::total", as_long), Error::Ok);
  EXPECT_EQ(as_long[3].toDouble(), -13.0);
}

TEST(EtAtenMode, CountGivenTakesAListOfOptionalTensors) {
  EValue boxed[] = {EValue(floats({1})), EValue(), EValue(floats({2, 3}))};
  EValue* wrapped[] = {&boxed[0], &boxed[1], &boxed[2]};
  std::optional<at::Tensor> unwrapped[3];
  BoxedEvalueList<std::optional<at::Tensor>> maybe(wrapped, unwrapped, 3);
  std::vector<EValue> stack = {EValue(&maybe), EValue()};
  ASSERT_EQ(call("aten_ops::count_given", stack), Error::Ok);
  EXPECT_EQ(stack[1].toInt(), 2);
}

} // namespace
