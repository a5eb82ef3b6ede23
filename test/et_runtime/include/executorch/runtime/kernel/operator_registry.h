// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstring>
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/assert.h>

namespace executorch::ET_RUNTIME_NAMESPACE {

class KernelRuntimeContext; // Defined in kernel_runtime_context.h, which this does not include.
using OpFunction = void (*)(KernelRuntimeContext&, Span<EValue*>);

// dtype and dim order of one tensor argument; selects a dtype-specialized kernel.
struct TensorMeta {
  executorch::aten::ScalarType dtype_;
  Span<executorch::aten::DimOrderType> dim_order_;

  TensorMeta() = default;
  TensorMeta(executorch::aten::ScalarType dtype, Span<executorch::aten::DimOrderType> order)
      : dtype_(dtype), dim_order_(order) {}

  bool equals(const TensorMeta& other) const {
    if (dtype_ != other.dtype_ || dim_order_.size() != other.dim_order_.size()) {
      return false;
    }
    for (size_t i = 0; i < dim_order_.size(); ++i) {
      if (dim_order_[i] != other.dim_order_[i]) {
        return false;
      }
    }
    return true;
  }
  bool operator==(const TensorMeta& other) const { return equals(other); }
  bool operator!=(const TensorMeta& other) const { return !equals(other); }
};

// Null data = fallback key (any dtypes); otherwise "v1/<dtype>;<dim,order>|...". The string is
// not copied.
struct KernelKey {
public:
  constexpr KernelKey() = default;
  /* implicit */ constexpr KernelKey(const char* kernel_key_data) : data_(kernel_key_data) {}

  bool equals(const KernelKey& other) const {
    if (is_fallback() || other.is_fallback()) {
      return is_fallback() == other.is_fallback();
    }
    return std::strcmp(data_, other.data_) == 0;
  }
  bool operator==(const KernelKey& other) const { return equals(other); }
  bool operator!=(const KernelKey& other) const { return !equals(other); }
  bool is_fallback() const { return data_ == nullptr; }
  const char* data() const { return data_; }

private:
  const char* data_ = nullptr;
};

// An operator name, kernel key and function. Names and keys are not copied.
struct Kernel {
  const char* name_;
  KernelKey kernel_key_;
  OpFunction op_;

  constexpr explicit Kernel(const char* name, OpFunction func) : name_(name), op_(func) {}
  constexpr explicit Kernel(const char* name, KernelKey key, OpFunction func)
      : name_(name), kernel_key_(key), op_(func) {}
  constexpr Kernel() : name_(nullptr), op_(nullptr) {}
};

// Lookup: the kernel whose key matches `meta_list` exactly, else the fallback kernel of that name.
bool registry_has_op_function(const char* name, Span<const TensorMeta> meta_list = {});
Result<OpFunction> get_op_function_from_registry(const char* name,
                                                 Span<const TensorMeta> meta_list = {});
Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> meta_list,
                                                 Span<const Kernel> kernel_list);

Span<const Kernel> get_registered_kernels();

// Always returns Error::Ok: re-registering a (name, key) pair or exceeding the capacity logs and
// aborts the process.
[[nodiscard]] Error register_kernels(const Span<const Kernel>);

[[nodiscard]] inline Error register_kernel(const Kernel& kernel) {
  return register_kernels({&kernel, 1});
}

} // namespace executorch::ET_RUNTIME_NAMESPACE

namespace torch::executor {
using ::executorch::ET_RUNTIME_NAMESPACE::Kernel;
using ::executorch::ET_RUNTIME_NAMESPACE::KernelKey;
using ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext;
using ::executorch::ET_RUNTIME_NAMESPACE::OpFunction;
using ::executorch::ET_RUNTIME_NAMESPACE::TensorMeta;

inline ::executorch::runtime::Error register_kernels(ArrayRef<Kernel> kernels) {
  return ::executorch::ET_RUNTIME_NAMESPACE::register_kernels({kernels.data(), kernels.size()});
}
} // namespace torch::executor
