// One parsed translation unit to its kernels and the problems found on the way.
#include "scan/extract.h"

#include "scan/annotation.h"
#include "scan/clang.h"
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

// Whether the source at `where` (a macro use) is an OPSCAN_KERNEL.
bool is_kernel_macro_at(CXTranslationUnit tu, const diag::Location& where) {
  CXFile file = clang_getFile(tu, where.file.c_str());
  size_t size = 0;
  const char* text = file ? clang_getFileContents(tu, file, &size) : nullptr;
  return text != nullptr && where.offset < size &&
         std::string_view(text + where.offset, size - where.offset).starts_with("OPSCAN_KERNEL");
}

// Where an OPSCAN_KERNEL is written in `range`, if one is. The range may
// start or end in a macro use: its tokens are those of the file.
std::optional<diag::Location> kernel_macro_in(CXTranslationUnit tu, CXSourceRange range) {
  const diag::Location first = location_of(clang_getRangeStart(range));
  const diag::Location last = location_of(clang_getRangeEnd(range));
  CXFile file = clang_getFile(tu, first.file.c_str());
  if (!file || last.file != first.file || last.offset <= first.offset)
    return std::nullopt;
  Tokens tokens(tu, clang_getRange(clang_getLocationForOffset(tu, file, first.offset),
                                   clang_getLocationForOffset(tu, file, last.offset)));
  for (unsigned i = 0; i < tokens.size(); ++i) {
    if (clang_getTokenKind(tokens[i]) == CXToken_Identifier &&
        take(clang_getTokenSpelling(tu, tokens[i])) == "OPSCAN_KERNEL")
      return location_of(clang_getTokenLocation(tu, tokens[i]));
  }
  return std::nullopt;
}

// Whether the macro an expansion uses writes an annotate attribute (as
// <opscan/annotations.h>'s OPSCAN_KERNEL does while scanning; a project
// that defines its own, empty, OPSCAN_KERNEL annotates nothing with it).
bool writes_annotation(CXTranslationUnit tu, CXCursor expansion) {
  const CXCursor definition = clang_getCursorReferenced(expansion);
  if (clang_getCursorKind(definition) != CXCursor_MacroDefinition)
    return false;
  Tokens tokens(tu, clang_getCursorExtent(definition));
  for (unsigned i = 0; i < tokens.size(); ++i) {
    if (clang_getTokenKind(tokens[i]) == CXToken_Identifier &&
        take(clang_getTokenSpelling(tu, tokens[i])) == "annotate")
      return true;
  }
  return false;
}

// The OPSCAN_KERNEL annotations of a declaration (a function's own and
// those it inherits from earlier declarations).
std::vector<CXCursor> annotations_of(CXCursor decl) {
  std::vector<CXCursor> found;
  clang_visitChildren(
      decl,
      [](CXCursor c, CXCursor, void* data) {
        if (clang_getCursorKind(c) == CXCursor_AnnotateAttr &&
            spelling(c).starts_with(kKernelAnnotationPrefix)) {
          static_cast<std::vector<CXCursor>*>(data)->push_back(c);
        }
        return CXChildVisit_Continue;
      },
      &found);
  return found;
}

// Maps byte offsets in an annotation's text (the macro arguments as the
// preprocessor stringized them: whitespace between tokens becomes one
// space) back to the source, token by token, so that errors point at the
// right line and column even in multi-line or oddly spaced annotations.
AnnotationMap map_annotation(CXTranslationUnit tu, CXCursor attr, std::string_view text) {
  // The extent is the macro use, in macro locations: clang_tokenize needs
  // the file locations of its expansion.
  CXSourceRange extent = clang_getCursorExtent(attr);
  diag::Location first = location_of(clang_getRangeStart(extent));
  diag::Location last = location_of(clang_getRangeEnd(extent));
  CXFile file = clang_getFile(tu, first.file.c_str());
  if (!file || last.file != first.file || last.offset <= first.offset)
    return AnnotationMap(first, {});
  Tokens tokens(tu, clang_getRange(clang_getLocationForOffset(tu, file, first.offset),
                                   clang_getLocationForOffset(tu, file, last.offset)));
  auto spelling_of = [&](unsigned i) { return take(clang_getTokenSpelling(tu, tokens[i])); };
  // NAME ( arguments... )
  const unsigned count = tokens.size();
  if (count < 3 || spelling_of(1) != "(" || spelling_of(count - 1) != ")")
    return AnnotationMap(first, {});
  std::vector<AnnotationMap::Piece> pieces;
  std::string rebuilt;
  uint32_t previous_end = 0;
  for (unsigned i = 2; i + 1 < count; ++i) {
    CXSourceRange range = clang_getTokenExtent(tu, tokens[i]);
    diag::Location begin = location_of(clang_getRangeStart(range));
    uint32_t end = location_of(clang_getRangeEnd(range)).offset;
    if (i > 2 && begin.offset > previous_end)
      rebuilt += ' ';
    pieces.push_back({rebuilt.size(), end - begin.offset, begin});
    rebuilt += spelling_of(i);
    previous_end = end;
  }
  if (rebuilt != text)
    pieces.clear(); // made by another macro: every offset maps to its use
  return AnnotationMap(first, std::move(pieces));
}

