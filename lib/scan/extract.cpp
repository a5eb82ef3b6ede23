// One parsed translation unit to its kernels and the problems found on the way.
#include "scan/extract.h"

#include "kernel/annotation.h"
#include "scan/clang.h"
#include "scan/declarations.h"
#include "scan/dependencies.h"
#include "scan/types.h"
#include "support/cpp_literal.h"
#include "support/files.h"
#include "support/sha256.h"

#include <algorithm>
#include <map>
#include <set>

namespace opscan::scan {
namespace {

// Walks one translation unit: the annotated declarations, each made a
// neutral Signature and handed to the pure stage (build_kernel).
class TranslationUnitScanner {
public:
  TranslationUnitScanner(CXTranslationUnit tu, const kernel::KnownSchemas* known,
                         const ir::Fields& fields)
      : tu_(tu), known_(known), fields_(fields) {}

  Extracted run() {
    diag::Diagnostics errors = clang_errors(tu_);
    has_clang_errors_ = !errors.empty();
    result_.diagnostics.insert(result_.diagnostics.end(), errors.begin(), errors.end());
    clang_visitChildren(clang_getTranslationUnitCursor(tu_), &visit, this);
    refuse_inline_redeclarations();
    refuse_unread_annotations();
    if (!result_.fragment.kernels.empty())
      result_.fragment.aliases = header_aliases(tu_);
    return std::move(result_);
  }

  void note_main_file(const std::string& file) { note_source(file); }

private:
  // Places in files, for annotations and expansions.
  using Offset = std::pair<std::string, uint32_t>;
  static Offset at(const diag::Location& where) { return {where.file, where.offset}; }
  struct Scope {
    std::string file;
    uint32_t begin = 0, end = 0;
    const char* what; // null: not a function or variable
    std::string name;
  };

  static CXChildVisitResult visit(CXCursor cursor, CXCursor parent, void* data) {
    return static_cast<TranslationUnitScanner*>(data)->visit(cursor, parent);
  }

  CXChildVisitResult visit(CXCursor cursor, CXCursor parent) {
    const CXCursorKind kind = clang_getCursorKind(cursor);
    // The preprocessing record (thousands of entries a file, most of them
    // the headers'): only the OPSCAN_KERNEL expansions matter.
    if (kind == CXCursor_MacroExpansion && spelling(cursor) == "OPSCAN_KERNEL")
      note_expansion(cursor);
    if (clang_isPreprocessing(kind) ||
        clang_Location_isInSystemHeader(clang_getCursorLocation(cursor)))
      return CXChildVisit_Continue;
    note_scope(cursor, kind);
    switch (kind) {
    case CXCursor_Namespace:
    case CXCursor_LinkageSpec:
    case CXCursor_FriendDecl:
      return CXChildVisit_Recurse;
    case CXCursor_UnexposedDecl:
      // A linkage specification (unnamed, in libclang 14), or a declaration
      // libclang does not expose, such as a variable template, whose
      // annotation it does not show either.
      if (spelling(cursor).empty())
        return CXChildVisit_Recurse;
      if (auto at = kernel_macro_in(tu_, clang_getCursorExtent(cursor)))
        misplaced_at(*at, "a template that is not a function", spelling(cursor));
      return CXChildVisit_Continue;
    case CXCursor_StructDecl:
    case CXCursor_ClassDecl:
    case CXCursor_UnionDecl:
    case CXCursor_ClassTemplate:
      misplaced(cursor, "a class");
      return CXChildVisit_Recurse;
    case CXCursor_FunctionDecl:
      misplaced_in_parameters(cursor);
      if (clang_getCursorKind(parent) == CXCursor_FriendDecl)
        misplaced(cursor, "a friend declaration");
      else
        consider(cursor);
      return CXChildVisit_Continue;
    case CXCursor_CXXMethod:
    case CXCursor_Constructor:
    case CXCursor_Destructor:
    case CXCursor_ConversionFunction:
    case CXCursor_FunctionTemplate:
      misplaced_in_parameters(cursor);
      consider(cursor);
      return CXChildVisit_Continue;
    case CXCursor_VarDecl:
      misplaced(cursor, "a variable");
      return CXChildVisit_Continue;
    case CXCursor_FieldDecl:
      misplaced(cursor, "a data member");
      return CXChildVisit_Continue;
    case CXCursor_EnumDecl:
      misplaced(cursor, "an enumeration");
      misplaced_in_enumerators(cursor);
      return CXChildVisit_Continue;
    case CXCursor_TypedefDecl:
    case CXCursor_TypeAliasDecl:
      misplaced(cursor, "a type alias");
      return CXChildVisit_Continue;
    default:
      return CXChildVisit_Continue;
    }
  }

