// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstddef>
#include <cstdint>
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/tensor_shape_dynamism.h>
#include <executorch/runtime/platform/assert.h>
#include <sys/types.h> // ssize_t

namespace executorch::runtime::etensor {

// Number of elements of a tensor with the given sizes.
inline ssize_t compute_numel(const int32_t* sizes, ssize_t dim) {
  ssize_t numel = 1;
  for (ssize_t i = 0; i < dim; ++i) {
    numel *= sizes[i];
  }
  return numel;
}

// A contiguous CPU tensor view. Unlike the real Tensor (a handle to a TensorImpl), the stand-in
// holds the metadata itself, but like it owns nothing: `sizes` and `data` must outlive it.
// The constructor takes the arguments of the real TensorImpl constructor.
// (See et_stand_in/tensor_maker.h for tensors that own their storage.)
class Tensor {
public:
  using SizesType = int32_t;
  using DimOrderType = uint8_t;
  using StridesType = int32_t;

  Tensor() = delete;
  Tensor(ScalarType type, ssize_t dim, SizesType* sizes, void* data = nullptr)
      : type_(type), dim_(dim), sizes_(sizes), data_(data) {
    ET_CHECK_MSG(dim >= 0 && (dim == 0 || sizes != nullptr), "bad tensor shape");
  }

  ScalarType scalar_type() const { return type_; }
  ScalarType dtype() const { return type_; }
  ssize_t element_size() const { return ssize_t(et_stand_in::detail::element_size(type_)); }
  ssize_t dim() const { return dim_; }
  ssize_t numel() const { return compute_numel(sizes_, dim_); }
  size_t nbytes() const { return size_t(numel() * element_size()); }
  ssize_t size(ssize_t dim) const {
    ET_CHECK_MSG(dim >= 0 && dim < dim_, "dimension %zd out of range [0, %zd)", dim, dim_);
    return sizes_[dim];
  }
  const ArrayRef<SizesType> sizes() const { return {sizes_, size_t(dim_)}; }
  TensorShapeDynamism shape_dynamism() const { return TensorShapeDynamism::STATIC; }
  Device device() const { return Device(DeviceType::CPU); }
  DeviceType device_type() const { return DeviceType::CPU; }

  template <typename T>
  const T* const_data_ptr() const {
    return static_cast<const T*>(data_);
  }
  const void* const_data_ptr() const { return data_; }
  template <typename T>
  T* mutable_data_ptr() const {
    return static_cast<T*>(data_);
  }
  void* mutable_data_ptr() const { return data_; }

private:
  ScalarType type_;
  ssize_t dim_;
  SizesType* sizes_;
  void* data_;
};

} // namespace executorch::runtime::etensor

namespace torch::executor {
using ::executorch::runtime::etensor::compute_numel;
using ::executorch::runtime::etensor::Tensor;
} // namespace torch::executor
