// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstdint>

#if defined(__linux__)
#undef None // X11 headers define it.
#endif

namespace executorch::runtime {

// Same enumerators, same order (hence same values) as the real EValue tag. ScalarType,
// MemoryFormat, Layout and Device values are stored as Int.
enum class Tag : uint32_t {
  None,
  Tensor,
  String,
  Double,
  Int,
  Bool,
  ListBool,
  ListDouble,
  ListInt,
  ListTensor,
  ListScalar,
  ListOptionalTensor,
};

} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::Tag;
} // namespace torch::executor
