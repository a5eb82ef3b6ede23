// ExecuTorch's optimized library (kernels/optimized: ATen's vectorized code,
// cpublas over a BLAS), migrated by opscan like the portable one and
// registered as ExecuTorch's optimized_native_cpu_ops_lib registers it: the
// optimized kernels for optimized.yaml's operators
// (register_optimized_kernels()), the portable ones for every other operator
// (register_portable_rest_kernels(), the portable library generated without
// optimized.yaml's operators). Programs call optimized operators, with
// broadcasting where the kernels have paths of their own for it, and a
// portable one; each output is compared with what the test computes itself.
// In the peer build (OPSCAN_ET_REAL_PEER) ExecuTorch's generator's
// registrations of both register themselves from static initializers.
#ifndef OPSCAN_ET_REAL_PEER
#include "optimized/RegisterKernels.h"
#include "portable_rest/RegisterKernels.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <et_real/program_json.h>
#include <et_real/program_run.h>
#include <et_real/written_programs.h>
#include <et_stand_in/tensor_maker.h>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace {

using et_real::ProgramJson;
using et_real::ProgramRun;
using et_stand_in::OwnedTensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;

class OptimizedPrograms : public et_real::WrittenPrograms {
protected:
  void SetUp() override {
#ifndef OPSCAN_ET_REAL_PEER
    // Both in one registry: an operator in both libraries would fail the
    // second registration.
    static const Error optimized = torch::executor::register_optimized_kernels();
    static const Error rest = torch::executor::register_portable_rest_kernels();
    ASSERT_EQ(optimized, Error::Ok);
    ASSERT_EQ(rest, Error::Ok);
#endif
  }

  // Each element within `tolerance` of the expected one, relative to it when
  // it is above 1.
  static void expect_near(const std::vector<float>& got, const std::vector<double>& expected,
                          double tolerance) {
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], expected[i], tolerance * std::max(1.0, std::abs(expected[i])))
          << "element " << i;
  }
};

#ifndef OPSCAN_ET_REAL_PEER
std::set<std::string> names_of(executorch::runtime::Span<const executorch::runtime::Kernel> table) {
  std::set<std::string> names;
  for (const auto& kernel : table)
    names.insert(kernel.name_);
  return names;
}

// The operators of the checkout's optimized.yaml (its `- op: name` lines).
std::set<std::string> optimized_yaml_operators() {
  std::ifstream yaml(OPSCAN_EXECUTORCH_SOURCE_DIR "/kernels/optimized/optimized.yaml");
  std::set<std::string> names;
  for (std::string line; std::getline(yaml, line);)
    if (line.rfind("- op: ", 0) == 0)
      names.insert("aten::" + line.substr(6));
  return names;
}

// optimized.yaml's operators but the two FFT ones (their sources are left
// out: pocketfft is not here) come from the optimized library, and the
// portable library's registration has none of optimized.yaml's operators.
TEST_F(OptimizedPrograms, OptimizedKernelsWinForTheirOperators) {
  const std::set<std::string> optimized = names_of(torch::executor::get_optimized_kernels());
  const std::set<std::string> rest = names_of(torch::executor::get_portable_rest_kernels());
  std::set<std::string> expected = optimized_yaml_operators();
  ASSERT_FALSE(expected.empty());
  for (const std::string& name : expected)
    EXPECT_EQ(rest.count(name), 0u) << name;
  EXPECT_EQ(expected.erase("aten::_fft_r2c.out") + expected.erase("aten::_fft_c2r.out"), 2u);
  EXPECT_EQ(optimized, expected);
  EXPECT_EQ(rest.count("aten::relu.out"), 1u);
}
#endif