// Whether a function is noexcept. libclang gives one kind for noexcept(true)
// and noexcept(false); the canonical type is spelled with the value.
bool is_noexcept(CXCursor function) {
  switch (clang_getCursorExceptionSpecificationType(function)) {
  case CXCursor_ExceptionSpecificationKind_BasicNoexcept:
  case CXCursor_ExceptionSpecificationKind_DynamicNone:
  case CXCursor_ExceptionSpecificationKind_NoThrow:
    return true;
  case CXCursor_ExceptionSpecificationKind_ComputedNoexcept:
    return spelling(clang_getCanonicalType(clang_getCursorType(function))).ends_with(" noexcept");
  default:
    return false;
  }
}

// Whether the file spells what is at `where`: a macro did not write it.
bool spelled_in_file(CXSourceLocation where) {
  CXFile expansion_file, spelling_file;
  unsigned expansion = 0, spelled = 0;
  clang_getExpansionLocation(where, &expansion_file, nullptr, nullptr, &expansion);
  clang_getSpellingLocation(where, &spelling_file, nullptr, nullptr, &spelled);
  return expansion_file && spelling_file && clang_File_isEqual(expansion_file, spelling_file) &&
         expansion == spelled;
}

// The tokens of a type as the file writes it, for edits of it.
struct WrittenToken {
  std::string spelling;
  CXTokenKind kind;
  uint32_t begin = 0; // byte offsets in the file
  uint32_t end = 0;
};
struct WrittenType {
  std::string file;
  std::vector<WrittenToken> tokens;
};

// The tokens of a declaration's `extent` before its `name` (all of them
// when null; a default argument's '=' ends them too), or nullopt when a
// macro wrote the declaration. The extent may start with a macro use (an
// OPSCAN_KERNEL): its tokens are those of the file.
std::optional<WrittenType> written_type(CXTranslationUnit tu, CXSourceRange extent,
                                        CXSourceLocation name) {
  const bool named = !clang_equalLocations(name, clang_getNullLocation());
  if (!spelled_in_file(clang_getRangeEnd(extent)) || (named && !spelled_in_file(name)))
    return std::nullopt;
  const diag::Location first = location_of(clang_getRangeStart(extent));
  const diag::Location last = location_of(clang_getRangeEnd(extent));
  const uint32_t until = named ? location_of(name).offset : UINT32_MAX;
  CXFile file = clang_getFile(tu, first.file.c_str());
  if (!file || last.file != first.file || last.offset <= first.offset)
    return std::nullopt;
  WrittenType written{first.file, {}};
  Tokens tokens(tu,
                clang_getRange(clang_getLocationForOffset(tu, file, first.offset),
                               clang_getLocationForOffset(tu, file, std::min(until, last.offset))));
  for (unsigned i = 0; i < tokens.size(); ++i) {
    const CXSourceRange range = clang_getTokenExtent(tu, tokens[i]);
    const diag::Location begin = location_of(clang_getRangeStart(range));
    std::string text = take(clang_getTokenSpelling(tu, tokens[i]));
    if (begin.offset >= until || text == "=")
      break;
    written.tokens.push_back({std::move(text), clang_getTokenKind(tokens[i]), begin.offset,
                              location_of(clang_getRangeEnd(range)).offset});
  }
  if (written.tokens.empty())
    return std::nullopt;
  return written;
}

bool is_builtin_type_keyword(const WrittenToken& token) {
  static const std::set<std::string, std::less<>> keywords = {
      "signed", "unsigned", "short", "long", "int", "char", "float", "double"};
  return token.kind == CXToken_Keyword && keywords.contains(token.spelling);
}

diag::FixIt replacing(const WrittenType& written, size_t first, size_t last,
                      std::string replacement) {
  const uint32_t begin = written.tokens[first].begin;
  return {written.file, begin, written.tokens[last].end - begin, std::move(replacement)};
}

