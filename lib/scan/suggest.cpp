// The kernels a source declares without annotations, and where annotations
// would go (suggest_kernels).
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
bool has_tensor(const kernel::Signature& sig) {
  auto is_tensor = [](const kernel::MappedType& m) { return m.type && m.type->base == "Tensor"; };
  return std::any_of(sig.parameters.begin(), sig.parameters.end(),
                     [&](const kernel::Parameter& p) { return is_tensor(p.mapped); }) ||
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
    kernel::Signature sig = signature_of(tu, function, false);
    sig.linkage = linkage_of(function);
    sig.qualified_name = sig.linkage == ir::Linkage::c ? spelling(function) : name.name;
    sig.inline_namespaces = name.inline_namespaces;
    sig.usr = usr;
    sig.annotation = support::cpp_string_literal(op->str());
    if (!has_tensor(sig))
      continue;
    const kernel::Built built = kernel::build_kernel(sig, nullptr, ir::Fields());
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
