// Registers the library and checks its operators are in the registry.
#include <portable/RegisterKernels.h>

#include <executorch/runtime/kernel/operator_registry.h>

#include <cstdio>

int main() {
  if (torch::executor::register_portable_kernels() != executorch::runtime::Error::Ok) {
    std::puts("registration failed");
    return 1;
  }
  for (const char* op : {"demo::triple.out", "demo::sum_dims.out"}) {
    if (!executorch::runtime::get_op_function_from_registry(op).ok()) {
      std::printf("%s is not registered\n", op);
      return 1;
    }
  }
  std::puts("portable kernels registered");
  return 0;
}
