// opscan's version: the project version CMake gives, in one place.
#pragma once

#include <string_view>

namespace opscan::support {

std::string_view opscan_version(); // "0.2.0"

} // namespace opscan::support
