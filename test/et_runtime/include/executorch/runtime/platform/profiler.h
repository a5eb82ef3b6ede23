// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// EXECUTORCH_SCOPE_PROF(name) profiles the rest of the scope. The stand-in
// keeps the names of the scopes opened, for tests to read.
#pragma once

#include <string>
#include <vector>

namespace executorch::runtime {

inline std::vector<std::string>& profiled_scopes() {
  static std::vector<std::string> names;
  return names;
}

class ExecutorchProfiler {
public:
  explicit ExecutorchProfiler(const char* name) { profiled_scopes().push_back(name); }
};

} // namespace executorch::runtime

#define EXECUTORCH_SCOPE_PROF_JOIN(a, b) a##b
#define EXECUTORCH_SCOPE_PROF_NAME(line) EXECUTORCH_SCOPE_PROF_JOIN(et_profiler_, line)
#define EXECUTORCH_SCOPE_PROF(name)                                                                \
  ::executorch::runtime::ExecutorchProfiler EXECUTORCH_SCOPE_PROF_NAME(__LINE__)(name)
