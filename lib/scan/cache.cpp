// The cache of per-file IR fragments, and the checks that decide when an entry may be used.
#include "scan/cache.h"

#include "ir/json.h"
#include "ir/validate.h"
#include "scan/clang.h"
#include "scan/includes.h"
#include "scan/libclang_loader.h"
#include "scan/scan.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/version.h"

#include <algorithm>
#include <charconv>
#include <clang-c/Index.h>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace opscan::scan {
namespace {
namespace fs = std::filesystem;

// 3: scans read the preprocessor's record of OPSCAN_KERNEL expansions (an
// annotation in a function body is an error); a version 2 entry may hide one.
// 4: inputs record their stamps (size, modification and change times).
constexpr std::string_view kHeader = "opscan-fragment-cache 4";
// The file remembering libclang's version, and its first line.
constexpr std::string_view kVersionFile = "libclang-version";
constexpr std::string_view kVersionHeader = "opscan-libclang-version 1";
// The coarsest file timestamps expected (FAT's): a file changed less than
// this before its stat may change again and keep the same times.
constexpr int64_t kTimestampGranularityNs = 2'000'000'000;
// An entry is a few hundred kilobytes; anything near this is not one.
constexpr size_t kMaxEntryBytes = size_t{64} << 20;
// Larger inputs (headers, precompiled headers) are not cached, nor read.
constexpr size_t kMaxInputBytes = size_t{1} << 30;

bool is_sha256(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// A path an entry can hold on one line and lookups can use.
bool is_sane_path(std::string_view path) {
  return !path.empty() && std::none_of(path.begin(), path.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

int64_t nanoseconds(const timespec& time) {
  return int64_t{time.tv_sec} * 1'000'000'000 + time.tv_nsec;
}

// A stamp as an entry records it: "SIZE:MTIME:CTIME", or "-" for none.
std::string stamp_text(const std::optional<FragmentCache::Stamp>& stamp) {
  if (!stamp)
    return "-";
  return std::to_string(stamp->size) + ':' + std::to_string(stamp->mtime_ns) + ':' +
         std::to_string(stamp->ctime_ns);
}

// The stamp `text` records; nullopt for "-"; false when it is neither.
bool parse_stamp(std::string_view text, std::optional<FragmentCache::Stamp>& stamp) {
  stamp.reset();
  if (text == "-")
    return true;
  int64_t fields[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    const size_t end = i < 2 ? text.find(':') : text.size();
    if (end == std::string_view::npos || end == 0 ||
        !std::all_of(text.begin(), text.begin() + end, [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    const auto [last, error] = std::from_chars(text.data(), text.data() + end, fields[i]);
    if (error != std::errc() || last != text.data() + end)
      return false;
    text.remove_prefix(i < 2 ? end + 1 : end);
  }
  stamp = FragmentCache::Stamp{fields[0], fields[1], fields[2]};
  return true;
}

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
      auto bytes = read_regular_file(inclusion.path, kMaxInputBytes, /*follow_links=*/true);
      if (!bytes)
        return uncacheable();
      text = read_again.emplace_back(std::move(*bytes));
    }
    if (!is_sane_path(inclusion.path))
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
  if (!std::all_of(absent.begin(), absent.end(), is_sane_path))
    return uncacheable();
  out.absent.assign(absent.begin(), absent.end());
  return out;
}

std::string FragmentCache::key(const std::string& file, const std::vector<std::string>& args,
                               const std::string& known_schemas_hash) {
  std::string material = std::string(kHeader) + '\0' + std::string(support::opscan_version()) +
                         '\0' + libclang_version() + '\0';
  std::error_code ec;
  material += std::filesystem::current_path(ec).string() + '\0' + file + '\0' + known_schemas_hash;
  for (const char* variable : kIncludePathVariables) {
    // Set-but-empty and unset are told apart.
    const char* value = std::getenv(variable);
    material += std::string(1, '\0') + variable + (value ? std::string("=") + value : "");
  }
  material += '\0';
  for (const std::string& arg : args)
    material += '\0' + arg;
  return support::sha256_hex(material);
}

std::string FragmentCache::libclang_version() {
  {
    std::lock_guard lock(mutex_);
    if (!version_.empty())
      return version_;
  }
  // Format: the header line, "library <path>", "stamp <stamp>", "version <text>".
  const std::string library = libclang_path();
  const Stat stat = stat_of(library);
  const std::string prefix = std::string(kVersionHeader) + "\nlibrary " + library + "\nstamp " +
                             stamp_text(stat.stamp) + "\nversion ";
  std::string version;
  if (stat.stamp && !libclang_loaded()) {
    auto text = read_regular_file((dir_ / kVersionFile).string(), 4096, /*follow_links=*/false);
    if (text && text->starts_with(prefix) && text->ends_with('\n')) {
      version = text->substr(prefix.size(), text->size() - prefix.size() - 1);
      if (!is_sane_path(version))
        version.clear();
    }
  }
  if (version.empty()) {
    version = scan::libclang_version();
    if (version.empty())
      return {};
    if (stat.settled && is_sane_path(version)) {
      const fs::path path = dir_ / kVersionFile;
      struct stat status {};
      if (::lstat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode))
        ::unlink(path.c_str());
      // Only a faster next scan depends on it: a failure is the entries' to report.
      support::write_if_changed(path, prefix + version + "\n");
    }
  }
  std::lock_guard lock(mutex_);
  version_ = version;
  return version_;
}

FragmentCache::Stat FragmentCache::stat_of(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = stats_.find(path); it != stats_.end())
      return it->second;
  }
  Stat out;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode)) {
    out.stamp = Stamp{status.st_size, nanoseconds(status.st_mtim), nanoseconds(status.st_ctim)};
    // Any later change sets the change time to at least now, truncated to
    // the file system's tick: past this one only if this is one tick old.
    out.settled = std::max(out.stamp->mtime_ns, out.stamp->ctime_ns) + kTimestampGranularityNs <=
                  nanoseconds(now);
  }
  std::lock_guard lock(mutex_);
  return stats_.emplace(path, out).first->second;
}

