// One kernel per argument and return type the ExecuTorch target supports.
// Scanned for the golden files in test/golden/types/, and compiled against
// the stand-in runtime by test/e2e/all_types_test.cpp, which calls every
// kernel through the registry. Each kernel writes what it received into its
// out tensor (doubles), so the test can check that every value arrived.
#include <cstdint>
#include <initializer_list>
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
#include <optional>
#include <string_view>
#include <tuple>

namespace types {

using executorch::aten::ArrayRef;
using executorch::aten::Device;
using executorch::aten::Layout;
using executorch::aten::MemoryFormat;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorList;
using executorch::runtime::KernelRuntimeContext;

namespace {

// Writes `values` into the double tensor `out`, from its first element.
Tensor& record(const Tensor& out, std::initializer_list<double> values) {
  double* data = out.mutable_data_ptr<double>();
  for (double v : values)
    *data++ = v;
  return const_cast<Tensor&>(out);
}

double first(const Tensor& t) {
  return t.const_data_ptr<double>()[0];
}

double number(const Scalar& s) {
  if (s.isFloatingPoint())
    return s.to<double>();
  if (s.isBoolean())
    return s.to<bool>() ? 1 : 0;
  return double(s.to<int64_t>());
}

double sum(ArrayRef<int64_t> values) {
  double total = 0;
  for (int64_t v : values)
    total += double(v);
  return total;
}

} // namespace

// ---- Arguments --------------------------------------------------------------

// Tensor, Tensor(a!)
OPSCAN_KERNEL("types::tensor.out")
Tensor& tensor_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  (void)ctx;
  return record(out, {first(self)});
}

// Tensor?
OPSCAN_KERNEL("types::optional_tensor.out")
Tensor& optional_tensor_out(KernelRuntimeContext& ctx, const std::optional<Tensor>& maybe,
                            Tensor& out) {
  (void)ctx;
  return record(out, {maybe ? 1.0 : 0.0, maybe ? first(*maybe) : 0.0});
}

// Tensor(a!)?: the kernel writes into the tensor when there is one.
OPSCAN_KERNEL("types::fill_optional.out(float value, *, Tensor(a!)? out) -> ()")
void fill_optional_out(KernelRuntimeContext& ctx, double value, std::optional<Tensor>& out) {
  (void)ctx;
  if (out)
    record(*out, {value});
}

// Tensor[]
OPSCAN_KERNEL("types::tensor_list.out")
Tensor& tensor_list_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, Tensor& out) {
  (void)ctx;
  double total = 0;
  for (const Tensor& t : tensors)
    total += first(t);
  return record(out, {double(tensors.size()), total});
}

// Tensor(a!)[]: a list of out tensors; writes self's first element plus i
// into out[i].
OPSCAN_KERNEL("types::split.out(Tensor self, *, Tensor(a!)[] out) -> ()")
void split_out(KernelRuntimeContext& ctx, const Tensor& self, TensorList out) {
  (void)ctx;
  for (size_t i = 0; i < out.size(); ++i)
    record(out[i], {first(self) + double(i)});
}

// Tensor?[]
OPSCAN_KERNEL("types::optional_tensor_list.out")
Tensor& optional_tensor_list_out(KernelRuntimeContext& ctx,
                                 ArrayRef<std::optional<Tensor>> tensors, Tensor& out) {
  (void)ctx;
  double present = 0, total = 0;
  for (const std::optional<Tensor>& t : tensors) {
    if (t) {
      present += 1;
      total += first(*t);
    }
  }
  return record(out, {double(tensors.size()), present, total});
}

// Scalar, Scalar?
OPSCAN_KERNEL("types::scalar.out")
Tensor& scalar_out(KernelRuntimeContext& ctx, const Scalar& value,
                   const std::optional<Scalar>& maybe, Tensor& out) {
  (void)ctx;
  return record(out, {number(value), maybe ? 1.0 : 0.0, maybe ? number(*maybe) : 0.0});
}

// int, SymInt, int?
OPSCAN_KERNEL("types::ints.out(int value, SymInt size, int? maybe, *, Tensor(a!) out) "
              "-> Tensor(a!)")
Tensor& ints_out(KernelRuntimeContext& ctx, int64_t value, int64_t size,
                 std::optional<int64_t> maybe, Tensor& out) {
  (void)ctx;
  return record(out, {double(value), double(size), maybe ? double(*maybe) : -1.0});
}

// int[], int[2], SymInt[], int[]?
OPSCAN_KERNEL("types::int_lists.out(int[] values, int[2] pair, SymInt[] sizes, int[]? maybe, *, "
              "Tensor(a!) out) -> Tensor(a!)")
Tensor& int_lists_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> values, ArrayRef<int64_t> pair,
                      ArrayRef<int64_t> sizes, std::optional<ArrayRef<int64_t>> maybe,
                      Tensor& out) {
  (void)ctx;
  return record(out, {double(values.size()), sum(values), sum(pair), sum(sizes),
                      maybe ? sum(*maybe) : -1.0});
}

