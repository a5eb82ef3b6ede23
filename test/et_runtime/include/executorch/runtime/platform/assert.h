// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// ET_CHECK / ET_CHECK_MSG log at Fatal level and abort the process, like the real runtime.
#pragma once

#include <cstdlib>
#include <executorch/runtime/platform/log.h>

#define ET_CHECK_MSG(cond, fmt, ...)                                                               \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      ET_LOG(Fatal, "Check failed (%s): " fmt, #cond, ##__VA_ARGS__);                              \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)

#define ET_CHECK(cond) ET_CHECK_MSG(cond, "")

#ifdef NDEBUG
#define ET_DCHECK_MSG(cond, fmt, ...) ((void)0)
#define ET_DCHECK(cond) ((void)0)
#else
#define ET_DCHECK_MSG(cond, fmt, ...) ET_CHECK_MSG(cond, fmt, ##__VA_ARGS__)
#define ET_DCHECK(cond) ET_CHECK(cond)
#endif
