// Registers the library, then calls its operator through PyTorch's
// dispatcher: a result, and a failed context raised as c10::Error. Exit
// status 0 when both are right.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>
#include <cstdio>
#include <my_ops_aot/RegisterKernels.h>
#include <string>

int main() {
  register_my_ops_aot_kernels();
  auto twice = c10::Dispatcher::singleton()
                   .findSchemaOrThrow("my_ops::twice", "out")
                   .typed<at::Tensor&(const at::Tensor&, at::Tensor&)>();
  at::Tensor out = at::zeros({3});
  twice.call(at::full({3}, 1.5), out);
  if (!out.equal(at::full({3}, 3.0))) {
    std::puts("my_ops::twice.out: wrong result");
    return 1;
  }
  try {
    twice.call(at::ones({2}), out);
    std::puts("my_ops::twice.out: no error for tensors of different sizes");
    return 1;
  } catch (const c10::Error& e) {
    const std::string message = e.what_without_backtrace();
    if (message.find("my_ops::twice.out: the ExecuTorch kernel") == std::string::npos) {
      std::printf("my_ops::twice.out: the error does not name the operator: %s\n", message.c_str());
      return 1;
    }
  }
  std::puts("executorch-aot operators work");
  return 0;
}
