#include "pattern.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

DEFINE_UNARY_PAIR(sin_out, cos_out, std::sin)

} // namespace native
} // namespace executor
} // namespace torch