// add.out(a, b, alpha=2) with b a row broadcast over a's rows, mul.out by a
// column c broadcast over the columns, sub.out(m, a, alpha=0.5) of the same
// shape, div.out by a scalar-shaped d, then add.Scalar_out and
// mul.Scalar_out. Every value is a small multiple of 1/8: exact in float.
TEST_F(OptimizedPrograms, BroadcastingArithmetic) {
  ProgramJson p;
  const int a = p.tensor("FLOAT", {2, 3}), b = p.tensor("FLOAT", {3});
  const int c = p.tensor("FLOAT", {2, 1}), d = p.tensor("FLOAT", {1});
  const int s = p.tensor("FLOAT", {2, 3}), m = p.tensor("FLOAT", {2, 3});
  const int r = p.tensor("FLOAT", {2, 3}), q = p.tensor("FLOAT", {2, 3});
  const int t = p.tensor("FLOAT", {2, 3}), out = p.tensor("FLOAT", {2, 3});
  p.call("aten::add", "out", {a, b, p.integer(2), s, s});
  p.call("aten::mul", "out", {s, c, m, m});
  p.call("aten::sub", "out", {m, a, p.real(0.5), r, r});
  p.call("aten::div", "out", {r, d, q, q});
  p.call("aten::add", "Scalar_out", {q, p.integer(3), p.real(0.25), t, t});
  p.call("aten::mul", "Scalar_out", {t, p.real(-2.0), out, out});
  const std::vector<float> av = {-2.5f, -0.75f, 0.0f, 0.5f, 1.25f, 3.0f};
  const std::vector<float> bv = {1.0f, -0.5f, 2.0f}, cv = {4.0f, -0.5f}, dv = {2.0f};
  ProgramRun& run =
      run_program(p, {{a, {2, 3}, av}, {b, {3}, bv}, {c, {2, 1}, cv}, {d, {1}, dv}}, {s, m, out});
  ASSERT_FALSE(HasFailure()); // loaded and ran
  std::vector<float> expected_s, expected_m, expected_out;
  for (size_t i = 0; i < av.size(); ++i) {
    const float sum = av[i] + 2 * bv[i % 3];
    const float product = sum * cv[i / 3];
    expected_s.push_back(sum);
    expected_m.push_back(product);
    expected_out.push_back(((product - 0.5f * av[i]) / dv[0] + 0.25f * 3) * -2.0f);
  }
  EXPECT_EQ(values_of<float>(run.output(0)), expected_s);
  EXPECT_EQ(values_of<float>(run.output(1)), expected_m);
  EXPECT_EQ(values_of<float>(run.output(2)), expected_out);
}

// Rows longer than ATen's Vectorized<float> (and not a multiple of its
// width), so that the kernels' vector loops and their tails both run:
// add.out with a broadcast row, div.Scalar_out, le.Tensor_out,
// sub.Scalar_out and _log_softmax.out over the rows.
TEST_F(OptimizedPrograms, RowsLongerThanAVector) {
  const int rows = 3, cols = 37;
  ProgramJson p;
  const int x = p.tensor("FLOAT", {rows, cols}), y = p.tensor("FLOAT", {cols});
  const int s = p.tensor("FLOAT", {rows, cols}), q = p.tensor("FLOAT", {rows, cols});
  const int le = p.tensor("BOOL", {rows, cols}), d = p.tensor("FLOAT", {rows, cols});
  const int ls = p.tensor("FLOAT", {rows, cols});
  p.call("aten::add", "out", {x, y, p.integer(1), s, s});
  p.call("aten::div", "Scalar_out", {s, p.real(4.0), q, q});
  p.call("aten::le", "Tensor_out", {q, x, le, le});
  p.call("aten::sub", "Scalar_out", {x, p.integer(2), p.real(0.5), d, d});
  p.call("aten::_log_softmax", "out", {x, p.integer(1), p.boolean(false), ls, ls});
  std::vector<float> xv, yv;
  for (int i = 0; i < rows * cols; ++i)
    xv.push_back(static_cast<float>(i % 17 - 8) / 8);
  for (int j = 0; j < cols; ++j)
    yv.push_back(static_cast<float>(j % 5 - 2) / 4);
  ProgramRun& run = run_program(p, {{x, {rows, cols}, xv}, {y, {cols}, yv}}, {q, le, d, ls});
  ASSERT_FALSE(HasFailure()); // loaded and ran
  std::vector<float> expected_q, expected_d;
  std::vector<bool> expected_le;
  std::vector<double> expected_ls;
  for (int i = 0; i < rows * cols; ++i) {
    const float quarter = (xv[i] + yv[i % cols]) / 4;
    expected_q.push_back(quarter);
    expected_le.push_back(quarter <= xv[i]);
    expected_d.push_back(xv[i] - 0.5f * 2);
    double sum = 0;
    for (int k = i / cols * cols; k < (i / cols + 1) * cols; ++k)
      sum += std::exp(static_cast<double>(xv[k]));
    expected_ls.push_back(xv[i] - std::log(sum));
  }
  EXPECT_EQ(values_of<float>(run.output(0)), expected_q);
  EXPECT_EQ(values_of<bool>(run.output(1)), expected_le);
  EXPECT_EQ(values_of<float>(run.output(2)), expected_d);
  expect_near(values_of<float>(run.output(3)), expected_ls, 1e-5);
}