  void error(std::string code, diag::Location where, std::string message) {
    result_.diagnostics.push_back(
        diag::make_error(std::move(code), std::move(where), std::move(message)));
  }

  // The OPSCAN_KERNEL annotations of `decl`, each noted as read.
  std::vector<CXCursor> annotations(CXCursor decl) {
    std::vector<CXCursor> attrs = annotations_of(decl);
    for (CXCursor attr : attrs)
      read_annotations_.insert(at(location_of(clang_getCursorLocation(attr))));
    return attrs;
  }

  // An annotation on something that is not a namespace-scope function:
  // nothing could register it, and dropping it silently would hide that.
  void misplaced(CXCursor decl, const char* what) {
    std::vector<CXCursor> attrs = annotations(decl);
    if (!attrs.empty())
      misplaced_at(location_of(clang_getCursorLocation(attrs.front())), what, spelling(decl));
  }
  void misplaced_at(const diag::Location& where, const char* what, const std::string& name) {
    error("opscan-annotation-misplaced", where,
          std::string("OPSCAN_KERNEL annotates ") + what + " ('" + name +
              "'): annotate a function declared at namespace scope");
  }

  // libclang shows no attribute of parameters and enumerators; it says only
  // that they have some. Those that do are looked at token by token.
  void misplaced_in_parameters(CXCursor function) {
    const int count = clang_Cursor_getNumArguments(function);
    for (int i = 0; i < count; ++i) {
      CXCursor param = clang_Cursor_getArgument(function, static_cast<unsigned>(i));
      if (!clang_Cursor_hasAttrs(param))
        continue;
      if (auto at = kernel_macro_in(tu_, clang_getCursorExtent(param)))
        misplaced_at(*at, "a parameter", spelling(param));
    }
  }
  void misplaced_in_enumerators(CXCursor enumeration) {
    std::vector<CXCursor> enumerators;
    clang_visitChildren(
        enumeration,
        [](CXCursor c, CXCursor, void* data) {
          if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl)
            static_cast<std::vector<CXCursor>*>(data)->push_back(c);
          return CXChildVisit_Continue;
        },
        &enumerators);
    // An enumerator's attribute follows its name: look up to the next one.
    const CXSourceLocation end = clang_getRangeEnd(clang_getCursorExtent(enumeration));
    for (size_t i = 0; i < enumerators.size(); ++i) {
      if (!clang_Cursor_hasAttrs(enumerators[i]))
        continue;
      CXSourceLocation until =
          i + 1 < enumerators.size() ? clang_getCursorLocation(enumerators[i + 1]) : end;
      CXSourceRange range = clang_getRange(clang_getCursorLocation(enumerators[i]), until);
      if (auto at = kernel_macro_in(tu_, range))
        misplaced_at(*at, "an enumerator", spelling(enumerators[i]));
    }
  }

