#include "scan/clang.h"

#include "support/files.h"

#include <algorithm>
#include <fmt/format.h>

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

} // namespace

TranslationUnit parse(CXIndex index, const std::string& file, const std::vector<std::string>& args,
                      unsigned options, diag::Diagnostics& diags,
                      std::vector<CXUnsavedFile> unsaved) {
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  CXTranslationUnit tu = nullptr;
  CXErrorCode code = clang_parseTranslationUnit2(
      index, file.c_str(), argv.data(), static_cast<int>(argv.size()), unsaved.data(),
      static_cast<unsigned>(unsaved.size()), options, &tu);
  if (code != CXError_Success || !tu) {
    diags.push_back(parse_failure(file, args, code));
    return {};
  }
  return TranslationUnit(tu);
}

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
