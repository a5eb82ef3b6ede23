#include "scan/scan.h"

#include "scan/annotation.h"
#include "scan/cache.h"
#include "scan/clang_util.h"
#include "scan/flags.h"
#include "scan/infer.h"
#include "scan/kernel_key.h"
#include "scan/known_schemas.h"
#include "scan/types.h"
#include "support/cpp_literal.h"
#include "support/files.h"
#include "support/sha256.h"

#include <algorithm>
#include <atomic>
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
  bool parsed = false; // false: from the cache, or not even parsed
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

// libclang's errors about a translation unit (warnings are off).
diag::Diagnostics clang_errors(CXTranslationUnit tu) {
  diag::Diagnostics errors;
  unsigned n = clang_getNumDiagnostics(tu);
  for (unsigned i = 0; i < n; ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      errors.push_back(diag::make_error("opscan-clang-error",
                                        location_of(clang_getDiagnosticLocation(d)),
                                        take(clang_getDiagnosticSpelling(d))));
    }
    clang_disposeDiagnostic(d);
  }
  return errors;
}

// The arguments libclang gets for `file`: `args` without the GCC-only flags
// it rejects (each dropped with a note), plus opscan's own.
std::vector<std::string> parse_arguments(const std::string& file, std::vector<std::string> args,
                                         diag::Diagnostics& diags) {
  std::vector<std::string> kept;
  for (std::string& arg : args) {
    if (is_gcc_only_flag(arg)) {
      diags.push_back(diag::make_note("opscan-dropped-flag", {file, 0, 0, 0},
                                      "dropped '" + arg + "', which libclang does not accept"));
    } else {
      kept.push_back(std::move(arg));
    }
  }
  add_scanning_arguments(kept);
  return kept;
}

// A precompiled header loaded with -include-pch stands for every file it was
// made from: libclang's inclusion list no longer names them.
void add_precompiled_headers(const std::vector<std::string>& args,
                             std::vector<std::string>& inputs) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "-include-pch")
      inputs.push_back(args[i + 1]);
  }
}

// Parses `file` with `args`; null, with an error in `diags`, when libclang
// cannot.
CXTranslationUnit parse(CXIndex index, const std::string& file,
                        const std::vector<std::string>& args, unsigned options,
                        diag::Diagnostics& diags) {
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  CXTranslationUnit tu = nullptr;
  CXErrorCode code = clang_parseTranslationUnit2(
      index, file.c_str(), argv.data(), static_cast<int>(argv.size()), nullptr, 0,
      options | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles, &tu);
  if (code != CXError_Success || !tu) {
    diags.push_back(
        diag::make_error("opscan-parse-failed", {file, 0, 0, 0},
                         "libclang could not parse this file (error " + std::to_string(int(code)) +
                             "); check that it exists and that the compiler arguments are valid"));
    return nullptr;
  }
  return tu;
}

// Everything the visitor needs for one translation unit.
class TranslationUnitScanner {
public:
  TranslationUnitScanner(CXTranslationUnit tu, const KnownSchemas* known)
      : tu_(tu), known_(known) {}

  FileResult run() {
    report_clang_diagnostics();
    clang_visitChildren(clang_getTranslationUnitCursor(tu_), &visit, this);
    return std::move(result_);
  }

private:
  static CXChildVisitResult visit(CXCursor cursor, CXCursor, void* data) {
    return static_cast<TranslationUnitScanner*>(data)->visit(cursor);
  }

  CXChildVisitResult visit(CXCursor cursor) {
    if (clang_Location_isInSystemHeader(clang_getCursorLocation(cursor))) {
      return CXChildVisit_Continue;
    }
    switch (clang_getCursorKind(cursor)) {
    case CXCursor_Namespace:
    case CXCursor_LinkageSpec:
    case CXCursor_UnexposedDecl:
    case CXCursor_StructDecl:
    case CXCursor_ClassDecl:
      return CXChildVisit_Recurse;
    case CXCursor_FunctionDecl:
    case CXCursor_CXXMethod:
    case CXCursor_FunctionTemplate:
      consider(cursor);
      return CXChildVisit_Continue;
    default:
      return CXChildVisit_Continue;
    }
  }