  // Whether two annotations say the same, however they are spaced.
  bool same_annotation(const std::string& a, const std::string& b) const {
    if (a == b)
      return true;
    kernel::ParsedAnnotation x = kernel::parse_annotation(
        std::string_view(a).substr(kernel::kKernelAnnotationPrefix.size()), fields_);
    kernel::ParsedAnnotation y = kernel::parse_annotation(
        std::string_view(b).substr(kernel::kKernelAnnotationPrefix.size()), fields_);
    return x.annotation && y.annotation && x.annotation->spec == y.annotation->spec &&
           x.annotation->values() == y.annotation->values();
  }

  void consider(CXCursor function) {
    std::vector<CXCursor> attrs = annotations(function);
    if (attrs.empty())
      return;
    const CXCursor attr = attrs.front();
    const diag::Location where = location_of(clang_getCursorLocation(function));
    const std::string usr = take(clang_getCursorUSR(function));
    const ir::Linkage linkage = linkage_of(function);
    QualifiedName name = qualified_name(function);
    // A function with C linkage is one function whatever namespace declares
    // it (even an unnamed one): it is called by its plain name.
    if (linkage == ir::Linkage::c)
      name = {spelling(function), {}};
    // Declarations and the definition are one kernel, annotated once or
    // alike each time.
    auto [first, fresh] = first_annotations_.try_emplace(
        usr, FirstAnnotation{spelling(attr), location_of(clang_getCursorLocation(attr))});
    for (CXCursor other : attrs) {
      std::string text = spelling(other);
      // After a parse error clang may attach the next declaration's
      // annotation to this one: the parse error is the problem to report.
      if (has_clang_errors_ || same_annotation(text, first->second.text))
        continue;
      auto d = diag::make_error(
          "opscan-kernel-conflict", location_of(clang_getCursorLocation(other)),
          "kernel '" + name.name + "' is annotated as " +
              text.substr(kernel::kKernelAnnotationPrefix.size()) + " here and as " +
              first->second.text.substr(kernel::kKernelAnnotationPrefix.size()) + " elsewhere");
      d.notes.push_back({"other annotation is here", first->second.where});
      result_.diagnostics.push_back(std::move(d));
    }
    if (!fresh) {
      // Inline in any declaration is inline (an inline definition after a
      // plain annotated declaration, say).
      if (clang_Cursor_isFunctionInlined(function))
        inline_redeclarations_.try_emplace(usr, where);
      return;
    }
    note_source(where.file);
    if (auto why = refusal(function, name.name))
      return error(why->first, where, why->second);

    kernel::Signature sig = signature_of(tu_, function, has_string_view());
    sig.qualified_name = name.name;
    sig.inline_namespaces = name.inline_namespaces;
    sig.linkage = linkage;
    sig.usr = usr;
    sig.annotation = spelling(attr).substr(kernel::kKernelAnnotationPrefix.size());
    sig.annotation_map = map_annotation(tu_, attr, sig.annotation);

    kernel::Built built = kernel::build_kernel(sig, known_, fields_);
    result_.diagnostics.insert(result_.diagnostics.end(), built.diagnostics.begin(),
                               built.diagnostics.end());
    if (built.kernel)
      result_.fragment.kernels.push_back(std::move(*built.kernel));
  }

  // Kernels accepted at their first declaration that a later one makes
  // inline: generated code could not link to them either.
  void refuse_inline_redeclarations() {
    std::erase_if(result_.fragment.kernels, [&](const ir::Kernel& k) {
      auto it = inline_redeclarations_.find(k.usr);
      if (it == inline_redeclarations_.end())
        return false;
      auto [code, message] = *refusal_of_inline(k.cpp_function);
      error(code, it->second, message);
      return true;
    });
  }

