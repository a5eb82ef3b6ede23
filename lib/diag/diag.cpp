// Making, sorting and capping diagnostics.
#include "diag/diag.h"

#include "support/text.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace opscan::diag {

namespace {

Diagnostic make(Severity severity, std::string code, Location where, std::string message) {
  if (message.size() > kMaxMessageBytes)
    message = support::clipped(message, kMaxMessageBytes);
  return {severity, std::move(code), std::move(message), std::move(where), {}, {}};
}

} // namespace

Diagnostic make_error(std::string code, Location where, std::string message) {
  return make(Severity::error, std::move(code), std::move(where), std::move(message));
}
Diagnostic make_warning(std::string code, Location where, std::string message) {
  return make(Severity::warning, std::move(code), std::move(where), std::move(message));
}
Diagnostic make_note(std::string code, Location where, std::string message) {
  return make(Severity::note, std::move(code), std::move(where), std::move(message));
}

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

Diagnostics capped(Diagnostics diags, size_t shown, const std::string& note_code) {
  std::map<std::string, size_t> seen;
  std::map<std::string, Location> first_left_out;
  Diagnostics out;
  for (Diagnostic& d : diags) {
    if (++seen[d.code] <= shown)
      out.push_back(std::move(d));
    else
      first_left_out.try_emplace(d.code, d.location);
  }
  for (const auto& [code, where] : first_left_out) {
    out.push_back(make_note(note_code, where,
                            std::to_string(seen[code] - shown) + " more " + code +
                                " like those above are not shown, from here on"));
  }
  return out;
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
