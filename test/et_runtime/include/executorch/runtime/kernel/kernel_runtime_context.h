// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// The failure state and the event tracer; no temp allocator.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace executorch::ET_RUNTIME_NAMESPACE {

class KernelRuntimeContext {
public:
  explicit KernelRuntimeContext(EventTracer* event_tracer = nullptr)
      : event_tracer_(event_tracer) {}

  void fail(Error error) { failure_state_ = error; }
  [[nodiscard]] Error failure_state() const { return failure_state_; }
  EventTracer* internal_event_tracer() { return event_tracer_; }

private:
  EventTracer* event_tracer_;
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
