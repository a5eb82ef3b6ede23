// A file of known operator schemas, one per line as PyTorch prints them (for
// instance every schema a libtorch registers). Kernels annotated with only
// an operator name are checked against the operator's known schema.
#pragma once

#include "diag/diag.h"
#include "schema/schema.h"

#include <map>
#include <optional>
#include <string>

namespace opscan::scan {

struct KnownSchema {
  schema::Schema schema;
  diag::Location where; // its line in the file
};

using KnownSchemas = std::map<schema::OperatorName, KnownSchema>;

// Reads `path`. Blank lines and lines starting with '#' are skipped; so are
// schemas outside the operator grammar (PyTorch registers some with generic
// types such as "t" or "Dict(str, t)"), reported together in one note.
// Nullopt with an error when the file cannot be read.
std::optional<KnownSchemas> load_known_schemas(const std::string& path, diag::Diagnostics& diags);

} // namespace opscan::scan
