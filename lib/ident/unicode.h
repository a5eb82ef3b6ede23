// Private to ident: UTF-8 decoding, the display of names in messages, the
// identifier character classes and NFC (ident/unicode.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unicode/normalizer2.h>
#include <unicode/umachine.h>
#include <unicode/unistr.h>
#include <vector>

namespace opscan::ident {

enum class Utf8Problem {
  none,
  stray_continuation, // 80..BF where a sequence should start
  overlong_lead,      // C0, C1: can only encode ASCII, overlong
  invalid_byte,       // F5..FF: never in UTF-8
  overlong,           // E0 80..9F, F0 80..8F
  surrogate,          // ED A0..BF
  too_large,          // F4 90..BF: above U+10FFFF
  truncated,          // the text ends inside a sequence
  incomplete,         // a non-continuation byte inside a sequence
};

// One decoded sequence of a text.
struct Unit {
  UChar32 cp = 0;
  std::size_t offset = 0;
  std::size_t length = 1; // on a problem: the bytes to skip (the maximal subpart)
  Utf8Problem problem = Utf8Problem::none;
};

// Decodes one sequence at `pos` following the table of well-formed byte
// sequences (Unicode 15, table 3-7).
Unit decode_at(std::string_view s, std::size_t pos);
// What is wrong with the sequence `u` of `s`, for a message.
std::string describe_utf8_problem(std::string_view s, const Unit& u);
// Decodes the whole text; ill-formed sequences become U+FFFD, which is not
// an identifier character, so callers that only need a best effort can go on.
std::vector<UChar32> decode_lenient(std::string_view s);
std::string to_utf8(const std::vector<UChar32>& cps);

// A name in single quotes, bad bytes and invisible characters escaped.
std::string quoted(std::string_view s);
// "U+20AC '€'", or the Unicode name for marks and invisible characters.
std::string describe(UChar32 c);
// "U+0065 U+0301": the code points of [first, last).
std::string code_point_list(std::vector<UChar32>::const_iterator first,
                            std::vector<UChar32>::const_iterator last);

bool is_ascii_letter(UChar32 c);
bool is_ascii_digit(UChar32 c);
// identifier-start: nondigit or XID_Start.
bool is_start(UChar32 c);
// identifier-continue: digit, nondigit or XID_Continue.
bool is_continue(UChar32 c);

// ICU's NFC normaliser; null when its data is unavailable.
const icu::Normalizer2* nfc_normalizer();
icu::UnicodeString to_icu(const std::vector<UChar32>& cps);
std::vector<UChar32> from_icu(const icu::UnicodeString& s);
// The NFC form; the text unchanged when ICU cannot normalise it.
std::vector<UChar32> to_nfc(const std::vector<UChar32>& cps);

} // namespace opscan::ident
