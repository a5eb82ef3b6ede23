// The "stable" kernel library (kernels/stable.cpp, PyTorch's stable ABI) on a
// current libtorch: built as a shared library of its own (C++17), registered
// by name (twice) or statically (OPSCAN_STABLE_STATIC), and every kernel
// called through the dispatcher. OPSCAN_TEST_LIBRARY is that library's
// path, whose undefined symbols are checked.
#ifndef OPSCAN_STABLE_STATIC
#include "stable/RegisterKernels.h"
#endif
#include "undefined_symbols.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

template <typename Sig>
c10::TypedOperatorHandle<Sig> op(const char* name, const char* overload = "") {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).typed<Sig>();
}

std::string schema_of(const char* name, const char* overload = "") {
  std::ostringstream printed;
  printed << c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).schema();
  return printed.str();
}

// 0 1 2 3 4 5, as floats.
at::Tensor six() {
  return at::arange(6, at::kFloat);
}

#ifndef OPSCAN_STABLE_STATIC
class Registered : public ::testing::Environment {
public:
  void SetUp() override {
    register_stable_kernels();
    register_stable_kernels(); // a second call registers nothing more
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);
#endif

TEST(StableAbi, TensorsAndAFloatWithItsDefault) {
  EXPECT_EQ(schema_of("stable_ops::axpy"),
            "stable_ops::axpy(Tensor self, Tensor other, float alpha=1.) -> Tensor");
  auto axpy = op<at::Tensor(const at::Tensor&, const at::Tensor&, double)>("stable_ops::axpy");
  EXPECT_TRUE(at::equal(axpy.call(six(), at::ones({6}), 0.5), six() + 0.5f));
}

TEST(StableAbi, AnOutVariantWritesItsOutTensor) {
  auto fill =
      op<at::Tensor&(const at::Tensor&, int64_t, bool, at::Tensor&)>("stable_ops::fill", "out");
  at::Tensor out = at::zeros({6});
  at::Tensor& result = fill.call(six(), 7, true, out);
  EXPECT_TRUE(at::equal(out, at::full({6}, -7.0f)));
  EXPECT_EQ(result.data_ptr(), out.data_ptr());
}

TEST(StableAbi, ATupleOfValues) {
  auto extremes =
      op<std::tuple<double, double, int64_t>(const at::Tensor&)>("stable_ops::extremes");
  const auto [lo, hi, at] = extremes.call(at::tensor({3.0f, -2.0f, 9.0f, 1.0f}));
  EXPECT_EQ(lo, -2.0);
  EXPECT_EQ(hi, 9.0);
  EXPECT_EQ(at, 2);
}

TEST(StableAbi, AnIntListAndAnOptionalTensor) {
  auto gather =
      op<at::Tensor(const at::Tensor&, at::IntArrayRef, const std::optional<at::Tensor>&)>(
          "stable_ops::gather");
  EXPECT_TRUE(
      at::equal(gather.call(six(), {5, 0, 2}, std::nullopt), at::tensor({5.0f, 0.0f, 2.0f})));
  EXPECT_TRUE(at::equal(gather.call(six(), {1, 1}, at::tensor({10.0f, 20.0f})),
                        at::tensor({11.0f, 21.0f})));
}

TEST(StableAbi, ATensorListAFloatListAndAnOptionalInt) {
  auto sum = op<double(at::TensorList, at::ArrayRef<double>, std::optional<int64_t>)>(
      "stable_ops::weighted_sum");
  const std::vector<at::Tensor> tensors = {six(), at::ones({3})};
  EXPECT_EQ(sum.call(tensors, {2.0, -1.0}, std::nullopt), 2.0 * 15 - 3);
  EXPECT_EQ(sum.call(tensors, {1.0, 1.0}, 100), 100.0 + 15 + 3);
}

TEST(StableAbi, StringsAndTheEnumerationsAndADevice) {
  auto describe =
      op<int64_t(const at::Tensor&, c10::string_view, std::optional<c10::string_view>,
                 at::ScalarType, at::Layout, at::MemoryFormat, at::Device)>("stable_ops::describe");
  // name 5 chars, tag 3 chars, dtype matches, strided, channels last, CPU.
  EXPECT_EQ(describe.call(six(), "hello", "abc", at::kFloat, at::kStrided,
                          at::MemoryFormat::ChannelsLast, at::Device(at::kCPU)),
            5031111);
  // no tag, another dtype, contiguous format.
  EXPECT_EQ(describe.call(six(), "", std::nullopt, at::kInt, at::kStrided,
                          at::MemoryFormat::Contiguous, at::Device(at::kCPU)),
            990101);
}

TEST(StableAbi, AnOptionalFloatListAndAMutatedTensor) {
  auto scale = op<void(at::Tensor&, std::optional<at::ArrayRef<double>>)>("stable_ops::scale_each");
  at::Tensor x = six();
  scale.call(x, std::nullopt);
  EXPECT_TRUE(at::equal(x, six() * 2.0f));
  const std::vector<double> factors = {3.0, 0.5};
  scale.call(x, factors);
  EXPECT_TRUE(at::equal(x, six() * 3.0f));
}

TEST(StableAbi, AGeneratorIsTheCallersOwn) {
  EXPECT_EQ(schema_of("stable_ops::uniform_with"),
            "stable_ops::uniform_with(Tensor self, Generator gen) -> Tensor");
  auto uniform = op<at::Tensor(const at::Tensor&, at::Generator)>("stable_ops::uniform_with");
  at::Generator gen = at::detail::createCPUGenerator(42);
  const at::Tensor expected = at::empty({6}).uniform_(0, 1, at::detail::createCPUGenerator(42));
  const at::Tensor drawn = uniform.call(at::zeros({6}), gen);
  EXPECT_TRUE(at::equal(drawn, expected)) << drawn << expected;
  // The kernel drew from the caller's generator, not a copy of its state:
  // the next numbers follow those.
  at::Generator twice = at::detail::createCPUGenerator(42);
  at::empty({6}).uniform_(0, 1, twice);
  EXPECT_TRUE(at::equal(uniform.call(at::zeros({6}), gen), at::empty({6}).uniform_(0, 1, twice)));
}

TEST(StableAbi, AnOptionalGenerator) {
  EXPECT_EQ(schema_of("stable_ops::generator_on_cpu"),
            "stable_ops::generator_on_cpu(Tensor self, Generator? gen) -> int");
  auto on_cpu = op<int64_t(const at::Tensor&, const std::optional<at::Generator>&)>(
      "stable_ops::generator_on_cpu");
  EXPECT_EQ(on_cpu.call(six(), at::detail::createCPUGenerator(1)), 1);
  EXPECT_EQ(on_cpu.call(six(), at::detail::getDefaultCPUGenerator()), 1);
  EXPECT_EQ(on_cpu.call(six(), std::nullopt), -1);
}

TEST(StableAbi, AGeneratorReturned) {
  EXPECT_EQ(schema_of("stable_ops::same_generator"),
            "stable_ops::same_generator(Generator gen) -> Generator");
  auto same = op<at::Generator(const at::Generator&)>("stable_ops::same_generator");
  at::Generator gen = at::detail::createCPUGenerator(3);
  at::Generator returned = same.call(gen);
  EXPECT_EQ(returned.unsafeGetGeneratorImpl(), gen.unsafeGetGeneratorImpl());
}

TEST(StableAbi, TheLibraryCallsLibtorchThroughItsCShimOnly) {
  const std::vector<std::string> symbols = opscan_test::undefined_symbols(OPSCAN_TEST_LIBRARY);
  ASSERT_FALSE(symbols.empty()) << "nm -u found nothing in " << OPSCAN_TEST_LIBRARY;
  EXPECT_NE(std::find(symbols.begin(), symbols.end(), "aoti_torch_library_def"), symbols.end());
  EXPECT_EQ(opscan_test::libtorch_cpp_symbols(symbols), std::vector<std::string>{});
}

} // namespace
