// Kernels in inline namespaces: the inline namespaces stay in the qualified
// name (declarations of the kernel must open them inline).
#include "et_types.h"

namespace outer {
inline namespace v1 {

OPSCAN_KERNEL("t::versioned")
void versioned(const Tensor& self);

namespace detail {
inline namespace abi2 {
OPSCAN_KERNEL("t::nested")
void nested(const Tensor& self);
}  // namespace abi2
}  // namespace detail

}  // namespace v1

OPSCAN_KERNEL("t::plain")
void plain(const Tensor& self);

}  // namespace outer

inline namespace top {
OPSCAN_KERNEL("t::top_level")
void top_level(const Tensor& self);
}  // namespace top
