// Small RAII and string helpers over libclang's C API, private to lib/scan.
#pragma once

#include "diag/diag.h"

#include <clang-c/Index.h>
#include <string>

namespace opscan::scan {

inline std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string result = c ? c : "";
  clang_disposeString(s);
  return result;
}

inline std::string spelling(CXCursor c) {
  return take(clang_getCursorSpelling(c));
}
inline std::string spelling(CXType t) {
  return take(clang_getTypeSpelling(t));
}

// Where a cursor is, after macro expansion: a declaration written by a macro
// is where the macro was used.
inline diag::Location location_of(CXSourceLocation where) {
  CXFile file;
  unsigned line = 0, column = 0, offset = 0;
  clang_getExpansionLocation(where, &file, &line, &column, &offset);
  return {file ? take(clang_getFileName(file)) : std::string(), line, column, offset};
}

// "ns::inner::name", skipping inline namespaces (std::__1, std::__cxx11) so
// names match across standard libraries.
std::string qualified_name(CXCursor decl);

} // namespace opscan::scan
