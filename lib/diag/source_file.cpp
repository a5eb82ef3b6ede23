// A source file's lines, for the renderers that show or measure them.
#include "diag/source_file.h"

#include "support/files.h"

#include <algorithm>

namespace opscan::diag {

std::string_view SourceFile::line(size_t n) const {
  const size_t start = line_starts[n - 1];
  const size_t end = n < line_starts.size() ? line_starts[n] - 1 : text.size();
  std::string_view line = std::string_view(text).substr(start, end - start);
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  return line;
}

std::optional<SourceFile> read_source(const std::string& path) {
  std::optional<std::string> text = support::read_file(path);
  if (!text)
    return std::nullopt;
  SourceFile file{std::move(*text), {0}};
  for (size_t i = 0; i < file.text.size(); ++i)
    if (file.text[i] == '\n')
      file.line_starts.push_back(i + 1);
  return file;
}

size_t code_points(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

} // namespace opscan::diag
