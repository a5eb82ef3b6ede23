// Moving a kernel library from ExecuTorch's YAML to opscan: the edits that
// put an OPSCAN_KERNEL annotation at each kernel a functions.yaml (or
// custom_ops.yaml) names, and what could not be placed. A kernel without
// arg_meta gets a name-only annotation; one with arg_meta gets its kernel key
// (migrate/kernel_keys.h) when it has exactly one. Pure: the
// functions are located by scan::locate_functions, the files read here,
// nothing written.
//
// A YAML kernel_name "ns::name" is the C++ function ns::native::name, as
// ExecuTorch's generator reads it ("at" when it names no namespace); of
// overloads, the one it calls: the first taking a KernelRuntimeContext&.
//
// Diagnostic codes:
//   opscan-import-operator   (error) an op or func that does not name an operator
//   opscan-import-not-found  (warning) no function of that name in the files given
//   opscan-import-macro      (warning) the function is declared by a macro
//                            call that declares something else first (a
//                            call that begins with it is annotated above)
//   opscan-import-keyed      (warning) a dtype-specialised kernel with several
//                            kernel keys (a type alias of several dtypes): an
//                            opscan kernel is one function with one key
//   opscan-import-arg-meta   (warning) an arg_meta no key derives from
//                            (migrate/kernel_keys.h)
//   opscan-import-shared     (warning) one function named for two operators
//   opscan-import-no-kernels (warning) an entry that names no kernel
//   opscan-import-annotated  (note) already annotated: left as it is
#pragma once

#include "diag/diag.h"
#include "scan/scan.h"
#include "yaml/operator_yaml.h"

#include <string>
#include <vector>

namespace opscan::migrate {

struct FileEdit {
  std::string path;
  std::string content;    // the whole new content
  size_t annotations = 0; // annotations inserted
};

struct ImportPlan {
  std::vector<FileEdit> edits; // files that change, in the order given
  diag::Diagnostics diagnostics;
  size_t placed = 0;     // kernels annotated
  size_t annotated = 0;  // kernels annotated already (left as they are)
  size_t not_placed = 0; // kernels reported instead
};

// Each kernel of `entries` is annotated at the first declaration of its
// function in `sites`, on a line of its own above it, indented like it (or
// just before it when its line starts with other code); above the macro
// call when a macro call declares it first; a function with an annotation
// is left alone. A file gains #include <opscan/annotations.h>
// after its last #include unless it includes it already.
ImportPlan plan_import(const std::vector<yaml::Entry>& entries,
                       const std::vector<scan::SourceSites>& sites);

} // namespace opscan::migrate