// The edit of a type as written that makes a refused type map (see
// MappedType::repair): empty when the written tokens are not the refused
// type's own (an alias or macro names it) or the repair would not compile.
std::vector<diag::FixIt> type_fix(const WrittenType& written, const MappedType& mapped,
                                  bool has_string_view) {
  const std::vector<WrittenToken>& tokens = written.tokens;
  auto is = [&](size_t i, std::string_view text) {
    return i < tokens.size() && tokens[i].spelling == text;
  };
  switch (mapped.repair) {
  case MappedType::Repair::none:
    return {};
  case MappedType::Repair::builtin: {
    // Exactly one run of builtin type keywords: `unsigned long`, or the int
    // of ArrayRef<int>.
    std::optional<std::pair<size_t, size_t>> run;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (!is_builtin_type_keyword(tokens[i]))
        continue;
      if (run && run->second + 1 != i)
        return {};
      run = run ? std::pair{run->first, i} : std::pair{i, i};
    }
    if (!run)
      return {};
    return {replacing(written, run->first, run->second, mapped.replacement)};
  }
  case MappedType::Repair::char_pointer: {
    // [const] char [const] * [const]: the whole type.
    size_t i = is(0, "const") ? 1 : 0;
    if (!has_string_view || !is(i, "char"))
      return {};
    i += is(i + 1, "const") ? 2 : 1;
    if (!is(i, "*"))
      return {};
    i += is(i + 1, "const") ? 2 : 1;
    if (i != tokens.size())
      return {};
    return {replacing(written, 0, i - 1, mapped.replacement)};
  }
  case MappedType::Repair::rvalue_reference: {
    const size_t last = tokens.size() - 1;
    if (!is(last, "&&"))
      return {};
    std::vector<diag::FixIt> fix;
    if (!is(0, "const") && !(last > 0 && is(last - 1, "const")))
      fix.push_back({written.file, tokens[0].begin, 0, "const "});
    fix.push_back(replacing(written, last, last, "&"));
    return fix;
  }
  }
  return {};
}

// Deletes the `const` of `const T&` or `T const&` as written.
std::optional<diag::FixIt> const_removal(const WrittenType& written) {
  const std::vector<WrittenToken>& tokens = written.tokens;
  if (tokens.size() < 3 || tokens.back().spelling != "&")
    return std::nullopt;
  if (tokens.front().spelling == "const")
    return diag::FixIt{written.file, tokens[0].begin, tokens[1].begin - tokens[0].begin, ""};
  const WrittenToken& before_reference = tokens[tokens.size() - 2];
  if (before_reference.spelling == "const") {
    const uint32_t from = tokens[tokens.size() - 3].end;
    return diag::FixIt{written.file, from, before_reference.end - from, ""};
  }
  return std::nullopt;
}

// Whether the translation unit includes <string_view>, so that a fix-it may
// write std::string_view.
bool includes_string_view(CXTranslationUnit tu) {
  bool found = false;
  clang_getInclusions(
      tu,
      [](CXFile included, CXSourceLocation*, unsigned, CXClientData data) {
        const std::string name = take(clang_getFileName(included));
        if (name.ends_with("/string_view"))
          *static_cast<bool*>(data) = true;
      },
      &found);
  return found;
}

// A function with C language linkage is not mangled.
ir::Linkage linkage_of(CXCursor function) {
  std::string mangled = take(clang_Cursor_getMangling(function));
  return mangled.starts_with("_Z") || mangled.empty() ? ir::Linkage::cxx : ir::Linkage::c;
}

std::optional<std::pair<std::string, std::string>> refusal_of_inline(const std::string& name) {
  return std::pair{"opscan-scan-inline",
                   "kernel '" + name +
                       "' is inline (or constexpr): its definition is emitted only where it is "
                       "used, so generated registration code cannot link to it; remove "
                       "'inline'"};
}

// Why generated code cannot call `function`, or nullopt.
std::optional<std::pair<std::string, std::string>> refusal(CXCursor function,
                                                           const std::string& name) {
  switch (clang_getCursorKind(function)) {
  case CXCursor_FunctionTemplate:
    return std::pair{"opscan-scan-template",
                     "kernel '" + name +
                         "' is a function template: annotate a non-template function "
                         "(wrap each instantiation you want to register)"};
  case CXCursor_CXXMethod:
  case CXCursor_Constructor:
  case CXCursor_Destructor:
  case CXCursor_ConversionFunction:
    return std::pair{"opscan-scan-method",
                     "kernel '" + name + "' is a member function: kernels must be free functions"};
  default:
    break;
  }
  CXLinkageKind linkage = clang_getCursorLinkage(function);
  if (linkage == CXLinkage_Internal || linkage == CXLinkage_UniqueExternal) {
    return std::pair{"opscan-scan-internal-linkage",
                     "kernel '" + name +
                         "' has internal linkage (static or in an anonymous namespace): "
                         "generated registration code cannot call it"};
  }
  if (clang_Cursor_isFunctionInlined(function))
    return refusal_of_inline(name);
  return std::nullopt;
}

