// ExecuTorch kernel keys: "v1/<dtype>;<dim order>|<dtype>;<dim order>|...",
// one entry per tensor argument, then one for a returned tensor, e.g.
// "v1/6;0,1|6;0,1|6;0,1|6;0,1" for add.out as programs call it.
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
// (plain tensor arguments) and `all_tensors` (optional tensors too) entries,
// and up to `returned_tensors` more: the runtime keys every tensor on a
// call's stack, whose last slot programs fill with the returned tensor (an
// out variant's out tensor again), while ExecuTorch's YAML keys have
// entries for the arguments only.
std::optional<KernelKeyError> check_kernel_key(std::string_view key, size_t required_tensors,
                                               size_t all_tensors, size_t returned_tensors = 0);

// The tensors a call of `kernel` passes in its return slot, which the key
// may have an entry for: 1 for a plain Tensor return. A call has one return
// slot (ExecuTorch's generated wrappers check the stack holds the
// arguments and one more), so a tuple's tensors or a list out returned as
// `-> ()` are not a tensor there and have none.
size_t returned_key_tensors(const std::vector<schema::Return>& returns);

} // namespace opscan::executorch