std::string FragmentCache::hash_of(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = hashes_.find(path); it != hashes_.end())
      return it->second;
  }
  // Its stamp first: a change after the stat, while reading it, shows in
  // the stamp of the next stat.
  stat_of(path);
  auto text = read_regular_file(path, kMaxInputBytes, /*follow_links=*/true);
  std::string hash = text ? support::sha256_hex(*text) : std::string();
  std::lock_guard lock(mutex_);
  ++files_read_;
  return hashes_.emplace(path, hash).first->second;
}

std::optional<FragmentCache::Stamp> FragmentCache::recordable_stamp(const std::string& path,
                                                                    const std::string& hash) {
  // The stat was taken before this run read the file; the bytes read are
  // those the entry records.
  if (hash_of(path) != hash)
    return std::nullopt;
  const Stat stat = stat_of(path);
  return stat.settled ? stat.stamp : std::nullopt;
}

bool FragmentCache::names_nothing(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = absent_.find(path); it != absent_.end())
      return it->second;
  }
  const bool absent = names_no_file(path);
  std::lock_guard lock(mutex_);
  absent_.emplace(path, absent);
  return absent;
}

std::string FragmentCache::hash_of_text(const std::string& path, std::string_view text) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = texts_.find(path); it != texts_.end() && it->second.first == text)
      return it->second.second;
  }
  std::string hash = support::sha256_hex(text);
  std::lock_guard lock(mutex_);
  texts_[path] = {std::string(text), hash};
  return hash;
}

bool FragmentCache::all_absent(const std::vector<std::string_view>& paths) {
  // Most were asked already (entries share their headers' search path): one
  // lock for all of them, and a stat for the others.
  std::vector<std::string_view> unknown;
  {
    std::lock_guard lock(mutex_);
    for (std::string_view path : paths) {
      if (auto it = absent_.find(path); it == absent_.end())
        unknown.push_back(path);
      else if (!it->second)
        return false;
    }
  }
  for (std::string_view path : unknown) {
    std::string name(path);
    const bool absent = names_no_file(name);
    {
      std::lock_guard lock(mutex_);
      absent_.emplace(std::move(name), absent);
    }
    if (!absent)
      return false;
  }
  return true;
}

