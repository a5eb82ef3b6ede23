// Renders diagnostics as text, the way clang does:
//   file:line:col: error: message [code]
//     source line
//          ^
#pragma once

#include "diag/diag.h"

#include <string>

namespace opscan::diag {

struct TextOptions {
  bool color = false;      // ANSI colours, for terminals
  bool show_source = true; // source line and caret, read from the file
};

std::string render_text(const Diagnostics& diags, const TextOptions& options = {});

} // namespace opscan::diag
