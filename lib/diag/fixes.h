// Renders the fix-its of diagnostics as clang-tidy's --export-fixes file,
// the YAML clang-apply-replacements reads:
//
//   ---
//   MainSourceFile:  '/abs/src/k.cpp'
//   Diagnostics:
//     - DiagnosticName:  opscan-scan-unnamed-parameter
//       DiagnosticMessage:
//         Message:         'parameter 2 of ''f'' has no name: ...'
//         FilePath:        '/abs/src/k.cpp'
//         FileOffset:      120
//         Replacements:
//           - FilePath:        '/abs/src/k.cpp'
//             Offset:          131
//             Length:          0
//             ReplacementText: ' other'
//       Level:           Error
//       BuildDirectory:  '/abs/build'
//   ...
//
// written as clang-tidy 14 writes it (keys, order, and scalars quoted by
// LLVM's rules: plain when safe, single-quoted with '' for a quote, double-
// quoted with escapes when a line break, another control character or a
// non-ASCII byte is in them). Only diagnostics with fix-its are listed.
// A fix reached twice (a header's kernel seen from two scanned files, or one
// fix offered by several diagnostics) is listed once: a replacement already
// listed is left out of later diagnostics, and a diagnostic left with none
// is dropped. Paths are absolute.
#pragma once

#include "diag/diag.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace opscan::diag {

struct FixesOptions {
  // The translation unit the file is for: clang-tidy's MainSourceFile
  // (empty when there is none, e.g. a generation from IR files).
  std::string main_source_file;
  // Relative paths are relative to it (and it is each diagnostic's
  // BuildDirectory); empty: the current directory.
  std::filesystem::path working_dir;
};

std::string render_fixes(const Diagnostics& diags, const FixesOptions& options = {});

// A YAML scalar as LLVM's YAML writer spells it.
std::string yaml_scalar(std::string_view text);

} // namespace opscan::diag
