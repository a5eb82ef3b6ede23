// libFuzzer target for the language server's input side: the framing of
// messages (lib/lsp/protocol.h) and positions in documents
// (lib/lsp/document.h). The input is the byte stream a client would send;
// its first byte sets how many bytes each read returns. Whatever the bytes:
// no crash, no hang; every message read is a body of exactly its
// Content-Length, never above the limit; and in every body read as a
// document's text, each position maps to an offset in it that maps back to
// the same position, in both encodings.
#include "fuzz_check.h"
#include "lsp/document.h"
#include "lsp/protocol.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#define FUZZ_TARGET "lsp_fuzzer"

namespace {

using namespace opscan::lsp;

void check_positions(std::string_view text, std::string_view input) {
  const LineIndex lines(text);
  for (Encoding encoding : {Encoding::utf16, Encoding::utf8}) {
    for (size_t offset = 0; offset <= text.size(); ++offset) {
      const Position p = lines.position(text, offset, encoding);
      const size_t back = lines.offset(text, p, encoding);
      // An offset inside a character maps to the character's end; one at a
      // character boundary (or a line's CR) comes back as itself.
      FUZZ_CHECK(back <= text.size(), input);
      FUZZ_CHECK(lines.position(text, back, encoding) == p || back < offset, input);
    }
    // Positions past a line's end or past the last line are clamped.
    FUZZ_CHECK(lines.offset(text, {static_cast<uint32_t>(lines.lines()), 0}, encoding) ==
                   text.size(),
               input);
  }
  Document document("file:///f", "/f", 1, std::string(text));
  document.apply({{Range{{0, 1}, {1, 0}}, "x"}, {std::nullopt, std::string(text.substr(0, 8))}}, 2,
                 Encoding::utf16);
  FUZZ_CHECK(document.text() == text.substr(0, 8), input);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty())
    return 0;
  const size_t chunk = static_cast<unsigned char>(input[0]) % 7 + 1;
  std::string_view rest = input.substr(1);
  FrameReader reader([&](char* buffer, size_t max) {
    const size_t n = std::min({chunk, max, rest.size()});
    std::memcpy(buffer, rest.data(), n);
    rest.remove_prefix(n);
    return n;
  });
  // Each call consumes input or ends it: at most one call per byte, plus one.
  for (size_t calls = 0;; ++calls) {
    FUZZ_CHECK(calls <= size + 1, input);
    Frame frame = reader.next();
    if (frame.body) {
      FUZZ_CHECK(frame.body->size() <= kMaxMessageBytes, input);
      FUZZ_CHECK(frame.error.empty(), input);
      check_positions(*frame.body, input);
    }
    if (frame.end)
      break;
  }
  (void)path_of_uri(input.substr(1));
  return 0;
}
