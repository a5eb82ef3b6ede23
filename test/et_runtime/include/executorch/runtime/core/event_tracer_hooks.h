// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// What kernel wrappers call to report to the context's event tracer, if it
// has one: a profiling scope per operator call, and the values it produced.
#pragma once

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

// In the runtime's namespace of its mode (runtime::aten in ATen mode), as
// the real hooks are.
namespace executorch::ET_RUNTIME_NAMESPACE::internal {

class EventTracerProfileOpScope final {
public:
  EventTracerProfileOpScope(EventTracer* tracer, const char* name) : tracer_(tracer) {
    if (tracer_ != nullptr)
      entry_ = tracer_->start_profiling(name);
  }
  ~EventTracerProfileOpScope() {
    if (tracer_ != nullptr)
      tracer_->end_profiling(entry_);
  }
  EventTracerProfileOpScope(const EventTracerProfileOpScope&) = delete;
  EventTracerProfileOpScope& operator=(const EventTracerProfileOpScope&) = delete;

private:
  EventTracer* tracer_;
  EventTracerEntry entry_;
};

inline void event_tracer_log_evalue(EventTracer* tracer, EValue& evalue) {
  if (tracer != nullptr)
    tracer->log_evalue(evalue, LoggedEValueType::kIntermediateOutput);
}

} // namespace executorch::ET_RUNTIME_NAMESPACE::internal
