// ExecuTorch's kernel-facing types, for scanning the examples without
// ExecuTorch installed. With ExecuTorch on the include path its real headers
// are used; otherwise minimal types are declared in their real namespaces,
// complete wherever a kernel signature takes one by value. Only signatures
// matter to opscan (it skips function bodies), so these types have no
// behaviour.
#pragma once

#if __has_include(<executorch/runtime/kernel/kernel_includes.h>)
#include <executorch/runtime/kernel/kernel_includes.h>
#else
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace executorch::runtime {

class KernelRuntimeContext;

template <typename T>
class ArrayRef {
public:
  const T* data() const { return data_; }
  size_t size() const { return size_; }

private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

namespace etensor {
enum class ScalarType : int8_t { Byte = 0, Char, Short, Int, Long, Half, Float, Double };
enum class Layout : int8_t { Strided = 0 };
enum class MemoryFormat : int8_t { Contiguous = 0 };
struct Device {
  int8_t type = 0;
  int8_t index = -1;
};
class Tensor {
  void* impl_ = nullptr;
};
class Scalar {
  double value_ = 0;
};
} // namespace etensor
} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::KernelRuntimeContext;
using ::executorch::runtime::etensor::Device;
using ::executorch::runtime::etensor::Layout;
using ::executorch::runtime::etensor::MemoryFormat;
using ::executorch::runtime::etensor::Scalar;
using ::executorch::runtime::etensor::ScalarType;
using ::executorch::runtime::etensor::Tensor;
} // namespace torch::executor

namespace executorch::aten {
using std::optional;
using std::string_view;
using Tensor = torch::executor::Tensor;
template <typename T>
using ArrayRef = torch::executor::ArrayRef<T>;
using TensorList = ArrayRef<Tensor>;
using IntArrayRef = ArrayRef<int64_t>;
using Scalar = torch::executor::Scalar;
using ScalarType = torch::executor::ScalarType;
using MemoryFormat = torch::executor::MemoryFormat;
using Layout = torch::executor::Layout;
using Device = torch::executor::Device;
} // namespace executorch::aten
#endif