  // Scans skip function bodies (CXTranslationUnit_SkipFunctionBodies): an
  // annotation in one is never parsed, and one in a body that is parsed (a
  // lambda's, a constexpr function's) is in no declaration the walk reads.
  // The preprocessor expands every OPSCAN_KERNEL all the same, and the
  // parse's detailed preprocessing record lists each expansion: one that
  // no annotation the walk read came from annotates something nothing
  // registers. Only direct uses are listed (the record leaves out a macro
  // used inside another macro), as elsewhere in the scan.
  void note_expansion(CXCursor expansion) {
    const CXSourceLocation where = clang_getCursorLocation(expansion);
    if (clang_Location_isInSystemHeader(where))
      return;
    const CXCursor definition = clang_getCursorReferenced(expansion);
    const Offset defined_at = at(location_of(clang_getCursorLocation(definition)));
    auto [known, fresh] = annotating_macros_.try_emplace(defined_at, false);
    if (fresh)
      known->second = writes_annotation(tu_, expansion);
    if (!known->second)
      return;
    expansions_.push_back(location_of(where));
    CXFile file = nullptr;
    clang_getExpansionLocation(where, &file, nullptr, nullptr, nullptr);
    if (std::find(expansion_files_.begin(), expansion_files_.end(), file) == expansion_files_.end())
      expansion_files_.push_back(file);
  }

  // The declarations the walk meets, by extent: where an annotation it did
  // not read is, to say so. Only in the files with an expansion: the walk
  // meets them first (libclang visits the preprocessing record before the
  // declarations), and the headers' thousands of declarations need none.
  void note_scope(CXCursor cursor, CXCursorKind kind) {
    if (expansion_files_.empty())
      return;
    CXFile file = nullptr;
    clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, nullptr);
    if (std::find(expansion_files_.begin(), expansion_files_.end(), file) == expansion_files_.end())
      return;
    const char* what = nullptr;
    switch (kind) {
    case CXCursor_FunctionDecl:
    case CXCursor_CXXMethod:
    case CXCursor_Constructor:
    case CXCursor_Destructor:
    case CXCursor_ConversionFunction:
    case CXCursor_FunctionTemplate:
      what = "a declaration in the body of a function";
      break;
    case CXCursor_VarDecl:
      what = "a declaration in a variable's initializer";
      break;
    case CXCursor_FieldDecl:
      what = "a declaration in a data member's initializer";
      break;
    default:
      break;
    }
    const CXSourceRange extent = clang_getCursorExtent(cursor);
    const diag::Location begin = location_of(clang_getRangeStart(extent));
    const diag::Location end = location_of(clang_getRangeEnd(extent));
    if (begin.file == end.file && begin.offset < end.offset)
      scopes_.push_back(
          {begin.file, begin.offset, end.offset, what, what ? qualified_name(cursor).name : ""});
  }

  // The function or variable `where` is inside, if the walk met it: the one
  // whose extent holds it (a lambda's body is parsed), else the declaration
  // the walk met last before it when that is a function whose skipped body
  // (outside its extent) is still open there.
  const Scope* scope_of(const diag::Location& where) const {
    const Scope* inner = nullptr;
    const Scope* last = nullptr;
    for (const Scope& scope : scopes_) {
      if (scope.file != where.file || scope.begin > where.offset)
        continue;
      if (scope.what && where.offset < scope.end &&
          (!inner || scope.end - scope.begin < inner->end - inner->begin))
        inner = &scope;
      if (!last || scope.begin >= last->begin)
        last = &scope;
    }
    if (inner || !last || !last->what || last->end > where.offset)
      return inner;
    CXFile file = clang_getFile(tu_, where.file.c_str());
    Tokens tokens(tu_, clang_getRange(clang_getLocationForOffset(tu_, file, last->end),
                                      clang_getLocationForOffset(tu_, file, where.offset)));
    int depth = 0;
    for (unsigned i = 0; i < tokens.size(); ++i) {
      if (clang_getTokenKind(tokens[i]) != CXToken_Punctuation)
        continue;
      const std::string text = take(clang_getTokenSpelling(tu_, tokens[i]));
      depth += text == "{" ? 1 : text == "}" ? -1 : 0;
    }
    return depth > 0 ? last : nullptr;
  }

