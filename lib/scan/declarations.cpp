// What a function declaration says, read from libclang: its annotations and
// where OPSCAN_KERNEL wrote them, its signature as the scan maps it, the
// types as the file writes them (for fix-its), its linkage, why it cannot be
// a kernel, and the tensors a kernel key counts (declarations.h).
#include "scan/declarations.h"

#include "kernel/annotation.h"
#include "scan/clang.h"
#include "scan/types.h"
#include "support/cpp_literal.h"
#include "support/files.h"

#include <algorithm>
#include <map>
#include <set>

namespace opscan::scan {

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
            spelling(c).starts_with(kernel::kKernelAnnotationPrefix)) {
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
kernel::AnnotationMap map_annotation(CXTranslationUnit tu, CXCursor attr, std::string_view text) {
  // The extent is the macro use, in macro locations: clang_tokenize needs
  // the file locations of its expansion.
  CXSourceRange extent = clang_getCursorExtent(attr);
  diag::Location first = location_of(clang_getRangeStart(extent));
  diag::Location last = location_of(clang_getRangeEnd(extent));
  CXFile file = clang_getFile(tu, first.file.c_str());
  if (!file || last.file != first.file || last.offset <= first.offset)
    return kernel::AnnotationMap(first, {});
  Tokens tokens(tu, clang_getRange(clang_getLocationForOffset(tu, file, first.offset),
                                   clang_getLocationForOffset(tu, file, last.offset)));
  auto spelling_of = [&](unsigned i) { return take(clang_getTokenSpelling(tu, tokens[i])); };
  // NAME ( arguments... )
  const unsigned count = tokens.size();
  if (count < 3 || spelling_of(1) != "(" || spelling_of(count - 1) != ")")
    return kernel::AnnotationMap(first, {});
  std::vector<kernel::AnnotationMap::Piece> pieces;
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
  return kernel::AnnotationMap(first, std::move(pieces));
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

namespace {

bool is_builtin_type_keyword(const WrittenToken& token) {
  static const std::set<std::string, std::less<>> keywords = {
      "signed", "unsigned", "short", "long", "int", "char", "float", "double"};
  return token.kind == CXToken_Keyword && keywords.contains(token.spelling);
}

} // namespace

namespace {

diag::FixIt replacing(const WrittenType& written, size_t first, size_t last,
                      std::string replacement) {
  const uint32_t begin = written.tokens[first].begin;
  return {written.file, begin, written.tokens[last].end - begin, std::move(replacement)};
}

} // namespace

// The edit of a type as written that makes a refused type map (see
// MappedType::repair): empty when the written tokens are not the refused
// type's own (an alias or macro names it) or the repair would not compile.
std::vector<diag::FixIt> type_fix(const WrittenType& written, const kernel::MappedType& mapped,
                                  bool has_string_view) {
  const std::vector<WrittenToken>& tokens = written.tokens;
  auto is = [&](size_t i, std::string_view text) {
    return i < tokens.size() && tokens[i].spelling == text;
  };
  switch (mapped.repair) {
  case kernel::MappedType::Repair::none:
    return {};
  case kernel::MappedType::Repair::builtin: {
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
  case kernel::MappedType::Repair::char_pointer: {
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
  case kernel::MappedType::Repair::rvalue_reference: {
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
kernel::Signature signature_of(CXTranslationUnit tu, CXCursor function, bool has_string_view) {
  kernel::Signature sig;
  sig.is_noexcept = is_noexcept(function);
  sig.location = location_of(clang_getCursorLocation(function));
  sig.invalid = clang_isInvalidDeclaration(function);

  const int count = clang_Cursor_getNumArguments(function);
  for (int i = 0; i < count; ++i) {
    CXCursor param = clang_Cursor_getArgument(function, static_cast<unsigned>(i));
    CXType type = clang_getCursorType(param);
    kernel::Parameter p;
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

// The tensors of `function` a kernel key has entries for (see
// FunctionSite::key_tensors): the schema's tensor arguments and return,
// which the scan infers from them or checks them against.
std::optional<KeyTensors> key_tensors_of(CXCursor function) {
  KeyTensors tensors;
  const int count = clang_Cursor_getNumArguments(function);
  for (int i = 0; i < count; ++i) {
    const CXType type =
        clang_getCursorType(clang_Cursor_getArgument(function, static_cast<unsigned>(i)));
    if (i == 0 && context_kind(type) != ir::ContextKind::none)
      continue;
    const kernel::MappedType mapped = map_parameter_type(type);
    if (!mapped.type)
      return std::nullopt;
    if (mapped.type->base == "Tensor" && !mapped.type->is_list()) {
      ++tensors.all;
      tensors.required += !mapped.type->is_optional();
    }
  }
  // One return slot: a tuple's tensors are not a tensor there (as
  // executorch::returned_key_tensors counts them).
  const CXType result = clang_getCursorResultType(function);
  if (clang_getCanonicalType(result).kind != CXType_Void && !tuple_elements(result)) {
    const kernel::MappedType mapped = map_return_type(result);
    tensors.returned = mapped.type && mapped.type->base == "Tensor" && !mapped.type->is_list() &&
                       !mapped.type->is_optional();
  }
  return tensors;
}

} // namespace opscan::scan
