// Registers the library with ExecuTorch's kernel registry and calls
// demo::triple.out through it, the way ExecuTorch's executor calls a kernel:
// with an EValue stack (the arguments, then the return slot).
#include <demo/RegisterKernels.h>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <cstdint>
#include <cstdio>

namespace {

using executorch::runtime::Error;
using executorch::runtime::EValue;

int check(bool ok, const char* what) {
  if (!ok)
    std::printf("failed: %s\n", what);
  return ok ? 0 : 1;
}

} // namespace

int main() {
  if (check(torch::executor::register_demo_kernels() == Error::Ok, "registration"))
    return 1;
  for (const char* op : {"demo::triple.out", "demo::sum_dims.out"}) {
    if (check(executorch::runtime::registry_has_op_function(op), op))
      return 1;
  }

  using executorch::runtime::etensor::TensorImpl;
  TensorImpl::SizesType sizes[] = {3};
  TensorImpl::DimOrderType dim_order[] = {0};
  TensorImpl::StridesType strides[] = {1};
  float in_data[] = {1, 2, 3};
  float out_data[] = {0, 0, 0};
  TensorImpl in_impl(executorch::aten::ScalarType::Float, 1, sizes, in_data, dim_order, strides);
  TensorImpl out_impl(executorch::aten::ScalarType::Float, 1, sizes, out_data, dim_order, strides);
  executorch::aten::Tensor in(&in_impl), out(&out_impl);

  EValue values[] = {EValue(in), EValue(out), EValue()};
  EValue* stack[] = {&values[0], &values[1], &values[2]};
  auto triple = executorch::runtime::get_op_function_from_registry("demo::triple.out");
  if (check(triple.ok(), "looking up demo::triple.out"))
    return 1;
  executorch::runtime::KernelRuntimeContext context;
  (*triple.get())(context, executorch::runtime::Span<EValue*>(stack, 3));
  if (check(context.failure_state() == Error::Ok, "calling demo::triple.out") ||
      check(out_data[0] == 3 && out_data[1] == 6 && out_data[2] == 9, "demo::triple.out's result"))
    return 1;
  std::puts("demo kernels registered and run by ExecuTorch's registry");
  return 0;
}