// What `function` declares, as the pure stage reads it: everything but its
// name, linkage, USR and annotation, which the caller decides.
Signature signature_of(CXTranslationUnit tu, CXCursor function, bool has_string_view) {
  Signature sig;
  sig.is_noexcept = is_noexcept(function);
  sig.location = location_of(clang_getCursorLocation(function));
  sig.invalid = clang_isInvalidDeclaration(function);

  const int count = clang_Cursor_getNumArguments(function);
  for (int i = 0; i < count; ++i) {
    CXCursor param = clang_Cursor_getArgument(function, static_cast<unsigned>(i));
    CXType type = clang_getCursorType(param);
    Parameter p;
    p.name = spelling(param);
    p.location = location_of(clang_getCursorLocation(param));
    p.end = location_of(clang_getRangeEnd(clang_getCursorExtent(param)));
    p.invalid = clang_isInvalidDeclaration(param);
    // The type is what precedes the name (all of an unnamed parameter).
    const std::optional<WrittenType> written =
        written_type(tu, clang_getCursorExtent(param),
                     p.name.empty() ? clang_getNullLocation() : clang_getCursorLocation(param));
    if (!p.invalid && i == 0) {
      sig.context = context_kind(type);
      if (sig.context != ir::ContextKind::none)
        continue;
    }
    if (!p.invalid) {
      p.type = spelling(type);
      p.canonical_type = spelling(clang_getCanonicalType(type));
      p.mapped = map_parameter_type(type);
      if (written) {
        p.mapped.fix = type_fix(*written, p.mapped, has_string_view);
        p.const_removal = const_removal(*written);
      }
    }
    sig.parameters.push_back(std::move(p));
  }
  CXType result_type = clang_getCursorResultType(function);
  sig.return_type = spelling(result_type);
  sig.canonical_return_type = spelling(clang_getCanonicalType(result_type));
  if (clang_getCanonicalType(result_type).kind != CXType_Void) {
    std::optional<std::vector<CXType>> elements = tuple_elements(result_type);
    for (CXType value : elements.value_or(std::vector<CXType>{result_type}))
      sig.returns.push_back(map_return_type(value));
    // The return type is what precedes the name; a tuple's elements are
    // not told apart there.
    const std::optional<WrittenType> written =
        elements
            ? std::nullopt
            : written_type(tu, clang_getCursorExtent(function), clang_getCursorLocation(function));
    if (written && clang_getCursorKind(function) == CXCursor_FunctionDecl)
      sig.returns[0].fix = type_fix(*written, sig.returns[0], has_string_view);
  }
  return sig;
}

// Walks one translation unit: the annotated declarations, each made a
// neutral Signature and handed to the pure stage (build_kernel).
class TranslationUnitScanner {
public:
  TranslationUnitScanner(CXTranslationUnit tu, const KnownSchemas* known,
                         const FieldCheck& check_field)
      : tu_(tu), known_(known), check_field_(check_field) {}