// Integer tensors, which the kernels take through other paths than float:
// add.out(a, b, alpha=3) with b a broadcast row, then mul.out by a.
TEST_F(OptimizedPrograms, IntegerTensors) {
  ProgramJson p;
  const int a = p.tensor("LONG", {2, 5}), b = p.tensor("LONG", {5});
  const int s = p.tensor("LONG", {2, 5}), out = p.tensor("LONG", {2, 5});
  p.call("aten::add", "out", {a, b, p.integer(3), s, s});
  p.call("aten::mul", "out", {s, a, out, out});
  ProgramRun& run = load(p, {a, b}, {out});
  ASSERT_EQ(run.load_error, Error::Ok);
  const std::vector<int64_t> av = {-7, -2, 0, 3, 11, 5, 8, -1, 4, 100}, bv = {1, -4, 2, 0, 6};
  auto at = OwnedTensor::make<int64_t>({2, 5}, av);
  auto bt = OwnedTensor::make<int64_t>({5}, bv);
  ASSERT_EQ(run.run({EValue(at.tensor()), EValue(bt.tensor())}), Error::Ok);
  std::vector<int64_t> expected;
  for (size_t i = 0; i < av.size(); ++i)
    expected.push_back((av[i] + 3 * bv[i % 5]) * av[i]);
  EXPECT_EQ(values_of<int64_t>(run.output(0)), expected);
}

// mm.out (cpublas's gemm, the BLAS's sgemm_), bmm.out and linear.out with a
// bias; small integers, so the sums are exact whatever their order.
TEST_F(OptimizedPrograms, MatrixProducts) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), w = p.tensor("FLOAT", {3, 4});
  const int bx = p.tensor("FLOAT", {2, 2, 3}), by = p.tensor("FLOAT", {2, 3, 2});
  const int lw = p.tensor("FLOAT", {4, 3}), bias = p.tensor("FLOAT", {4});
  const int mm = p.tensor("FLOAT", {2, 4}), bmm = p.tensor("FLOAT", {2, 2, 2});
  const int linear = p.tensor("FLOAT", {2, 4});
  p.call("aten::mm", "out", {x, w, mm, mm});
  p.call("aten::bmm", "out", {bx, by, bmm, bmm});
  p.call("aten::linear", "out", {x, lw, bias, linear, linear});
  auto iota = [](size_t n, float first) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
      v[i] = first + static_cast<float>(i);
    return v;
  };
  const std::vector<float> xv = iota(6, -2), wv = iota(12, -5), bxv = iota(12, -6),
                           byv = iota(12, 1), lwv = iota(12, -4), biasv = {0.5f, -1, 2, 0};
  ProgramRun& run = run_program(p,
                                {{x, {2, 3}, xv},
                                 {w, {3, 4}, wv},
                                 {bx, {2, 2, 3}, bxv},
                                 {by, {2, 3, 2}, byv},
                                 {lw, {4, 3}, lwv},
                                 {bias, {4}, biasv}},
                                {mm, bmm, linear});
  ASSERT_FALSE(HasFailure()); // loaded and ran
  std::vector<float> expected_mm, expected_bmm, expected_linear;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      float sum = 0, lin = biasv[j];
      for (int k = 0; k < 3; ++k) {
        sum += xv[i * 3 + k] * wv[k * 4 + j];
        lin += xv[i * 3 + k] * lwv[j * 3 + k];
      }
      expected_mm.push_back(sum);
      expected_linear.push_back(lin);
    }
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        float sum = 0;
        for (int k = 0; k < 3; ++k)
          sum += bxv[b * 6 + i * 3 + k] * byv[b * 6 + k * 2 + j];
        expected_bmm.push_back(sum);
      }
  EXPECT_EQ(values_of<float>(run.output(0)), expected_mm);
  EXPECT_EQ(values_of<float>(run.output(1)), expected_bmm);
  EXPECT_EQ(values_of<float>(run.output(2)), expected_linear);
}

