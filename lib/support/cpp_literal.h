// Text as C++ source spells it.
#pragma once

#include <string>
#include <string_view>

namespace opscan::support {

// A C++ string literal holding `text`: quotes and backslashes escaped (what
// schema text and annotation strings can hold besides plain characters).
std::string cpp_string_literal(std::string_view text);

} // namespace opscan::support