  Extracted run() {
    diag::Diagnostics errors = clang_errors(tu_);
    has_clang_errors_ = !errors.empty();
    result_.diagnostics.insert(result_.diagnostics.end(), errors.begin(), errors.end());
    clang_visitChildren(clang_getTranslationUnitCursor(tu_), &visit, this);
    refuse_inline_redeclarations();
    refuse_unread_annotations();
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
  static bool same_annotation(const std::string& a, const std::string& b) {
    if (a == b)
      return true;
    ParsedAnnotation x =
        parse_annotation(std::string_view(a).substr(kKernelAnnotationPrefix.size()));
    ParsedAnnotation y =
        parse_annotation(std::string_view(b).substr(kKernelAnnotationPrefix.size()));
    return x.annotation && y.annotation && x.annotation->spec == y.annotation->spec &&
           x.annotation->kernel_key == y.annotation->kernel_key &&
           x.annotation->dispatch_key == y.annotation->dispatch_key;
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
              text.substr(kKernelAnnotationPrefix.size()) + " here and as " +
              first->second.text.substr(kKernelAnnotationPrefix.size()) + " elsewhere");
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

    Signature sig = signature_of(tu_, function, has_string_view());
    sig.qualified_name = name.name;
    sig.inline_namespaces = name.inline_namespaces;
    sig.linkage = linkage;
    sig.usr = usr;
    sig.annotation = spelling(attr).substr(kKernelAnnotationPrefix.size());
    sig.annotation_map = map_annotation(tu_, attr, sig.annotation);

    Built built = build_kernel(sig, known_, check_field_);
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
  const KnownSchemas* known_;
  const FieldCheck& check_field_;
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

// The tensor parameters of `function` a kernel key has entries for (see
// FunctionSite::key_tensors): the schema's tensor arguments, which the scan
// infers from them or checks them against.
std::optional<std::pair<size_t, size_t>> key_tensors_of(CXCursor function) {
  size_t required = 0, all = 0;
  const int count = clang_Cursor_getNumArguments(function);
  for (int i = 0; i < count; ++i) {
    const CXType type =
        clang_getCursorType(clang_Cursor_getArgument(function, static_cast<unsigned>(i)));
    if (i == 0 && context_kind(type) != ir::ContextKind::none)
      continue;
    const MappedType mapped = map_parameter_type(type);
    if (!mapped.type)
      return std::nullopt;
    if (mapped.type->base == "Tensor" && !mapped.type->is_list()) {
      ++all;
      required += !mapped.type->is_optional();
    }
  }
  return std::pair{required, all};
}

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
                          const KnownSchemas* known, const FieldCheck& check_field) {
  TranslationUnitScanner scanner(tu, known, check_field);
  scanner.note_main_file(main_file);
  return scanner.run();
}

namespace {

// Where a file's text is in the main file libclang parsed: after `lines`
// lines and `bytes` bytes (none in a plain parse of the file).
struct Shift {
  uint32_t lines = 0;
  uint32_t bytes = 0;
};

// The main file's text from `shift` on: the file's own.
std::string_view text_after(CXTranslationUnit tu, CXFile main, Shift shift) {
  size_t size = 0;
  const char* data = main ? clang_getFileContents(tu, main, &size) : nullptr;
  if (!data || size < shift.bytes)
    return {};
  return std::string_view(data + shift.bytes, size - shift.bytes);
}

// The offset just past the end of the line of `offset` in `text`.
uint32_t end_of_line(std::string_view text, size_t offset) {
  const size_t end = text.find('\n', offset);
  return static_cast<uint32_t>(end == std::string_view::npos ? text.size() : end + 1);
}

// sites.functions: those declared at namespace scope in `main`, whose text
// is `text` (`shift` into it), located in the file. False when one lies
// before the shift (it cannot be mapped back).
bool add_functions(CXTranslationUnit tu, CXFile main, std::string_view text, Shift shift,
                   SourceSites& sites) {
  struct Walk {
    CXFile file;
    std::string_view text;
    Shift shift;
    SourceSites* sites;
    bool mapped = true;
  } walk{main, text, shift, &sites};
  clang_visitChildren(
      clang_getTranslationUnitCursor(tu),
      [](CXCursor c, CXCursor, void* data) {
        auto& w = *static_cast<Walk*>(data);
        const CXCursorKind kind = clang_getCursorKind(c);
        if (kind == CXCursor_Namespace || kind == CXCursor_LinkageSpec)
          return CXChildVisit_Recurse;
        if (kind != CXCursor_FunctionDecl)
          return CXChildVisit_Continue;
        CXFile where_file;
        unsigned line = 0, column = 0, offset = 0;
        clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)), &where_file,
                                   &line, &column, &offset);
        if (!where_file || !clang_File_isEqual(where_file, w.file))
          return CXChildVisit_Continue;
        // The name, where the cursor says it is: a macro wrote the
        // declaration when the file does not have it there.
        CXFile name_file;
        unsigned name_offset = 0;
        clang_getExpansionLocation(clang_getCursorLocation(c), &name_file, nullptr, nullptr,
                                   &name_offset);
        const bool name_in_main = name_file && clang_File_isEqual(name_file, w.file);
        if (line <= w.shift.lines || offset < w.shift.bytes ||
            (name_in_main && name_offset < w.shift.bytes)) {
          w.mapped = false;
          return CXChildVisit_Break;
        }
        if (name_in_main)
          name_offset -= w.shift.bytes;
        FunctionSite site;
        site.qualified_name = qualified_name(c).name;
        site.begin = {w.sites->file, line - w.shift.lines, column, offset - w.shift.bytes};
        const std::string name = spelling(c);
        site.written_by_macro =
            name_offset >= w.text.size() || !w.text.substr(name_offset).starts_with(name);
        site.annotated = !annotations_of(c).empty();
        site.key_tensors = key_tensors_of(c);
        w.sites->functions.push_back(std::move(site));
        return CXChildVisit_Continue;
      },
      &walk);
  return walk.mapped;
}

