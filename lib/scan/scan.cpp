#include "scan/scan.h"

#include "ir/validate.h"
#include "scan/annotation.h"
#include "scan/cache.h"
#include "scan/clang.h"
#include "scan/flags.h"
#include "scan/known_schemas.h"
#include "scan/signature.h"
#include "scan/types.h"
#include "support/files.h"
#include "support/sha256.h"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

namespace opscan::scan {
namespace {

struct FileResult {
  ir::Module fragment;
  diag::Diagnostics diagnostics;
  // The notes on arguments dropped from its command: the run's, reported
  // once however many files share them, and no obstacle to caching.
  diag::Diagnostics dropped;
  bool parsed = false;             // false: from the cache, or not even parsed
  std::vector<std::string> inputs; // files read, when known
};

// What every file's scan shares.
struct ScanContext {
  const Options& options;
  const CompilationDatabase* db = nullptr;
  const KnownSchemas* known = nullptr;
  FragmentCache* cache = nullptr;
  std::string known_hash; // of the known-schemas file, part of cache keys
};

// Every file the translation unit read: the main file and its includes.
std::vector<std::string> inputs_of(CXTranslationUnit tu) {
  std::vector<std::string> files;
  clang_getInclusions(
      tu,
      [](CXFile file, CXSourceLocation*, unsigned, CXClientData data) {
        static_cast<std::vector<std::string>*>(data)->push_back(take(clang_getFileName(file)));
      },
      &files);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// Whether the source at `where` (a macro use) is an OPSCAN_KERNEL.
bool is_kernel_macro_at(CXTranslationUnit tu, const diag::Location& where) {
  CXFile file = clang_getFile(tu, where.file.c_str());
  size_t size = 0;
  const char* text = file ? clang_getFileContents(tu, file, &size) : nullptr;
  return text != nullptr && where.offset < size &&
         std::string_view(text + where.offset, size - where.offset).starts_with("OPSCAN_KERNEL");
}

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

// The arguments libclang gets for `file`: `args` without those
// filter_arguments drops, plus opscan's own. A note for each dropped goes to
// `notes`, but for the output of a compilation database's entry (its first
// `database_args`), which every entry names: that one is expected.
std::vector<std::string> parse_arguments(const std::string& file, std::vector<std::string> args,
                                         diag::Diagnostics& notes, size_t database_args = 0) {
  FilteredArguments filtered = filter_arguments(args);
  for (const DroppedArgument& dropped : filtered.dropped) {
    if (dropped.reason == DropReason::output && dropped.index < database_args)
      continue;
    notes.push_back(
        diag::make_note("opscan-dropped-flag", {file, 0, 0, 0}, dropped_message(dropped)));
  }
  add_scanning_arguments(filtered.kept);
  return std::move(filtered.kept);
}

// `notes` without repeats, appended to `diags`: a run notes each dropped
// argument once, where it first met it, however many files it was given to.
void add_once(diag::Diagnostics& diags, const diag::Diagnostics& notes,
              std::set<std::string>& seen) {
  for (const diag::Diagnostic& note : notes) {
    if (seen.insert(note.message).second)
      diags.push_back(note);
  }
}

// A precompiled header loaded with -include-pch stands for every file it was
// made from: libclang's inclusion list no longer names them.
std::vector<std::string> precompiled_headers(const std::vector<std::string>& args) {
  std::vector<std::string> pchs;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "-include-pch")
      pchs.push_back(args[i + 1]);
  }
  return pchs;
}

// Why libclang could not parse `file` with `args`: an input it could not
// read (the file; a precompiled header or a header the arguments include),
// else what its error code means. A cause shared by every file (a missing
// precompiled header) gives the same diagnostic for each, located at the
// shared file, so that sorting leaves it once.
diag::Diagnostic parse_failure(const std::string& file, const std::vector<std::string>& args,
                               CXErrorCode code) {
  if (std::string why = support::unreadable_reason(file); !why.empty()) {
    return diag::make_error("opscan-io", {file, 0, 0, 0}, "cannot read " + file + ": " + why);
  }
  std::string pch;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    const std::string& option = args[i];
    if (option != "-include-pch" && option != "-include" && option != "-imacros")
      continue;
    const std::string& given = args[i + 1];
    if (std::string why = support::unreadable_reason(given); !why.empty()) {
      return diag::make_error(
          "opscan-io", {given, 0, 0, 0},
          fmt::format("cannot read {}, given with {}: {}; no file that uses it can be scanned",
                      given, option, why));
    }
    if (option == "-include-pch" && pch.empty())
      pch = given;
  }
  if (code == CXError_ASTReadError && !pch.empty()) {
    return diag::make_error(
        "opscan-parse-failed", {pch, 0, 0, 0},
        fmt::format("libclang could not load the precompiled header {} (-include-pch): it is "
                    "damaged, or was made by another libclang or with other arguments; make it "
                    "again with opscan pch and the scan's arguments",
                    pch));
  }
  std::string meaning;
  switch (code) {
  case CXError_ASTReadError:
    meaning = "it could not read a serialized file the arguments name";
    break;
  case CXError_InvalidArguments:
    meaning = "the compiler arguments are invalid";
    break;
  case CXError_Crashed:
    meaning = "libclang crashed";
    break;
  default:
    meaning = "check that the compiler arguments are valid";
    break;
  }
  return diag::make_error("opscan-parse-failed", {file, 0, 0, 0},
                          fmt::format("libclang could not parse {} (error {}): {}", file,
                                      static_cast<int>(code), meaning));
}

