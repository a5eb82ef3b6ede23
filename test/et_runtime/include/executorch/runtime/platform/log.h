// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// ET_LOG prints "[Level] message" to stderr. Messages below ET_MIN_LOG_LEVEL (default Info)
// are dropped, as in the real runtime.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>

#ifndef ET_MIN_LOG_LEVEL
#define ET_MIN_LOG_LEVEL Info
#endif

namespace executorch::runtime {

enum class LogLevel : uint8_t { Debug, Info, Error, Fatal, NumLevels };

namespace internal {

[[gnu::format(printf, 2, 3)]] inline void print_log(LogLevel level, const char* fmt, ...) {
  static const char* const kNames[] = {"Debug", "Info", "Error", "Fatal"};
  std::fprintf(stderr, "[%s] ", level < LogLevel::NumLevels ? kNames[int(level)] : "?");
  va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fputc('\n', stderr);
}

} // namespace internal
} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::LogLevel;
} // namespace torch::executor

#define ET_LOG(level, fmt, ...)                                                                    \
  do {                                                                                             \
    if (::executorch::runtime::LogLevel::level >=                                                  \
        ::executorch::runtime::LogLevel::ET_MIN_LOG_LEVEL) {                                       \
      ::executorch::runtime::internal::print_log(::executorch::runtime::LogLevel::level, fmt,      \
                                                 ##__VA_ARGS__);                                   \
    }                                                                                              \
  } while (0)
