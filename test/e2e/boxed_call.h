// What the end-to-end tests of generated wrappers share: a float tensor,
// and a boxed call (an OpFunction on an EValue stack, as ExecuTorch's
// executor makes it), of a function or of an operator the registry has.
#pragma once

#include <et_stand_in/tensor_maker.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>
#include <vector>

namespace opscan::testing {

inline et_stand_in::OwnedTensor floats(std::vector<float> values) {
  return et_stand_in::OwnedTensor::make<float>({int32_t(values.size())}, values);
}

// Calls `op` with `values` as its stack (the last is the return slot);
// returns the context's failure state.
inline executorch::runtime::Error call_boxed(executorch::runtime::OpFunction op,
                                             std::vector<executorch::runtime::EValue>& values) {
  std::vector<executorch::runtime::EValue*> stack;
  for (executorch::runtime::EValue& v : values)
    stack.push_back(&v);
  executorch::runtime::KernelRuntimeContext context;
  op(context, executorch::runtime::Span<executorch::runtime::EValue*>(stack.data(), stack.size()));
  return context.failure_state();
}

// Calls operator `name` through the registry, as the executor finds it, with
// `values` as its stack; a test failure (and the lookup's error) when it is
// not registered.
inline executorch::runtime::Error
call_registered(const char* name, std::vector<executorch::runtime::EValue>& values) {
  auto op = executorch::runtime::get_op_function_from_registry(name);
  EXPECT_TRUE(op.ok()) << name << " is not registered";
  if (!op.ok())
    return op.error();
  return call_boxed(*op.get(), values);
}

} // namespace opscan::testing