// gelu.out (exact and tanh), exp.out, elu.out(alpha=1.5, scale=1,
// input_scale=2) and _log_softmax.out over dim 1, each from the same x.
TEST_F(OptimizedPrograms, Activations) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 4});
  const int gelu = p.tensor("FLOAT", {2, 4}), gelu_tanh = p.tensor("FLOAT", {2, 4});
  const int exp = p.tensor("FLOAT", {2, 4}), elu = p.tensor("FLOAT", {2, 4});
  const int log_softmax = p.tensor("FLOAT", {2, 4});
  p.call("aten::gelu", "out", {x, p.string("none"), gelu, gelu});
  p.call("aten::gelu", "out", {x, p.string("tanh"), gelu_tanh, gelu_tanh});
  p.call("aten::exp", "out", {x, exp, exp});
  p.call("aten::elu", "out", {x, p.real(1.5), p.integer(1), p.integer(2), elu, elu});
  p.call("aten::_log_softmax", "out",
         {x, p.integer(1), p.boolean(false), log_softmax, log_softmax});
  const std::vector<float> xv = {-3.0f, -1.25f, -0.5f, 0.0f, 0.25f, 0.75f, 1.5f, 4.0f};
  ProgramRun& run = run_program(p, {{x, {2, 4}, xv}}, {gelu, gelu_tanh, exp, elu, log_softmax});
  ASSERT_FALSE(HasFailure()); // loaded and ran
  std::vector<double> expected_gelu, expected_tanh, expected_exp, expected_elu, expected_ls;
  for (size_t i = 0; i < xv.size(); ++i) {
    const double v = xv[i];
    expected_gelu.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    expected_tanh.push_back(0.5 * v *
                            (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    expected_exp.push_back(std::exp(v));
    expected_elu.push_back(v > 0 ? v : 1.5 * (std::exp(2 * v) - 1));
    double sum = 0;
    for (size_t k = i / 4 * 4; k < i / 4 * 4 + 4; ++k)
      sum += std::exp(static_cast<double>(xv[k]));
    expected_ls.push_back(v - std::log(sum));
  }
  expect_near(values_of<float>(run.output(0)), expected_gelu, 1e-5);
  expect_near(values_of<float>(run.output(1)), expected_tanh, 1e-5);
  expect_near(values_of<float>(run.output(2)), expected_exp, 1e-6);
  expect_near(values_of<float>(run.output(3)), expected_elu, 1e-5);
  expect_near(values_of<float>(run.output(4)), expected_ls, 1e-5);
}

// native_layer_norm.out over the last dim, with weight and bias: a tuple of
// three outs (normalized, mean, rstd).
TEST_F(OptimizedPrograms, LayerNorm) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 4}), weight = p.tensor("FLOAT", {4});
  const int bias = p.tensor("FLOAT", {4});
  const int out = p.tensor("FLOAT", {2, 4}), mean = p.tensor("FLOAT", {2, 1});
  const int rstd = p.tensor("FLOAT", {2, 1});
  const double eps = 1e-5;
  p.call("aten::native_layer_norm", "out",
         {x, p.int_list({4}), weight, bias, p.real(eps), out, mean, rstd, out});
  const std::vector<float> xv = {1.0f, 2.0f, 4.0f, 9.0f, -3.0f, 0.5f, 0.5f, 6.0f};
  const std::vector<float> wv = {1.0f, 0.5f, -2.0f, 3.0f}, bv = {0.0f, 1.0f, -1.0f, 0.25f};
  ProgramRun& run =
      run_program(p, {{x, {2, 4}, xv}, {weight, {4}, wv}, {bias, {4}, bv}}, {out, mean, rstd});
  ASSERT_FALSE(HasFailure()); // loaded and ran
  std::vector<double> expected_out, expected_mean, expected_rstd;
  for (int row = 0; row < 2; ++row) {
    double m = 0, var = 0;
    for (int k = 0; k < 4; ++k)
      m += xv[row * 4 + k] / 4.0;
    for (int k = 0; k < 4; ++k)
      var += (xv[row * 4 + k] - m) * (xv[row * 4 + k] - m) / 4.0;
    const double r = 1 / std::sqrt(var + eps);
    expected_mean.push_back(m);
    expected_rstd.push_back(r);
    for (int k = 0; k < 4; ++k)
      expected_out.push_back((xv[row * 4 + k] - m) * r * wv[k] + bv[k]);
  }
  expect_near(values_of<float>(run.output(0)), expected_out, 1e-5);
  expect_near(values_of<float>(run.output(1)), expected_mean, 1e-6);
  expect_near(values_of<float>(run.output(2)), expected_rstd, 1e-5);
}

