// The kernel table of a named library (get_<lib>_kernels()) without
// registration: the example library's table is read, an operator resolved
// through it and called on real EValues, and ExecuTorch's registry is left as
// it was; register_<lib>_kernels() then registers that same table. Library
// 'keyed' (table/kernels.cpp) has a fallback and a keyed kernel of one
// operator: the table resolves each by the tensors' dtype and dim order.
#include "RegisterKernels.h"
#include "boxed_call.h"
#include "keyed/RegisterKernels.h"

#include <gtest/gtest.h>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using et_stand_in::OwnedTensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::Span;
using opscan::testing::call_boxed;
using opscan::testing::floats;

// The type the runtime's own table has (get_registered_kernels()), which
// Program::load_method takes as a method's kernel registry.
static_assert(std::is_same_v<decltype(torch::executor::get_examples_kernels()),
                             decltype(executorch::runtime::get_registered_kernels())>);

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

TEST(KernelTable, ResolvesAKernelByItsKey) {
  const Span<const Kernel> table = torch::executor::get_keyed_kernels();
  ASSERT_EQ(table.size(), 2u);
  std::set<std::string> keys;
  for (const Kernel& kernel : table) {
    EXPECT_STREQ(kernel.name_, "table::which.out");
    keys.insert(kernel.kernel_key_.is_fallback() ? "(fallback)" : kernel.kernel_key_.data());
  }
  EXPECT_EQ(keys, (std::set<std::string>{"(fallback)", "v1/6;0|6;0"}));

  // Two 1-d float tensors: the keyed kernel (writes 2); two int ones: the
  // fallback (writes 1).
  executorch::aten::DimOrderType order[] = {0};
  using executorch::runtime::TensorMeta;
  for (auto [dtype, expected] : {std::pair{executorch::aten::ScalarType::Float, 2.0f},
                                 std::pair{executorch::aten::ScalarType::Int, 1.0f}}) {
    TensorMeta meta[] = {TensorMeta(dtype, Span<executorch::aten::DimOrderType>(order, 1)),
                         TensorMeta(dtype, Span<executorch::aten::DimOrderType>(order, 1))};
    auto op = executorch::runtime::get_op_function_from_registry(
        "table::which.out", Span<const TensorMeta>(meta, 2), table);
    ASSERT_TRUE(op.ok());
    OwnedTensor a = floats({0, 0}), out = floats({0, 0});
    std::vector<EValue> stack = {a.tensor(), out.tensor(), EValue()};
    EXPECT_EQ(call_boxed(op.get(), stack), Error::Ok);
    EXPECT_EQ(out.values<float>(), (std::vector<float>{expected, expected}));
  }
  EXPECT_FALSE(executorch::runtime::registry_has_op_function("table::which.out"));
}

} // namespace
