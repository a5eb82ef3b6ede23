// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/assert.h>
#include <optional>
#include <utility>

namespace executorch::runtime {

// Either a T or a non-Ok Error. Like the real one it is move-only; a Result built from
// Error::Ok holds Error::Internal instead.
template <typename T>
class Result final {
public:
  typedef T value_type;

  /* implicit */ Result(Error error) : error_(error == Error::Ok ? Error::Internal : error) {}
  /* implicit */ Result(const T& value) : value_(value) {}
  /* implicit */ Result(T&& value) : value_(std::move(value)) {}
  Result(Result&& other) = default;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;

  [[nodiscard]] bool ok() const { return value_.has_value(); }
  [[nodiscard]] Error error() const { return ok() ? Error::Ok : error_; }

  T& get() { return checked(); }
  const T& get() const { return checked(); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return checked(); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &checked(); }

private:
  T& checked() {
    ET_CHECK_MSG(ok(), "Result holds an error");
    return *value_;
  }
  const T& checked() const {
    ET_CHECK_MSG(ok(), "Result holds an error");
    return *value_;
  }

  std::optional<T> value_;
  Error error_ = Error::Ok;
};

} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::Result;
} // namespace torch::executor
