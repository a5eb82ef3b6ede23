// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// The event tracer interface a runtime context carries: profiling events
// and logged values. Tests implement it to see what generated wrappers
// report.
#pragma once

#include <cstdint>

namespace executorch::runtime {

struct EValue; // as evalue.h declares it (clang: -Wmismatched-tags)

using ChainID = int32_t;
using DebugHandle = uint32_t;

struct EventTracerEntry {
  int64_t event_id = -1;
  ChainID chain_id = -1;
  DebugHandle debug_handle = 0;
  uint64_t start_time = 0;
};

enum class LoggedEValueType { kIntermediateOutput = 0, kProgramOutput = 1 };

class EventTracer {
public:
  virtual ~EventTracer() = default;
  virtual EventTracerEntry start_profiling(const char* name, ChainID chain_id = -1,
                                           DebugHandle debug_handle = 0) = 0;
  virtual void end_profiling(EventTracerEntry entry) = 0;
  virtual void log_evalue(const EValue& evalue, LoggedEValueType type) = 0;
};

} // namespace executorch::runtime
