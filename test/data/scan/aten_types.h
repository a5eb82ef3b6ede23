// Minimal stand-ins for the ATen / c10 types kernels for the torch target
// take, declared in their real namespaces.
#pragma once

#include "../../../include/opscan/annotations.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace c10 {
template <typename T>
class ArrayRef {};
template <typename T>
class OptionalArrayRef {};
template <typename T>
class List {};
template <typename T>
struct complex {
  T re, im;
};
class SymInt {};
class Scalar {};
class DispatchKeySet {};
enum class ScalarType : int8_t { Float = 6 };
using IntArrayRef = ArrayRef<int64_t>;
using SymIntArrayRef = ArrayRef<SymInt>;
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;
} // namespace c10

namespace at {
class Tensor {};
struct Generator {};
using c10::IntArrayRef;
using c10::OptionalIntArrayRef;
using c10::Scalar;
using c10::ScalarType;
using c10::SymInt;
using c10::SymIntArrayRef;
using TensorList = c10::ArrayRef<Tensor>;
} // namespace at