  // The function's OPSCAN_KERNEL annotations, its own and those inherited
  // from earlier declarations.
  static std::vector<CXCursor> annotations_of(CXCursor function) {
    std::vector<CXCursor> found;
    clang_visitChildren(
        function,
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

  void error(std::string code, diag::Location where, std::string message) {
    result_.diagnostics.push_back(
        diag::make_error(std::move(code), std::move(where), std::move(message)));
  }

  // Maps byte offsets in an annotation's text (the macro arguments as the
  // preprocessor stringized them: whitespace between tokens becomes one
  // space) back to the source, token by token, so that errors point at the
  // right line and column even in multi-line or oddly spaced annotations.
  // When the text is not found as written (an annotation made by another
  // macro), every offset maps to the macro use.
  class AnnotationSource {
  public:
    AnnotationSource(CXTranslationUnit tu, CXCursor attr, std::string_view text) {
      // The extent is the macro use, in macro locations: clang_tokenize needs
      // the file locations of its expansion.
      CXSourceRange extent = clang_getCursorExtent(attr);
      fallback_ = location_of(clang_getRangeStart(extent));
      diag::Location last = location_of(clang_getRangeEnd(extent));
      CXFile file = clang_getFile(tu, fallback_.file.c_str());
      CXToken* tokens = nullptr;
      unsigned count = 0;
      if (file && last.file == fallback_.file && last.offset > fallback_.offset) {
        clang_tokenize(tu,
                       clang_getRange(clang_getLocationForOffset(tu, file, fallback_.offset),
                                      clang_getLocationForOffset(tu, file, last.offset)),
                       &tokens, &count);
      }
      auto spelling_of = [&](unsigned i) { return take(clang_getTokenSpelling(tu, tokens[i])); };
      // NAME ( arguments... )
      if (count >= 3 && spelling_of(1) == "(" && spelling_of(count - 1) == ")") {
        std::string rebuilt;
        uint32_t previous_end = 0;
        for (unsigned i = 2; i + 1 < count; ++i) {
          CXSourceRange range = clang_getTokenExtent(tu, tokens[i]);
          diag::Location begin = location_of(clang_getRangeStart(range));
          uint32_t end = location_of(clang_getRangeEnd(range)).offset;
          if (i > 2 && begin.offset > previous_end)
            rebuilt += ' ';
          pieces_.push_back({rebuilt.size(), end - begin.offset, begin});
          rebuilt += spelling_of(i);
          previous_end = end;
        }
        if (rebuilt != text)
          pieces_.clear();
      }
      clang_disposeTokens(tu, tokens, count);
    }

    // Whether offsets map to the source exactly (the annotation is written
    // out in the file, not made by another macro).
    bool exact() const { return !pieces_.empty(); }

    diag::Location at(size_t offset) const {
      for (const Piece& piece : pieces_) {
        // In this token, or in the space before it.
        if (offset < piece.offset + piece.length) {
          return shifted(piece.where, offset > piece.offset ? offset - piece.offset : 0);
        }
      }
      if (pieces_.empty())
        return fallback_;
      return shifted(pieces_.back().where, pieces_.back().length);
    }

  private:
    static diag::Location shifted(diag::Location loc, size_t bytes) {
      loc.column += static_cast<uint32_t>(bytes);
      loc.offset += static_cast<uint32_t>(bytes);
      return loc;
    }

    struct Piece {
      size_t offset; // in the text
      size_t length;
      diag::Location where;
    };
    diag::Location fallback_;
    std::vector<Piece> pieces_;
  };

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
    std::vector<CXCursor> attrs = annotations_of(function);
    if (attrs.empty())
      return;
    const CXCursor* attr = &attrs.front();
    diag::Location where = location_of(clang_getCursorLocation(function));
    std::string usr = take(clang_getCursorUSR(function));
    // Declarations and the definition are one kernel, annotated once or
    // alike each time.
    auto [first, fresh] = first_annotations_.try_emplace(
        usr, FirstAnnotation{spelling(*attr), location_of(clang_getCursorLocation(*attr))});
    for (CXCursor other : attrs) {
      std::string text = spelling(other);
      // After a parse error clang may attach the next declaration's
      // annotation to this one: the parse error is the problem to report.
      if (has_clang_errors_ || same_annotation(text, first->second.text))
        continue;
      auto d = diag::make_error(
          "opscan-kernel-conflict", location_of(clang_getCursorLocation(other)),
          "kernel '" + qualified_name(function) + "' is annotated as " +
              text.substr(kKernelAnnotationPrefix.size()) + " here and as " +
              first->second.text.substr(kKernelAnnotationPrefix.size()) + " elsewhere");
      d.notes.push_back({"other annotation is here", first->second.where});
      result_.diagnostics.push_back(std::move(d));
    }
    if (!fresh)
      return;
    note_source(where.file);

    std::string name = qualified_name(function);
    CXCursorKind kind = clang_getCursorKind(function);
    if (kind == CXCursor_FunctionTemplate) {
      return error("opscan-scan-template", where,
                   "kernel '" + name +
                       "' is a function template: annotate a non-template function "
                       "(wrap each instantiation you want to register)");
    }
    if (kind == CXCursor_CXXMethod) {
      return error("opscan-scan-method", where,
                   "kernel '" + name + "' is a member function: kernels must be free functions");
    }
    CXLinkageKind linkage = clang_getCursorLinkage(function);
    if (linkage == CXLinkage_Internal || linkage == CXLinkage_UniqueExternal) {
      return error("opscan-scan-internal-linkage", where,
                   "kernel '" + name +
                       "' has internal linkage (static or in an anonymous "
                       "namespace): generated registration code cannot call it");
    }

    std::string text = spelling(*attr).substr(kKernelAnnotationPrefix.size());
    AnnotationSource source(tu_, *attr, text);
    ParsedAnnotation parsed = parse_annotation(text);
    if (!parsed.annotation) {
      return error("opscan-annotation-syntax", source.at(parsed.error->offset),
                   parsed.error->message);
    }
    const Annotation& note = *parsed.annotation;
    std::optional<diag::FixIt> spec_fix;
    if (source.exact()) {
      // From the spec's opening quote to just after its closing quote.
      diag::Location begin = source.at(note.spec_offset - 1);
      diag::Location end = source.at(note.text_offset(note.spec.size()));
      if (begin.file == end.file && end.offset >= begin.offset) {
        spec_fix = diag::FixIt{begin.file, begin.offset, end.offset + 1 - begin.offset, ""};
      }
    }
    extract(
        function, name, usr, where, note, [&](size_t i) { return source.at(note.text_offset(i)); },
        [&](size_t offset) { return source.at(offset); }, spec_fix);
  }

  // `spec_at` maps a byte offset in the annotation's spec to the source.
  static bool is_naming_rule(const std::string& code) {
    return code == "opscan-schema-out-suffix" || code == "opscan-schema-reserved-overload" ||
           code == "opscan-schema-reserved-name" || code == "opscan-schema-syntax";
  }

  // `spec_at` maps a byte offset in the annotation's spec to the source,
  // `text_at` one in the whole annotation text; `spec_fix`, when set, is the
  // range of the spec's string literal(s), for fix-its that rewrite it.
  void extract(CXCursor function, const std::string& name, const std::string& usr,
               const diag::Location& where, const Annotation& note,
               const std::function<diag::Location(size_t)>& spec_at,
               const std::function<diag::Location(size_t)>& text_at,
               const std::optional<diag::FixIt>& spec_fix) {
    ir::Kernel kernel;
    kernel.cpp_function = name;
    kernel.usr = usr;
    kernel.location = where;
    kernel.kernel_key = note.kernel_key;
    kernel.dispatch_key = note.dispatch_key;

    // The spec: an operator name, or a schema when it has a '('.
    std::optional<schema::Schema> declared;
    diag::Diagnostics declared_rule_errors;
    bool bad = false;
    if (note.spec.find('(') != std::string::npos) {
      auto parsed = schema::parse_schema_with_layout(note.spec);
      if (!parsed)
        return error(parsed.error->code, spec_at(parsed.error->offset), parsed.error->message);
      declared = parsed.value->schema;
      kernel.op = declared->name;
      // torchgen's rules. Naming errors stand on their own; the others are
      // reported only if the signature fits the schema (otherwise the fix-it
      // rewrites the schema anyway).
      for (schema::Error& e : schema::check_schema(*declared, parsed.value->layout)) {
        if (is_naming_rule(e.code)) {
          error(e.code, spec_at(e.offset), e.message);
          bad = true;
        } else {
          declared_rule_errors.push_back(diag::make_error(e.code, spec_at(e.offset), e.message));
        }
      }
    } else {
      auto parsed = schema::parse_operator_name(note.spec);
      if (!parsed)
        return error(parsed.error->code, spec_at(parsed.error->offset), parsed.error->message);
      kernel.op = *parsed.value;
    }
    // Offsets are into the printed name, which the spec starts with when
    // written canonically (after any leading spaces).
    const size_t name_at = std::min(note.spec.find_first_not_of(" \t\n\r\f\v"), note.spec.size());
    if (!declared) {
      for (const schema::Error& e : schema::check_operator_name(kernel.op)) {
        error(e.code, spec_at(name_at + e.offset), e.message);
        bad = true;
      }
    }

    // Parameters: an optional runtime context, then the schema arguments.
    int count = clang_Cursor_getNumArguments(function);
    std::vector<CppParam> params;
    std::vector<ir::Argument> arguments;
    std::vector<diag::Location> param_locations;
    CppSpelling cpp;
    for (int i = 0; i < count; ++i) {
      CXCursor param = clang_Cursor_getArgument(function, static_cast<unsigned>(i));
      CXType type = clang_getCursorType(param);
      diag::Location at = location_of(clang_getCursorLocation(param));
      std::string param_name = spelling(param);
      if (clang_isInvalidDeclaration(param)) {
        error("opscan-scan-invalid-type", at,
              "the type of parameter '" + param_name + "' of '" + name +
                  "' could not be resolved (see the error above)");
        bad = true;
        continue;
      }
      if (i == 0 && context_kind(type) != ContextKind::none) {
        kernel.has_context = true;
        continue;
      }
      MappedType mapped = map_parameter_type(type);
      if (!mapped.type) {
        error("opscan-scan-unsupported-type", at,
              "parameter '" + param_name + "' of '" + name + "': " + mapped.error);
        bad = true;
        continue;
      }
      if (param_name.empty()) {
        // Suggest the declared schema's name for it, else one by position.
        const size_t index = params.size();
        std::string suggested = declared && index < declared->arguments.size()
                                    ? declared->arguments[index].name
                                    : "arg" + std::to_string(index + 1);
        auto d = diag::make_error("opscan-scan-unnamed-parameter", at,
                                  "parameter " + std::to_string(i + 1) + " of '" + name +
                                      "' has no name: name it, the schema argument takes its name");
        diag::Location end = location_of(clang_getRangeEnd(clang_getCursorExtent(param)));
        if (end.file == at.file)
          d.fixits.push_back({end.file, end.offset, 0, " " + suggested});
        result_.diagnostics.push_back(std::move(d));
        bad = true;
        params.push_back({suggested, *mapped.type, mapped.is_mutable});
        continue;
      }
      cpp.params.push_back(spelling(type));
      params.push_back({param_name, *mapped.type, mapped.is_mutable});
      arguments.push_back({param_name, "", spelling(type), spelling(clang_getCanonicalType(type)),
                           false, std::nullopt});
      param_locations.push_back(at);
    }
    if (clang_isInvalidDeclaration(function) && !bad) {
      error("opscan-scan-invalid-type", where,
            "the declaration of '" + name + "' is invalid (see the error above)");
      bad = true;
    }

    CXType result_type = clang_getCursorResultType(function);
    kernel.cpp_return_type = spelling(result_type);
    cpp.ret = kernel.cpp_return_type;
    cpp.has_context = kernel.has_context;
    kernel.cpp_canonical_return_type = spelling(clang_getCanonicalType(result_type));
    CppReturn ret;
    if (clang_getCanonicalType(result_type).kind != CXType_Void) {
      std::vector<CXType> values =
          tuple_elements(result_type).value_or(std::vector<CXType>{result_type});
      for (CXType value : values) {
        MappedType mapped = map_return_type(value);
        if (!mapped.type) {
          error("opscan-scan-unsupported-type", where,
                "return type of '" + name + "': " + mapped.error);
          bad = true;
          continue;
        }
        ret.values.push_back({"", *mapped.type, mapped.is_mutable});
      }
    }
    if (bad)
      return;

    auto inferred = infer_schema(kernel.op, params, ret);
    if (auto* e = std::get_if<InferError>(&inferred)) {
      return error(e->code, e->param >= 0 ? param_locations[static_cast<size_t>(e->param)] : where,
                   "kernel '" + name + "': " + e->message);
    }
    const schema::Schema& inferred_schema = std::get<schema::Schema>(inferred);
    if (!declared) {
      // An inferred schema obeys torchgen's rules too (its name was checked
      // above).
      bool broken = false;
      for (const schema::Error& e :
           schema::check_schema(inferred_schema, schema::layout_of(inferred_schema))) {
        if (is_naming_rule(e.code))
          continue;
        auto d = diag::make_error(e.code, where, "kernel '" + name + "': " + e.message);
        d.notes.push_back({"schema inferred from the signature: " + inferred_schema.str(), where});
        result_.diagnostics.push_back(std::move(d));
        broken = true;
      }
      if (broken)
        return;
    }
    const schema::Schema* used = &inferred_schema;
    kernel.schema_origin = ir::SchemaOrigin::inferred;
    const KnownSchema* known = nullptr;
    if (!declared && known_) {
      auto it = known_->find(kernel.op);
      if (it != known_->end())
        known = &it->second;
    }
    if (declared || known) {
      const schema::Schema& reference = declared ? *declared : known->schema;
      auto mismatches = cross_check(reference, inferred_schema, cpp,
                                    declared ? Reference::declared : Reference::known);
      std::optional<diag::FixIt> fix;
      if (declared && spec_fix) {
        fix = *spec_fix;
        fix->replacement = support::cpp_string_literal(repair(*declared, inferred_schema).str());
      }
      for (const InferError& e : mismatches) {
        auto d = diag::make_error(
            e.code, e.param >= 0 ? param_locations[static_cast<size_t>(e.param)] : where,
            e.message);
        if (declared) {
          // The note spells out what the fix-it writes, for readers of text.
          d.notes.push_back({fix ? "schema declared here; to fit the signature: " + fix->replacement
                                 : std::string("schema declared here"),
                             spec_at(0)});
          if (fix)
            d.fixits.push_back(*fix);
        } else {
          d.notes.push_back({"known schema: " + known->schema.str(), known->where});
        }
        result_.diagnostics.push_back(std::move(d));
      }
      if (!mismatches.empty())
        return;
      if (!declared_rule_errors.empty()) {
        result_.diagnostics.insert(result_.diagnostics.end(), declared_rule_errors.begin(),
                                   declared_rule_errors.end());
        return;
      }
      used = &reference;
      kernel.schema_origin = ir::SchemaOrigin::declared;
    }
    if (!note.kernel_key.empty()) {
      size_t required = 0, all = 0;
      for (const schema::Argument& a : used->arguments) {
        if (a.type.base != "Tensor" || a.type.is_list())
          continue;
        ++all;
        required += !a.type.is_optional();
      }
      if (auto e = check_kernel_key(note.kernel_key, required, all)) {
        return error("opscan-kernel-key", text_at(note.key_offset + e->offset), e->message);
      }
    }
    kernel.schema = used->str();
    for (size_t i = 0; i < arguments.size(); ++i) {
      const schema::Argument& a = used->arguments[i];
      arguments[i].name = a.name;
      arguments[i].schema_type = a.type.str();
      arguments[i].kwarg_only = a.kwarg_only;
      arguments[i].default_value = a.default_value;
    }
    kernel.arguments = std::move(arguments);
    for (const schema::Return& r : used->returns)
      kernel.returns.push_back({r.name, r.type.str()});
    result_.fragment.kernels.push_back(std::move(kernel));
  }

  void report_clang_diagnostics() {
    diag::Diagnostics errors = clang_errors(tu_);
    has_clang_errors_ = !errors.empty();
    result_.diagnostics.insert(result_.diagnostics.end(), errors.begin(), errors.end());
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

public:
  void note_main_file(const std::string& file) { note_source(file); }

private:
  CXTranslationUnit tu_;
  const KnownSchemas* known_;
  bool has_clang_errors_ = false;
  FileResult result_;
  struct FirstAnnotation {
    std::string text;
    diag::Location where;
  };
  std::map<std::string, FirstAnnotation> first_annotations_; // by USR
  std::set<std::string> hashed_files_;
};

std::string display(diag::Location loc) {
  if (!loc.file.empty())
    loc.file = support::display_path(loc.file);
  return loc.file;
}

FileResult scan_file_raw(CXIndex index, const ScanContext& context, const std::string& file) {
  const Options& options = context.options;
  const CompilationDatabase* db = context.db;
  FileResult result;
  CompileCommand command{file, {}};
  if (db) {
    auto from_db = db->command_for(file, result.diagnostics);
    if (!from_db)
      return result;
    command = std::move(*from_db);
  }
  command.args.insert(command.args.end(), options.extra_args.begin(), options.extra_args.end());
  if (!db)
    add_default_language(command.args);
  std::vector<std::string> args =
      parse_arguments(file, std::move(command.args), result.diagnostics);
  // Only clean scans are cached, so a hit has no diagnostics to replay.
  std::string cache_key;
  if (context.cache && result.diagnostics.empty()) {
    cache_key = FragmentCache::key(command.file, args, context.known_hash);
    if (auto hit = context.cache->lookup(cache_key)) {
      result.fragment = std::move(hit->fragment);
      result.inputs = std::move(hit->inputs);
      return result;
    }
  }
  CXTranslationUnit tu =
      parse(index, command.file, args,
            CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing, result.diagnostics);
  if (!tu)
    return result;
  TranslationUnitScanner scanner(tu, context.known);
  scanner.note_main_file(command.file);
  result = [&] {
    FileResult r = scanner.run();
    r.diagnostics.insert(r.diagnostics.begin(), result.diagnostics.begin(),
                         result.diagnostics.end());
    return r;
  }();
  result.parsed = true;
  result.inputs = inputs_of(tu);
  add_precompiled_headers(args, result.inputs);
  if (!cache_key.empty() && result.diagnostics.empty()) {
    context.cache->store(cache_key, result.inputs, result.fragment);
  }
  clang_disposeTranslationUnit(tu);
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
  CXIndex index = clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0);
  if (CXTranslationUnit tu = parse(index, options.header, args,
                                   CXTranslationUnit_ForSerialization, out.diagnostics)) {
    diag::Diagnostics errors = clang_errors(tu);
    out.diagnostics.insert(out.diagnostics.end(), errors.begin(), errors.end());
    if (errors.empty()) {
      // libclang saves to a path only: a private temporary, read back.
      static std::atomic<unsigned> saved{0};
      std::filesystem::path temporary =
          std::filesystem::temp_directory_path() /
          ("opscan-" + std::to_string(::getpid()) + "-" + std::to_string(saved++) + ".pch");
      std::optional<std::string> pch;
      if (clang_saveTranslationUnit(tu, temporary.c_str(), clang_defaultSaveOptions(tu)) ==
          CXSaveError_None)
        pch = support::read_file(temporary);
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      if (pch) {
        out.pch = std::move(*pch);
        out.inputs = real_paths(inputs_of(tu));
      } else {
        out.diagnostics.push_back(diag::make_error("opscan-pch-failed", {options.header, 0, 0, 0},
                                                   "libclang could not save the precompiled "
                                                   "header"));
      }
    }
    clang_disposeTranslationUnit(tu);
  }
  clang_disposeIndex(index);
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
    if (options.schemas_file)
      context.known_hash = cache->hash_of(*options.schemas_file);
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
    CXIndex index;
    {
      std::lock_guard lock(index_mutex);
      index = clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0);
    }
    for (size_t i = next++; i < files; i = next++) {
      results[i] = scan_file(index, context, options.files[i]);
      if (options.progress) {
        std::lock_guard lock(progress_mutex);
        options.progress(++done, files, options.files[i]);
      }
    }
    std::lock_guard lock(index_mutex);
    clang_disposeIndex(index);
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
  for (FileResult& r : results) {
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
  diag::sort(out.diagnostics);
  return out;
}

} // namespace opscan::scan
