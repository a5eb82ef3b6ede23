// What a translation unit's headers make of the runtime names generated code
// spells (ir::Module::aliases).
#include "scan/clang.h"
#include "scan/extract.h"

#include <array>
#include <map>
#include <string>
#include <string_view>

namespace opscan::scan {
namespace {

// The names whose meaning changed between versions of a runtime's headers
// while generated code spells them the same: libtorch 1.13 defines
// c10::optional and c10::basic_string_view itself; later versions make
// c10::optional std::optional and c10::string_view std::string_view.
struct HeaderName {
  std::string_view scope; // the enclosing namespace, outermost first
  std::string_view name;
};
constexpr std::array<HeaderName, 2> kHeaderNames = {{
    {"c10", "optional"},
    {"c10", "string_view"},
}};

// The type or template that `decl`, an alias of one, denotes; empty when
// `decl` is no alias (a class or enum defined under the name denotes itself).
std::string denoted(CXCursor decl) {
  switch (clang_getCursorKind(decl)) {
  case CXCursor_TypedefDecl:
  case CXCursor_TypeAliasDecl:
    return spelling(clang_getCanonicalType(clang_getTypedefDeclUnderlyingType(decl)));
  case CXCursor_TypeAliasTemplateDecl: {
    // template <class T> using optional = std::optional<T>: the template
    // the aliased type instantiates.
    std::string name;
    clang_visitChildren(
        decl,
        [](CXCursor child, CXCursor, void* out) {
          if (clang_getCursorKind(child) != CXCursor_TypeAliasDecl)
            return CXChildVisit_Continue;
          const CXCursor of = clang_getTypeDeclaration(clang_getTypedefDeclUnderlyingType(child));
          if (!clang_Cursor_isNull(of))
            *static_cast<std::string*>(out) = type_name(of);
          return CXChildVisit_Break;
        },
        &name);
    return name;
  }
  case CXCursor_UsingDeclaration: {
    // using std::optional: the declaration it brings in (a using
    // declaration refers to a set of them; a type's set has one).
    CXCursor target = clang_getCursorReferenced(decl);
    if (clang_getCursorKind(target) == CXCursor_OverloadedDeclRef)
      target = clang_getNumOverloadedDecls(target) > 0 ? clang_getOverloadedDecl(target, 0)
                                                       : clang_getNullCursor();
    return clang_Cursor_isNull(target) ? std::string() : type_name(target);
  }
  default:
    return {};
  }
}

struct Search {
  std::string scope; // of the namespace being visited: "" at the top
  std::map<std::string, std::string>* found;
};

CXChildVisitResult visit(CXCursor cursor, CXCursor, void* data) {
  Search& search = *static_cast<Search*>(data);
  const CXCursorKind kind = clang_getCursorKind(cursor);
  if (kind == CXCursor_Namespace) {
    const std::string inner = (search.scope.empty() ? "" : search.scope + "::") + spelling(cursor);
    for (const HeaderName& n : kHeaderNames) {
      if (n.scope == inner || n.scope.starts_with(inner + "::")) {
        Search nested{inner, search.found};
        clang_visitChildren(cursor, &visit, &nested);
        break;
      }
    }
    return CXChildVisit_Continue;
  }
  if (kind == CXCursor_LinkageSpec)
    return CXChildVisit_Recurse;
  std::string name; // spelled once, for the first name of this scope
  for (const HeaderName& n : kHeaderNames) {
    if (n.scope != search.scope)
      continue;
    if (name.empty())
      name = spelling(cursor);
    if (name != n.name)
      continue;
    const std::string qualified = search.scope + "::" + std::string(n.name);
    if (search.found->contains(qualified))
      continue;
    if (std::string what = denoted(cursor); !what.empty())
      search.found->emplace(qualified, std::move(what));
  }
  return CXChildVisit_Continue;
}

} // namespace

std::map<std::string, std::string> header_aliases(CXTranslationUnit tu) {
  std::map<std::string, std::string> found;
  Search search{"", &found};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), &visit, &search);
  return found;
}

} // namespace opscan::scan
