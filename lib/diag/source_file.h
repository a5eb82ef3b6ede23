// A source file's text by lines, for renderers that show or measure the
// lines diagnostics point at (text, SARIF). Internal to lib/diag.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::diag {

struct SourceFile {
  std::string text;
  std::vector<size_t> line_starts; // line N starts at line_starts[N - 1]

  // Line n (1-based, at most line_starts.size()), without its line break.
  std::string_view line(size_t n) const;
};

// The file, when it is a regular file opscan may read (support::read_file).
std::optional<SourceFile> read_source(const std::string& path);

// How many Unicode characters `text` (UTF-8) holds: the bytes that do not
// continue a sequence.
size_t code_points(std::string_view text);

} // namespace opscan::diag
