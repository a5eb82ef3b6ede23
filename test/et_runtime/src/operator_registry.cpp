// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// The kernel registry: a fixed-capacity table filled by register_kernels().
#include <cstdio>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/log.h>
#include <string>

#if !defined(MAX_KERNEL_NUM) && __has_include(<executorch/runtime/kernel/selected_max_kernel_num.h>)
#include <executorch/runtime/kernel/selected_max_kernel_num.h>
#endif

namespace executorch::ET_RUNTIME_NAMESPACE {
namespace {

// The capacity, chosen as the real registry chooses it: MAX_KERNEL_NUM, else
// a selective build's kernel count, else 250 operators x 8 kernels.
#if defined(MAX_KERNEL_NUM)
constexpr size_t kMaxRegisteredKernels = MAX_KERNEL_NUM;
#elif defined(EXECUTORCH_SELECTED_MAX_KERNEL_NUM)
constexpr size_t kMaxRegisteredKernels = EXECUTORCH_SELECTED_MAX_KERNEL_NUM;
#else
constexpr size_t kMaxRegisteredKernels = 250 * 8;
#endif

Kernel registered[kMaxRegisteredKernels];
size_t num_registered = 0;

const char* key_text(const KernelKey& key) {
  return key.is_fallback() ? "(fallback)" : key.data();
}

// The kernel key string for `meta_list`: "v1/<dtype>;<d0>,<d1>|<dtype>;..." ("" if empty).
std::string make_key(Span<const TensorMeta> meta_list) {
  std::string key;
  for (size_t i = 0; i < meta_list.size(); ++i) {
    key += i == 0 ? "v1/" : "|";
    // Appended piece by piece: GCC 12 at -O2 warns (-Wrestrict, wrongly) on
    // a temporary string concatenated with a literal here.
    key += std::to_string(int(meta_list[i].dtype_));
    key += ';';
    for (size_t j = 0; j < meta_list[i].dim_order_.size(); ++j) {
      if (j != 0)
        key += ',';
      key += std::to_string(int(meta_list[i].dim_order_[j]));
    }
  }
  return key;
}

} // namespace

Error register_kernels(const Span<const Kernel> kernels) {
  if (kernels.size() > kMaxRegisteredKernels - num_registered) {
    ET_LOG(Error, "Cannot register %zu kernels: %zu of at most %zu are already registered",
           kernels.size(), num_registered, kMaxRegisteredKernels);
    ET_CHECK_MSG(false, "Kernel registration failed with error %u",
                 unsigned(Error::RegistrationExceedingMaxKernels));
  }
  for (const Kernel& kernel : kernels) {
    for (size_t i = 0; i < num_registered; ++i) {
      if (std::strcmp(kernel.name_, registered[i].name_) == 0 &&
          kernel.kernel_key_ == registered[i].kernel_key_) {
        ET_LOG(Error, "Re-registering %s, key %s", kernel.name_, key_text(kernel.kernel_key_));
        ET_CHECK_MSG(false, "Kernel registration failed with error %u, Re-registering %s",
                     unsigned(Error::RegistrationAlreadyRegistered), kernel.name_);
      }
    }
    registered[num_registered++] = kernel;
  }
  return Error::Ok;
}

Span<const Kernel> get_registered_kernels() {
  return {registered, num_registered};
}

Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> meta_list,
                                                 Span<const Kernel> kernel_list) {
  const std::string key = make_key(meta_list);
  const Kernel* fallback = nullptr;
  for (const Kernel& kernel : kernel_list) {
    if (std::strcmp(kernel.name_, name) != 0) {
      continue;
    }
    if (kernel.kernel_key_ == KernelKey(key.c_str())) {
      return kernel.op_;
    }
    if (kernel.kernel_key_.is_fallback()) {
      fallback = &kernel;
    }
  }
  if (fallback != nullptr) {
    return fallback->op_;
  }
  ET_LOG(Error, "kernel '%s' not found.", name);
  return Error::OperatorMissing;
}

Result<OpFunction> get_op_function_from_registry(const char* name,
                                                 Span<const TensorMeta> meta_list) {
  return get_op_function_from_registry(name, meta_list, get_registered_kernels());
}

bool registry_has_op_function(const char* name, Span<const TensorMeta> meta_list) {
  return get_op_function_from_registry(name, meta_list).ok();
}

} // namespace executorch::ET_RUNTIME_NAMESPACE
