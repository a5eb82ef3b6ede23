// The torch target end to end for kernel identity and hygiene: library
// "devices" (kernels/devices.cpp), generated with named registration,
// registers one operator under CPU and CUDA, and every schema the
// dispatcher holds is the one its IR holds.
#include "devices/RegisterKernels.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/frontend/function_schema_parser.h>

namespace {

class Registered : public ::testing::Environment {
public:
  void SetUp() override { register_devices_kernels(); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

TEST(Devices, OneOperatorHasACpuAndACudaKernelAndCpuTensorsReachTheCpuOne) {
  auto handle = c10::Dispatcher::singleton().findSchemaOrThrow("devices::scale", "");
  EXPECT_TRUE(handle.hasKernelForDispatchKey(c10::DispatchKey::CPU));
  EXPECT_TRUE(handle.hasKernelForDispatchKey(c10::DispatchKey::CUDA));
  at::Tensor out =
      handle.typed<at::Tensor(const at::Tensor&, double)>().call(at::ones({2}, at::kFloat), 3.0);
  EXPECT_EQ(out[0].item<float>(), 3.0f);
}

TEST(Devices, KernelsAreReachedWhateverTheirParameterNamesLinkageOrNamespace) {
  auto& dispatcher = c10::Dispatcher::singleton();
  at::Tensor x = at::zeros({3}, at::kFloat);
  EXPECT_EQ(dispatcher.findSchemaOrThrow("devices::with_keys", "")
                .typed<at::Tensor(const at::Tensor&)>()
                .call(x)[0]
                .item<float>(),
            1.0f);
  EXPECT_EQ(dispatcher.findSchemaOrThrow("devices::versioned", "")
                .typed<at::Tensor(const at::Tensor&)>()
                .call(x)[0]
                .item<float>(),
            2.0f);
  EXPECT_EQ(dispatcher.findSchemaOrThrow("devices::count", "")
                .typed<int64_t(const at::Tensor&)>()
                .call(x),
            3);
  EXPECT_EQ(dispatcher.findSchemaOrThrow("devices::label", "")
                .typed<at::Tensor(const at::Tensor&, c10::string_view, c10::string_view)>()
                .call(x, "ab", "c")[0]
                .item<float>(),
            3.0f);
}

// What the IR holds is what PyTorch registered: each schema of the library
// IR, parsed by PyTorch, equals the one the dispatcher has.
TEST(Devices, TheDispatcherHoldsExactlyTheSchemasOfTheIr) {
  std::ifstream in(OPSCAN_LIBRARY_IR);
  nlohmann::json ir = nlohmann::json::parse(in);
  ASSERT_EQ(ir["kernels"].size(), 6u);
  for (const auto& kernel : ir["kernels"]) {
    const std::string text = kernel["schema"];
    SCOPED_TRACE(text);
    c10::FunctionSchema expected = torch::jit::parseSchema(text);
    auto handle = c10::Dispatcher::singleton().findSchemaOrThrow(expected.name().c_str(),
                                                                 expected.overload_name().c_str());
    EXPECT_EQ(handle.schema(), expected);
  }
  // The default that looks like code is text: PyTorch read it back whole.
  auto label = c10::Dispatcher::singleton().findSchemaOrThrow("devices::label", "");
  EXPECT_EQ(label.schema().arguments()[1].default_value()->toStringRef(), "*/ #define X ?\?/");
  EXPECT_EQ(label.schema().arguments()[2].default_value()->toStringRef(), "\"");
}

} // namespace
