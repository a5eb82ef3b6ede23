// The text of an OPSCAN_KERNEL annotation: its arguments as stringized by
// the preprocessor, e.g.  "aten::add.out", key = "v1/6;0,1"
#pragma once

#include "ir/fields.h"

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
  // name = "value": each field given, in the order written.
  struct Field {
    std::string name;            // as written: "key"
    std::string value;           // never empty
    size_t offset = 0;           // of the value's first character in the text
    std::vector<size_t> offsets; // like spec_offsets, for the value's bytes
    // The offset in the text of byte `i` of `value`.
    size_t text_offset(size_t i) const { return offset_in(offsets, offset, i); }
  };
  std::vector<Field> fields;

  // The offset in the text of byte `i` of `spec` (its end when past it).
  size_t text_offset(size_t i) const { return offset_in(spec_offsets, spec_offset, i); }
  // The field named `name`; null when not given.
  const Field* field(std::string_view name) const;
  // The value of the field named `name`; "" when not given.
  std::string_view value(std::string_view name) const;
  // Each field's name and value, sorted: what the annotation says,
  // however it is written.
  std::vector<std::pair<std::string, std::string>> values() const;
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
// simple escapes, and adjacent literals are concatenated. The fields are
// those `known` names (by their annotation names), each given once.
ParsedAnnotation parse_annotation(std::string_view text, const ir::Fields& known);

} // namespace opscan::kernel
