#include "pattern.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

  DEFINE_UNARY_UFUNC_REALHBF16(ceil_out, std::ceil)

} // namespace native
} // namespace executor
} // namespace torch