// le.Scalar_out (a bool tensor), where.self_out choosing between x and a
// broadcast y, sum.IntList_out over dim 0, and relu.out, a portable kernel,
// in the same program.
TEST_F(OptimizedPrograms, CompareSelectReduceWithAPortableKernel) {
  ProgramJson p;
  const int x = p.tensor("FLOAT", {2, 3}), y = p.tensor("FLOAT", {3});
  const int le = p.tensor("BOOL", {2, 3}), chosen = p.tensor("FLOAT", {2, 3});
  const int relu = p.tensor("FLOAT", {2, 3}), sum = p.tensor("FLOAT", {3});
  const int float_type = 6; // ScalarType::Float
  p.call("aten::le", "Scalar_out", {x, p.real(0.5), le, le});
  p.call("aten::where", "self_out", {le, x, y, chosen, chosen});
  p.call("aten::relu", "out", {chosen, relu, relu});
  p.call("aten::sum", "IntList_out",
         {relu, p.int_list({0}), p.boolean(false), p.integer(float_type), sum, sum});
  const std::vector<float> xv = {-2.5f, 0.75f, 0.5f, 1.0f, -0.25f, 3.0f}, yv = {-1.0f, 2.0f, 8.0f};
  ProgramRun& run = run_program(p, {{x, {2, 3}, xv}, {y, {3}, yv}}, {le, relu, sum});
  ASSERT_FALSE(HasFailure()); // loaded and ran
  std::vector<bool> expected_le;
  std::vector<float> expected_relu, expected_sum(3, 0.0f);
  for (size_t i = 0; i < xv.size(); ++i) {
    expected_le.push_back(xv[i] <= 0.5f);
    const float value = std::max(xv[i] <= 0.5f ? xv[i] : yv[i % 3], 0.0f);
    expected_relu.push_back(value);
    expected_sum[i % 3] += value;
  }
  EXPECT_EQ(values_of<bool>(run.output(0)), expected_le);
  EXPECT_EQ(values_of<float>(run.output(1)), expected_relu);
  EXPECT_EQ(values_of<float>(run.output(2)), expected_sum);
}

} // namespace
