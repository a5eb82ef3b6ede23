// The "stable_2_9" library (kernels/stable_2_9.cpp), whose registration
// opscan builds for torch 2.9's stable ABI, and whose kernels the test
// builds for it too: registered and called through a current libtorch's
// dispatcher, as an extension built for 2.9 is.
#include "stable_2_9/RegisterKernels.h"
#include "undefined_symbols.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <sstream>
#include <tuple>

namespace {

template <typename Sig>
c10::TypedOperatorHandle<Sig> op(const char* name, const char* overload = "") {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).typed<Sig>();
}

class Registered : public ::testing::Environment {
public:
  void SetUp() override { register_stable_2_9_kernels(); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

TEST(StableAbi2_9, TheRegistrationIsBuiltForTorch2_9) {
  std::ifstream in(OPSCAN_REGISTRATION_SOURCE);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("#define TORCH_TARGET_VERSION 0x0209000000000000ULL\n"),
            std::string::npos);
}

TEST(StableAbi2_9, TensorsAFloatAndAnOptionalTensor) {
  auto scale =
      op<at::Tensor(const at::Tensor&, double, const std::optional<at::Tensor>&)>("v29_ops::scale");
  const at::Tensor x = at::arange(4, at::kFloat);
  EXPECT_TRUE(at::equal(scale.call(x, 3.0, std::nullopt), x * 3.0f));
  EXPECT_TRUE(at::equal(scale.call(x, 2.0, at::ones({4})), x * 2.0f + 1.0f));
}

TEST(StableAbi2_9, AnOutVariantWithAnOptionalIntAndABool) {
  auto count = op<at::Tensor&(const at::Tensor&, std::optional<int64_t>, bool, at::Tensor&)>(
      "v29_ops::count_above", "out");
  const at::Tensor x = at::arange(6, at::kFloat);
  at::Tensor out = at::empty({2});
  count.call(x, 2, true, out);
  EXPECT_TRUE(at::equal(out, at::full({2}, 3.0f)));
  count.call(x, std::nullopt, false, out);
  EXPECT_TRUE(at::equal(out, at::full({2}, 6.0f)));
}

TEST(StableAbi2_9, ATupleOfABoolAndAnInt) {
  auto check = op<std::tuple<bool, int64_t>(const at::Tensor&, at::ScalarType)>("v29_ops::check");
  EXPECT_EQ(check.call(at::ones({5}), at::kFloat), std::make_tuple(true, int64_t{5}));
  EXPECT_EQ(check.call(at::ones({2}), at::kInt), std::make_tuple(false, int64_t{2}));
}

TEST(StableAbi2_9, TheLibraryCallsLibtorchThroughItsCShimOnly) {
  const std::vector<std::string> symbols = opscan_test::undefined_symbols(OPSCAN_TEST_LIBRARY);
  ASSERT_FALSE(symbols.empty());
  EXPECT_EQ(opscan_test::libtorch_cpp_symbols(symbols), std::vector<std::string>{});
}

} // namespace
