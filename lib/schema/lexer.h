// Private to schema: the lexer the parser reads tokens from, and how bytes,
// whitespace and tokens are shown in messages (schema/lexer.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace opscan::schema {

bool is_digit(char c);
bool is_ident_start(char c); // ASCII letter or '_'
bool is_ident_char(char c);  // ASCII letter, digit or '_'
bool is_space(char c);       // ASCII whitespace
// The length of the whitespace character at `i`: ASCII whitespace, or a
// Unicode one in UTF-8 (White_Space, plus the invisible U+200B and U+FEFF),
// which names must not hide; 0 when there is none.
size_t space_at(std::string_view s, size_t i);
// "a space", "a tab", "U+00A0", for the whitespace character at `i`.
std::string describe_space(std::string_view s, size_t i);
// A byte for a message: 'c', or "byte 0x01" when not printable.
std::string describe_char(char c);
// A piece of user text in quotes, clipped.
std::string quote(std::string_view text);

enum class Tok {
  end,
  ident,
  number,
  string,
  bad_string,
  invalid,
  colons,
  arrow,
  dot,
  lparen,
  rparen,
  lbracket,
  rbracket,
  comma,
  star,
  question,
  bang,
  pipe,
  equals,
  minus
};

struct Token {
  Tok kind = Tok::end;
  std::string_view text;
  size_t offset = 0;
};

// "end of input", or the token quoted.
std::string describe(const Token& tok);

class Lexer {
public:
  explicit Lexer(std::string_view src) : src_(src) {}
  Token next();
  std::string_view source() const { return src_; }

private:
  char at(size_t i) const { return i < src_.size() ? src_[i] : '\0'; }
  size_t skip_digits(size_t i) const {
    while (i < src_.size() && is_digit(src_[i]))
      ++i;
    return i;
  }

  std::string_view src_;
  size_t pos_ = 0;
};

} // namespace opscan::schema