std::optional<FragmentCache::Entry>
FragmentCache::lookup(const std::string& key, const std::string& file, bool with_absent) {
  // Not a link: an entry is only ever a file renamed into place.
  auto text = read_regular_file((dir_ / (key + ".entry")).string(), kMaxEntryBytes,
                                /*follow_links=*/false);
  if (!text)
    return std::nullopt;
  // Format: the header line, "key <key>", "source <file>", then
  // "input <sha256> <stamp> <path>" and "absent <path>" lines, "---", the IR.
  // Everything is checked before any path it names is looked at.
  const std::string_view all = *text;
  size_t at = 0;
  auto next_line = [&]() -> std::optional<std::string_view> {
    const size_t end = all.find('\n', at);
    if (end == std::string_view::npos)
      return std::nullopt;
    std::string_view line = all.substr(at, end - at);
    at = end + 1;
    return line;
  };
  if (next_line() != kHeader || next_line() != "key " + key || next_line() != "source " + file)
    return std::nullopt;
  struct Input {
    CachedInput input;
    std::optional<Stamp> stamp;
  };
  std::vector<Input> inputs;
  while (all.substr(at).starts_with("input ")) {
    const std::optional<std::string_view> line = next_line();
    if (!line)
      return std::nullopt; // truncated
    if (line->size() > 6 + 64 + 1 && (*line)[6 + 64] == ' ' && is_sha256(line->substr(6, 64))) {
      const std::string_view rest = line->substr(6 + 64 + 1);
      const size_t space = rest.find(' ');
      Input input;
      if (space == std::string_view::npos || !parse_stamp(rest.substr(0, space), input.stamp) ||
          !is_sane_path(rest.substr(space + 1)))
        return std::nullopt;
      input.input = {std::string(rest.substr(space + 1)), std::string(line->substr(6, 64))};
      inputs.push_back(std::move(input));
    } else {
      return std::nullopt;
    }
  }
  // Then the absent lines, up to "---" (no path holds a newline). Entries
  // share them (the same headers on the same search path): a block of them
  // is checked once per run for all the entries that hold it.
  const size_t separator = all.substr(at).starts_with("---\n") ? at : all.find("\n---\n", at) + 1;
  if (separator == 0)    // npos + 1
    return std::nullopt; // truncated
  const std::string_view absent_block = all.substr(at, separator - at);
  at = separator + 4;
  auto absent_paths = [&] {
    std::vector<std::string_view> paths;
    for (size_t from = 0; from < absent_block.size();) {
      const size_t end = absent_block.find('\n', from);
      paths.push_back(absent_block.substr(from + 7, end - from - 7));
      from = end + 1;
    }
    return paths;
  };
  bool absent_checked;
  {
    std::lock_guard lock(mutex_);
    absent_checked = checked_absent_blocks_.count(absent_block) > 0;
  }
  std::vector<std::string_view> absent;
  if (!absent_checked) {
    for (size_t from = 0; from < absent_block.size();) {
      const size_t end = absent_block.find('\n', from);
      const std::string_view line = absent_block.substr(from, end - from);
      if (!line.starts_with("absent ") || !is_sane_path(line.substr(7)))
        return std::nullopt;
      from = end + 1;
    }
    absent = absent_paths();
  }
  auto source = std::find_if(inputs.begin(), inputs.end(),
                             [&](const Input& input) { return input.input.path == file; });
  if (source == inputs.end())
    return std::nullopt;
  // Unchanged stamps are trusted; any other input is hashed, and its
  // stamp recorded (the entry rewritten) when it hashes the same.
  bool restamp = false;
  for (Input& input : inputs) {
    if (input.stamp && stat_of(input.input.path).stamp == input.stamp)
      continue;
    if (hash_of(input.input.path) != input.input.hash)
      return std::nullopt;
    if (auto stamp = recordable_stamp(input.input.path, input.input.hash)) {
      input.stamp = stamp;
      restamp = true;
    }
  }
  if (!absent_checked) {
    if (!all_absent(absent))
      return std::nullopt;
    std::lock_guard lock(mutex_);
    checked_absent_blocks_.emplace(absent_block);
  }
  // A damaged or hand-made entry is a miss, like any other: its IR must be
  // a valid fragment naming the file, and its sources have the hashes of
  // the inputs they are (one a precompiled header holds is not listed).
  const std::string_view ir_text = all.substr(at);
  auto read = ir::from_json(std::string(ir_text), "cache");
  if (!read.module || read.module->library || !ir::validate(*read.module, ir::Locator()).empty())
    return std::nullopt;
  bool names_the_file = false;
  for (const ir::SourceFile& recorded : read.module->sources) {
    // Names first: showing a path may resolve it, a system call per part.
    const std::string name = fs::path(recorded.path).filename().string();
    auto input = std::find_if(inputs.begin(), inputs.end(), [&](const Input& input) {
      return input.input.path.ends_with(name) &&
             support::display_path(input.input.path) == recorded.path;
    });
    if (input == inputs.end())
      continue;
    if (input->input.hash != recorded.sha256)
      return std::nullopt;
    names_the_file |= input == source;
  }
  if (!names_the_file)
    return std::nullopt;
  if (restamp) {
    std::string entry = std::string(kHeader) + "\nkey " + key + "\nsource " + file + "\n";
    for (const Input& input : inputs)
      entry += "input " + input.input.hash + " " + stamp_text(input.stamp) + " " +
               input.input.path + "\n";
    entry += std::string(absent_block) + "---\n" + std::string(ir_text);
    write_entry(key, entry);
  }
  Entry entry{std::move(*read.module), {}, {}};
  if (with_absent) {
    for (std::string_view path : absent_paths())
      entry.absent.emplace_back(path);
  }
  for (Input& input : inputs)
    entry.inputs.push_back(std::move(input.input.path));
  return entry;
}