  void refuse_unread_annotations() {
    // After a parse error clang drops what it could not parse: the error
    // is the problem to report.
    if (has_clang_errors_ || expansions_.empty())
      return;
    std::set<Offset> reported;
    for (const diag::Diagnostic& d : result_.diagnostics)
      reported.insert(at(d.location));
    for (const diag::Location& where : expansions_) {
      if (read_annotations_.contains(at(where)) || !reported.insert(at(where)).second)
        continue;
      if (const Scope* inner = scope_of(where)) {
        misplaced_at(where, inner->what, inner->name);
      } else {
        error("opscan-annotation-misplaced", where,
              "OPSCAN_KERNEL annotates nothing the scan reads here: annotate a function "
              "declared at namespace scope");
      }
    }
  }

  void note_source(const std::string& file) {
    if (!hashed_files_.insert(file).second)
      return;
    CXFile handle = clang_getFile(tu_, file.c_str());
    size_t size = 0;
    const char* data = handle ? clang_getFileContents(tu_, handle, &size) : nullptr;
    // libclang has the bytes it parsed; only a file it never loaded is read again.
    std::optional<std::string> text = data ? std::string(data, size) : support::read_file(file);
    std::string hash = support::sha256_hex(text.value_or(""));
    result_.fragment.sources.push_back({support::display_path(file), hash});
  }

  bool has_string_view() {
    if (!has_string_view_)
      has_string_view_ = includes_string_view(tu_);
    return *has_string_view_;
  }

  CXTranslationUnit tu_;
  const kernel::KnownSchemas* known_;
  const ir::Fields& fields_;
  bool has_clang_errors_ = false;
  std::optional<bool> has_string_view_;
  Extracted result_;
  struct FirstAnnotation {
    std::string text;
    diag::Location where;
  };
  std::map<std::string, FirstAnnotation> first_annotations_;    // by USR
  std::map<std::string, diag::Location> inline_redeclarations_; // by USR
  std::set<std::string> hashed_files_;
  std::vector<diag::Location> expansions_;   // of an OPSCAN_KERNEL that annotates
  std::vector<CXFile> expansion_files_;      // the files they are in
  std::map<Offset, bool> annotating_macros_; // by definition: writes an annotation
  std::set<Offset> read_annotations_;        // the annotations the walk read
  std::vector<Scope> scopes_;
};

} // namespace

// libclang's errors about a translation unit. Its only warning (see
// add_scanning_arguments) is an attribute it dropped: when that is an
// OPSCAN_KERNEL, an error here, as nothing else would tell.
diag::Diagnostics clang_errors(CXTranslationUnit tu) {
  diag::Diagnostics errors;
  unsigned n = clang_getNumDiagnostics(tu);
  for (unsigned i = 0; i < n; ++i) {
    Diagnostic d(clang_getDiagnostic(tu, i));
    const diag::Location where = location_of(clang_getDiagnosticLocation(d.get()));
    if (take(clang_getDiagnosticOption(d.get(), nullptr)) == "-Wignored-attributes") {
      if (is_kernel_macro_at(tu, where)) {
        errors.push_back(
            diag::make_error("opscan-annotation-misplaced", where,
                             "OPSCAN_KERNEL annotates nothing here: the compiler ignores it (" +
                                 take(clang_getDiagnosticSpelling(d.get())) +
                                 "); annotate a function declared at namespace scope"));
      }
      continue;
    }
    if (clang_getDiagnosticSeverity(d.get()) >= CXDiagnostic_Error) {
      errors.push_back(diag::make_error("opscan-clang-error", where,
                                        take(clang_getDiagnosticSpelling(d.get()))));
    }
  }
  return errors;
}

Extracted extract_kernels(CXTranslationUnit tu, const std::string& main_file,
                          const kernel::KnownSchemas* known, const ir::Fields& fields) {
  TranslationUnitScanner scanner(tu, known, fields);
  scanner.note_main_file(main_file);
  return scanner.run();
}

} // namespace opscan::scan
