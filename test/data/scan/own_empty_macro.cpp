// A project's own OPSCAN_KERNEL that expands to nothing annotates nothing,
// in a body or anywhere: there is no annotation to drop.
#define OPSCAN_KERNEL(...)

struct Tensor {};

namespace own_macro {

void host() {
  OPSCAN_KERNEL("t::nothing") Tensor nothing(const Tensor& self);
}

}  // namespace own_macro
