// The text of an OPSCAN_KERNEL annotation: its arguments as stringized by
// the preprocessor, e.g.  "aten::add.out", key = "v1/6;0,1"
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace opscan::scan {

// Prefix of the annotate attribute's string that marks an opscan kernel.
inline constexpr std::string_view kKernelAnnotationPrefix = "opscan:kernel:";

struct Annotation {
  std::string spec;          // operator name or full schema
  size_t spec_offset = 0;    // byte offset of the spec's first character in the text
  std::string kernel_key;    // key = "..."
  std::string dispatch_key;  // dispatch = "..."
};

struct AnnotationError {
  size_t offset = 0;  // in the text
  std::string message;
};

struct ParsedAnnotation {
  std::optional<Annotation> annotation;
  std::optional<AnnotationError> error;
};

// Parses the text after kKernelAnnotationPrefix.
ParsedAnnotation parse_annotation(std::string_view text);

}  // namespace opscan::scan
