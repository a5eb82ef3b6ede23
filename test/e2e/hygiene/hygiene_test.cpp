// The kernels of hygiene/kernels.cpp, generated with named registration,
// compiled with -Wall -Wextra -Werror against the stand-in runtime and
// called through its registry: every one registers under the operator name
// its IR holds and receives its arguments in the right places. The same
// kernels generated with --exception-boundary (library 'hygiene_guarded')
// are called through that library's kernel table.
#include "Functions.h"
#include "RegisterKernels.h"
#include "boxed_call.h"
#include "hygiene_guarded/RegisterKernels.h"

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

namespace {

using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

class Registered : public ::testing::Environment {
public:
  void SetUp() override { ASSERT_EQ(torch::executor::register_hygiene_kernels(), Error::Ok); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

// Calls `name` with `values` (the last is the return slot); the int result.
int64_t call(const char* name, std::vector<EValue> values) {
  auto op = executorch::runtime::get_op_function_from_registry(name);
  EXPECT_TRUE(op.ok()) << name;
  if (!op.ok())
    return -1;
  std::vector<EValue*> stack;
  for (EValue& v : values)
    stack.push_back(&v);
  KernelRuntimeContext context;
  (*op.get())(context, Span<EValue*>(stack.data(), stack.size()));
  EXPECT_EQ(context.failure_state(), Error::Ok);
  return values.back().toInt();
}

TEST(Hygiene, EveryOperatorOfTheIrIsRegisteredUnderItsName) {
  std::ifstream in(OPSCAN_LIBRARY_IR);
  nlohmann::json ir = nlohmann::json::parse(in);
  ASSERT_EQ(ir["kernels"].size(), 6u);
  for (const auto& kernel : ir["kernels"]) {
    const auto& op = kernel["operator"];
    std::string name = op["namespace"].get<std::string>() + "::" + op["name"].get<std::string>();
    // Appended in two steps: GCC 12 at -O2 wrongly warns (-Wrestrict) on
    // "." + a temporary string.
    if (!op["overload"].get<std::string>().empty()) {
      name += '.';
      name += op["overload"].get<std::string>();
    }
    EXPECT_TRUE(executorch::runtime::registry_has_op_function(name.c_str())) << name;
  }
}

TEST(Hygiene, KernelsAreReachedWhateverTheirLinkageOrNamespace) {
  EXPECT_EQ(call("hygiene::c_linkage", {EValue(int64_t(4)), EValue()}), 5);
  EXPECT_EQ(call("hygiene::versioned", {EValue(int64_t(4)), EValue()}), 6);
  EXPECT_EQ(call("std::thing", {EValue(int64_t(4)), EValue()}), 7);
  KernelRuntimeContext context;
  EXPECT_EQ(torch::executor::std::thing(context, 4), 7);
  EXPECT_EQ(torch::executor::hygiene::versioned(context, 4), 6);
}

TEST(Hygiene, ParametersNamedLikeTheWrappersOwnArriveInPlace) {
  std::vector<EValue> values;
  for (int64_t v : {1, 2, 3, 4, 5, 6})
    values.emplace_back(v);
  values.emplace_back();
  EXPECT_EQ(call("hygiene::shadows", values), 654321);

  std::vector<EValue> handler;
  for (int64_t v : {1, 2, 3, 4, 5})
    handler.emplace_back(v);
  handler.emplace_back();
  EXPECT_EQ(call("hygiene::handler_names", handler), 54321);
}

TEST(Hygiene, TheExceptionBoundaryKeepsClearOfTheParametersNames) {
  const Span<const executorch::runtime::Kernel> guarded =
      torch::executor::get_hygiene_guarded_kernels();
  std::vector<EValue> shadows, handler;
  for (int64_t v : {1, 2, 3, 4, 5, 6})
    shadows.emplace_back(v);
  shadows.emplace_back();
  for (int64_t v : {1, 2, 3, 4, 5})
    handler.emplace_back(v);
  handler.emplace_back();
  for (auto [name, values, expected] : {std::tuple{"hygiene::shadows", &shadows, 654321},
                                        std::tuple{"hygiene::handler_names", &handler, 54321}}) {
    auto op = executorch::runtime::get_op_function_from_registry(name, {}, guarded);
    ASSERT_TRUE(op.ok()) << name;
    EXPECT_EQ(opscan::testing::call_boxed(op.get(), *values), Error::Ok) << name;
    EXPECT_EQ(values->back().toInt(), expected) << name;
  }
}

TEST(Hygiene, DefaultsThatLookLikeCodeStayText) {
  // The defaults are not applied by the runtime: the strings come from the
  // program. The kernel is registered and called like any other.
  executorch::aten::ArrayRef<char> a("ab", 2), b("c", 1), c("", size_t(0));
  std::vector<EValue> values = {EValue(int64_t(1)), EValue(&a), EValue(&b), EValue(&c), EValue()};
  EXPECT_EQ(call("hygiene::text", values), 4);
}

} // namespace
