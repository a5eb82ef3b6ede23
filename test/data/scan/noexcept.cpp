// Exception specifications: a kernel is noexcept when its type says so.
#include "et_types.h"

namespace nx {

constexpr bool kNever = false;

OPSCAN_KERNEL("t::plain") void plain(const Tensor& self);
OPSCAN_KERNEL("t::basic") void basic(const Tensor& self) noexcept;
OPSCAN_KERNEL("t::computed_true") void computed_true(const Tensor& self) noexcept(true);
OPSCAN_KERNEL("t::computed_false") void computed_false(const Tensor& self) noexcept(false);
OPSCAN_KERNEL("t::dynamic_none") void dynamic_none(const Tensor& self) throw();
OPSCAN_KERNEL("t::expression_true") void expression_true(const Tensor& self) noexcept(sizeof(int) > 1);
OPSCAN_KERNEL("t::expression_false") void expression_false(const Tensor& self) noexcept(kNever);

}  // namespace nx
