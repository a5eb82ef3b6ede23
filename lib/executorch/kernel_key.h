// ExecuTorch kernel keys: "v1/<dtype>;<dim order>|<dtype>;<dim order>|...",
// one entry per tensor argument, e.g. "v1/6;0,1|6;0,1|6;0,1".
#pragma once

#include "ir/fields.h"
#include "ir/ir.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace opscan::executorch {

// The annotation field `key = "v1/6;0|..."`: a kernel specialised for its
// tensors' dtypes and dim orders. ExecuTorch's target reads it; its IR key
// is kKernelKeyField.
inline constexpr const char* kKernelKeyField = "kernel_key";
const ir::Field& kernel_key_field();

struct KernelKeyError {
  size_t offset = 0; // in the key
  std::string message;
};

// Checks the key's format, and that it has between `required_tensors`
// (plain tensor arguments) and `all_tensors` (optional tensors too) entries.
std::optional<KernelKeyError> check_kernel_key(std::string_view key, size_t required_tensors,
                                               size_t all_tensors);

} // namespace opscan::executorch
