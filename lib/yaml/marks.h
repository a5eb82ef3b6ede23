// Private to lib/yaml: where yaml-cpp's marks are, as diagnostics count.
#pragma once

#include "diag/diag.h"

#include <string>
#include <string_view>
#include <yaml-cpp/mark.h>

namespace opscan::yaml {

// yaml-cpp counts positions after a byte-order mark; diagnostics count bytes
// of the file.
inline size_t bom_size(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
}

inline diag::Location location(const YAML::Mark& mark, const std::string& path, size_t bom) {
  if (mark.is_null() || mark.pos < 0 || mark.line < 0 || mark.column < 0)
    return {path, 1, 1, 0};
  const auto column = static_cast<uint32_t>(mark.column + 1 + (mark.line == 0 ? bom : 0));
  return {path, static_cast<uint32_t>(mark.line) + 1, column,
          static_cast<uint32_t>(static_cast<size_t>(mark.pos) + bom)};
}

} // namespace opscan::yaml