bool is_annotations_header(const std::string& path) {
  return path.ends_with("opscan/annotations.h");
}

} // namespace

SourceSites sites_of(CXTranslationUnit tu, const std::string& main_file) {
  SourceSites sites;
  sites.file = main_file;
  CXFile file = clang_getFile(tu, main_file.c_str());
  const std::string_view text = text_after(tu, file, {});
  add_functions(tu, file, text, {}, sites);
  struct Includes {
    CXFile file;
    std::string_view text;
    SourceSites* sites;
  } includes{file, text, &sites};
  clang_getInclusions(
      tu,
      [](CXFile included, CXSourceLocation* stack, unsigned depth, CXClientData data) {
        auto& in = *static_cast<Includes*>(data);
        if (is_annotations_header(take(clang_getFileName(included))))
          in.sites->includes_annotations = true;
        if (depth == 0)
          return;
        CXFile from;
        unsigned offset = 0;
        clang_getExpansionLocation(stack[0], &from, nullptr, nullptr, &offset);
        if (!from || !clang_File_isEqual(from, in.file))
          return;
        in.sites->after_includes = std::max(in.sites->after_includes, end_of_line(in.text, offset));
      },
      &includes);
  return sites;
}

std::optional<SourceSites> unit_sites_of(CXTranslationUnit tu, const UnitPlacement& at) {
  SourceSites sites;
  sites.file = at.file;
  CXFile main = clang_getFile(tu, at.unit.c_str());
  const Shift shift{at.lines, at.bytes};
  const std::string_view unit = text_after(tu, main, {});
  if (!main || unit.size() < at.bytes ||
      !add_functions(tu, main, unit.substr(at.bytes), shift, sites))
    return std::nullopt;
  const std::string_view text = unit.substr(at.bytes);
  // The file's own #include lines, in order (the first `at.includes` are
  // those the shared lines stand for): where each names its header, and
  // the header.
  struct Directive {
    uint32_t offset; // of the header's name, in the unit
    CXFile file;
  };
  struct Directives {
    std::string_view unit;
    uint32_t from;
    std::vector<Directive> found;
    bool plain = true;
  } directives{unit, at.bytes, {}};
  CXCursorAndRangeVisitor visitor{
      &directives, [](void* data, CXCursor cursor, CXSourceRange) {
        auto& d = *static_cast<Directives*>(data);
        unsigned offset = 0;
        clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(cursor)), nullptr,
                                   nullptr, nullptr, &offset);
        if (offset < d.from)
          return CXVisit_Continue;
        // libclang's include location is the header name's.
        const size_t name = d.unit.find_first_of("<\"", offset);
        CXFile file = clang_getIncludedFile(cursor);
        if (!file || name == std::string_view::npos ||
            d.unit.substr(offset, name - offset).find('\n') != std::string_view::npos) {
          d.plain = false; // a computed name, or a continued line
          return CXVisit_Break;
        }
        d.found.push_back({static_cast<uint32_t>(name), file});
        return CXVisit_Continue;
      }};
  clang_findIncludesInFile(tu, main, visitor);
  std::vector<Directive>& own = directives.found;
  std::sort(own.begin(), own.end(),
            [](const Directive& a, const Directive& b) { return a.offset < b.offset; });
  if (!directives.plain || own.size() < at.includes)
    return std::nullopt;
  // A plain parse lists each #include line of the file that entered its
  // header. In the unit, the shared lines entered in the preamble what the
  // file's first lines enter alone; libclang lists the file's later lines
  // that entered a header only when the header is listed nowhere else (see
  // inclusions_of), which settles each guarded header: one entry. An
  // unguarded one is entered by every line naming it.
  for (size_t k = at.includes; k < own.size(); ++k) {
    if (!clang_isFileMultipleIncludeGuarded(tu, own[k].file))
      sites.after_includes =
          std::max(sites.after_includes, end_of_line(text, own[k].offset - at.bytes));
  }
  for (const Inclusion& inclusion : inclusions_of(tu, /*preamble=*/true)) {
    if (is_annotations_header(inclusion.path))
      sites.includes_annotations = true;
    if (inclusion.depth == 0 || !inclusion.includer ||
        !clang_File_isEqual(inclusion.includer, main))
      continue;
    uint32_t offset = inclusion.offset;
    if (offset < at.bytes) {
      // A shared line: its number is that of the file's line it stands for.
      const size_t line = std::count(unit.begin(), unit.begin() + offset, '\n');
      if (line >= at.includes || !clang_File_isEqual(own[line].file, inclusion.file))
        return std::nullopt;
      offset = own[line].offset;
    }
    sites.after_includes = std::max(sites.after_includes, end_of_line(text, offset - at.bytes));
  }
  return sites;
}

} // namespace opscan::scan

