// Escaping text into generated C++ string literals and comments.
#include "support/cpp_literal.h"

namespace opscan::support {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool is_printable_ascii(unsigned char c) {
  return c >= 0x20 && c < 0x7f;
}

} // namespace

std::string cpp_string_literal(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += ch;
    } else if (is_printable_ascii(c)) {
      out += ch;
    } else {
      out += '\\';
      out += static_cast<char>('0' + (c >> 6));
      out += static_cast<char>('0' + ((c >> 3) & 7));
      out += static_cast<char>('0' + (c & 7));
    }
  }
  return out + "\"";
}

std::string cpp_comment(std::string_view text) {
  std::string out = "// ";
  char previous = 0;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    const bool escaped = !is_printable_ascii(c) || c == '\\' || (c == '?' && previous == '?') ||
                         (c == '/' && previous == '*');
    if (escaped) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
    previous = ch;
  }
  return out;
}

} // namespace opscan::support
