// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// A small subset of the real header: no ET_SWITCH_* macros, no C++ type mapping.
#pragma once

#include <cstddef>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/platform/assert.h>

namespace executorch::runtime {

inline size_t elementSize(::executorch::aten::ScalarType t) {
  const size_t size = et_stand_in::detail::element_size(t);
  ET_CHECK_MSG(size != 0, "Unknown ScalarType %d", int(t));
  return size;
}

inline const char* toString(::executorch::aten::ScalarType t) {
  // clang-format off
  static const char* const kNames[] = {
      "Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "ComplexHalf",
      "ComplexFloat", "ComplexDouble", "Bool", "QInt8", "QUInt8", "QInt32", "BFloat16",
      "QUInt4x2", "QUInt2x4", "Bits1x8", "Bits2x4", "Bits4x2", "Bits8", "Bits16", "Float8_e5m2",
      "Float8_e4m3fn", "Float8_e5m2fnuz", "Float8_e4m3fnuz", "UInt16", "UInt32", "UInt64",
      "Undefined"};
  // clang-format on
  const auto i = static_cast<size_t>(t);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "UNKNOWN_SCALAR";
}

inline constexpr bool isIntegralType(::executorch::aten::ScalarType t, bool includeBool) {
  using S = ::executorch::aten::ScalarType;
  return (includeBool && t == S::Bool) || t == S::Byte || t == S::Char || t == S::Int ||
         t == S::Long || t == S::Short;
}

inline constexpr bool isFloatingType(::executorch::aten::ScalarType t) {
  using S = ::executorch::aten::ScalarType;
  return t == S::Double || t == S::Float || t == S::Half || t == S::BFloat16;
}

} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::elementSize;
using ::executorch::runtime::isFloatingType;
using ::executorch::runtime::isIntegralType;
using ::executorch::runtime::toString;
} // namespace torch::executor
