// The one way text that opscan did not write enters generated C++: as a
// string literal or in a comment. (Identifiers enter only after validation.)
#pragma once

#include <string>
#include <string_view>

namespace opscan::support {

// A C++ string literal holding exactly the bytes of `text`: printable ASCII
// as itself, except '"', '\\' and '?' (no trigraph can form), which are
// escaped; every other byte (control characters, bytes of UTF-8 or not) as
// a three-digit octal escape, which no following character can extend.
std::string cpp_string_literal(std::string_view text);

// A one-line "// " comment showing `text`: printable ASCII as itself, every
// other byte (line breaks, control characters, UTF-8 or not) and '\\' as
// \xHH, a '?' after a '?' and a '/' after a '*' too, so nothing in `text`
// can end the comment, continue it onto the next line, or hide text from a
// reader. No newline at the end.
std::string cpp_comment(std::string_view text);

} // namespace opscan::support
