#include "scan/clang.h"

#include <algorithm>

namespace opscan::scan {
namespace {

// The named scopes of a declaration, outermost first, each with whether it
// is an inline namespace. libclang 14 shows a linkage specification
// (extern "C" { ... }) as an unnamed UnexposedDecl: not a scope of names.
std::vector<std::pair<std::string, bool>> scopes(CXCursor decl) {
  std::vector<std::pair<std::string, bool>> parts;
  for (CXCursor c = decl; !clang_Cursor_isNull(c); c = clang_getCursorSemanticParent(c)) {
    CXCursorKind kind = clang_getCursorKind(c);
    if (kind == CXCursor_TranslationUnit || clang_isInvalid(kind))
      break;
    if (kind == CXCursor_LinkageSpec || kind == CXCursor_UnexposedDecl)
      continue;
    std::string name = spelling(c);
    const bool is_inline = kind == CXCursor_Namespace && clang_Cursor_isInlineNamespace(c);
    parts.emplace_back(name.empty() ? "(anonymous namespace)" : std::move(name), is_inline);
  }
  std::reverse(parts.begin(), parts.end());
  return parts;
}

} // namespace

QualifiedName qualified_name(CXCursor decl) {
  QualifiedName out;
  for (const auto& [part, is_inline] : scopes(decl)) {
    out.name += (out.name.empty() ? "" : "::") + part;
    if (is_inline)
      out.inline_namespaces.push_back(out.name);
  }
  return out;
}

std::string type_name(CXCursor decl) {
  std::string name;
  for (const auto& [part, is_inline] : scopes(decl)) {
    if (!is_inline)
      name += (name.empty() ? "" : "::") + part;
  }
  return name;
}

} // namespace opscan::scan
