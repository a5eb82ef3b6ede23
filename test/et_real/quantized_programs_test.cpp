// ExecuTorch's quantized library (kernels/quantized, custom operators with
// quantized.yaml's schemas), migrated by opscan like the portable one, and
// both registered in one program by their named functions
// (register_portable_kernels(), register_quantized_kernels()): a program
// adds with a portable kernel, then quantizes and dequantizes with quantized
// ones; the outputs are compared with what the test computes itself. In the
// peer build (OPSCAN_ET_REAL_PEER) ExecuTorch's generator's registrations of
// both libraries register themselves from static initializers instead.
#ifndef OPSCAN_ET_REAL_PEER
#include "portable/RegisterKernels.h"
#include "quantized/RegisterKernels.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <et_real/program_json.h>
#include <et_real/program_run.h>
#include <et_real/written_programs.h>
#include <et_stand_in/tensor_maker.h>
#include <gtest/gtest.h>
#include <vector>

namespace {

using et_real::ProgramJson;
using et_real::ProgramRun;
using et_stand_in::OwnedTensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;

class QuantizedPrograms : public et_real::WrittenPrograms {
protected:
  void SetUp() override {
#ifndef OPSCAN_ET_REAL_PEER
    static const Error portable = torch::executor::register_portable_kernels();
    static const Error quantized = torch::executor::register_quantized_kernels();
    ASSERT_EQ(portable, Error::Ok);
    ASSERT_EQ(quantized, Error::Ok);
#endif
  }
};

TEST_F(QuantizedPrograms, BothLibrariesRegistered) {
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("aten::add.out"));
  EXPECT_TRUE(executorch::runtime::registry_has_op_function(
      "quantized_decomposed::quantize_per_tensor.out"));
  EXPECT_TRUE(executorch::runtime::registry_has_op_function(
      "quantized_decomposed::dequantize_per_tensor.out"));
}

// y = add.out(x, x); q = quantize_per_tensor.out(y, scale, zero_point,
// -128, 127, Char); d = dequantize_per_tensor.out(q, ..., Char, None).
TEST_F(QuantizedPrograms, AddQuantizeDequantize) {
  const double scale = 0.5;
  const int64_t zero_point = 3, quant_min = -128, quant_max = 127;
  const int char_type = 1; // ScalarType::Char
  ProgramJson p;
  const int x = p.tensor("FLOAT", {6}), y = p.tensor("FLOAT", {6});
  const int q = p.tensor("CHAR", {6}), d = p.tensor("FLOAT", {6});
  p.call("aten::add", "out", {x, x, p.integer(1), y, y});
  p.call("quantized_decomposed::quantize_per_tensor", "out",
         {y, p.real(scale), p.integer(zero_point), p.integer(quant_min), p.integer(quant_max),
          p.integer(char_type), q, q});
  p.call("quantized_decomposed::dequantize_per_tensor", "out",
         {q, p.real(scale), p.integer(zero_point), p.integer(quant_min), p.integer(quant_max),
          p.integer(char_type), p.none(), d, d});
  ProgramRun& run = load(p, {x}, {q, d});
  ASSERT_EQ(run.load_error, Error::Ok);
  // No value of 2x / scale is half-way between two integers: rounding to
  // nearest is the same whichever way ties go. 35 saturates at quant_max.
  const std::vector<float> xs = {-2.5f, -0.8f, 0.0f, 0.4f, 1.3f, 35.0f};
  auto input = OwnedTensor::make<float>({6}, xs);
  ASSERT_EQ(run.run({EValue(input.tensor())}), Error::Ok);
  std::vector<int8_t> expected_q;
  std::vector<float> expected_d;
  for (float v : xs) {
    const int64_t level = std::lround(2.0 * v / scale) + zero_point;
    const int64_t clamped = std::clamp(level, quant_min, quant_max);
    expected_q.push_back(static_cast<int8_t>(clamped));
    expected_d.push_back(static_cast<float>((clamped - zero_point) * scale));
  }
  EXPECT_EQ(values_of<int8_t>(run.output(0)), expected_q);
  EXPECT_EQ(values_of<float>(run.output(1)), expected_d);
}

} // namespace
