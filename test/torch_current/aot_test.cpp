// The executorch-aot target against libtorch 2: the ExecuTorch kernels of
// test/e2e/aot/aot_ops.cpp, compiled in ExecuTorch's ATen mode
// (-DUSE_ATEN_LIB=1), registered with PyTorch's dispatcher by the generated
// register_aot_ops_aot_kernels() (named registration) or when the program
// loads (static, with OPSCAN_AOT_STATIC), and called through
// c10::Dispatcher. The values are those of aot_ops_expected.h, which the same
// kernels give through ExecuTorch's registry in
// test/e2e/aot/aot_ops_test.cpp.
#ifndef OPSCAN_AOT_STATIC
#include "aot_ops_aot/RegisterKernels.h"
#endif
#include "aot_ops_expected.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

namespace expected = aot_ops_expected;

at::Tensor floats(const std::vector<float>& values) {
  return at::tensor(values, at::kFloat);
}

std::vector<float> values_of(const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

class Registered : public ::testing::Environment {
public:
  void SetUp() override {
#ifndef OPSCAN_AOT_STATIC
    register_aot_ops_aot_kernels();
    register_aot_ops_aot_kernels(); // registers once
#endif
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

c10::OperatorHandle op(const char* name, const char* overload) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
}

TEST(AotOpsInPyTorch, TheSchemasAreDefined) {
  EXPECT_EQ(c10::toString(op("my_ops::add3", "out").schema()),
            "my_ops::add3.out(Tensor a, Tensor b, Tensor c, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(c10::toString(op("my_ops::scaled_sum", "").schema()),
            "my_ops::scaled_sum(Tensor self, float factor) -> float");
}

TEST(AotOpsInPyTorch, Add3OutWritesTheSum) {
  auto add3 = op("my_ops::add3", "out")
                  .typed<at::Tensor&(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                     at::Tensor&)>();
  at::Tensor out = at::zeros({4}, at::kFloat);
  at::Tensor& result =
      add3.call(floats(expected::kA), floats(expected::kB), floats(expected::kC), out);
  EXPECT_TRUE(result.is_same(out));
  EXPECT_EQ(values_of(out), expected::kAdd3);
}

TEST(AotOpsInPyTorch, ScaledSumReturnsItsValue) {
  auto scaled_sum = op("my_ops::scaled_sum", "").typed<double(const at::Tensor&, double)>();
  EXPECT_EQ(scaled_sum.call(floats(expected::kA), expected::kFactor), expected::kScaledSum);
}

TEST(AotOpsInPyTorch, AFailedContextRaisesAnErrorNamingTheOperator) {
  auto square =
      op("my_ops::square_nonneg", "out").typed<at::Tensor&(const at::Tensor&, at::Tensor&)>();
  at::Tensor out = at::zeros({4}, at::kFloat);
  square.call(floats(expected::kA), out);
  EXPECT_EQ(values_of(out), expected::kSquares);

  at::Tensor untouched = at::full({4}, 7.0f, at::kFloat);
  try {
    square.call(floats(expected::kB), untouched);
    FAIL() << "my_ops::square_nonneg.out did not raise";
  } catch (const c10::Error& e) {
    const std::string message = e.what_without_backtrace();
    EXPECT_NE(message.find("my_ops::square_nonneg.out: the ExecuTorch kernel "), std::string::npos)
        << message;
    EXPECT_NE(message.find("aot_ops.cpp:"), std::string::npos) << message;
    // Error::InvalidArgument
    EXPECT_NE(message.find("failed its KernelRuntimeContext with error 18"), std::string::npos)
        << message;
  }
  EXPECT_EQ(values_of(untouched), (std::vector<float>{7, 7, 7, 7}));
  // A tensor of another size fails too (the kernel's own check).
  EXPECT_THROW(square.call(floats({1, 2}), untouched), c10::Error);
}

} // namespace
