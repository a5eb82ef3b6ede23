// The forms of `opscan diff`'s report. Every form lists the same changes,
// in DiffResult's order, and marks the allowed ones with their reason.
#pragma once

#include "audit/diff.h"

#include <string>

namespace opscan::audit {

// For people, on a terminal: a summary line, then per library and operator
// the changes, breaking first, each with the file:line of the new kernel
// (of the old one when the change removed it).
std::string render_text(const DiffResult& result);

// One JSON document (version 1):
//   {"version": 1, "breaking": N, "compatible": N, "allowed": N,
//    "changes": [{"library", "operator", "change", "compatibility",
//                 "argument", "position", "message", "old", "new", "allowed"}]}
// "breaking" counts every breaking change, allowed ones too; "allowed" those
// an allow-list entry allows. "library" is "" for scan output, "operator"
// "" for a library-level change, "argument" and "position" null when no
// argument or return is concerned. "old" and "new" are null or
// {"library", "value", "file", "line", "column"} (file and line of the
// kernel, or of the IR file for library-level changes: line 0 when not
// known); "allowed" is null or {"reason", "expires"}.
std::string render_json(const DiffResult& result);

// For a pull-request comment: a summary line and a table (compatibility,
// library, operator, change, details, location), breaking changes first.
// Cells are escaped: no input can break the table or inject markup.
std::string render_markdown(const DiffResult& result);

// `text` made safe for a Markdown table cell: '|' and '`' escaped, '<',
// '>' and '&' as entities, line breaks as spaces.
std::string markdown_cell(std::string_view text);

// `text` as code in a Markdown table cell (markdown_cell's escaping when it
// holds a backtick or a line break, which code spans cannot).
std::string markdown_code(std::string_view text);

} // namespace opscan::audit