namespace opscan::scan {
namespace {

// The operator a function named `name` would register (see
// suggest_kernels), or nullopt when none can be derived.
std::optional<schema::OperatorName> derived_operator(const QualifiedName& name) {
  std::vector<std::string> scopes; // not inline, outermost first
  std::string prefix;
  size_t from = 0;
  for (size_t at = name.name.find("::"); at != std::string::npos;
       from = at + 2, at = name.name.find("::", from)) {
    prefix = name.name.substr(0, at);
    if (std::find(name.inline_namespaces.begin(), name.inline_namespaces.end(), prefix) ==
        name.inline_namespaces.end())
      scopes.push_back(name.name.substr(from, at - from));
  }
  schema::OperatorName op{"", name.name.substr(from), ""};
  using Scopes = std::vector<std::string>;
  if (scopes == Scopes{"torch", "executor", "native"} || scopes == Scopes{"at", "native"}) {
    op.ns = "aten";
  } else {
    for (auto it = scopes.rbegin(); it != scopes.rend() && op.ns.empty(); ++it) {
      if (*it != "native" && *it != "detail" && *it != "(anonymous namespace)")
        op.ns = *it;
    }
  }
  if (op.ns.empty())
    return std::nullopt;
  if (schema::check_operator_name(op).empty())
    return op;
  return schema::repaired_operator_name(op);
}

// Whether a signature takes or returns a tensor (or tensors).
bool has_tensor(const Signature& sig) {
  auto is_tensor = [](const MappedType& m) { return m.type && m.type->base == "Tensor"; };
  return std::any_of(sig.parameters.begin(), sig.parameters.end(),
                     [&](const Parameter& p) { return is_tensor(p.mapped); }) ||
         std::any_of(sig.returns.begin(), sig.returns.end(), is_tensor);
}

// Where an annotation goes in front of `function`: its first token, after
// any C++11 attributes (a GNU attribute may not precede them) and a
// linkage specification's `extern "C"`. Nullopt when not in `file`.
std::optional<uint32_t> annotation_site(CXTranslationUnit tu, CXCursor function, CXFile file) {
  const std::optional<WrittenType> written =
      written_type(tu, clang_getCursorExtent(function), clang_getCursorLocation(function));
  if (!written)
    return std::nullopt;
  CXFile begin_file;
  clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(function)), &begin_file,
                             nullptr, nullptr, nullptr);
  if (!begin_file || !clang_File_isEqual(begin_file, file))
    return std::nullopt;
  const std::vector<WrittenToken>& tokens = written->tokens;
  size_t i = 0;
  while (true) {
    if (i + 1 < tokens.size() && tokens[i].spelling == "[" && tokens[i + 1].spelling == "[") {
      int depth = 0;
      do {
        depth += tokens[i].spelling == "[" ? 1 : tokens[i].spelling == "]" ? -1 : 0;
        ++i;
      } while (i < tokens.size() && depth > 0);
    } else if (i + 1 < tokens.size() && tokens[i].spelling == "extern" &&
               tokens[i + 1].kind == CXToken_Literal) {
      i += 2;
    } else {
      break;
    }
  }
  if (i >= tokens.size())
    return std::nullopt;
  return tokens[i].begin;
}

// The end of the line of the last #include directive of `text`, read as
// text: libclang reports each file's first inclusion only, so a file that
// includes a header again after another file included it is not seen.
uint32_t after_last_include(std::string_view text) {
  uint32_t after = 0;
  for (size_t line = 0; line < text.size();) {
    const size_t end = std::min(text.find('\n', line), text.size());
    std::string_view directive = text.substr(line, end - line);
    directive.remove_prefix(std::min(directive.find_first_not_of(" \t"), directive.size()));
    if (directive.starts_with('#')) {
      directive.remove_prefix(1);
      directive.remove_prefix(std::min(directive.find_first_not_of(" \t"), directive.size()));
      if (directive.starts_with("include"))
        after = static_cast<uint32_t>(std::min(end + 1, text.size()));
    }
    line = end + 1;
  }
  return after;
}

// The edit that writes `annotation` at `offset` of `text`: on a line of its
// own, indented like the declaration, when the declaration starts its line;
// else just before it.
diag::FixIt annotation_insertion(const std::string& file, std::string_view text, uint32_t offset,
                                 const std::string& annotation) {
  const size_t line_start = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;
  const std::string_view indent = text.substr(line_start, offset - line_start);
  if (indent.find_first_not_of(" \t") == std::string_view::npos)
    return {file, offset, 0, annotation + "\n" + std::string(indent)};
  return {file, offset, 0, annotation + " "};
}

} // namespace

