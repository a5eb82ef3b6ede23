// A file of known operator schemas: one per line as PyTorch prints them (for
// instance every schema a libtorch registers), or an operator YAML file
// (PyTorch's native_functions.yaml, ExecuTorch's functions.yaml and
// custom_ops.yaml). Kernels annotated with only an operator name are checked
// against the operator's known schema.
#pragma once

#include "diag/diag.h"
#include "schema/schema.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opscan::kernel {

struct KnownSchema {
  schema::Schema schema;
  diag::Location where; // its line in the file, or its name under autogen:
};

using KnownSchemas = std::map<schema::OperatorName, KnownSchema>;

// Reads `path`. It is operator YAML when named *.yaml or *.yml, or when its
// first character that is not blank or in a '#' comment line is '-', '[',
// '{' or '%' (no schema starts so); otherwise a list of schemas.
//
// A list: blank lines and lines starting with '#' are skipped.
// YAML: each entry's `func` (namespace "aten" when it names none), and the
// variants its `autogen` names, derived as torchgen derives them
// (schema/autogen.h); an operator written out wins over a derived one.
// ExecuTorch's `op` entries name operators without schemas: nothing to know.
//
// Either way schemas outside the operator grammar (PyTorch registers some
// with generic types such as "t" or "Dict(str, t)") and autogen names that
// cannot be derived are skipped, reported together in one note. Nullopt
// with an error when the file cannot be read or is not operator YAML.
std::optional<KnownSchemas> load_known_schemas(const std::string& path, diag::Diagnostics& diags);

// Reads every file of `paths` (as above) into one set: a library's
// operators may be spread over several (native_functions.yaml for aten's,
// functions.yaml or custom_ops.yaml for its own). An operator two files
// give the same schema is known at the first; two different schemas are an
// error at the later one naming both places (opscan-known-schemas-conflict;
// the first 20, then a note counting the rest). Nullopt with the errors
// when a file cannot be read or files disagree.
std::optional<KnownSchemas> load_known_schemas(const std::vector<std::string>& paths,
                                               diag::Diagnostics& diags);

} // namespace opscan::kernel
