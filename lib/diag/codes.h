// The diagnostic codes opscan reports, each documented on one page
// (docs/diagnostics.md) that editors and SARIF viewers link to.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opscan::diag {

struct CodeInfo {
  std::string_view code;    // "opscan-schema-out-suffix"
  std::string_view summary; // one line: what the problem is
};

// Every code, sorted by code. A code made of a family prefix and a rule
// name (opscan-schema-*) is listed whole.
const std::vector<CodeInfo>& all_codes();

// The code's entry, or null for a code opscan does not report.
const CodeInfo* find_code(std::string_view code);

// Where the diagnostics page is: OPSCAN_DOCS_URL at build time (by default
// the page in opscan's source tree, as a file: URI).
std::string_view docs_url();

// The link to `code`'s entry on the page: docs_url() + "#" + code (each
// entry's heading is its code, so that is its anchor).
std::string help_url(std::string_view code);

} // namespace opscan::diag
