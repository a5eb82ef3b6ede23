// The Unicode side of identifiers: UTF-8 decoding with exact problems,
// names shown safely in messages, XID classes and NFC through ICU.
#include "ident/unicode.h"

#include "support/text.h"

#include <algorithm>
#include <cstdint>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

namespace opscan::ident {

namespace {

std::string hex(std::uint32_t value, int min_digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  while (value != 0 || static_cast<int>(out.size()) < min_digits) {
    out.insert(out.begin(), kDigits[value % 16]);
    value /= 16;
  }
  return out;
}

std::string byte_hex(unsigned char byte) {
  return "0x" + hex(byte, 2);
}

std::string code_point_label(UChar32 c) {
  return "U+" + hex(static_cast<std::uint32_t>(c), 4);
}

void append_utf8(std::string& out, UChar32 c) {
  support::append_utf8(out, static_cast<char32_t>(c));
}

bool is_mark(UChar32 c) {
  return (U_GET_GC_MASK(c) & U_GC_M_MASK) != 0;
}

// Shows a name inside quotes without letting bad bytes or invisible
// characters garble the message: raw bytes become \xHH; invisible and
// line-breaking characters, and a leading mark (which would combine with the
// opening quote), become \u{HHHH}.
std::string shown(std::string_view s) {
  std::string out;
  for (std::size_t pos = 0; pos < s.size();) {
    const Unit u = decode_at(s, pos);
    if (u.problem != Utf8Problem::none) {
      for (std::size_t i = 0; i < u.length; ++i) {
        out += "\\x" + hex(static_cast<unsigned char>(s[pos + i]), 2);
      }
    } else if (u.cp == ' ' ||
               (u_isprint(u.cp) && !u_isUWhiteSpace(u.cp) && !(pos == 0 && is_mark(u.cp)))) {
      out.append(s.substr(pos, u.length));
    } else {
      out += "\\u{" + hex(static_cast<std::uint32_t>(u.cp), 4) + "}";
    }
    pos += u.length;
  }
  return out;
}

} // namespace

std::string to_utf8(const std::vector<UChar32>& cps) {
  std::string out;
  for (UChar32 c : cps) {
    append_utf8(out, c);
  }
  return out;
}

// ---- UTF-8 decoding -------------------------------------------------------

// Decodes one sequence at `pos` following the table of well-formed byte
// sequences (Unicode 15, table 3-7), which rules out overlongs, surrogates
// and values above U+10FFFF by the range of the second byte.
Unit decode_at(std::string_view s, std::size_t pos) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  Unit u;
  u.offset = pos;
  const unsigned char lead = byte(pos);
  if (lead < 0x80) {
    u.cp = lead;
    return u;
  }
  if (lead < 0xC0) {
    u.problem = Utf8Problem::stray_continuation;
    return u;
  }
  if (lead < 0xC2) {
    u.problem = Utf8Problem::overlong_lead;
    return u;
  }
  if (lead > 0xF4) {
    u.problem = Utf8Problem::invalid_byte;
    return u;
  }
  const std::size_t trail = lead < 0xE0 ? 1 : lead < 0xF0 ? 2 : 3;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  Utf8Problem range_problem = Utf8Problem::none;
  switch (lead) {
  case 0xE0:
    lo = 0xA0;
    range_problem = Utf8Problem::overlong;
    break;
  case 0xED:
    hi = 0x9F;
    range_problem = Utf8Problem::surrogate;
    break;
  case 0xF0:
    lo = 0x90;
    range_problem = Utf8Problem::overlong;
    break;
  case 0xF4:
    hi = 0x8F;
    range_problem = Utf8Problem::too_large;
    break;
  default:
    break;
  }
  UChar32 cp = lead & (trail == 1 ? 0x1F : trail == 2 ? 0x0F : 0x07);
  for (std::size_t i = 1; i <= trail; ++i) {
    if (pos + i >= s.size()) {
      u.problem = Utf8Problem::truncated;
      u.length = i;
      return u;
    }
    const unsigned char c = byte(pos + i);
    if ((c & 0xC0) != 0x80) {
      u.problem = Utf8Problem::incomplete;
      u.length = i;
      return u;
    }
    if (i == 1 && (c < lo || c > hi)) {
      u.problem = range_problem;
      u.length = 1;
      return u;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  u.cp = cp;
  u.length = trail + 1;
  return u;
}

std::string describe_utf8_problem(std::string_view s, const Unit& u) {
  const std::string at = std::to_string(u.offset);
  const auto byte = static_cast<unsigned char>(s[u.offset]);
  switch (u.problem) {
  case Utf8Problem::stray_continuation:
    return "unexpected continuation byte " + byte_hex(byte) + " at byte " + at;
  case Utf8Problem::overlong_lead:
    return "byte " + byte_hex(byte) + " at byte " + at + " can only start an overlong encoding";
  case Utf8Problem::invalid_byte:
    return "byte " + byte_hex(byte) + " at byte " + at + " never occurs in UTF-8";
  case Utf8Problem::overlong:
    return "overlong encoding at byte " + at;
  case Utf8Problem::surrogate:
    return "encoded surrogate (U+D800..U+DFFF, not a character) at byte " + at;
  case Utf8Problem::too_large:
    return "code point above U+10FFFF at byte " + at;
  case Utf8Problem::truncated:
    return "the sequence starting at byte " + at + " is cut off by the end of the text";
  case Utf8Problem::incomplete: {
    const std::size_t next = u.offset + u.length;
    return "the sequence starting at byte " + at + " is missing continuation bytes (found " +
           byte_hex(static_cast<unsigned char>(s[next])) + " at byte " + std::to_string(next) + ")";
  }
  case Utf8Problem::none:
    break;
  }
  return "malformed sequence at byte " + at;
}

// Decodes the whole text; ill-formed sequences become U+FFFD, which is not
// an identifier character, so callers that only need a best effort can go on.
std::vector<UChar32> decode_lenient(std::string_view s) {
  std::vector<UChar32> out;
  for (std::size_t pos = 0; pos < s.size();) {
    const Unit u = decode_at(s, pos);
    out.push_back(u.problem == Utf8Problem::none ? u.cp : 0xFFFD);
    pos += u.length;
  }
  return out;
}

// ---- Display ---------------------------------------------------------------

std::string quoted(std::string_view s) {
  // Appending, not "'" + ...: GCC 12 at -O3 warns falsely (-Wrestrict) on that.
  std::string out = "'";
  out += shown(s);
  out += '\'';
  return out;
}

// "U+20AC '€'" for a visible character; the Unicode name instead for marks
// and invisible characters, whose glyph alone would not show.
std::string describe(UChar32 c) {
  std::string out = code_point_label(c);
  if (u_isgraph(c) && !is_mark(c)) {
    out += " '";
    append_utf8(out, c);
    out += "'";
    return out;
  }
  char name[128] = {};
  UErrorCode status = U_ZERO_ERROR;
  const int32_t length = u_charName(c, U_EXTENDED_CHAR_NAME, name, sizeof name, &status);
  if (U_SUCCESS(status) && length > 0) {
    out += " (" + std::string(name, static_cast<std::size_t>(length)) + ")";
  }
  return out;
}

// ---- Character classes and normalisation ----------------------------------

bool is_ascii_letter(UChar32 c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_ascii_digit(UChar32 c) {
  return c >= '0' && c <= '9';
}

// identifier-start: nondigit or XID_Start.
bool is_start(UChar32 c) {
  return c == '_' || is_ascii_letter(c) || u_hasBinaryProperty(c, UCHAR_XID_START);
}

// identifier-continue: digit, nondigit or XID_Continue.
bool is_continue(UChar32 c) {
  return c == '_' || is_ascii_letter(c) || is_ascii_digit(c) ||
         u_hasBinaryProperty(c, UCHAR_XID_CONTINUE);
}

const icu::Normalizer2* nfc_normalizer() {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  return U_SUCCESS(status) ? nfc : nullptr;
}

icu::UnicodeString to_icu(const std::vector<UChar32>& cps) {
  return icu::UnicodeString::fromUTF32(cps.data(), static_cast<int32_t>(cps.size()));
}

std::vector<UChar32> from_icu(const icu::UnicodeString& s) {
  std::vector<UChar32> out;
  for (int32_t i = 0; i < s.length(); i = s.moveIndex32(i, 1)) {
    out.push_back(s.char32At(i));
  }
  return out;
}

// Leaves the text unchanged when ICU cannot normalise it; the result is then
// checked again by the callers that need it to be NFC.
std::vector<UChar32> to_nfc(const std::vector<UChar32>& cps) {
  const icu::Normalizer2* nfc = nfc_normalizer();
  if (nfc == nullptr) {
    return cps;
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString normal = nfc->normalize(to_icu(cps), status);
  return U_SUCCESS(status) ? from_icu(normal) : cps;
}

std::string code_point_list(std::vector<UChar32>::const_iterator first,
                            std::vector<UChar32>::const_iterator last) {
  std::string out;
  for (auto it = first; it != last; ++it) {
    if (!out.empty())
      out += ' ';
    out += code_point_label(*it);
  }
  return out;
}

} // namespace opscan::ident
