// What every fuzz target uses to fail: checks that stay on in Release builds
// (no assert()) and abort, which libFuzzer reports as a crash and the replay
// test as a failure, with the input printed for the record.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace opscan::fuzz {

[[noreturn]] inline void fail(const char* target, const char* what, std::string_view input) {
  std::fprintf(stderr, "%s: %s\ninput: %.*s\n", target, what, static_cast<int>(input.size()),
               input.data());
  std::abort();
}

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or values
// above U+10FFFF): written here, not taken from lib/, so that a fuzz target
// does not check a library with the library's own decoder.
inline bool is_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto byte = [&](size_t at) { return static_cast<unsigned char>(text[at]); };
    const unsigned char lead = byte(i);
    size_t length = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (lead < 0x80)
      length = 1;
    else if (lead >= 0xC2 && lead <= 0xDF)
      length = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      lo = lead == 0xE0 ? 0xA0 : 0x80;
      hi = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      lo = lead == 0xF0 ? 0x90 : 0x80;
      hi = lead == 0xF4 ? 0x8F : 0xBF;
    } else
      return false;
    if (i + length > text.size())
      return false;
    for (size_t k = 1; k < length; ++k) {
      const unsigned char c = byte(i + k);
      if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF))
        return false;
    }
    i += length;
  }
  return true;
}

} // namespace opscan::fuzz

// FUZZ_TARGET names the target in messages; each fuzzer defines it.
#define FUZZ_CHECK(cond, input)                                                                    \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      ::opscan::fuzz::fail(FUZZ_TARGET, "check failed: " #cond, input);                            \
  } while (0)
