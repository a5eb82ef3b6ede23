// The migrated portable library's kernel table (get_portable_kernels()) as a
// method-scoped registry: Program::load_method(..., kernel_registry) runs a
// program on ExecuTorch's executor without register_portable_kernels()
// having been called, and the global registry stays without those kernels.
// register_portable_kernels() then registers the same table: 209 operators.
#include "RegisterKernels.h"

#include <cmath>
#include <et_real/program_json.h>
#include <et_real/program_run.h>
#include <et_real/written_programs.h>
#include <et_stand_in/tensor_maker.h>
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
using executorch::runtime::Kernel;
using executorch::runtime::Span;

using MethodScopedKernels = et_real::WrittenPrograms;

std::set<std::string> names_of(Span<const Kernel> kernels) {
  std::set<std::string> names;
  for (const Kernel& kernel : kernels)
    names.insert(kernel.name_);
  return names;
}

// add.out(a, b, alpha=2) then acos.out: acos((a + 2b) / 8).
ProgramJson add_then_acos(int& a, int& b, int& out) {
  ProgramJson p;
  a = p.tensor("FLOAT", {4});
  b = p.tensor("FLOAT", {4});
  const int sum = p.tensor("FLOAT", {4});
  const int scaled = p.tensor("FLOAT", {4});
  out = p.tensor("FLOAT", {4});
  p.call("aten::add", "out", {a, b, p.integer(2), sum, sum});
  p.call("aten::div", "Scalar_out", {sum, p.real(8.0), scaled, scaled});
  p.call("aten::acos", "out", {scaled, out, out});
  return p;
}

TEST_F(MethodScopedKernels, RunsAProgramWithoutRegisteringTheLibrary) {
  const Span<const Kernel> table = torch::executor::get_portable_kernels();
  const size_t registered = executorch::runtime::get_registered_kernels().size();
  ASSERT_FALSE(executorch::runtime::registry_has_op_function("aten::add.out"));

  int a = 0, b = 0, out = 0;
  const ProgramJson p = add_then_acos(a, b, out);
  ProgramRun& run = load(p, {a, b}, {out}, table);
  ASSERT_EQ(run.load_error, Error::Ok);
  const std::vector<float> av = {-4.0f, 0.0f, 2.0f, 8.0f}, bv = {-2.0f, 1.0f, 0.5f, -2.0f};
  auto at = OwnedTensor::make<float>({4}, av);
  auto bt = OwnedTensor::make<float>({4}, bv);
  ASSERT_EQ(run.run({EValue(at.tensor()), EValue(bt.tensor())}), Error::Ok);
  const std::vector<float> got = values_of<float>(run.output(0));
  ASSERT_EQ(got.size(), av.size());
  for (size_t i = 0; i < av.size(); ++i)
    EXPECT_NEAR(got[i], std::acos((av[i] + 2.0 * bv[i]) / 8.0), 1e-6) << "element " << i;

  // The global registry is as it was: none of the library's operators.
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), registered);
  for (const char* name : {"aten::add.out", "aten::div.Scalar_out", "aten::acos.out"})
    EXPECT_FALSE(executorch::runtime::registry_has_op_function(name)) << name;
}

TEST_F(MethodScopedKernels, WithoutTheTableTheOperatorsAreMissing) {
  int a = 0, b = 0, out = 0;
  const ProgramJson p = add_then_acos(a, b, out);
  EXPECT_EQ(load(p, {a, b}, {out}).load_error, Error::OperatorMissing);
}

// Registration adds the table's kernels to what was registered (the prim
// ops): the 209 operators ExecuTorch's generator registers from
// functions.yaml, each once.
TEST(PortableRegistration, RegistersTheTable209Operators) {
  const Span<const Kernel> table = torch::executor::get_portable_kernels();
  const std::set<std::string> names = names_of(table);
  EXPECT_EQ(names.size(), 209u);
  EXPECT_EQ(table.size(), names.size());
  const std::set<std::string> before = names_of(executorch::runtime::get_registered_kernels());
  for (const std::string& name : names)
    EXPECT_EQ(before.count(name), 0u) << name;
  ASSERT_EQ(torch::executor::register_portable_kernels(), Error::Ok);
  const std::set<std::string> after = names_of(executorch::runtime::get_registered_kernels());
  EXPECT_EQ(after.size(), before.size() + 209);
  for (const std::string& name : names)
    EXPECT_TRUE(executorch::runtime::registry_has_op_function(name.c_str())) << name;
}

} // namespace
