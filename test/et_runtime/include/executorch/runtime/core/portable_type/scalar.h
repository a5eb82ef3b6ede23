// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstdint>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/assert.h>
#include <type_traits>

namespace executorch::runtime::etensor {

// An int64_t, double or bool. Like the real one, to<double>() only accepts a double scalar and
// to<bool>() only a bool scalar; to<int64_t>() accepts int and bool. (No Half/BFloat16 ctors.)
class Scalar {
public:
  Scalar() : Scalar(int64_t(0)) {}
  template <typename T, typename std::enable_if<std::is_integral<T>::value, bool>::type = true>
  /* implicit */ Scalar(T value) : tag_(Tag::Int), int_(static_cast<int64_t>(value)) {}
  /* implicit */ Scalar(bool value) : tag_(Tag::Bool), bool_(value) {}
  /* implicit */ Scalar(double value) : tag_(Tag::Double), double_(value) {}

  // Defined for int64_t, double and bool only.
  template <typename T>
  T to() const;

  bool isIntegral(bool includeBool) const {
    return tag_ == Tag::Int || (includeBool && isBoolean());
  }
  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  bool isBoolean() const { return tag_ == Tag::Bool; }

private:
  Tag tag_;
  union {
    int64_t int_;
    double double_;
    bool bool_;
  };
};

template <>
inline int64_t Scalar::to<int64_t>() const {
  ET_CHECK_MSG(isIntegral(/*includeBool=*/true), "Scalar is not an int nor a Boolean.");
  return isBoolean() ? int64_t(bool_) : int_;
}
template <>
inline double Scalar::to<double>() const {
  ET_CHECK_MSG(isFloatingPoint(), "Scalar is not a Double.");
  return double_;
}
template <>
inline bool Scalar::to<bool>() const {
  ET_CHECK_MSG(isBoolean(), "Scalar is not a Boolean.");
  return bool_;
}

} // namespace executorch::runtime::etensor

namespace torch::executor {
using ::executorch::runtime::etensor::Scalar;
} // namespace torch::executor
