// Programs this test writes (et_real/program_json.h, compiled by flatc with
// the checkout's schema/program.fbs), one per argument kind and return
// convention, run by ExecuTorch's executor on the checkout's portable kernels
// as opscan migrated and registered them. Each output is compared with what
// the test computes itself from the inputs it chose.
#include <cmath>
#include <et_real/program_json.h>
#include <et_real/program_run.h>
#include <et_real/registration.h>
#include <et_real/written_programs.h>
#include <et_stand_in/tensor_maker.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using et_real::ProgramJson;
using et_real::ProgramRun;
using et_stand_in::OwnedTensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;

class JsonPrograms : public et_real::WrittenPrograms {
protected:
  void SetUp() override { ASSERT_EQ(et_real::register_portable(), Error::Ok); }
};

const std::vector<float> kX = {-2.5f, -0.75f, 0.0f, 0.5f, 1.25f, 3.0f}; // 2x3

// Scalar as int and as double: rsub.Scalar_out(x, other=3, alpha=0.5) is
// 3 - 0.5 * x (the two Scalars swapped would give 0.5 - 3 * x).
TEST_F(JsonPrograms, ScalarIntAndDouble) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {2, 3});
  p.call("aten::rsub", "Scalar_out", {x, p.integer(3), p.real(0.5), out, out});
  std::vector<float> expected;
  for (float v : kX)
    expected.push_back(3 - 0.5f * v);
  EXPECT_EQ(run_on(p, x, {2, 3}, kX, out), expected);
}

// Kernels a macro defines (DEFINE_UNARY_UFUNC_...(acos_out, std::acos)),
// annotated by import-yaml at the macro call: acos.out and sin.out.
TEST_F(JsonPrograms, MacroMadeKernels) {
  const std::vector<float> in_range = {-1.0f, -0.75f, 0.0f, 0.5f, 0.9f, 1.0f};
  for (const char* name : {"aten::acos", "aten::sin"}) {
    ProgramJson p;
    const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {2, 3});
    p.call(name, "out", {x, out, out});
    const std::vector<float> got = run_on(p, x, {2, 3}, in_range, out);
    ASSERT_EQ(got.size(), in_range.size()) << name;
    for (size_t i = 0; i < in_range.size(); ++i) {
      const double v = in_range[i];
      EXPECT_NEAR(got[i], std::string(name) == "aten::acos" ? std::acos(v) : std::sin(v), 1e-6)
          << name << " element " << i;
    }
  }
}

// Scalar? given and absent: clamp.out(x, min=None, max=1.0).
TEST_F(JsonPrograms, OptionalScalarWithAHole) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {2, 3});
  p.call("aten::clamp", "out", {x, p.none(), p.real(1.0), out, out});
  std::vector<float> expected;
  for (float v : kX)
    expected.push_back(v > 1.0f ? 1.0f : v);
  EXPECT_EQ(run_on(p, x, {2, 3}, kX, out), expected);
}

// int[]? and ScalarType?: sum.IntList_out(x, dim=[1], keepdim=False,
// dtype=Float); bool among the arguments.
TEST_F(JsonPrograms, IntListAndScalarType) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {2});
  const int float_type = 6; // ScalarType::Float
  p.call("aten::sum", "IntList_out",
         {x, p.int_list({1}), p.boolean(false), p.integer(float_type), out, out});
  EXPECT_EQ(run_on(p, x, {2, 3}, kX, out),
            (std::vector<float>{kX[0] + kX[1] + kX[2], kX[3] + kX[4] + kX[5]}));
}

// int[]: permute_copy.out(x, dims=[1, 0]) is x transposed.
TEST_F(JsonPrograms, IntList) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {3, 2});
  p.call("aten::permute_copy", "out", {x, p.int_list({1, 0}), out, out});
  EXPECT_EQ(run_on(p, x, {2, 3}, kX, out),
            (std::vector<float>{kX[0], kX[3], kX[1], kX[4], kX[2], kX[5]}));
}

