// User text shown in messages.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace opscan::support {

// `text` in single quotes for a message: control characters, quotes'
// backslashes and bytes that are not UTF-8 are spelled as escapes (\n, \x01),
// and anything past `max` bytes is cut ("..."), so no input can garble or
// flood a message.
std::string quoted(std::string_view text, size_t max = 64);

// `text` cut to at most `max` bytes (at least 4), at a UTF-8 character
// boundary, ending in "…" when cut: a message or an echoed line must not
// grow with hostile input.
std::string clipped(std::string_view text, size_t max);

// Appends code point `c` (at most U+10FFFF) as UTF-8.
void append_utf8(std::string& out, char32_t c);

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code
// points past U+10FFFF).
bool is_utf8(std::string_view text);

// The length of the UTF-8 sequence at text[i] (a byte >= 0x80) and whether
// it is well formed. An ill-formed one's length is that of its longest
// well-formed prefix, at least 1: the bytes one U+FFFD replaces.
std::pair<size_t, bool> utf8_sequence(std::string_view text, size_t i);

} // namespace opscan::support
