// OPSCAN_KERNEL on declarations inside function and lambda bodies. Scans
// skip function bodies, so most of these are never parsed; the lambda's
// and the deduced function's bodies are, but hold no declaration a kernel
// can be.
#include "et_types.h"

namespace in_bodies {

void host() {
  OPSCAN_KERNEL("t::hidden.out") Tensor& hidden_out(const Tensor& self, Tensor& out);
}

struct Holder {
  void member() {
    OPSCAN_KERNEL("t::in_member") Tensor in_member(const Tensor& self);
  }
  void defined_outside();
};

void Holder::defined_outside() {
  int unused = 0;
  OPSCAN_KERNEL("t::in_out_of_class") Tensor in_out_of_class(const Tensor& self);
}

auto lambda = [] {
  OPSCAN_KERNEL("t::in_lambda") Tensor in_lambda(const Tensor& self);
  return 0;
};

template <typename T>
void templated() {
  auto nested = [] { OPSCAN_KERNEL("t::in_nested_lambda") Tensor nested(const Tensor& self); };
}

auto deduced() {
  OPSCAN_KERNEL("t::in_deduced") Tensor in_deduced(const Tensor& self);
  return 0;
}

#if 0
void never_compiled() { OPSCAN_KERNEL("t::not_compiled") Tensor gone(const Tensor& self); }
#endif

OPSCAN_KERNEL("t::fine")
void fine(const Tensor& self) {
  OPSCAN_KERNEL("t::in_kernel") Tensor in_kernel(const Tensor& self);
}

}  // namespace in_bodies
