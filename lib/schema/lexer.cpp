// The schema lexer: tokens, whitespace (Unicode spaces too) and how bytes
// and tokens are shown in messages.
#include "schema/lexer.h"

#include <cstdint>

namespace opscan::schema {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The length of the whitespace character at `i`: ASCII whitespace, or a
// Unicode one in UTF-8 (White_Space, plus the invisible U+200B and U+FEFF),
// which names must not hide; 0 when there is none.
size_t space_at(std::string_view s, size_t i) {
  if (i >= s.size())
    return 0;
  if (is_space(s[i]))
    return 1;
  auto b = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  if (b(0) == 0xC2 && (b(1) == 0x85 || b(1) == 0xA0))
    return 2; // U+0085, U+00A0
  if (b(0) == 0xE1 && b(1) == 0x9A && b(2) == 0x80)
    return 3; // U+1680
  if (b(0) == 0xE2 && b(1) == 0x80 &&
      ((b(2) >= 0x80 && b(2) <= 0x8B) || b(2) == 0xA8 || b(2) == 0xA9 || b(2) == 0xAF))
    return 3; // U+2000..U+200B, U+2028, U+2029, U+202F
  if (b(0) == 0xE2 && b(1) == 0x81 && b(2) == 0x9F)
    return 3; // U+205F
  if (b(0) == 0xE3 && b(1) == 0x80 && b(2) == 0x80)
    return 3; // U+3000
  if (b(0) == 0xEF && b(1) == 0xBB && b(2) == 0xBF)
    return 3; // U+FEFF
  return 0;
}

// "a space", "a tab", "U+00A0", for the whitespace character at `i`.
std::string describe_space(std::string_view s, size_t i) {
  switch (s[i]) {
  case ' ':
    return "a space";
  case '\t':
    return "a tab";
  case '\n':
    return "a line break";
  case '\r':
    return "a carriage return";
  default:
    break;
  }
  const size_t n = space_at(s, i);
  if (n <= 1)
    return "a whitespace character";
  // Decodes the 2- or 3-byte sequence space_at recognised.
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
  const uint32_t cp = n == 2 ? ((b(0) & 0x1F) << 6) | (b(1) & 0x3F)
                             : ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "the Unicode space U+";
  for (int shift = 12; shift >= 0; shift -= 4)
    out += kHex[(cp >> shift) & 15];
  return out;
}

// How a byte is shown in messages: inputs may contain anything (fuzzing,
// binary files), so non-printable bytes are spelled out in hex.
std::string describe_char(char c) {
  if (c >= 0x20 && c < 0x7f)
    return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  auto b = static_cast<unsigned char>(c);
  return std::string("byte 0x") + kHex[b >> 4] + kHex[b & 15];
}

// Quotes a piece of user text, clipped so a megabyte identifier cannot
// produce a megabyte message.
std::string quote(std::string_view text) {
  constexpr size_t kMax = 32;
  if (text.size() > kMax)
    return "'" + std::string(text.substr(0, kMax)) + "...'";
  return "'" + std::string(text) + "'";
}

std::string describe(const Token& tok) {
  switch (tok.kind) {
  case Tok::end:
    return "end of input";
  case Tok::bad_string:
    return "unterminated string " + quote(tok.text);
  case Tok::invalid:
    return describe_char(tok.text[0]);
  default:
    return quote(tok.text);
  }
}

Token Lexer::next() {
  while (pos_ < src_.size() && is_space(src_[pos_]))
    ++pos_;
  const size_t start = pos_;
  auto make = [&](Tok kind, size_t end) {
    pos_ = end;
    return Token{kind, src_.substr(start, end - start), start};
  };
  if (start == src_.size())
    return make(Tok::end, start);
  const char c = src_[start];
  if (is_ident_start(c)) {
    size_t i = start + 1;
    while (i < src_.size() && is_ident_char(src_[i]))
      ++i;
    return make(Tok::ident, i);
  }
  if (is_digit(c)) {
    // Fraction and exponent belong to the number only when digits follow,
    // so "1e" lexes as "1" then "e" and fails visibly instead of silently.
    size_t i = skip_digits(start);
    if (at(i) == '.' && is_digit(at(i + 1)))
      i = skip_digits(i + 1);
    if (at(i) == 'e' || at(i) == 'E') {
      size_t j = i + 1;
      if (at(j) == '+' || at(j) == '-')
        ++j;
      if (is_digit(at(j)))
        i = skip_digits(j);
    }
    return make(Tok::number, i);
  }
  if (c == '\'' || c == '"') {
    for (size_t i = start + 1; i < src_.size(); ++i) {
      if (src_[i] == '\\')
        ++i; // the escaped byte cannot close the string
      else if (src_[i] == c)
        return make(Tok::string, i + 1);
    }
    return make(Tok::bad_string, src_.size());
  }
  if (c == ':' && at(start + 1) == ':')
    return make(Tok::colons, start + 2);
  if (c == '-' && at(start + 1) == '>')
    return make(Tok::arrow, start + 2);
  static constexpr std::string_view kPunct = ".()[],*?!|=-";
  static constexpr Tok kPunctKinds[] = {Tok::dot,      Tok::lparen, Tok::rparen, Tok::lbracket,
                                        Tok::rbracket, Tok::comma,  Tok::star,   Tok::question,
                                        Tok::bang,     Tok::pipe,   Tok::equals, Tok::minus};
  const size_t p = kPunct.find(c);
  return make(p == std::string_view::npos ? Tok::invalid : kPunctKinds[p], start + 1);
}

} // namespace opscan::schema