// Parses `file` with `args`; empty, with an error in `diags`, when libclang
// cannot.
TranslationUnit parse(CXIndex index, const std::string& file, const std::vector<std::string>& args,
                      unsigned options, diag::Diagnostics& diags) {
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  CXTranslationUnit tu = nullptr;
  CXErrorCode code = clang_parseTranslationUnit2(
      index, file.c_str(), argv.data(), static_cast<int>(argv.size()), nullptr, 0, options, &tu);
  if (code != CXError_Success || !tu) {
    diags.push_back(parse_failure(file, args, code));
    return {};
  }
  return TranslationUnit(tu);
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

// A function with C language linkage is not mangled.
ir::Linkage linkage_of(CXCursor function) {
  std::string mangled = take(clang_Cursor_getMangling(function));
  return mangled.starts_with("_Z") || mangled.empty() ? ir::Linkage::cxx : ir::Linkage::c;
}

// Walks one translation unit: the annotated declarations, each made a
// neutral Signature and handed to the pure stage (build_kernel).
class TranslationUnitScanner {
public:
  TranslationUnitScanner(CXTranslationUnit tu, const ScanContext& context)
      : tu_(tu), context_(context) {}

  FileResult run() {
    diag::Diagnostics errors = clang_errors(tu_);
    has_clang_errors_ = !errors.empty();
    result_.diagnostics.insert(result_.diagnostics.end(), errors.begin(), errors.end());
    clang_visitChildren(clang_getTranslationUnitCursor(tu_), &visit, this);
    refuse_inline_redeclarations();
    return std::move(result_);
  }

  void note_main_file(const std::string& file) { note_source(file); }

private:
  static CXChildVisitResult visit(CXCursor cursor, CXCursor parent, void* data) {
    return static_cast<TranslationUnitScanner*>(data)->visit(cursor, parent);
  }

  CXChildVisitResult visit(CXCursor cursor, CXCursor parent) {
    if (clang_Location_isInSystemHeader(clang_getCursorLocation(cursor)))
      return CXChildVisit_Continue;
    switch (clang_getCursorKind(cursor)) {
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

  // An annotation on something that is not a namespace-scope function:
  // nothing could register it, and dropping it silently would hide that.
  void misplaced(CXCursor decl, const char* what) {
    std::vector<CXCursor> attrs = annotations_of(decl);
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

  // Why generated code cannot call `function`, or nullopt.
  static std::optional<std::pair<std::string, std::string>> refusal(CXCursor function,
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
                       "kernel '" + name +
                           "' is a member function: kernels must be free functions"};
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

  static std::optional<std::pair<std::string, std::string>>
  refusal_of_inline(const std::string& name) {
    return std::pair{"opscan-scan-inline",
                     "kernel '" + name +
                         "' is inline (or constexpr): its definition is emitted only where it is "
                         "used, so generated registration code cannot link to it; remove "
                         "'inline'"};
  }

  void consider(CXCursor function) {
    std::vector<CXCursor> attrs = annotations_of(function);
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

    Signature sig;
    sig.qualified_name = name.name;
    sig.inline_namespaces = name.inline_namespaces;
    sig.linkage = linkage;
    sig.is_noexcept = is_noexcept(function);
    sig.usr = usr;
    sig.location = where;
    sig.invalid = clang_isInvalidDeclaration(function);
    sig.annotation = spelling(attr).substr(kKernelAnnotationPrefix.size());
    sig.annotation_map = map_annotation(tu_, attr, sig.annotation);

    const int count = clang_Cursor_getNumArguments(function);
    for (int i = 0; i < count; ++i) {
      CXCursor param = clang_Cursor_getArgument(function, static_cast<unsigned>(i));
      CXType type = clang_getCursorType(param);
      Parameter p;
      p.name = spelling(param);
      p.location = location_of(clang_getCursorLocation(param));
      p.end = location_of(clang_getRangeEnd(clang_getCursorExtent(param)));
      p.invalid = clang_isInvalidDeclaration(param);
      if (!p.invalid && i == 0) {
        sig.context = context_kind(type);
        if (sig.context != ir::ContextKind::none)
          continue;
      }
      if (!p.invalid) {
        p.type = spelling(type);
        p.canonical_type = spelling(clang_getCanonicalType(type));
        p.mapped = map_parameter_type(type);
      }
      sig.parameters.push_back(std::move(p));
    }
    CXType result_type = clang_getCursorResultType(function);
    sig.return_type = spelling(result_type);
    sig.canonical_return_type = spelling(clang_getCanonicalType(result_type));
    if (clang_getCanonicalType(result_type).kind != CXType_Void) {
      for (CXType value : tuple_elements(result_type).value_or(std::vector<CXType>{result_type}))
        sig.returns.push_back(map_return_type(value));
    }

    Built built = build_kernel(sig, context_.known, context_.options.check_field);
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

  CXTranslationUnit tu_;
  const ScanContext& context_;
  bool has_clang_errors_ = false;
  FileResult result_;
  struct FirstAnnotation {
    std::string text;
    diag::Location where;
  };
  std::map<std::string, FirstAnnotation> first_annotations_;    // by USR
  std::map<std::string, diag::Location> inline_redeclarations_; // by USR
  std::set<std::string> hashed_files_;
};

std::string display(diag::Location loc) {
  if (!loc.file.empty())
    loc.file = support::display_path(loc.file);
  return loc.file;
}

// How `file` is compiled, for libclang: the compilation database's command
// (or the file alone), the extra arguments, the default language without a
// database, and opscan's own arguments; a note in `dropped` for each
// argument left out. Nullopt, with an error, when the database has no
// command for it.
std::optional<CompileCommand> command_for(const std::string& file, const Options& options,
                                          const CompilationDatabase* db, diag::Diagnostics& diags,
                                          diag::Diagnostics& dropped) {
  CompileCommand command{file, {}};
  if (db) {
    auto from_db = db->command_for(file, diags);
    if (!from_db)
      return std::nullopt;
    command = std::move(*from_db);
  }
  const size_t database_args = command.args.size();
  command.args.insert(command.args.end(), options.extra_args.begin(), options.extra_args.end());
  if (!db)
    add_default_language(command.args);
  command.args = parse_arguments(file, std::move(command.args), dropped, database_args);
  return command;
}

FileResult scan_file_raw(CXIndex index, const ScanContext& context, const std::string& file) {
  const Options& options = context.options;
  const CompilationDatabase* db = context.db;
  FileResult result;
  std::optional<CompileCommand> command =
      command_for(file, options, db, result.diagnostics, result.dropped);
  if (!command)
    return result;
  const std::vector<std::string>& args = command->args;
  // Only clean scans are cached, so a hit has no diagnostics to replay.
  std::string cache_key;
  if (context.cache && result.diagnostics.empty()) {
    cache_key = FragmentCache::key(command->file, args, context.known_hash);
    if (auto hit = context.cache->lookup(cache_key, command->file)) {
      result.fragment = std::move(hit->fragment);
      result.inputs = std::move(hit->inputs);
      return result;
    }
  }
  TranslationUnit tu =
      parse(index, command->file, args,
            CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing, result.diagnostics);
  if (!tu)
    return result;
  TranslationUnitScanner scanner(tu.get(), context);
  scanner.note_main_file(command->file);
  result = [&] {
    FileResult r = scanner.run();
    r.diagnostics.insert(r.diagnostics.begin(), result.diagnostics.begin(),
                         result.diagnostics.end());
    r.dropped = std::move(result.dropped);
    return r;
  }();
  result.parsed = true;
  if (!cache_key.empty() && result.diagnostics.empty()) {
    Dependencies dependencies = dependencies_of(tu.get(), args);
    for (const std::string& pch : precompiled_headers(args))
      dependencies.inputs.push_back({pch, context.cache->hash_of(pch)});
    context.cache->store(cache_key, command->file, dependencies, result.fragment);
  }
  result.inputs = inputs_of(tu.get());
  std::vector<std::string> pchs = precompiled_headers(args);
  result.inputs.insert(result.inputs.end(), pchs.begin(), pchs.end());
  return result;
}

// Scans one file; every path in its results is shown as the user sees it,
// whichever way the scan ended.
FileResult scan_file(CXIndex index, const ScanContext& context, const std::string& file) {
  FileResult result = scan_file_raw(index, context, file);
  for (auto& d : result.diagnostics) {
    d.location.file = display(d.location);
    for (auto& n : d.notes)
      n.location.file = display(n.location);
    for (auto& f : d.fixits)
      f.file = support::display_path(f.file);
  }
  for (auto& d : result.dropped)
    d.location.file = display(d.location);
  for (auto& k : result.fragment.kernels)
    k.location.file = display(k.location);
  return result;
}

} // namespace

std::string libclang_version() {
  return take(clang_getClangVersion());
}

// Every file of `files`, absolute with symbolic links resolved: what build
// tools must watch (a lexically normalised "/usr/bin/../lib" may not exist).
std::vector<std::string> real_paths(const std::vector<std::string>& files) {
  // Files share most of their headers: resolve each name once (resolving
  // costs a system call per path component).
  std::set<std::string> names(files.begin(), files.end());
  std::set<std::string> paths;
  for (const std::string& name : names)
    paths.insert(std::filesystem::weakly_canonical(std::filesystem::absolute(name)).string());
  return {paths.begin(), paths.end()};
}

PrecompileResult precompile(const PrecompileOptions& options) {
  PrecompileResult out;
  std::vector<std::string> args = options.args;
  add_default_language(args);
  args = parse_arguments(options.header, std::move(args), out.diagnostics);
  args.insert(args.end(), {"-x", "c++-header"}); // the last -x wins
  Index index(clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0));
  if (TranslationUnit tu = parse(index.get(), options.header, args,
                                 CXTranslationUnit_ForSerialization, out.diagnostics)) {
    diag::Diagnostics errors = clang_errors(tu.get());
    out.diagnostics.insert(out.diagnostics.end(), errors.begin(), errors.end());
    if (errors.empty()) {
      // libclang saves to a path only: a private temporary, read back.
      static std::atomic<unsigned> saved{0};
      std::filesystem::path temporary =
          std::filesystem::temp_directory_path() /
          ("opscan-" + std::to_string(::getpid()) + "-" + std::to_string(saved++) + ".pch");
      std::optional<std::string> pch;
      if (clang_saveTranslationUnit(tu.get(), temporary.c_str(),
                                    clang_defaultSaveOptions(tu.get())) == CXSaveError_None)
        pch = support::read_file(temporary);
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      if (pch) {
        out.pch = std::move(*pch);
        out.inputs = real_paths(inputs_of(tu.get()));
      } else {
        out.diagnostics.push_back(diag::make_error("opscan-pch-failed", {options.header, 0, 0, 0},
                                                   "libclang could not save the precompiled "
                                                   "header"));
      }
    }
  }
  for (auto& d : out.diagnostics)
    d.location.file = display(d.location);
  diag::sort(out.diagnostics);
  return out;
}

Result scan(const Options& options) {
  Result out;
  out.module.libclang_version = libclang_version();
  std::unique_ptr<CompilationDatabase> db;
  if (options.build_dir) {
    db = CompilationDatabase::open(*options.build_dir, out.diagnostics);
    if (!db)
      return out;
  }
  std::optional<KnownSchemas> known;
  if (options.schemas_file) {
    known = load_known_schemas(*options.schemas_file, out.diagnostics);
    if (!known)
      return out;
  }
  ScanContext context{options, db.get(), known ? &*known : nullptr, nullptr, {}};
  std::optional<FragmentCache> cache;
  if (options.cache_dir) {
    cache.emplace(*options.cache_dir);
    context.cache = &*cache;
    if (options.schemas_file) {
      context.known_hash = cache->hash_of(*options.schemas_file);
      // A schemas file that is not a regular file (a pipe) has no hash to
      // key by: without it, the key would be that of a scan without schemas.
      if (context.known_hash.empty())
        context.cache = nullptr;
    }
  }
  const size_t files = options.files.size();
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, files));
  std::vector<FileResult> results(files);
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;
  std::mutex index_mutex; // libclang indexes must be created one at a time
  auto worker = [&] {
    Index index;
    {
      std::lock_guard lock(index_mutex);
      index = Index(clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0));
    }
    for (size_t i = next++; i < files; i = next++) {
      results[i] = scan_file(index.get(), context, options.files[i]);
      if (options.progress) {
        std::lock_guard lock(progress_mutex);
        options.progress(++done, files, options.files[i]);
      }
    }
    std::lock_guard lock(index_mutex);
    index.reset();
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t)
    threads.emplace_back(worker);
  if (files > 0)
    worker();
  for (auto& t : threads)
    t.join();

  std::vector<ir::Module> fragments;
  std::vector<std::string> inputs;
  std::set<std::string> dropped;
  for (FileResult& r : results) {
    add_once(out.diagnostics, r.dropped, dropped);
    out.files_parsed += r.parsed;
    inputs.insert(inputs.end(), r.inputs.begin(), r.inputs.end());
    fragments.push_back(std::move(r.fragment));
    out.diagnostics.insert(out.diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
  }
  out.inputs = real_paths(inputs);
  ir::MergeResult merged = ir::merge(std::move(fragments));
  out.module = std::move(merged.module);
  out.module.libclang_version = libclang_version();
  out.diagnostics.insert(out.diagnostics.end(), merged.diagnostics.begin(),
                         merged.diagnostics.end());
  // The scan's own checks come first; the IR's rules guard what they missed.
  diag::Diagnostics invalid = ir::validate(out.module, ir::Locator());
  out.diagnostics.insert(out.diagnostics.end(), invalid.begin(), invalid.end());
  diag::sort(out.diagnostics);
  return out;
}

namespace {

// The functions declared at namespace scope in `main_file`, and its includes.
SourceSites sites_of(CXTranslationUnit tu, const std::string& main_file) {
  SourceSites sites;
  sites.file = main_file;
  CXFile file = clang_getFile(tu, main_file.c_str());
  size_t size = 0;
  const char* data = file ? clang_getFileContents(tu, file, &size) : nullptr;
  const std::string_view text = data ? std::string_view(data, size) : std::string_view();
  struct Walk {
    CXFile file;
    std::string_view text;
    SourceSites* sites;
  } walk{file, text, &sites};
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
        FunctionSite site;
        site.qualified_name = qualified_name(c).name;
        site.begin = {w.sites->file, line, column, offset};
        // The name, where the cursor says it is: a macro wrote the
        // declaration when the file does not have it there.
        const diag::Location name_at = location_of(clang_getCursorLocation(c));
        const std::string name = spelling(c);
        site.written_by_macro =
            name_at.offset >= w.text.size() || !w.text.substr(name_at.offset).starts_with(name);
        site.annotated = !annotations_of(c).empty();
        w.sites->functions.push_back(std::move(site));
        return CXChildVisit_Continue;
      },
      &walk);
  struct Includes {
    CXFile file;
    std::string_view text;
    SourceSites* sites;
  } includes{file, text, &sites};
  clang_getInclusions(
      tu,
      [](CXFile included, CXSourceLocation* stack, unsigned depth, CXClientData data) {
        auto& in = *static_cast<Includes*>(data);
        if (take(clang_getFileName(included)).ends_with("opscan/annotations.h"))
          in.sites->includes_annotations = true;
        if (depth == 0)
          return;
        CXFile from;
        unsigned offset = 0;
        clang_getExpansionLocation(stack[0], &from, nullptr, nullptr, &offset);
        if (!from || !clang_File_isEqual(from, in.file))
          return;
        const size_t end = in.text.find('\n', offset);
        const uint32_t after =
            static_cast<uint32_t>(end == std::string_view::npos ? in.text.size() : end + 1);
        in.sites->after_includes = std::max(in.sites->after_includes, after);
      },
      &includes);
  return sites;
}

} // namespace

LocateResult locate_functions(const Options& options) {
  LocateResult out;
  std::unique_ptr<CompilationDatabase> db;
  if (options.build_dir) {
    db = CompilationDatabase::open(*options.build_dir, out.diagnostics);
    if (!db)
      return out;
  }
  Index index(clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0));
  std::set<std::string> dropped;
  for (const std::string& file : options.files) {
    diag::Diagnostics notes;
    std::optional<CompileCommand> command =
        command_for(file, options, db.get(), out.diagnostics, notes);
    add_once(out.diagnostics, notes, dropped);
    if (!command)
      continue;
    TranslationUnit tu =
        parse(index.get(), command->file, command->args,
              CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing, out.diagnostics);
    if (!tu)
      continue;
    diag::Diagnostics errors = clang_errors(tu.get());
    if (!errors.empty()) {
      out.diagnostics.insert(out.diagnostics.end(), errors.begin(), errors.end());
      continue;
    }
    out.files.push_back(sites_of(tu.get(), command->file));
  }
  for (auto& d : out.diagnostics)
    d.location.file = display(d.location);
  diag::sort(out.diagnostics);
  return out;
}

} // namespace opscan::scan
