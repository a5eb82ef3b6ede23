// The end-to-end tests' tensor helper for ExecuTorch's real runtime: the part
// of the stand-in's et_stand_in/tensor_maker.h API the tests use (OwnedTensor:
// make, tensor, values), so they compile unchanged against either runtime.
// Not an ExecuTorch API: a contiguous tensor owning its sizes, dim order,
// strides and data, viewed through ExecuTorch's own TensorImpl.
#pragma once

#include <cstdint>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/platform/assert.h>
#include <memory>
#include <vector>

namespace et_stand_in {

// Move-only: the Tensor points to a heap TensorImpl that points into heap
// buffers, all of which a move keeps in place.
class OwnedTensor {
public:
  // Elements are given in row-major order; their count must match the sizes.
  template <typename T>
  static OwnedTensor make(std::vector<int32_t> sizes, const std::vector<T>& values) {
    OwnedTensor t(executorch::runtime::CppTypeToScalarType<T>::value, std::move(sizes));
    ET_CHECK_MSG(size_t(t.tensor_.numel()) == values.size(), "%zu values for %zu elements",
                 values.size(), size_t(t.tensor_.numel()));
    T* data = t.tensor_.mutable_data_ptr<T>();
    for (size_t i = 0; i < values.size(); ++i)
      data[i] = values[i];
    return t;
  }
  // A tensor of the given dtype and sizes, zero-filled.
  OwnedTensor(executorch::aten::ScalarType type, std::vector<int32_t> sizes)
      : sizes_(std::move(sizes)), dim_order_(sizes_.size()), strides_(sizes_.size()) {
    int32_t stride = 1;
    for (size_t i = sizes_.size(); i-- > 0;) {
      dim_order_[i] = static_cast<uint8_t>(i);
      strides_[i] = stride;
      stride *= sizes_[i];
    }
    impl_ = std::make_unique<executorch::runtime::etensor::TensorImpl>(
        type, ssize_t(sizes_.size()), sizes_.data(), nullptr, dim_order_.data(), strides_.data());
    bytes_.resize(impl_->nbytes());
    impl_->set_data(bytes_.data());
    tensor_ = executorch::aten::Tensor(impl_.get());
  }
  OwnedTensor(OwnedTensor&&) = default;
  OwnedTensor& operator=(OwnedTensor&&) = default;

  executorch::aten::Tensor& tensor() { return tensor_; }
  const executorch::aten::Tensor& tensor() const { return tensor_; }

  // The elements, which must be of type T.
  template <typename T>
  std::vector<T> values() const {
    ET_CHECK_MSG(tensor_.scalar_type() == executorch::runtime::CppTypeToScalarType<T>::value,
                 "wrong element type");
    const T* data = tensor_.const_data_ptr<T>();
    return std::vector<T>(data, data + tensor_.numel());
  }

private:
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<unsigned char> bytes_;
  std::unique_ptr<executorch::runtime::etensor::TensorImpl> impl_;
  executorch::aten::Tensor tensor_{nullptr};
};

inline OwnedTensor make_float_tensor(std::vector<int32_t> sizes, const std::vector<float>& values) {
  return OwnedTensor::make<float>(std::move(sizes), values);
}

} // namespace et_stand_in
