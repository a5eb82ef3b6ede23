// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstdint>

namespace executorch::runtime::etensor {

enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1 };

enum class Layout : int8_t { Strided = 0 };

} // namespace executorch::runtime::etensor

namespace torch::executor {
using ::executorch::runtime::etensor::Layout;
using ::executorch::runtime::etensor::MemoryFormat;
} // namespace torch::executor
