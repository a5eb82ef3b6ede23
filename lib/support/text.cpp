// UTF-8 checks and clipping of user text shown in messages.
#include "support/text.h"

#include <utility>

namespace opscan::support {

std::pair<size_t, bool> utf8_sequence(std::string_view s, size_t i) {
  auto lead = static_cast<unsigned char>(s[i]);
  size_t continuations;
  unsigned char low = 0x80, high = 0xBF; // the range of the next byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuations = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuations = 2;
    low = lead == 0xE0 ? 0xA0 : low;   // overlong
    high = lead == 0xED ? 0x9F : high; // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuations = 3;
    low = lead == 0xF0 ? 0x90 : low;   // overlong
    high = lead == 0xF4 ? 0x8F : high; // past U+10FFFF
  } else {
    return {1, false};
  }
  for (size_t n = 1; n <= continuations; ++n) {
    if (i + n >= s.size())
      return {n, false};
    auto c = static_cast<unsigned char>(s[i + n]);
    if (c < low || c > high)
      return {n, false};
    low = 0x80;
    high = 0xBF;
  }
  return {continuations + 1, true};
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

bool is_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    auto [length, valid] = utf8_sequence(text, i);
    if (!valid)
      return false;
    i += length;
  }
  return true;
}

std::string clipped(std::string_view text, size_t max) {
  constexpr std::string_view kEllipsis = "\u2026";
  if (text.size() <= max)
    return std::string(text);
  size_t end = max > kEllipsis.size() ? max - kEllipsis.size() : 0;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end; // not inside a character
  return std::string(text.substr(0, end)).append(kEllipsis);
}

std::string quoted(std::string_view text, size_t max) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  const bool clipped = text.size() > max;
  if (clipped)
    text = text.substr(0, max);
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      auto [length, valid] = utf8_sequence(text, i);
      if (valid || (clipped && i + length == text.size())) {
        // A sequence cut by the clipping is dropped, not shown as bytes.
        if (valid)
          out.append(text.substr(i, length));
      } else {
        for (size_t n = 0; n < length; ++n) {
          auto b = static_cast<unsigned char>(text[i + n]);
          out += "\\x";
          out += kHex[b >> 4];
          out += kHex[b & 15];
        }
      }
      i += length;
      continue;
    }
    switch (c) {
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\'':
      out += "\\'";
      break;
    default:
      if (c < 0x20 || c == 0x7f) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
    ++i;
  }
  out += clipped ? "...'" : "'";
  return out;
}

} // namespace opscan::support
