// The optionals library on a current libtorch: kernels taking std::optional
// and std::string_view, registered by name and called through the
// dispatcher, absent and present values alike.
#include "optionals/RegisterKernels.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>
#include <optional>
#include <string_view>

namespace {

template <typename Sig>
c10::TypedOperatorHandle<Sig> op(const char* name, const char* overload = "") {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).typed<Sig>();
}

// 3 rows of 2: 0 1 / 2 3 / 4 5.
at::Tensor rows() {
  return at::arange(6, at::kFloat).reshape({3, 2});
}

class Registered : public ::testing::Environment {
public:
  void SetUp() override {
    register_optionals_kernels();
    register_optionals_kernels(); // a second call registers nothing more
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

TEST(CurrentLibtorch, AnOptionalTensorPresentAndAbsent) {
  auto pick = op<at::Tensor(const at::Tensor&, at::IntArrayRef, const std::optional<at::Tensor>&)>(
      "opt_ops::pick");
  const at::Tensor x = rows();
  const at::Tensor bias = at::full({2}, 10.0f);
  EXPECT_TRUE(at::equal(pick.call(x, {2, 0}, bias), at::stack({x[2] + 10.0f, x[0] + 10.0f})));
  EXPECT_TRUE(at::equal(pick.call(x, {1}, std::nullopt), x.slice(0, 1, 2)));
}

TEST(CurrentLibtorch, DefaultsOfOptionalsAreNone) {
  auto& dispatcher = c10::Dispatcher::singleton();
  std::ostringstream printed;
  printed << dispatcher.findSchemaOrThrow("opt_ops::axpy", "").schema();
  EXPECT_EQ(printed.str(),
            "opt_ops::axpy(Tensor self, Tensor? other=None, float? alpha=None) -> Tensor");
  auto axpy =
      op<at::Tensor(const at::Tensor&, const std::optional<at::Tensor>&, std::optional<double>)>(
          "opt_ops::axpy");
  const at::Tensor x = rows();
  EXPECT_TRUE(at::equal(axpy.call(x, x, 0.5), x * 1.5f));
  EXPECT_TRUE(at::equal(axpy.call(x, x, std::nullopt), x * 2.0f));
  EXPECT_TRUE(at::equal(axpy.call(x, std::nullopt, 3.0), x));
}

TEST(CurrentLibtorch, AListOfOptionalTensors) {
  auto first = op<at::Tensor(const c10::List<std::optional<at::Tensor>>&)>("opt_ops::first_given");
  const at::Tensor x = rows();
  c10::List<std::optional<at::Tensor>> tensors;
  tensors.push_back(std::nullopt);
  tensors.push_back(x);
  EXPECT_TRUE(at::equal(first.call(tensors), x));
}

TEST(CurrentLibtorch, StringsAndOptionalStrings) {
  auto apply = op<at::Tensor(const at::Tensor&, c10::string_view, std::optional<c10::string_view>)>(
      "opt_ops::apply");
  const at::Tensor x = rows();
  EXPECT_TRUE(at::equal(apply.call(x, "double", std::nullopt), x * 2.0f));
  EXPECT_TRUE(at::equal(apply.call(x, "same", "+1"), x + 1.0f));
}

TEST(CurrentLibtorch, AnOutVariantSpelledWithC10Optional) {
  auto scaled =
      op<at::Tensor&(const at::Tensor&, const std::optional<at::Tensor>&,
                     std::optional<at::ScalarType>, at::Tensor&)>("opt_ops::scaled", "out");
  const at::Tensor x = rows();
  at::Tensor out = at::empty({3, 2}, at::kDouble);
  at::Tensor& result = scaled.call(x, at::full({2}, 3.0f), at::kDouble, out);
  EXPECT_EQ(&result, &out);
  EXPECT_TRUE(at::equal(out, (x * 3.0f).to(at::kDouble)));
}

} // namespace
