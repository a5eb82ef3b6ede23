// The checkout's own programs (.pte files ExecuTorch's repository ships) run
// by ExecuTorch's executor with its portable kernels registered by opscan's
// generated code (register_portable_kernels, named mode). Each output is
// compared with a value this test computes itself: from inputs it chose and
// from the constants it reads out of the program file with the schema's own
// accessors (not through the executor).
#include <cstring>
#include <et_real/program_run.h>
#include <et_real/registration.h>
#include <et_stand_in/tensor_maker.h>
#include <executorch/schema/extended_header.h>
#include <executorch/schema/program_generated.h>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>
#include <vector>

namespace {

using et_real::ProgramRun;
using et_stand_in::OwnedTensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;

const std::string kCheckout = OPSCAN_EXECUTORCH_SOURCE_DIR;

void register_once() {
  ASSERT_EQ(et_real::register_portable(), Error::Ok);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The float elements of constant tensor `value` of the program's first
// method, read from the file as the schema lays them out: from the
// program's constant_buffer, or from its constant segment (after the
// extended header's segment base).
std::vector<float> constant_floats(const std::string& file, int value) {
  const auto* program = executorch_flatbuffer::GetProgram(file.data());
  const auto* tensor = program->execution_plan()->Get(0)->values()->Get(value)->val_as_Tensor();
  EXPECT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->scalar_type(), executorch_flatbuffer::ScalarType::FLOAT);
  size_t count = 1;
  for (int32_t size : *tensor->sizes())
    count *= static_cast<size_t>(size);
  std::vector<float> out(count);
  const uint32_t index = tensor->data_buffer_idx();
  if (program->constant_buffer() && program->constant_buffer()->size() > 1) {
    const auto* storage = program->constant_buffer()->Get(index)->storage();
    EXPECT_EQ(storage->size(), count * sizeof(float));
    std::memcpy(out.data(), storage->data(), count * sizeof(float));
    return out;
  }
  auto header = executorch::runtime::ExtendedHeader::Parse(file.data(), file.size());
  if (!header.ok()) {
    ADD_FAILURE() << "no extended header";
    return {};
  }
  const auto* segment_info = program->constant_segment();
  const auto* segment = program->segments()->Get(segment_info->segment_index());
  const size_t at =
      header->segment_base_offset + segment->offset() + segment_info->offsets()->Get(index);
  EXPECT_LE(at + count * sizeof(float), file.size());
  std::memcpy(out.data(), file.data() + at, count * sizeof(float));
  return out;
}

std::vector<float> output_floats(const ProgramRun& run, size_t i) {
  const auto& tensor = run.output(i).toTensor();
  const float* data = tensor.const_data_ptr<float>();
  return std::vector<float>(data, data + tensor.numel());
}

// test/models/deprecated/ModuleLinear-no-constant-segment.pte: forward(x) =
// a * x + b, elementwise on 2x2 floats, a and b in the program's
// constant_buffer (aten::mul.out, then aten::add.out with alpha 1).
TEST(CheckoutPrograms, ModuleLinearComputesAXPlusBFromItsConstants) {
  register_once();
  const std::string path =
      kCheckout + "/test/models/deprecated/ModuleLinear-no-constant-segment.pte";
  const std::string file = read_bytes(path);
  ASSERT_FALSE(file.empty()) << path;
  const std::vector<float> a = constant_floats(file, 0);
  const std::vector<float> b = constant_floats(file, 1);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);

  ProgramRun run(path);
  ASSERT_EQ(run.load_error, Error::Ok);
  const std::vector<float> x = {1.5f, -2.0f, 0.25f, 8.0f};
  auto input = OwnedTensor::make<float>({2, 2}, x);
  ASSERT_EQ(run.run({EValue(input.tensor())}), Error::Ok);
  ASSERT_EQ(run.method().outputs_size(), 1u);
  std::vector<float> expected;
  for (size_t i = 0; i < 4; ++i)
    expected.push_back(a[i] * x[i] + b[i]);
  EXPECT_EQ(output_floats(run, 0), expected);
}

// examples/arduino/examples/AddModel/model.pte: forward(x) = x + c, c a
// scalar constant in the program's constant segment.
TEST(CheckoutPrograms, ArduinoAddModelAddsItsConstant) {
  register_once();
  const std::string path = kCheckout + "/examples/arduino/examples/AddModel/model.pte";
  const std::string file = read_bytes(path);
  ASSERT_FALSE(file.empty()) << path;
  const std::vector<float> c = constant_floats(file, 0);
  ASSERT_EQ(c.size(), 1u);

  ProgramRun run(path);
  ASSERT_EQ(run.load_error, Error::Ok);
  const std::vector<float> x = {1.0f, -3.5f, 1024.0f};
  auto input = OwnedTensor::make<float>({3}, x);
  ASSERT_EQ(run.run({EValue(input.tensor())}), Error::Ok);
  std::vector<float> expected;
  for (float v : x)
    expected.push_back(v + c[0]);
  EXPECT_EQ(output_floats(run, 0), expected);
}

// extension/apple/ExecuTorch/__tests__/resources/add.pte: forward(x, y) = x + y.
TEST(CheckoutPrograms, AppleAddAddsItsInputs) {
  register_once();
  ProgramRun run(kCheckout + "/extension/apple/ExecuTorch/__tests__/resources/add.pte");
  ASSERT_EQ(run.load_error, Error::Ok);
  auto x = OwnedTensor::make<float>({1}, std::vector<float>{2.5f});
  auto y = OwnedTensor::make<float>({1}, std::vector<float>{4.25f});
  ASSERT_EQ(run.run({EValue(x.tensor()), EValue(y.tensor())}), Error::Ok);
  EXPECT_EQ(output_floats(run, 0), std::vector<float>{2.5f + 4.25f});
}

#ifndef OPSCAN_ET_REAL_PEER
// aten::add.out, which all three programs call, is opscan's registration's:
// registering the library again is refused, every kernel being there.
TEST(CheckoutPrograms, AddIsServedByTheGeneratedRegistration) {
  register_once();
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("aten::add.out"));
  EXPECT_EQ(torch::executor::register_portable_kernels(), Error::RegistrationAlreadyRegistered);
}
#endif

} // namespace
