// What the build's libraries (workspace.h) say of an analysed document:
// the library that holds its file, the kernels of libraries that make one
// of its kernels' claims elsewhere (driver::check_libraries' claims; in the
// document's own library a duplicate, in another an overlap no program can
// link), and the library IRs left out because they are invalid. Findings
// are diag::Diagnostics; the analysis makes them LSP's (diagnostics.h).
#pragma once

#include "diag/diag.h"
#include "ir/ir.h"
#include "lsp/workspace.h"

#include <functional>
#include <string>
#include <vector>

namespace opscan::lsp {

// Whether a path (of the analysis, or made absolute in a library) is the
// document's file.
using IsDocument = std::function<bool(const std::string& path)>;

// The generated library whose sources include the document.
struct LibraryContext {
  std::string library;      // "" when no generated library holds the file
  std::string registration; // its registration function, "" when static
  std::string target;       // "" when no generated library holds the file
};
LibraryContext library_of(const BuiltLibraries& built, const std::string& database,
                          const IsDocument& here);

// For each of `kernels` (the document's), the kernels of each library that
// make one of its claims in other files than the document (as the library
// was built): opscan-duplicate-kernel (an error) within `library`, the
// document's own, else opscan-library-overlap (a warning); at most a few
// for a kernel and library, the last saying there are more.
diag::Diagnostics claimed_elsewhere(const std::vector<const ir::Kernel*>& kernels,
                                    const BuiltLibraries& built, const std::string& library,
                                    const IsDocument& here);

// One warning for each library IR the build has that could not be used,
// with its problems as notes (located in the IR).
diag::Diagnostics refused_libraries(const BuiltLibraries& built);

} // namespace opscan::lsp
