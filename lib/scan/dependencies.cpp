// What a translation unit's result depends on: the files it read (libclang's
// inclusions, with libclang 14's omissions after a preamble made good) and
// every place where one of its includes could have found a file and found
// none, for the fragment cache to check.
#include "scan/dependencies.h"

#include "scan/clang.h"
#include "scan/includes.h"
#include "support/files.h"

#include <algorithm>
#include <clang-c/Index.h>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <sys/stat.h>

namespace opscan::scan {
namespace {
namespace fs = std::filesystem;

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The line of `text` that holds `offset`, up to `offset`.
std::string_view line_before(std::string_view text, size_t offset) {
  const size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t from = start == std::string_view::npos || offset == 0 ? 0 : start + 1;
  return text.substr(from, offset - from);
}

// Whether `prefix` is a directive `#WORD` for a WORD of `words`, then blanks.
bool is_directive(std::string_view prefix, std::initializer_list<std::string_view> words) {
  prefix = skip_blanks(prefix);
  if (!prefix.starts_with('#'))
    return false;
  prefix = skip_blanks(prefix.substr(1));
  for (std::string_view word : words) {
    if (prefix.starts_with(word) && skip_blanks(prefix.substr(word.size())).empty())
      return true;
  }
  return false;
}

// The name an #include spells, from libclang's location of it (that of its
// header name); nullopt when the directive is not one header name written
// on the directive's line (a computed include, a comment in between).
std::optional<HeaderName> spelled_include(std::string_view includer, size_t offset) {
  if (offset >= includer.size() ||
      !is_directive(line_before(includer, offset), {"include", "include_next", "import"}))
    return std::nullopt;
  return header_name_at(includer.substr(offset));
}

// The macro defined on the line of `text` that holds a use of a tester at
// `at`, when the line is `#define NAME(P) TESTER(P)`: NAME tests too.
std::optional<std::string> wrapper_defined_at(std::string_view text, size_t at) {
  std::string_view rest = skip_blanks(line_before(text, at));
  if (!rest.starts_with('#'))
    return std::nullopt;
  rest = skip_blanks(rest.substr(1));
  if (!rest.starts_with("define"))
    return std::nullopt;
  rest = skip_blanks(rest.substr(6));
  auto identifier = [&] {
    size_t end = 0;
    while (end < rest.size() && is_identifier_char(rest[end]))
      ++end;
    std::string_view word = rest.substr(0, end);
    rest = skip_blanks(rest.substr(end));
    return word;
  };
  const std::string_view name = identifier();
  if (name.empty() || !rest.starts_with('('))
    return std::nullopt;
  rest = skip_blanks(rest.substr(1));
  const std::string_view parameter = identifier();
  if (parameter.empty() || !rest.starts_with(')') || !skip_blanks(rest.substr(1)).empty())
    return std::nullopt;
  // The use: TESTER ( P )
  std::string_view use = text.substr(at);
  while (!use.empty() && is_identifier_char(use.front()))
    use.remove_prefix(1);
  use = skip_blanks(use);
  if (!use.starts_with('('))
    return std::nullopt;
  use = skip_blanks(use.substr(1));
  if (!use.starts_with(parameter))
    return std::nullopt;
  use = skip_blanks(use.substr(parameter.size()));
  if (!use.starts_with(')'))
    return std::nullopt;
  return std::string(name);
}

// Calls `visit(at)` for each use of `tester` as a function-like name in `text`.
template <typename Visit>
void for_each_use(std::string_view text, const std::string& tester, Visit visit) {
  for (size_t at = text.find(tester); at != std::string_view::npos;
       at = text.find(tester, at + tester.size())) {
    const size_t end = at + tester.size();
    if ((at > 0 && is_identifier_char(text[at - 1])) ||
        (end < text.size() && is_identifier_char(text[end])))
      continue;
    // Not `#ifdef __has_include` nor `defined(__has_include)`.
    if (skip_blanks(text.substr(end)).starts_with('('))
      visit(at);
  }
}

// Adds the macros `text` defines as a tester of its parameter
// (`#define HAS_INCLUDE(x) __has_include(x)`) to `testers`.
void add_wrappers(std::string_view text, std::set<std::string>& testers) {
  for (const char* tester : {"__has_include", "__has_include_next"}) {
    for_each_use(text, tester, [&](size_t at) {
      if (auto wrapper = wrapper_defined_at(text, at))
        testers.insert(std::move(*wrapper));
    });
  }
}

// Adds the names `text` tests the existence of with a tester (__has_include
// or a wrapper of it) to `names`. False when one is computed: which names
// it could test is not known.
bool add_tested_names(std::string_view text, const std::set<std::string>& testers,
                      std::vector<HeaderName>& names) {
  bool known = true;
  for (const std::string& tester : testers) {
    for_each_use(text, tester, [&](size_t at) {
      std::string_view rest = skip_blanks(text.substr(at + tester.size()));
      if (auto name = header_name_at(skip_blanks(rest.substr(1))))
        names.push_back(std::move(*name));
      else if (!is_directive(line_before(text, at), {"define"}) && !wrapper_defined_at(text, at))
        known = false; // neither defining the tester itself nor a wrapper
    });
  }
  return known;
}

} // namespace

std::vector<Inclusion> inclusions_of(CXTranslationUnit tu, bool preamble) {
  std::vector<Inclusion> inclusions;
  clang_getInclusions(
      tu,
      [](CXFile file, CXSourceLocation* stack, unsigned depth, CXClientData data) {
        Inclusion inclusion{file, take(clang_getFileName(file)), depth};
        if (depth > 0)
          clang_getExpansionLocation(stack[0], &inclusion.includer, nullptr, nullptr,
                                     &inclusion.offset);
        static_cast<std::vector<Inclusion>*>(data)->push_back(std::move(inclusion));
      },
      &inclusions);
  auto main = std::find_if(inclusions.begin(), inclusions.end(),
                           [](const Inclusion& inclusion) { return inclusion.depth == 0; });
  if (!preamble || main == inclusions.end())
    return inclusions;
  // The main file's #include lines whose file is listed nowhere.
  struct Missing {
    CXTranslationUnit tu;
    CXFile main;
    std::string_view text;
    std::set<std::string> listed;
    std::vector<Inclusion> found;
  } missing{tu, main->file, {}, {}, {}};
  size_t size = 0;
  const char* text = clang_getFileContents(tu, missing.main, &size);
  missing.text = std::string_view(text ? text : "", text ? size : 0);
  for (const Inclusion& inclusion : inclusions)
    missing.listed.insert(inclusion.path);
  CXCursorAndRangeVisitor visitor{
      &missing, [](void* data, CXCursor cursor, CXSourceRange) {
        auto& m = *static_cast<Missing*>(data);
        CXFile file = clang_getIncludedFile(cursor);
        std::string path = file ? take(clang_getFileName(file)) : std::string();
        if (!file || m.listed.count(path))
          return CXVisit_Continue;
        unsigned offset = 0;
        clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(cursor)), nullptr,
                                   nullptr, nullptr, &offset);
        // libclang's include location is the header name's.
        const size_t name = m.text.find_first_of("<\"", offset);
        if (name == std::string_view::npos ||
            m.text.substr(offset, name - offset).find('\n') != std::string_view::npos)
          return CXVisit_Continue;
        m.listed.insert(path);
        m.found.push_back({file, std::move(path), 1, m.main, static_cast<unsigned>(name)});
        return CXVisit_Continue;
      }};
  clang_findIncludesInFile(tu, missing.main, visitor);
  inclusions.insert(inclusions.end(), missing.found.begin(), missing.found.end());
  return inclusions;
}

