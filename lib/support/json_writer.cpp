// Escaping of JSON strings for JsonWriter, byte for byte as nlohmann does.
#include "support/json_writer.h"

#include "support/text.h"

#include <array>

namespace opscan::support {

namespace {

// The bytes a JSON string holds as they are, escaped or not: printable
// ASCII but '"' and '\\'. Looked up, as strings are most of what is written.
constexpr auto kPlain = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c)
    plain[c] = c != '"' && c != '\\';
  return plain;
}();

// JSON's short escapes: the letter after the backslash, and what it means.
constexpr std::string_view kEscapeLetters = "\"\\/bfnrt", kEscaped = "\"\\/\b\f\n\r\t";

} // namespace

// Escapes as nlohmann does: the short escapes, other control characters as
// "\\u00" and two lowercase hex digits, UTF-8 as it is. Invalid UTF-8 (a
// path in a legacy encoding) must not abort the run: each maximal
// ill-formed subsequence becomes one U+FFFD, as nlohmann's
// error_handler_t::replace made it.
void JsonWriter::quoted(std::string_view s) {
  out_ += '"';
  size_t plain = 0; // start of the bytes not yet copied
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (kPlain[c]) {
      ++i;
      continue;
    }
    out_.append(s, plain, i - plain);
    if (c >= 0x80) {
      auto [length, valid] = utf8_sequence(s, i);
      if (valid)
        out_.append(s, i, length);
      else
        out_ += "\xEF\xBF\xBD"; // U+FFFD
      i += length;
    } else {
      escape(c);
      ++i;
    }
    plain = i;
  }
  out_.append(s, plain);
  out_ += '"';
}

void JsonWriter::escape(unsigned char c) {
  out_ += '\\';
  if (size_t at = kEscaped.find(static_cast<char>(c)); at != std::string_view::npos) {
    out_ += kEscapeLetters[at];
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    out_ += "u00";
    out_ += kHex[c >> 4];
    out_ += kHex[c & 0xf];
  }
}

} // namespace opscan::support
