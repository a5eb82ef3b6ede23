// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// No event tracer or temp allocator: only the failure state.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace executorch::ET_RUNTIME_NAMESPACE {

class KernelRuntimeContext {
public:
  KernelRuntimeContext() = default;

  void fail(Error error) { failure_state_ = error; }
  [[nodiscard]] Error failure_state() const { return failure_state_; }

private:
  Error failure_state_ = Error::Ok;
};

} // namespace executorch::ET_RUNTIME_NAMESPACE

namespace torch::executor {
using ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext;
using RuntimeContext = ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext;
} // namespace torch::executor

namespace executorch::aten {
using RuntimeContext = ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext;
} // namespace executorch::aten
