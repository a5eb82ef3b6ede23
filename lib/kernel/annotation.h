// The text of an OPSCAN_KERNEL annotation: its arguments as stringized by
// the preprocessor, e.g.  "aten::add.out", key = "v1/6;0,1"
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::kernel {

// Prefix of the annotate attribute's string that marks an opscan kernel.
inline constexpr std::string_view kKernelAnnotationPrefix = "opscan:kernel:";

struct Annotation {
  std::string spec;       // operator name or full schema
  size_t spec_offset = 0; // byte offset of the spec's first character in the text
  // Byte offset in the text of each byte of `spec`, plus one for its end: the
  // spec may contain escapes or be split into adjacent literals
  // ("t::" "add.out", as macros write it).
  std::vector<size_t> spec_offsets;
  std::string kernel_key;     // key = "..."
  std::string dispatch_key;   // dispatch = "..."
  size_t key_offset = 0;      // of the key's first character in the text
  size_t dispatch_offset = 0; // of the dispatch key's first character
  // Like spec_offsets, for the key's and the dispatch key's bytes.
  std::vector<size_t> key_offsets;
  std::vector<size_t> dispatch_offsets;

  // The offset in the text of byte `i` of `spec` (its end when past it).
  size_t text_offset(size_t i) const { return offset_in(spec_offsets, spec_offset, i); }
  // The same for byte `i` of a field's value, given its offsets and start.
  static size_t offset_in(const std::vector<size_t>& offsets, size_t start, size_t i) {
    if (offsets.empty())
      return start + i;
    return offsets[std::min(i, offsets.size() - 1)];
  }
};

struct AnnotationError {
  size_t offset = 0; // in the text
  std::string message;
};

struct ParsedAnnotation {
  std::optional<Annotation> annotation;
  std::optional<AnnotationError> error;
};

// Parses the text after kKernelAnnotationPrefix. String literals follow C:
// simple escapes, and adjacent literals are concatenated. Each field may be
// given once.
ParsedAnnotation parse_annotation(std::string_view text);

} // namespace opscan::kernel
