// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch::runtime {

// Non-owning view of a mutable (or, for Span<const T>, read-only) array.
template <typename T>
class Span final {
public:
  using value_type = T;
  using iterator = T*;
  using size_type = size_t;

  /* implicit */ constexpr Span() noexcept : data_(nullptr), length_(0) {}
  Span(T* data, size_t length) : data_(data), length_(length) {}
  Span(T* begin, T* end) : data_(begin), length_(static_cast<size_t>(end - begin)) {}
  template <size_t N>
  /* implicit */ constexpr Span(T (&array)[N]) : data_(array), length_(N) {}
  /* implicit */ constexpr Span(T& element) : data_(&element), length_(1) {}

  iterator begin() const noexcept { return data_; }
  iterator end() const noexcept { return data_ + length_; }
  constexpr bool empty() const noexcept { return length_ == 0; }
  constexpr T* data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return length_; }
  T& operator[](size_t index) const { return data_[index]; }

private:
  T* data_;
  size_type length_;
};

} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::Span;
} // namespace torch::executor
