// ATen kernels taking at::Generator (kernels/aten_generators.cpp), generated
// for torch-stable (a shared library of its own) and called through the
// dispatcher with the caller's generators.
#include "aten_generators/RegisterKernels.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>
#include <optional>

namespace {

template <typename Sig>
c10::TypedOperatorHandle<Sig> op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}

class Registered : public ::testing::Environment {
public:
  void SetUp() override { register_aten_generators_kernels(); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

TEST(AtenGenerators, TheKernelHasTheCallersGenerator) {
  auto seed_of = op<int64_t(const at::Generator&)>("aten_gen_ops::seed_of");
  EXPECT_EQ(seed_of.call(at::detail::createCPUGenerator(1234)), 1234);
  EXPECT_EQ(seed_of.call(at::detail::createCPUGenerator(99)), 99);
}

TEST(AtenGenerators, AnOptionalGeneratorDrawsTheNumbers) {
  auto uniform = op<at::Tensor(const at::Tensor&, const std::optional<at::Generator>&)>(
      "aten_gen_ops::uniform_with");
  at::Generator gen = at::detail::createCPUGenerator(42);
  const at::Tensor expected = at::empty({6}).uniform_(0, 1, at::detail::createCPUGenerator(42));
  EXPECT_TRUE(at::equal(uniform.call(at::zeros({6}), gen), expected));
  // Without one, the default generator draws them.
  at::Generator fallback = at::detail::getDefaultCPUGenerator();
  fallback.set_current_seed(7);
  const at::Tensor by_default = uniform.call(at::zeros({6}), std::nullopt);
  EXPECT_TRUE(
      at::equal(by_default, at::empty({6}).uniform_(0, 1, at::detail::createCPUGenerator(7))));
}

} // namespace
