// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// Only the kernel check macros of the real header.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/log.h>

// If `cond` is false: log, set `context`'s failure state to Error::`error`, return `retval`.
#define ET_KERNEL_CHECK(context, cond, error, retval)                                              \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      ET_LOG(Error, "Check failed (%s): ", #cond);                                                 \
      context.fail(torch::executor::Error::error);                                                 \
      return retval;                                                                               \
    }                                                                                              \
  } while (false)

#define ET_KERNEL_CHECK_MSG(context, cond, error, retval, message, ...)                            \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      ET_LOG(Error, "Check failed (%s): " message, #cond, ##__VA_ARGS__);                          \
      context.fail(torch::executor::Error::error);                                                 \
      return retval;                                                                               \
    }                                                                                              \
  } while (false)