void FragmentCache::store(const std::string& key, const std::string& file,
                          const Dependencies& dependencies, const ir::Module& fragment) {
  if (!dependencies.cacheable || !is_sane_path(file))
    return;
  std::string entry = std::string(kHeader) + "\nkey " + key + "\nsource " + file + "\n";
  for (const CachedInput& input : dependencies.inputs) {
    if (!is_sha256(input.hash) || !is_sane_path(input.path))
      return; // an input that cannot be read cannot be checked later
    entry += "input " + input.hash + " " + stamp_text(recordable_stamp(input.path, input.hash)) +
             " " + input.path + "\n";
  }
  for (const std::string& path : dependencies.absent)
    entry += "absent " + path + "\n";
  entry += "---\n" + ir::to_json(fragment);
  write_entry(key, entry);
}

void FragmentCache::write_entry(const std::string& key, const std::string& text) {
  if (text.size() > kMaxEntryBytes)
    return; // it would not be read
  const fs::path path = dir_ / (key + ".entry");
  // Whatever is there that is not a regular file (a link, a FIFO) goes
  // first: writing compares with the old content, which must not be read.
  struct stat status {};
  if (::lstat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode))
    ::unlink(path.c_str());
  // Atomic: concurrent runs sharing the cache each write a whole entry.
  std::string error;
  if (support::write_if_changed(path, text, &error) == support::WriteOutcome::failed) {
    std::lock_guard lock(mutex_);
    if (failure_.empty())
      failure_ = "cannot write " + path.string() + ": " + error;
  }
}

size_t FragmentCache::files_read() {
  std::lock_guard lock(mutex_);
  return files_read_;
}

std::string FragmentCache::failure() {
  std::lock_guard lock(mutex_);
  return failure_;
}

} // namespace opscan::scan