// Tensor? given and absent: clamp.Tensor_out(x, min=None, max=m).
TEST_F(JsonPrograms, OptionalTensorWithAHole) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), m = p.tensor("FLOAT", {2, 3});
  const int out = p.tensor("FLOAT", {2, 3});
  p.call("aten::clamp", "Tensor_out", {x, p.none(), m, out, out});
  ProgramRun& run = load(p, {x, m}, {out});
  ASSERT_EQ(run.load_error, Error::Ok);
  const std::vector<float> max = {0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f};
  auto input = OwnedTensor::make<float>({2, 3}, kX);
  auto bound = OwnedTensor::make<float>({2, 3}, max);
  ASSERT_EQ(run.run({EValue(input.tensor()), EValue(bound.tensor())}), Error::Ok);
  std::vector<float> expected;
  for (size_t i = 0; i < kX.size(); ++i)
    expected.push_back(kX[i] > max[i] ? max[i] : kX[i]);
  EXPECT_EQ(values_of<float>(run.output(0)), expected);
}

// float: _pdist_forward.out(x, p=1.0), the L1 distances between x's rows
// (3 rows of 2: pairs 0-1, 0-2, 1-2).
TEST_F(JsonPrograms, Float) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {3, 2}), out = p.tensor("FLOAT", {3});
  p.call("aten::_pdist_forward", "out", {x, p.real(1.0), out, out});
  const std::vector<float> rows = {1.0f, 2.0f, 4.0f, -2.0f, 0.5f, 8.0f};
  auto l1 = [&](int a, int b) {
    return std::abs(rows[2 * a] - rows[2 * b]) + std::abs(rows[2 * a + 1] - rows[2 * b + 1]);
  };
  EXPECT_EQ(run_on(p, x, {3, 2}, rows, out), (std::vector<float>{l1(0, 1), l1(0, 2), l1(1, 2)}));
}

// int? absent: argmax.out(x, dim=None, keepdim=False), an index into x flattened.
TEST_F(JsonPrograms, OptionalIntAbsent) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("LONG", {});
  p.call("aten::argmax", "out", {x, p.none(), p.boolean(false), out, out});
  EXPECT_EQ(run_on<int64_t>(p, x, {2, 3}, kX, out), (std::vector<int64_t>{5}));
}

// Tensor[] as an input: cat.out([x, x], dim=0).
TEST_F(JsonPrograms, TensorList) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {4, 3});
  p.call("aten::cat", "out", {p.tensor_list({x, x}), p.integer(0), out, out});
  std::vector<float> expected = kX;
  expected.insert(expected.end(), kX.begin(), kX.end());
  EXPECT_EQ(run_on(p, x, {2, 3}, kX, out), expected);
}

// str: gelu.out(x, approximate="tanh").
TEST_F(JsonPrograms, String) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {2, 3});
  p.call("aten::gelu", "out", {x, p.string("tanh"), out, out});
  const std::vector<float> got = run_on(p, x, {2, 3}, kX, out);
  ASSERT_EQ(got.size(), kX.size());
  for (size_t i = 0; i < kX.size(); ++i) {
    const double v = kX[i];
    const double tanh_gelu =
        0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    const double exact_gelu = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    EXPECT_NEAR(got[i], tanh_gelu, 1e-5) << "element " << i;
    if (std::abs(tanh_gelu - exact_gelu) > 1e-4) { // the string reached the kernel
      EXPECT_GT(std::abs(got[i] - exact_gelu), 1e-5) << "element " << i;
    }
  }
}

// MemoryFormat?: clone.out(x, memory_format=contiguous) copies; preserve,
// which the portable kernel refuses, fails the call.
TEST_F(JsonPrograms, MemoryFormat) {
  for (int64_t format : {0, 1}) { // MemoryFormat::Contiguous, MemoryFormat::Preserve
    ProgramJson p;
    const int x = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {2, 3});
    p.call("aten::clone", "out", {x, p.integer(format), out, out});
    ProgramRun& run = load(p, {x}, {out});
    ASSERT_EQ(run.load_error, Error::Ok);
    auto input = OwnedTensor::make<float>({2, 3}, kX);
    const Error error = run.run({EValue(input.tensor())});
    if (format == 0) {
      ASSERT_EQ(error, Error::Ok);
      EXPECT_EQ(values_of<float>(run.output(0)), kX);
    } else {
      EXPECT_EQ(error, Error::InvalidArgument);
    }
  }
}