std::vector<KernelSuggestion> suggest_kernels(CXTranslationUnit tu, const std::string& main_file) {
  CXFile file = clang_getFile(tu, main_file.c_str());
  if (!file)
    return {};
  // Only the file's own declarations are walked: each namespace block is a
  // cursor of the file that opens it, so the headers' (thousands, in real
  // kernel libraries) are skipped whole, on every re-parse of an editor.
  struct Walk {
    CXFile file;
    std::vector<CXCursor> functions;   // in order
    std::set<std::string> annotated;   // USRs with an OPSCAN_KERNEL in any declaration
    std::set<std::string> inline_usrs; // USRs inline in any declaration
  } walk{file, {}, {}, {}};
  clang_visitChildren(
      clang_getTranslationUnitCursor(tu),
      [](CXCursor c, CXCursor, void* data) {
        auto& w = *static_cast<Walk*>(data);
        CXFile in = nullptr;
        clang_getExpansionLocation(clang_getCursorLocation(c), &in, nullptr, nullptr, nullptr);
        if (!in || !clang_File_isEqual(in, w.file))
          return CXChildVisit_Continue;
        switch (clang_getCursorKind(c)) {
        case CXCursor_Namespace:
        case CXCursor_LinkageSpec:
          return CXChildVisit_Recurse;
        case CXCursor_UnexposedDecl: // a linkage specification in libclang 14
          return spelling(c).empty() ? CXChildVisit_Recurse : CXChildVisit_Continue;
        case CXCursor_FunctionDecl: {
          const std::string usr = take(clang_getCursorUSR(c));
          if (!annotations_of(c).empty())
            w.annotated.insert(usr);
          if (clang_Cursor_isFunctionInlined(c))
            w.inline_usrs.insert(usr);
          w.functions.push_back(c);
          return CXChildVisit_Continue;
        }
        default:
          return CXChildVisit_Continue;
        }
      },
      &walk);

  size_t size = 0;
  const char* data = clang_getFileContents(tu, file, &size);
  if (!data)
    return {};
  const std::string_view text(data, size);
  const SourceSites sites = sites_of(tu, main_file);
  std::optional<diag::FixIt> include;
  if (!sites.includes_annotations) {
    const uint32_t after = std::max(sites.after_includes, after_last_include(text));
    const bool needs_newline = after > 0 && text[after - 1] != '\n';
    include =
        diag::FixIt{main_file, after, 0,
                    std::string(needs_newline ? "\n" : "") + "#include <opscan/annotations.h>\n"};
  }

  std::vector<KernelSuggestion> suggestions;
  std::set<std::string> seen;
  for (CXCursor function : walk.functions) {
    const std::string usr = take(clang_getCursorUSR(function));
    const CXSourceLocation name_at = clang_getCursorLocation(function);
    CXFile in;
    clang_getExpansionLocation(name_at, &in, nullptr, nullptr, nullptr);
    if (!in || !clang_File_isEqual(in, file) || !spelled_in_file(name_at) ||
        walk.annotated.contains(usr) || walk.inline_usrs.contains(usr) || !seen.insert(usr).second)
      continue;
    if (!clang_Cursor_isNull(clang_getSpecializedCursorTemplate(function)) ||
        clang_getCursorLinkage(function) != CXLinkage_External)
      continue;
    const QualifiedName name = qualified_name(function);
    if (refusal(function, name.name))
      continue;
    const std::optional<schema::OperatorName> op = derived_operator(name);
    if (!op)
      continue;
    Signature sig = signature_of(tu, function, false);
    sig.linkage = linkage_of(function);
    sig.qualified_name = sig.linkage == ir::Linkage::c ? spelling(function) : name.name;
    sig.inline_namespaces = name.inline_namespaces;
    sig.usr = usr;
    sig.annotation = support::cpp_string_literal(op->str());
    if (!has_tensor(sig))
      continue;
    const Built built = build_kernel(sig, nullptr, nullptr);
    if (!built.kernel || !built.diagnostics.empty())
      continue;
    const std::optional<uint32_t> site = annotation_site(tu, function, file);
    if (!site)
      continue;
    KernelSuggestion suggestion{sig.qualified_name, sig.location, op->str(), {}};
    if (include)
      suggestion.fixits.push_back(*include);
    suggestion.fixits.push_back(
        annotation_insertion(main_file, text, *site, "OPSCAN_KERNEL(" + sig.annotation + ")"));
    suggestions.push_back(std::move(suggestion));
  }
  return suggestions;
}

} // namespace opscan::scan
