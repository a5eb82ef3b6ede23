// Inline and constexpr kernels: their definition is emitted only where they
// are used, so generated registration code cannot link to them.
#include "et_types.h"

namespace inl {

OPSCAN_KERNEL("t::inline_decl")
inline void inline_decl(const Tensor& self);

OPSCAN_KERNEL("t::inline_def")
inline void inline_def(const Tensor& self) {}

OPSCAN_KERNEL("t::constexpr_fn")
constexpr int64_t constexpr_fn(int64_t x) { return x; }

OPSCAN_KERNEL("t::not_inline")
void not_inline(const Tensor& self);

}  // namespace inl
