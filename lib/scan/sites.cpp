// Where a source's functions and #include lines are, for the YAML import
// (sites_of, unit_sites_of).
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
#include <optional>
#include <set>

namespace opscan::scan {
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

// The offset in `main` of a declaration's name, when there: that of the
// macro call when a call wrote it. Two declarations have one offset only
// when one call wrote both (libclang's spelling locations are its
// expansion locations: a call is known by this alone).
std::optional<unsigned> name_in(CXCursor c, CXFile main) {
  CXFile file;
  unsigned offset = 0;
  clang_getExpansionLocation(clang_getCursorLocation(c), &file, nullptr, nullptr, &offset);
  if (!file || !clang_File_isEqual(file, main))
    return std::nullopt;
  return offset;
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
    // Macro calls (where their declarations' names are) -> the first
    // declaration of each: the one an annotation above the call attaches to.
    std::map<unsigned, CXCursor> firsts;
  } walk{main, text, shift, &sites, true, {}};
  clang_visitChildren(
      clang_getTranslationUnitCursor(tu),
      [](CXCursor c, CXCursor, void* data) {
        auto& w = *static_cast<Walk*>(data);
        const CXCursorKind kind = clang_getCursorKind(c);
        if (kind == CXCursor_LinkageSpec)
          return CXChildVisit_Recurse;
        if (!clang_isDeclaration(kind)) // macro calls, #include lines
          return CXChildVisit_Continue;
        const std::optional<unsigned> named = name_in(c, w.file);
        const CXCursor first =
            named ? w.firsts.try_emplace(*named, c).first->second : clang_getNullCursor();
        if (kind == CXCursor_Namespace)
          return CXChildVisit_Recurse;
        if (kind != CXCursor_FunctionDecl)
          return CXChildVisit_Continue;
        CXFile where_file;
        unsigned line = 0, column = 0, offset = 0;
        clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)), &where_file,
                                   &line, &column, &offset);
        if (!where_file || !clang_File_isEqual(where_file, w.file))
          return CXChildVisit_Continue;
        if (line <= w.shift.lines || offset < w.shift.bytes || (named && *named < w.shift.bytes)) {
          w.mapped = false;
          return CXChildVisit_Break;
        }
        FunctionSite site;
        site.qualified_name = qualified_name(c).name;
        site.begin = {w.sites->file, line - w.shift.lines, column, offset - w.shift.bytes};
        site.annotated = !annotations_of(c).empty();
        if (!clang_Cursor_isNull(first) && !clang_equalCursors(first, c)) {
          site.macro_first = spelling(first);
          if (site.macro_first.empty()) // an anonymous namespace, say
            site.macro_first = take(clang_getCursorKindSpelling(clang_getCursorKind(first)));
        }
        site.key_tensors = key_tensors_of(c);
        site.takes_context = clang_Cursor_getNumArguments(c) > 0 &&
                             context_kind(clang_getCursorType(clang_Cursor_getArgument(c, 0))) ==
                                 ir::ContextKind::runtime_context;
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
