// Renders diagnostics as JSON, for programs that read opscan's results
// (`--format json`). The form is stable; a change that removes or renames a
// field bumps "version":
//
//   {"version": 1,
//    "diagnostics": [
//      {"code": "opscan-mismatch-type", "severity": "error", "message": "...",
//       "location": {"file": "k.cpp", "line": 3, "column": 9, "offset": 40},
//       "notes": [{"message": "...", "location": {...}}],
//       "fixes": [{"file": "k.cpp", "offset": 12, "length": 5, "replacement": "..."}],
//       "help": "<docs/diagnostics.md URL>#opscan-mismatch-type"}]}
//
// severity is "error", "warning" or "note". A location is null when the
// problem has no place in a file (a usage error); line and column are
// 1-based, a line of 0 means the whole file and a column of 0 the whole
// line; the column and the offset count bytes. Paths are as opscan shows
// them (relative to the current directory when inside it).
#pragma once

#include "diag/diag.h"

#include <string>

namespace opscan::diag {

inline constexpr int kJsonFormatVersion = 1;

// The document, indented, ending in a newline.
std::string render_json(const Diagnostics& diags);

} // namespace opscan::diag
