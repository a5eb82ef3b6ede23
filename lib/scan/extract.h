// Extraction: one parsed translation unit -> its kernels (an IR fragment)
// and the problems found on the way. Private to lib/scan: shared by batch
// scans and the editor's live files.
#pragma once

#include "diag/diag.h"
#include "ir/ir.h"
#include "scan/known_schemas.h"
#include "scan/scan.h"
#include "scan/signature.h"

#include <clang-c/Index.h>
#include <string>

namespace opscan::scan {

struct Extracted {
  ir::Module fragment; // the kernels annotated in the unit, and their sources' hashes
  diag::Diagnostics diagnostics;
};

// libclang's errors about a translation unit, and annotations it dropped.
diag::Diagnostics clang_errors(CXTranslationUnit tu);

// The annotated kernels of `tu` (`main_file` is its source), each checked
// against `known` (may be null) and `check_field`; libclang's errors first.
Extracted extract_kernels(CXTranslationUnit tu, const std::string& main_file,
                          const KnownSchemas* known, const FieldCheck& check_field);

// The functions declared at namespace scope in `main_file`, and its includes.
SourceSites sites_of(CXTranslationUnit tu, const std::string& main_file);

} // namespace opscan::scan
