// One source, both ABIs: the ATen kernels of kernels/both_abis.cpp, generated
// for the torch target (both_torch) or, with OPSCAN_BOTH_STABLE, for
// torch-stable (both_stable, a shared library of its own), called through
// the dispatcher with the same arguments and held to the same values.
#ifdef OPSCAN_BOTH_STABLE
#include "both_stable/RegisterKernels.h"
#include "undefined_symbols.h"
#else
#include "both_torch/RegisterKernels.h"
#endif

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>
#include <optional>
#include <tuple>
#include <vector>

namespace {

template <typename Sig>
c10::TypedOperatorHandle<Sig> op(const char* name, const char* overload = "") {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).typed<Sig>();
}

// 0 1 2 3 4 5, as floats.
at::Tensor six() {
  return at::arange(6, at::kFloat);
}

class Registered : public ::testing::Environment {
public:
  void SetUp() override {
#ifdef OPSCAN_BOTH_STABLE
    register_both_stable_kernels();
    register_both_stable_kernels();
#else
    register_both_torch_kernels();
    register_both_torch_kernels();
#endif
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

TEST(BothAbis, Tensors) {
  auto madd = op<at::Tensor(const at::Tensor&, const at::Tensor&, double)>("both_ops::madd");
  EXPECT_TRUE(at::equal(madd.call(six(), at::ones({6}), 2.0), six() + 2.0f));
}

TEST(BothAbis, AnOutVariant) {
  auto clamp =
      op<at::Tensor&(const at::Tensor&, int64_t, at::Tensor&)>("both_ops::clamp_high", "out");
  at::Tensor out = at::empty({6});
  at::Tensor& result = clamp.call(six(), 3, out);
  EXPECT_TRUE(at::equal(out, at::tensor({0.0f, 1.0f, 2.0f, 3.0f, 3.0f, 3.0f})));
  EXPECT_EQ(result.data_ptr(), out.data_ptr());
}

TEST(BothAbis, AnIntListAndAnOptionalTensor) {
  auto pick = op<at::Tensor(const at::Tensor&, at::IntArrayRef, const std::optional<at::Tensor>&)>(
      "both_ops::pick");
  EXPECT_TRUE(at::equal(pick.call(six(), {4, 1}, std::nullopt), at::tensor({4.0f, 1.0f})));
  EXPECT_TRUE(
      at::equal(pick.call(six(), {4, 1}, at::tensor({0.5f, 0.5f})), at::tensor({4.5f, 1.5f})));
}

TEST(BothAbis, ATensorListAndAScalarType) {
  auto concat = op<at::Tensor(at::TensorList, at::ScalarType)>("both_ops::concat");
  const std::vector<at::Tensor> tensors = {six(), at::ones({2})};
  const at::Tensor result = concat.call(tensors, at::kDouble);
  EXPECT_EQ(result.scalar_type(), at::kDouble);
  EXPECT_TRUE(at::equal(result, at::cat({six(), at::ones({2})}).to(at::kDouble)));
}

TEST(BothAbis, ATupleOfTensorsAndAValue) {
  auto halves =
      op<std::tuple<at::Tensor, at::Tensor, int64_t>(const at::Tensor&)>("both_ops::halves");
  const auto [first, second, half] = halves.call(six());
  EXPECT_TRUE(at::equal(first, six().slice(0, 0, 3)));
  EXPECT_TRUE(at::equal(second, six().slice(0, 3)));
  EXPECT_EQ(half, 3);
}

#ifdef OPSCAN_BOTH_STABLE
// The ATen kernels themselves call libtorch's C++ API: the check that finds
// none in the stable library (stable_test.cpp) finds them here.
TEST(BothAbis, ATenKernelsStillCallLibtorchsCppApi) {
  const std::vector<std::string> symbols = opscan_test::undefined_symbols(OPSCAN_TEST_LIBRARY);
  EXPECT_NE(opscan_test::libtorch_cpp_symbols(symbols), std::vector<std::string>{});
}
#endif

} // namespace
