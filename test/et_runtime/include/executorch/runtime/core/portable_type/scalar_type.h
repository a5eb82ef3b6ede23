// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// Only the enumerator values are provided: the C++ types behind Half, complex, qint etc. are not.
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch::runtime::etensor {

enum class ScalarType : int8_t {
  Byte,            // 0, uint8_t
  Char,            // 1, int8_t
  Short,           // 2, int16_t
  Int,             // 3, int32_t
  Long,            // 4, int64_t
  Half,            // 5
  Float,           // 6, float
  Double,          // 7, double
  ComplexHalf,     // 8
  ComplexFloat,    // 9
  ComplexDouble,   // 10
  Bool,            // 11, bool
  QInt8,           // 12
  QUInt8,          // 13
  QInt32,          // 14
  BFloat16,        // 15
  QUInt4x2,        // 16
  QUInt2x4,        // 17
  Bits1x8,         // 18
  Bits2x4,         // 19
  Bits4x2,         // 20
  Bits8,           // 21
  Bits16,          // 22
  Float8_e5m2,     // 23
  Float8_e4m3fn,   // 24
  Float8_e5m2fnuz, // 25
  Float8_e4m3fnuz, // 26
  UInt16,          // 27
  UInt32,          // 28
  UInt64,          // 29
  Undefined,
  NumOptions,
};

} // namespace executorch::runtime::etensor

namespace torch::executor {
using ::executorch::runtime::etensor::ScalarType;
} // namespace torch::executor

namespace et_stand_in::detail {

// Element size in bytes, 0 for Undefined/NumOptions (stand-in helper, not a real API).
constexpr size_t element_size(executorch::runtime::etensor::ScalarType t) {
  // Indexed by ScalarType value, Byte .. UInt64.
  constexpr uint8_t kSizes[] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
                                2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1,  1, 2, 4, 8};
  const auto i = static_cast<size_t>(t);
  return i < sizeof(kSizes) ? kSizes[i] : 0;
}

} // namespace et_stand_in::detail
