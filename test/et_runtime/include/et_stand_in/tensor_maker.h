// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// Test helper, not an ExecuTorch API: tensors that own their sizes and data.
#pragma once

#include <cstdint>
#include <cstring>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/platform/assert.h>
#include <type_traits>
#include <vector>

namespace et_stand_in {

// The ScalarType of a C++ element type (only the plain ones).
template <typename T>
constexpr executorch::aten::ScalarType scalar_type_of() {
  using S = executorch::aten::ScalarType;
  if constexpr (std::is_same_v<T, uint8_t>) {
    return S::Byte;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return S::Char;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return S::Short;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return S::Int;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return S::Long;
  } else if constexpr (std::is_same_v<T, float>) {
    return S::Float;
  } else if constexpr (std::is_same_v<T, double>) {
    return S::Double;
  } else {
    static_assert(std::is_same_v<T, bool>, "unsupported element type");
    return S::Bool;
  }
}

// A contiguous tensor owning its sizes and data, plus a Tensor view of them. Move-only: the view
// points into the heap buffers, which a move keeps.
class OwnedTensor {
public:
  // Elements are given in row-major order; their count must match the sizes.
  template <typename T>
  static OwnedTensor make(std::vector<int32_t> sizes, const std::vector<T>& values) {
    OwnedTensor t(scalar_type_of<T>(), std::move(sizes));
    ET_CHECK_MSG(t.tensor_.numel() == ssize_t(values.size()), "%zu values for %zd elements",
                 values.size(), t.tensor_.numel());
    for (size_t i = 0; i < values.size(); ++i) {
      const T value = values[i];
      std::memcpy(t.bytes_.data() + i * sizeof(T), &value, sizeof(T));
    }
    return t;
  }
  // A tensor of the given dtype and sizes, zero-filled.
  OwnedTensor(executorch::aten::ScalarType type, std::vector<int32_t> sizes)
      : sizes_(std::move(sizes)), tensor_(type, ssize_t(sizes_.size()), sizes_.data()) {
    bytes_.resize(tensor_.nbytes());
    tensor_ = executorch::aten::Tensor(type, ssize_t(sizes_.size()), sizes_.data(), bytes_.data());
  }
  OwnedTensor(OwnedTensor&&) = default;
  OwnedTensor& operator=(OwnedTensor&&) = default;
  OwnedTensor(const OwnedTensor&) = delete;
  OwnedTensor& operator=(const OwnedTensor&) = delete;

  executorch::aten::Tensor& tensor() { return tensor_; }
  const executorch::aten::Tensor& tensor() const { return tensor_; }

  // The elements, which must be of type T.
  template <typename T>
  std::vector<T> values() const {
    ET_CHECK_MSG(tensor_.scalar_type() == scalar_type_of<T>(), "wrong element type");
    std::vector<T> out(size_t(tensor_.numel()));
    for (size_t i = 0; i < out.size(); ++i) {
      T value;
      std::memcpy(&value, bytes_.data() + i * sizeof(T), sizeof(T));
      out[i] = value;
    }
    return out;
  }

private:
  std::vector<int32_t> sizes_;
  std::vector<unsigned char> bytes_;
  executorch::aten::Tensor tensor_;
};

inline OwnedTensor make_float_tensor(std::vector<int32_t> sizes, const std::vector<float>& values) {
  return OwnedTensor::make<float>(std::move(sizes), values);
}
inline OwnedTensor make_long_tensor(std::vector<int32_t> sizes,
                                    const std::vector<int64_t>& values) {
  return OwnedTensor::make<int64_t>(std::move(sizes), values);
}

} // namespace et_stand_in
