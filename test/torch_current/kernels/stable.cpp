// Kernels of the "stable" library, written against PyTorch's stable ABI
// (torch/csrc/stable): no libtorch C++ type, so the library's only calls into
// libtorch are its C shim. Float tensors; each kernel computes on the data
// pointers itself, so every value a test checks comes from this file.
#include <cstdint>
#include <opscan/annotations.h>
#include <optional>
#include <string>
#include <string_view>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h>
#include <torch/csrc/stable/generator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/util/HeaderOnlyArrayRef.h>
#include <tuple>
#include <vector>

namespace stable_kernels {

using torch::stable::Tensor;

// Tensor, float with a default: self + alpha * other.
OPSCAN_KERNEL("stable_ops::axpy(Tensor self, Tensor other, float alpha=1) -> Tensor")
Tensor axpy(const Tensor& self, const Tensor& other, double alpha) {
  Tensor out = torch::stable::empty_like(self);
  const float* a = self.const_data_ptr<float>();
  const float* b = other.const_data_ptr<float>();
  float* o = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i)
    o[i] = a[i] + static_cast<float>(alpha) * b[i];
  return out;
}

// An out variant with int and bool: out = value, negated when asked.
OPSCAN_KERNEL("stable_ops::fill.out")
Tensor& fill_out(const Tensor& self, int64_t value, bool negate, Tensor& out) {
  float* o = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i)
    o[i] = static_cast<float>(negate ? -value : value);
  return out;
}

// A tuple return: the smallest and largest element, and the index of the largest.
OPSCAN_KERNEL("stable_ops::extremes")
std::tuple<double, double, int64_t> extremes(const Tensor& self) {
  const float* a = self.const_data_ptr<float>();
  double lo = a[0], hi = a[0];
  int64_t at = 0;
  for (int64_t i = 1; i < self.numel(); ++i) {
    lo = a[i] < lo ? a[i] : lo;
    if (a[i] > hi) {
      hi = a[i];
      at = i;
    }
  }
  return {lo, hi, at};
}

// A list and an optional tensor: the elements at `idx`, plus `bias` when given.
OPSCAN_KERNEL("stable_ops::gather")
Tensor gather(const Tensor& self, torch::headeronly::HeaderOnlyArrayRef<int64_t> idx,
              const std::optional<Tensor>& bias) {
  Tensor out = torch::stable::new_empty(self, {static_cast<int64_t>(idx.size())});
  const float* a = self.const_data_ptr<float>();
  float* o = out.mutable_data_ptr<float>();
  for (size_t i = 0; i < idx.size(); ++i)
    o[i] = a[idx[i]] + (bias ? bias->const_data_ptr<float>()[i] : 0.0f);
  return out;
}

// A list of tensors, an optional int and a list of floats: the sum of every
// tensor's elements, each tensor weighted, plus `offset` when given.
OPSCAN_KERNEL("stable_ops::weighted_sum")
double weighted_sum(const std::vector<Tensor>& tensors, std::vector<double> weights,
                    std::optional<int64_t> offset) {
  double sum = offset.value_or(0);
  for (size_t t = 0; t < tensors.size(); ++t) {
    const float* a = tensors[t].const_data_ptr<float>();
    for (int64_t i = 0; i < tensors[t].numel(); ++i)
      sum += weights[t] * a[i];
  }
  return sum;
}

// str, str?, ScalarType, Layout, MemoryFormat and Device: a number that
// says what it was given (the tests know each part).
OPSCAN_KERNEL("stable_ops::describe")
int64_t describe(const Tensor& self, std::string_view name, std::optional<std::string_view> tag,
                 torch::headeronly::ScalarType dtype, torch::headeronly::Layout layout,
                 torch::headeronly::MemoryFormat format, torch::stable::Device device) {
  int64_t code = static_cast<int64_t>(name.size()) * 1000000;
  code += tag ? static_cast<int64_t>(tag->size()) * 10000 : 990000;
  code += dtype == self.scalar_type() ? 1000 : 0;
  code += layout == torch::headeronly::Layout::Strided ? 100 : 0;
  code += format == torch::headeronly::MemoryFormat::ChannelsLast ? 10 : 0;
  code += device.is_cpu() ? 1 : 0;
  return code;
}

// An optional list and a mutable tensor: scales `self` in place by each
// factor given (or by 2), and returns nothing.
OPSCAN_KERNEL("stable_ops::scale_each")
void scale_each(Tensor& self,
                std::optional<torch::headeronly::HeaderOnlyArrayRef<double>> factors) {
  float* a = self.mutable_data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i) {
    if (!factors) {
      a[i] *= 2;
      continue;
    }
    for (double f : *factors)
      a[i] *= static_cast<float>(f);
  }
}

// A Generator: numbers drawn from it, uniform in [0, 1), in a tensor shaped
// as `self` (drawn by libtorch, through the C shim, from this generator).
OPSCAN_KERNEL("stable_ops::uniform_with")
Tensor uniform_with(const Tensor& self, torch::stable::Generator gen) {
  AtenGeneratorHandle handle = gen.get();
  AtenTensorHandle drawn = nullptr;
  STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_uniform(self.get(), 0.0, 1.0, &handle, &drawn));
  return Tensor(drawn);
}

// An optional Generator: 1 if it is on the CPU, as `self` is, 0 if not, -1
// if none was given. (Without a tensor, an absent generator would leave the
// dispatcher no key to choose the kernel by.)
OPSCAN_KERNEL("stable_ops::generator_on_cpu")
int64_t generator_on_cpu(const Tensor& self, const std::optional<torch::stable::Generator>& gen) {
  if (!gen)
    return -1;
  return gen->device().is_cpu() && self.is_cpu() ? 1 : 0;
}

// A Generator returned: the one given.
OPSCAN_KERNEL("stable_ops::same_generator")
torch::stable::Generator same_generator(torch::stable::Generator gen) {
  return gen;
}

} // namespace stable_kernels
