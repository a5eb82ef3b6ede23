// Renders diagnostics as text, the way clang does:
//   file:line:col: error: message [code]
//     source line
//          ^
#pragma once

#include "diag/diag.h"

#include <optional>
#include <set>
#include <string>

namespace opscan::diag {

struct TextOptions {
  bool color = false;      // ANSI colours, for terminals
  bool show_source = true; // source line and caret, read from the file
  // When set, source lines are read from these files only: locations that
  // came from an input file (an IR names any path) must not make opscan
  // print lines of other files.
  std::optional<std::set<std::string>> source_files;
};

std::string render_text(const Diagnostics& diags, const TextOptions& options = {});

} // namespace opscan::diag