// float, float?, float[], float[]?
OPSCAN_KERNEL("types::floats.out")
Tensor& floats_out(KernelRuntimeContext& ctx, double value, std::optional<double> maybe,
                   ArrayRef<double> values, std::optional<ArrayRef<double>> maybe_values,
                   Tensor& out) {
  (void)ctx;
  double total = 0;
  for (double v : values)
    total += v;
  return record(out, {value, maybe ? *maybe : -1.0, total,
                      maybe_values ? double(maybe_values->size()) : -1.0});
}

// bool, bool?, bool[], bool[3], bool[]?
OPSCAN_KERNEL("types::bools.out(bool flag, bool? maybe, bool[] flags, bool[3] mask, "
              "bool[]? maybe_flags, *, Tensor(a!) out) -> Tensor(a!)")
Tensor& bools_out(KernelRuntimeContext& ctx, bool flag, std::optional<bool> maybe,
                  ArrayRef<bool> flags, ArrayRef<bool> mask, std::optional<ArrayRef<bool>> maybe_flags,
                  Tensor& out) {
  (void)ctx;
  double set = 0;
  for (bool f : flags)
    set += f ? 1 : 0;
  double mask_bits = 0;
  for (size_t i = 0; i < mask.size(); ++i)
    mask_bits += mask[i] ? double(1 << i) : 0;
  return record(out, {flag ? 1.0 : 0.0, maybe ? (*maybe ? 1.0 : 0.0) : -1.0, set, mask_bits,
                      maybe_flags ? double(maybe_flags->size()) : -1.0});
}

// str, str?
OPSCAN_KERNEL("types::strings.out")
Tensor& strings_out(KernelRuntimeContext& ctx, std::string_view text,
                    std::optional<std::string_view> maybe, Tensor& out) {
  (void)ctx;
  return record(out, {double(text.size()), text.empty() ? 0.0 : double(text[0]),
                      maybe ? double(maybe->size()) : -1.0});
}

// ScalarType, MemoryFormat, Layout, Device and their optionals
OPSCAN_KERNEL("types::enums.out")
Tensor& enums_out(KernelRuntimeContext& ctx, ScalarType dtype, std::optional<ScalarType> maybe_dtype,
                  MemoryFormat format, std::optional<MemoryFormat> maybe_format, Layout layout,
                  std::optional<Layout> maybe_layout, Device device,
                  std::optional<Device> maybe_device, Tensor& out) {
  (void)ctx;
  return record(out, {double(dtype), maybe_dtype ? double(*maybe_dtype) : -1.0, double(format),
                      maybe_format ? double(*maybe_format) : -1.0, double(layout),
                      maybe_layout ? double(*maybe_layout) : -1.0, double(device.type()),
                      maybe_device ? double(maybe_device->type()) : -1.0});
}

// ---- Returns ------------------------------------------------------------------

// Several out tensors, returned as a tuple of references.
OPSCAN_KERNEL("types::sort.values(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> "
              "(Tensor(a!) values, Tensor(b!) indices)")
std::tuple<Tensor&, Tensor&> sort_values(KernelRuntimeContext& ctx, const Tensor& self,
                                         Tensor& values, Tensor& indices) {
  (void)ctx;
  record(values, {first(self)});
  record(indices, {0});
  return {values, indices};
}

// A functional operator: the tensor it returns goes to the return slot.
OPSCAN_KERNEL("types::pick(Tensor[] tensors, int index) -> Tensor")
Tensor pick(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t index) {
  (void)ctx;
  return tensors[size_t(index)];
}

// No return, one out argument.
OPSCAN_KERNEL("types::fill.out")
void fill_out(KernelRuntimeContext& ctx, const Scalar& value, Tensor& out) {
  (void)ctx;
  record(out, {number(value)});
}

// In-place, its tensor named as ExecuTorch's kernels name it: the schema
// calls it 'self', and the return slot gets the result.
OPSCAN_KERNEL("types::scale_")
Tensor& scale_(KernelRuntimeContext& ctx, Tensor& in, double factor) {
  (void)ctx;
  return record(in, {first(in) * factor});
}

// An out variant returning nothing writes its trailing list of tensors.
OPSCAN_KERNEL("types::unbind.int_out")
void unbind_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, TensorList out) {
  (void)ctx;
  for (size_t i = 0; i < out.size(); ++i)
    record(out[i], {first(self) + double(dim) + double(i)});
}

// Values returned into the return slot: int, float, bool, Scalar.
OPSCAN_KERNEL("types::count")
int64_t count(KernelRuntimeContext& ctx, const Tensor& self) {
  (void)ctx;
  return int64_t(self.numel());
}

OPSCAN_KERNEL("types::mean")
double mean(KernelRuntimeContext& ctx, const Tensor& self) {
  (void)ctx;
  double total = 0;
  for (decltype(self.numel()) i = 0; i < self.numel(); ++i)
    total += self.const_data_ptr<double>()[i];
  return total / double(self.numel());
}

OPSCAN_KERNEL("types::is_empty")
bool is_empty(KernelRuntimeContext& ctx, const Tensor& self) {
  (void)ctx;
  return self.numel() == 0;
}

OPSCAN_KERNEL("types::item")
Scalar item(KernelRuntimeContext& ctx, const Tensor& self) {
  (void)ctx;
  return Scalar(first(self));
}

} // namespace types
