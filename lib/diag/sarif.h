// Renders diagnostics as a SARIF 2.1.0 log (`--format sarif`), the format
// code scanning services (GitHub's among them) and SARIF viewers read.
//
// One run of the tool "opscan", with one rule per code the diagnostics use
// (its summary, and help_url as helpUri). Each diagnostic is a result at its
// location, its notes related locations, its fix-its one fix. Paths inside
// the source root are relative URIs against the base id %SRCROOT% (given in
// originalUriBaseIds), so a log is the same wherever the checkout lives;
// paths outside it are absolute file: URIs.
//
// Each result carries partialFingerprints["opscanFingerprint/v1"]: the
// SHA-256 of its code, its URI, the text of its source line without
// surrounding blanks, and its message; so a result keeps its fingerprint
// when lines are inserted or removed above it, and services can tell new
// problems from old ones.
#pragma once

#include "diag/diag.h"

#include <filesystem>
#include <optional>
#include <set>
#include <string>

namespace opscan::diag {

struct SarifOptions {
  // The directory %SRCROOT% stands for. Relative paths (here, and in the
  // diagnostics) are taken relative to working_dir.
  std::filesystem::path source_root = ".";
  // Empty: the current directory.
  std::filesystem::path working_dir;
  // When set, only these files are read (for columns and fingerprints), as
  // TextOptions::source_files: an IR file may name any path.
  std::optional<std::set<std::string>> source_files;
};

// The log, indented, ending in a newline.
std::string render_sarif(const Diagnostics& diags, const SarifOptions& options = {});

// `path` as a URI reference: bytes other than unreserved characters and '/'
// percent-encoded (RFC 3986).
std::string uri_path(std::string_view path);

} // namespace opscan::diag
