// The portable library's registration the tests run with: opscan's
// (register_portable_kernels, generated in named mode), or, in the tests'
// peer builds (OPSCAN_ET_REAL_PEER), the one ExecuTorch's own generator wrote,
// which registers itself from a static initializer.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/kernel/operator_registry.h>

#ifndef OPSCAN_ET_REAL_PEER
#include "RegisterKernels.h"
#endif

namespace et_real {

// Error::Ok once the portable kernels are in ExecuTorch's registry.
inline executorch::runtime::Error register_portable() {
#ifdef OPSCAN_ET_REAL_PEER
  return executorch::runtime::registry_has_op_function("aten::add.out")
             ? executorch::runtime::Error::Ok
             : executorch::runtime::Error::OperatorMissing;
#else
  static const executorch::runtime::Error registered = torch::executor::register_portable_kernels();
  return registered;
#endif
}

} // namespace et_real