Dependencies dependencies_of(CXTranslationUnit tu, const std::vector<Inclusion>& inclusions,
                             const std::vector<std::string>& args, FragmentCache& cache) {
  Dependencies out;
  auto uncacheable = [&] {
    out.cacheable = false;
    return out;
  };
  // Each file's text as libclang parsed it; read again only when libclang
  // has no copy (one a precompiled header stood for).
  std::map<std::string, std::string_view> texts;
  std::vector<std::string> read_again;
  for (const Inclusion& inclusion : inclusions) {
    if (texts.count(inclusion.path))
      continue;
    size_t size = 0;
    const char* data = clang_getFileContents(tu, inclusion.file, &size);
    std::string_view text(data ? data : "", size);
    if (!data) {
      auto bytes = support::read_file(inclusion.path);
      if (!bytes)
        return uncacheable();
      text = read_again.emplace_back(std::move(*bytes));
    }
    if (!is_recordable_path(inclusion.path))
      return uncacheable();
    texts.emplace(inclusion.path, text);
    out.inputs.push_back({inclusion.path, cache.hash_of_text(inclusion.path, text)});
  }
  std::sort(out.inputs.begin(), out.inputs.end(),
            [](const CachedInput& a, const CachedInput& b) { return a.path < b.path; });

  // The names looked up, each with the includer's directory when quoted.
  std::set<std::pair<std::string, std::string>> lookups;
  std::vector<std::string> dirs = search_directories(args);
  const std::vector<std::string> forced = forced_includes(args);
  for (const Inclusion& inclusion : inclusions) {
    if (inclusion.depth == 0)
      continue; // the main file
    if (!inclusion.includer) {
      if (forced.empty())
        return uncacheable(); // included by something unknown
      continue;               // a forced include, looked up below
    }
    const std::string includer = take(clang_getFileName(inclusion.includer));
    auto text = texts.find(includer);
    auto spelled =
        text == texts.end() ? std::nullopt : spelled_include(text->second, inclusion.offset);
    if (!spelled)
      return uncacheable(); // computed: which names it could spell is not known
    // Where a header was found is on the search path.
    if (inclusion.path.size() > spelled->name.size() &&
        inclusion.path.ends_with("/" + spelled->name)) {
      std::string dir = inclusion.path.substr(0, inclusion.path.size() - spelled->name.size() - 1);
      dirs.push_back(dir);
      // libstdc++'s directory comes with its backward/ one, where little is found.
      if (fs::path(dir).parent_path().filename() == "c++")
        dirs.push_back(dir + "/backward");
    }
    lookups.emplace(spelled->name, spelled->quoted ? directory_of(includer) : "");
  }
  // Forced includes are looked up as quoted names from the working directory.
  const std::string working_directory = working_directory_of(args);
  for (const std::string& name : forced)
    lookups.emplace(name, working_directory.empty() ? "." : working_directory);
  // The includes of headers a precompiled header holds are not listed:
  // every literal one is looked up as if it were.
  if (std::any_of(args.begin(), args.end(),
                  [](const std::string& a) { return a == "-include-pch"; })) {
    for (const auto& [path, text] : texts) {
      std::vector<HeaderName> included;
      add_included_names(text, included);
      for (HeaderName& name : included)
        lookups.emplace(std::move(name.name), name.quoted ? directory_of(path) : "");
    }
  }
  std::set<std::string> testers = {"__has_include", "__has_include_next"};
  for (const auto& [path, text] : texts)
    add_wrappers(text, testers);
  for (const auto& [path, text] : texts) {
    std::vector<HeaderName> tested;
    if (!add_tested_names(text, testers, tested))
      return uncacheable();
    for (HeaderName& name : tested)
      lookups.emplace(std::move(name.name), name.quoted ? directory_of(path) : "");
  }

  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  std::set<std::string> absent;
  for (const auto& lookup : lookups) {
    // Named, not a structured binding: clang 14 cannot capture one.
    const std::string& name = lookup.first;
    const std::string& includer_dir = lookup.second;
    if (name.starts_with('/'))
      continue; // looked up nowhere else
    auto consider = [&](const std::string& dir) {
      std::string candidate = joined(dir, name);
      if (!absent.count(candidate) && cache.names_nothing(candidate))
        absent.insert(std::move(candidate));
    };
    for (const std::string& dir : dirs)
      consider(dir);
    if (!includer_dir.empty())
      consider(includer_dir);
  }
  if (!std::all_of(absent.begin(), absent.end(), is_recordable_path))
    return uncacheable();
  out.absent.assign(absent.begin(), absent.end());
  return out;
}

void add_inputs(Dependencies& dependencies, const std::vector<CachedInput>& inputs) {
  std::vector<CachedInput>& all = dependencies.inputs;
  all.insert(all.end(), inputs.begin(), inputs.end());
  auto by_path = [](const CachedInput& a, const CachedInput& b) { return a.path < b.path; };
  std::stable_sort(all.begin(), all.end(), by_path);
  all.erase(std::unique(all.begin(), all.end(),
                        [](const CachedInput& a, const CachedInput& b) { return a.path == b.path; }),
            all.end());
}

} // namespace opscan::scan
