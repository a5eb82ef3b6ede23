#include "diag/diag.h"

#include <algorithm>
#include <tuple>

namespace opscan::diag {

bool has_errors(const Diagnostics& diags) {
  return std::any_of(diags.begin(), diags.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::error; });
}

void sort(Diagnostics& diags) {
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.location.file, a.location.offset, a.location.line, a.location.column, a.code,
                    a.message) < std::tie(b.location.file, b.location.offset, b.location.line,
                                          b.location.column, b.code, b.message);
  });
  diags.erase(std::unique(diags.begin(), diags.end()), diags.end());
}

const char* to_string(Severity severity) {
  switch (severity) {
  case Severity::note:
    return "note";
  case Severity::warning:
    return "warning";
  case Severity::error:
    return "error";
  }
  return "error";
}

} // namespace opscan::diag
