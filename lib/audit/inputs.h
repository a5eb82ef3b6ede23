// What `opscan diff` and `opscan report` read: IR files, or directories of
// generated libraries, grouped into libraries by the name their record
// gives (scan output, with no record, is one unnamed library).
#pragma once

#include "diag/diag.h"
#include "ir/ir.h"
#include "ir/json.h"

#include <optional>
#include <string>
#include <vector>

namespace opscan::audit {

// The IR files `path` names: the file itself; or, for a directory, every
// `<path>/*/ir.json` (what `opscan generate -o DIR` writes) and
// `<path>/ir.json` (one library's own directory), sorted. Errors:
//   opscan-io           `path` is missing or its directory cannot be listed
//   opscan-audit-no-ir  a directory holds no IR file
// Files are not read here (driver::read_irs reads and validates them).
struct Expanded {
  std::vector<std::string> files;
  diag::Diagnostics diagnostics;
};
Expanded ir_files_of(const std::string& path);

// One library as the audit sees it: its record (none for scan output), its
// kernels and the first IR file that gave them.
struct Library {
  std::string name; // "" for scan output (fragments)
  std::optional<ir::LibraryInfo> info;
  std::vector<ir::Kernel> kernels; // canonical order
  std::string path;
  diag::Location record; // where its record is in that file (the file, for fragments)
};

// The display name of a library in messages and reports: its name, or
// "(scan output)" for fragments.
std::string display_name(const std::string& library);

// The libraries `inputs` hold, by name. Fragments are merged into one
// unnamed library (ir::merge's errors apply); two library IRs with one name
// are an error (opscan-duplicate-library, at the second's library.name).
struct Libraries {
  std::vector<Library> libraries; // sorted by name
  diag::Diagnostics diagnostics;
};
Libraries group_libraries(const std::vector<ir::File>& inputs, const ir::Fields& fields);

} // namespace opscan::audit
