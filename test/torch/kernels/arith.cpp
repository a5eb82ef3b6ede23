// ATen kernels of the "arith" library for the torch target's end-to-end
// test: out variants, functional and in-place operators, optional tensors,
// int lists, Scalars, several outputs, defaults, a DispatchKeySet context.
#include <opscan/annotations.h>

#include <ATen/core/Tensor.h>
#include <c10/core/DispatchKeySet.h>

#include <tuple>

namespace arith {

OPSCAN_KERNEL("arith_ops::add3.out")
at::Tensor& add3_out(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, at::Tensor& out) {
  return out.copy_(a.add(b).add(c));
}

OPSCAN_KERNEL("arith_ops::scale(Tensor self, float factor=2.0) -> Tensor")
at::Tensor scale(const at::Tensor& self, double factor) { return self.mul(factor); }

OPSCAN_KERNEL("arith_ops::relu_")
at::Tensor& relu_(at::Tensor& self) { return self.clamp_min_(0); }

OPSCAN_KERNEL("arith_ops::maybe_add")
at::Tensor maybe_add(const at::Tensor& self, const c10::optional<at::Tensor>& other) {
  return other ? self.add(*other) : self.clone();
}

OPSCAN_KERNEL("arith_ops::sum_dims(Tensor self, int[] dims, bool keepdim=False) -> Tensor")
at::Tensor sum_dims(const at::Tensor& self, at::IntArrayRef dims, bool keepdim) {
  return self.sum(dims, keepdim);
}

// A DispatchKeySet first is the runtime context, not an argument.
OPSCAN_KERNEL("arith_ops::add_scalar")
at::Tensor add_scalar(c10::DispatchKeySet keys, const at::Tensor& self, const at::Scalar& value) {
  (void)keys;
  return self.add(value);
}

OPSCAN_KERNEL("arith_ops::minmax")
std::tuple<at::Tensor, at::Tensor> minmax(const at::Tensor& self) {
  return {self.min(), self.max()};
}

OPSCAN_KERNEL("arith_ops::minmax.out(Tensor self, *, Tensor(a!) min, Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)")
std::tuple<at::Tensor&, at::Tensor&> minmax_out(const at::Tensor& self, at::Tensor& min, at::Tensor& max) {
  min.fill_(self.min());
  max.fill_(self.max());
  return {min, max};
}

// Under a key other than the default.
OPSCAN_KERNEL("arith_ops::twice", dispatch = "CompositeExplicitAutograd")
at::Tensor twice(const at::Tensor& self) { return self.mul(2); }

}  // namespace arith
