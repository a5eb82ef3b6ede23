// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstdint>

namespace executorch::runtime {

enum class TensorShapeDynamism : uint8_t { STATIC = 0, DYNAMIC_BOUND = 1, DYNAMIC_UNBOUND = 2 };

} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::TensorShapeDynamism;
} // namespace torch::executor
