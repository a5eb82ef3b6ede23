// What a command reports besides its outputs: its diagnostics in the form
// asked for (--format: text on stderr, or one JSON or SARIF document), and
// the fix-its among them as a clang-tidy fixes file (--export-fixes) that
// clang-apply-replacements applies. One set of diagnostics feeds them all,
// with the same codes.
#pragma once

#include "diag/diag.h"
#include "driver/driver.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::driver {

enum class Format { text, json, sarif };

struct ReportOptions {
  Format format = Format::text;
  std::string source_root;  // --srcroot: SARIF's %SRCROOT%; empty: the current directory
  std::string export_fixes; // --export-fixes; empty: none
};

// The JSON or SARIF document of a command's diagnostics (empty for text,
// which is printed as it comes). `source_files`, when set, are the only
// files read for columns and fingerprints (diag::SarifOptions).
std::string render_report(const diag::Diagnostics& diags, const ReportOptions& options,
                          const std::optional<std::set<std::string>>& source_files = {});

// Whether the fixes file `path` may be written, judged as every output is
// (check_outputs): not one of `inputs` (opscan-output-is-input), not one of
// the command's other `outputs` (opscan-output-twice); and whether its
// directory exists (opscan-io, a failure), so that a command does not write
// its other outputs and then fail on this one. Only problems with `path`
// are reported.
Outcome check_fixes_file(const std::string& path, const std::vector<RoleFile>& outputs,
                         const std::vector<RoleFile>& inputs);

// The fixes file `path`: the fix-its of `diags` in clang-tidy's format
// (diag::render_fixes; `main_source` is its MainSourceFile). Made even when
// `diags` has none, so no stale fixes file is left to apply. A command that
// writes outputs writes it with them, as their Companion, all or nothing.
Companion fixes_file(const diag::Diagnostics& diags, const std::string& path,
                     const std::string& main_source);

// Writes fixes_file(diags, path, main_source), after check_fixes_file: for
// a command that wrote no outputs.
Outcome write_fixes_file(const diag::Diagnostics& diags, const std::string& path,
                         const std::string& main_source, const std::vector<RoleFile>& outputs,
                         const std::vector<RoleFile>& inputs);

} // namespace opscan::driver
