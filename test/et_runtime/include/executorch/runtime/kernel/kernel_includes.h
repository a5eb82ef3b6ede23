// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// The umbrella header kernels include; same set of headers as the real one.
#pragma once

#include <cstddef>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
