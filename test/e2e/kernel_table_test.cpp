// The kernel table of a named library (get_<lib>_kernels()) without
// registration: the example library's table is read, an operator resolved
// through it and called on real EValues, and ExecuTorch's registry is left as
// it was; register_<lib>_kernels() then registers that same table.
#include "RegisterKernels.h"
#include "boxed_call.h"

#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace {

using et_stand_in::OwnedTensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::Span;
using opscan::testing::call_boxed;
using opscan::testing::floats;

TEST(KernelTable, HoldsEveryKernelOfTheLibrary) {
  const Span<const Kernel> table = torch::executor::get_examples_kernels();
  std::set<std::string> names;
  for (const Kernel& kernel : table) {
    names.insert(kernel.name_);
    EXPECT_TRUE(kernel.kernel_key_.is_fallback()) << kernel.name_;
    EXPECT_NE(kernel.op_, nullptr) << kernel.name_;
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"aten::add.out", "aten::clamp.out", "aten::mul.out",
                                   "demo::mean.out", "demo::pick", "demo::relu_", "demo::scale.out",
                                   "demo::sum_dims.out", "demo::total.out"}));
  EXPECT_EQ(table.size(), names.size());
}

TEST(KernelTable, ResolvesAndCallsAnOperatorWithoutRegisteringIt) {
  const size_t registered = executorch::runtime::get_registered_kernels().size();
  const Span<const Kernel> table = torch::executor::get_examples_kernels();
  auto op = executorch::runtime::get_op_function_from_registry("aten::add.out", {}, table);
  ASSERT_TRUE(op.ok());

  OwnedTensor a = floats({1, 2, 3}), b = floats({10, 20, 30}), out = floats({0, 0, 0});
  std::vector<EValue> stack = {a.tensor(), b.tensor(), EValue(int64_t(2)), out.tensor(), EValue()};
  EXPECT_EQ(call_boxed(op.get(), stack), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{21, 42, 63}));

  // An operator the library lacks is missing from its table too.
  EXPECT_FALSE(executorch::runtime::get_op_function_from_registry("aten::sub.out", {}, table).ok());
  // Nothing was registered.
  EXPECT_FALSE(executorch::runtime::registry_has_op_function("aten::add.out"));
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), registered);
}

TEST(KernelTable, RegistrationRegistersThatTable) {
  const Span<const Kernel> table = torch::executor::get_examples_kernels();
  const size_t before = executorch::runtime::get_registered_kernels().size();
  ASSERT_EQ(torch::executor::register_examples_kernels(), Error::Ok);
  const Span<const Kernel> registered = executorch::runtime::get_registered_kernels();
  ASSERT_EQ(registered.size(), before + table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    const Kernel& kernel = registered[before + i];
    EXPECT_STREQ(kernel.name_, table[i].name_);
    EXPECT_TRUE(kernel.kernel_key_ == table[i].kernel_key_) << kernel.name_;
    EXPECT_EQ(kernel.op_, table[i].op_) << kernel.name_;
  }
}

} // namespace
