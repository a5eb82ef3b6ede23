// Reductions and list-taking kernels of the example library; every schema
// here is inferred from the C++ signature.
#include <cstdint>
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
#include <optional>

namespace example::reduce {

using executorch::aten::ArrayRef;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace {
float total(const Tensor& t) {
  const float* x = t.const_data_ptr<float>();
  float sum = 0;
  for (decltype(t.numel()) i = 0; i < t.numel(); ++i)
    sum += x[i];
  return sum;
}
} // namespace

// Sums over all elements; `dims` and `keepdim` are accepted for the shape of
// the example only.
OPSCAN_KERNEL("demo::sum_dims.out")
Tensor& sum_dims_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims,
                     bool keepdim, Tensor& out) {
  (void)ctx, (void)dims, (void)keepdim;
  out.mutable_data_ptr<float>()[0] = total(self);
  return out;
}

OPSCAN_KERNEL("demo::mean.out")
Tensor& mean_out(KernelRuntimeContext& ctx, const Tensor& self,
                 std::optional<ArrayRef<int64_t>> dims, std::optional<ScalarType> dtype,
                 Tensor& out) {
  (void)ctx, (void)dims, (void)dtype;
  out.mutable_data_ptr<float>()[0] = self.numel() == 0 ? 0.0f : total(self) / self.numel();
  return out;
}

// A functional op: returns one of its inputs.
OPSCAN_KERNEL("demo::pick")
Tensor pick(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<Tensor>& fallback,
            int64_t index) {
  (void)ctx;
  return index == 0 || !fallback ? self : *fallback;
}

OPSCAN_KERNEL("demo::total.out")
Tensor& total_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, Tensor& out) {
  (void)ctx;
  float sum = 0;
  for (size_t i = 0; i < tensors.size(); ++i)
    sum += total(tensors.data()[i]);
  out.mutable_data_ptr<float>()[0] = sum;
  return out;
}

} // namespace example::reduce
