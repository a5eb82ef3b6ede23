// libFuzzer target for the OPSCAN_KERNEL argument parser (lib/scan/
// annotation.h): whatever the bytes, parsing must not crash; an error lies
// within the text; a parsed annotation maps every byte of each field to the
// text byte (or escape) that spells it, and its fields, written back as
// literals, parse to the same annotation.
#include "fields.h"
#include "fuzz_check.h"
#include "kernel/annotation.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#define FUZZ_TARGET "annotation_fuzzer"

namespace {

using opscan::kernel::Annotation;
using opscan::kernel::parse_annotation;

const opscan::ir::Fields& test_fields() {
  return opscan::fuzz::builtin_fields();
}

// The byte a simple escape's letter stands for ('n' -> '\n').
char unescaped(char letter) {
  switch (letter) {
  case 'n':
    return '\n';
  case 't':
    return '\t';
  default:
    return letter;
  }
}

// `offsets` (of `value`, parsed from `text`, starting at `start`) say where
// each byte came from: increasing, inside the text, each at that byte or at
// the backslash of an escape spelling it, then the closing quote.
void check_field(const std::string& value, const std::vector<size_t>& offsets, size_t start,
                 bool given, std::string_view text) {
  if (!given) {
    FUZZ_CHECK(value.empty() && offsets.empty(), text);
    return;
  }
  FUZZ_CHECK(offsets.size() == value.size() + 1, text);
  FUZZ_CHECK(start >= 1 && start <= text.size() && text[start - 1] == '"', text);
  for (size_t i = 0; i < offsets.size(); ++i) {
    FUZZ_CHECK(offsets[i] < text.size(), text);
    FUZZ_CHECK(i == 0 || offsets[i - 1] < offsets[i], text);
    FUZZ_CHECK(Annotation::offset_in(offsets, start, i) == offsets[i], text);
  }
  FUZZ_CHECK(offsets.front() >= start, text);
  FUZZ_CHECK(text[offsets.back()] == '"', text);
  for (size_t i = 0; i < value.size(); ++i) {
    const char at = text[offsets[i]];
    if (at == '\\') {
      FUZZ_CHECK(offsets[i] + 1 < text.size() && unescaped(text[offsets[i] + 1]) == value[i], text);
    } else {
      FUZZ_CHECK(at == value[i], text);
    }
  }
  // Past the end, the end.
  FUZZ_CHECK(Annotation::offset_in(offsets, start, value.size() + 7) == offsets.back(), text);
}

std::string literal(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\\':
    case '"':
      out += '\\';
      out += c;
      break;
    default:
      out += c;
    }
  }
  out += '"';
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = parse_annotation(text, test_fields());
  FUZZ_CHECK(parsed.annotation.has_value() != parsed.error.has_value(), text);
  if (parsed.error) {
    FUZZ_CHECK(parsed.error->offset <= text.size(), text);
    FUZZ_CHECK(!parsed.error->message.empty(), text);
    return 0;
  }
  const Annotation& a = *parsed.annotation;
  check_field(a.spec, a.spec_offsets, a.spec_offset, true, text);
  for (size_t i = 0; i <= a.spec.size() + 1; ++i)
    FUZZ_CHECK(a.text_offset(i) < text.size(), text);
  for (const Annotation::Field& f : a.fields) {
    check_field(f.value, f.offsets, f.offset, true, text);
    // An empty value is refused, so a given field is non-empty.
    FUZZ_CHECK(!f.value.empty(), text);
  }

  // Written back in the other order, which must not matter.
  std::string again = literal(a.spec);
  for (auto f = a.fields.rbegin(); f != a.fields.rend(); ++f)
    again += (f == a.fields.rbegin() ? ", " : ",") + f->name + " = " + literal(f->value);
  const auto reparsed = parse_annotation(again, test_fields());
  if (!reparsed.annotation)
    opscan::fuzz::fail(FUZZ_TARGET, ("written back, does not parse: " + again).c_str(), text);
  FUZZ_CHECK(reparsed.annotation->spec == a.spec, text);
  FUZZ_CHECK(reparsed.annotation->values() == a.values(), text);
  return 0;
}
