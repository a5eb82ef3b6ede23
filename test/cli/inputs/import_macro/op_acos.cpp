#include "pattern.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

DEFINE_UNARY_UFUNC_REALHBBF16_TO_FLOATHBF16(acos_out, std::acos)

} // namespace native
} // namespace executor
} // namespace torch