// float[]? (and an absent SymInt[]?): upsample_nearest2d.vec_out(x,
// output_size=None, scale_factors=[2.0, 2.0]).
TEST_F(JsonPrograms, FloatList) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {1, 1, 2, 3}), out = p.tensor("FLOAT", {1, 1, 4, 6});
  p.call("aten::upsample_nearest2d", "vec_out", {x, p.none(), p.double_list({2.0, 2.0}), out, out});
  std::vector<float> expected;
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 6; ++col)
      expected.push_back(kX[(row / 2) * 3 + col / 2]);
  EXPECT_EQ(run_on(p, x, {1, 1, 2, 3}, kX, out), expected);
}

// Tensor?[] with a hole: index.Tensor_out(x, [None, idx]) is x[:, idx].
TEST_F(JsonPrograms, OptionalTensorListWithAHole) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), idx = p.tensor("LONG", {2});
  const int out = p.tensor("FLOAT", {2, 2});
  p.call("aten::index", "Tensor_out", {x, p.optional_tensor_list({-1, idx}), out, out});
  ProgramRun& run = load(p, {x, idx}, {out});
  ASSERT_EQ(run.load_error, Error::Ok);
  auto input = OwnedTensor::make<float>({2, 3}, kX);
  auto indices = OwnedTensor::make<int64_t>({2}, {2, 0});
  ASSERT_EQ(run.run({EValue(input.tensor()), EValue(indices.tensor())}), Error::Ok);
  EXPECT_EQ(values_of<float>(run.output(0)), (std::vector<float>{kX[2], kX[0], kX[5], kX[3]}));
}

// A tuple return: max.dim_max(x, dim=1, keepdim=False) -> (max, indices).
TEST_F(JsonPrograms, TupleReturn) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3});
  const int max = p.tensor("FLOAT", {2}), index = p.tensor("LONG", {2});
  p.call("aten::max", "dim_max", {x, p.integer(1), p.boolean(false), max, index, max});
  ProgramRun& run = load(p, {x}, {max, index});
  ASSERT_EQ(run.load_error, Error::Ok);
  const std::vector<float> data = {4.0f, -1.0f, 7.5f, 0.25f, 9.0f, -3.0f};
  auto input = OwnedTensor::make<float>({2, 3}, data);
  ASSERT_EQ(run.run({EValue(input.tensor())}), Error::Ok);
  EXPECT_EQ(values_of<float>(run.output(0)), (std::vector<float>{7.5f, 9.0f}));
  EXPECT_EQ(values_of<int64_t>(run.output(1)), (std::vector<int64_t>{2, 1}));
}

// `-> ()` with a Tensor[] out: split_copy.Tensor_out(x, 2, dim=1, out=[a, b]).
TEST_F(JsonPrograms, ListOutReturningNothing) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3});
  const int a = p.tensor("FLOAT", {2, 2}), b = p.tensor("FLOAT", {2, 1});
  p.call("aten::split_copy", "Tensor_out",
         {x, p.integer(2), p.integer(1), p.tensor_list({a, b}), p.none()});
  ProgramRun& run = load(p, {x}, {a, b});
  ASSERT_EQ(run.load_error, Error::Ok);
  auto input = OwnedTensor::make<float>({2, 3}, kX);
  ASSERT_EQ(run.run({EValue(input.tensor())}), Error::Ok);
  EXPECT_EQ(values_of<float>(run.output(0)), (std::vector<float>{kX[0], kX[1], kX[3], kX[4]}));
  EXPECT_EQ(values_of<float>(run.output(1)), (std::vector<float>{kX[2], kX[5]}));
}

} // namespace
