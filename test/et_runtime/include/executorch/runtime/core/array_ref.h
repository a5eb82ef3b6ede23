// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <executorch/runtime/platform/assert.h>

namespace executorch::runtime {

// Non-owning read-only view of an array. Like the real one there is deliberately no
// std::initializer_list or std::vector constructor.
template <typename T>
class ArrayRef final {
public:
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;
  using value_type = T;

  /* implicit */ constexpr ArrayRef() : data_(nullptr), length_(0) {}
  /* implicit */ constexpr ArrayRef(const T& element) : data_(&element), length_(1) {}
  ArrayRef(const T* data, size_t length) : data_(data), length_(length) {}
  ArrayRef(const T* begin, const T* end) : data_(begin), length_(size_t(end - begin)) {}
  template <size_t N>
  /* implicit */ constexpr ArrayRef(const std::array<T, N>& array)
      : data_(array.data()), length_(N) {}
  template <size_t N>
  /* implicit */ constexpr ArrayRef(const T (&array)[N]) : data_(array), length_(N) {}

  constexpr iterator begin() const { return data_; }
  constexpr iterator end() const { return data_ + length_; }
  constexpr const_iterator cbegin() const { return data_; }
  constexpr const_iterator cend() const { return data_ + length_; }
  constexpr bool empty() const { return length_ == 0; }
  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return length_; }
  constexpr const T& operator[](size_t index) const { return data_[index]; }

  const T& front() const {
    ET_CHECK(!empty());
    return data_[0];
  }
  const T& back() const {
    ET_CHECK(!empty());
    return data_[length_ - 1];
  }
  const T& at(size_t index) const {
    ET_CHECK(index < length_);
    return data_[index];
  }
  ArrayRef<T> slice(size_t start, size_t count) const {
    ET_CHECK(start <= length_ && count <= length_ - start);
    return ArrayRef<T>(data_ + start, count);
  }
  ArrayRef<T> slice(size_t start) const { return slice(start, length_ - start); }

  bool equals(ArrayRef other) const {
    if (length_ != other.length_) {
      return false;
    }
    for (size_t i = 0; i < length_; ++i) {
      if (!(data_[i] == other.data_[i])) {
        return false;
      }
    }
    return true;
  }

private:
  const T* data_;
  size_type length_;
};

template <typename T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <typename T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}

template <typename T>
ArrayRef<T> makeArrayRef(const T* data, size_t length) {
  return ArrayRef<T>(data, length);
}
template <typename T, size_t N>
ArrayRef<T> makeArrayRef(const T (&array)[N]) {
  return ArrayRef<T>(array);
}

using IntArrayRef = ArrayRef<int64_t>;

} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::IntArrayRef;
using ::executorch::runtime::makeArrayRef;
} // namespace torch::executor
