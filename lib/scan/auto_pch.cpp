// Shared leading #include lines, precompiled once per prefix and stored in the cache directory.
#include "scan/auto_pch.h"

#include "scan/clang.h"
#include "scan/dependencies.h"
#include "scan/extract.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/temporaries.h"

#include <algorithm>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace opscan::scan {
namespace {
namespace fs = std::filesystem;

// A prefix reaching less than this is not worth a precompiled header: its
// headers parse in less time than loading one takes.
constexpr size_t kMinPrefixBytes = size_t{128} << 10;
// Bounds on what the planner reads to estimate costs.
constexpr size_t kMaxHeaderBytes = size_t{16} << 20;
constexpr size_t kMaxEstimatedFiles = 20000;

// Arguments that add text before a source's first line, or change how
// headers are loaded: a file compiled with them gets no automatic header.
bool blocks_auto_pch(const std::string& arg) {
  for (std::string_view prefix :
       {"-include", "--include", "-imacros", "--imacros", "-Xclang", "-Xpreprocessor", "-Wp,",
        "-fmodule", "-fpch", "-fno-pch", "-emit-", "--precompile"}) {
    if (arg.starts_with(prefix))
      return true;
  }
  return false;
}

// Which files the headers a prefix names reach, and how big they are: a
// cost estimate, read from the headers' #include lines without
// preprocessing (every branch of every #if counts).
class ReachEstimator {
public:
  explicit ReachEstimator(const std::vector<std::string>& args) : dirs_(search_directories(args)) {
    // The C++ standard library's directories, which the driver adds.
    for (const char* base : {"/usr/include", "/usr/local/include"}) {
      std::vector<fs::path> roots = {fs::path(base) / "c++"};
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(base, ec))
        roots.push_back(entry.path() / "c++"); // per target: x86_64-linux-gnu/c++
      for (const fs::path& root : roots) {
        for (const auto& version : fs::directory_iterator(root, ec))
          dirs_.push_back(version.path().string());
      }
    }
    std::sort(dirs_.begin(), dirs_.end());
    dirs_.erase(std::unique(dirs_.begin(), dirs_.end()), dirs_.end());
  }

  // The bytes of every file the headers of `names` reach from `dir`.
  size_t bytes(const std::vector<HeaderName>& names, const std::string& dir) {
    std::vector<char> seen(files_.size(), 0);
    std::vector<int> stack;
    for (const HeaderName& name : names) {
      if (std::optional<int> id = resolve(name, dir))
        stack.push_back(*id);
    }
    size_t total = 0;
    while (!stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      if (static_cast<size_t>(id) >= seen.size())
        seen.resize(files_.size(), 0);
      if (seen[id])
        continue;
      seen[id] = 1;
      total += files_[id].size;
      for (int child : children(id))
        stack.push_back(child);
    }
    return total;
  }

  // The files read so far.
  void add_read(std::vector<std::string>& read) const {
    for (const File& file : files_)
      read.push_back(file.path);
  }

private:
  struct File {
    std::string path;
    size_t size = 0;
    std::vector<HeaderName> includes;
    std::optional<std::vector<int>> children; // resolved when first needed
  };

  std::optional<int> resolve(const HeaderName& name, const std::string& includer_dir) {
    const std::string key = (name.quoted ? includer_dir : "") + '\0' + name.name;
    if (auto it = resolved_.find(key); it != resolved_.end())
      return it->second;
    std::optional<int> found;
    auto consider = [&](const std::string& dir) {
      const std::string path = joined(dir, name.name);
      if (found || files_.size() >= kMaxEstimatedFiles || names_no_file(path))
        return;
      const std::string canonical = fs::weakly_canonical(path).string();
      if (auto it = ids_.find(canonical); it != ids_.end()) {
        found = it->second;
        return;
      }
      std::optional<std::string> text = support::read_file(path, nullptr, kMaxHeaderBytes);
      if (!text)
        return;
      File file{canonical, text->size(), {}, std::nullopt};
      add_included_names(*text, file.includes);
      found = static_cast<int>(files_.size());
      ids_.emplace(canonical, *found);
      files_.push_back(std::move(file));
    };
    if (name.name.starts_with('/'))
      consider("");
    if (name.quoted)
      consider(includer_dir);
    for (const std::string& dir : dirs_)
      consider(dir);
    resolved_.emplace(key, found);
    return found;
  }

  std::vector<int> children(int id) {
    if (!files_[id].children) {
      std::vector<int> out;
      const std::string dir = directory_of(files_[id].path);
      const std::vector<HeaderName> includes = files_[id].includes;
      for (const HeaderName& name : includes) {
        if (std::optional<int> child = resolve(name, dir))
          out.push_back(*child);
      }
      files_[id].children = std::move(out);
    }
    return *files_[id].children;
  }

  std::vector<std::string> dirs_;
  std::vector<File> files_;
  std::map<std::string, int> ids_;
  std::map<std::string, std::optional<int>> resolved_;
};

// The directory a file's quoted includes are looked up in first.
std::string includer_dir(const std::string& file, const std::vector<std::string>& args) {
  std::string dir = directory_of(file);
  const std::string working_directory = working_directory_of(args);
  if (!dir.starts_with('/') && !working_directory.empty())
    dir = joined(working_directory, dir);
  return dir;
}

std::string header_text(const std::vector<HeaderName>& includes) {
  std::string text = "// The leading #include lines shared by sources opscan scans: its\n"
                     "// automatic precompiled header.\n";
  for (const HeaderName& name : includes)
    text += name.quoted ? "#include \"" + name.name + "\"\n" : "#include <" + name.name + ">\n";
  return text;
}

} // namespace

std::vector<HeaderName> leading_includes(std::string_view text) {
  std::vector<HeaderName> out;
  if (text.starts_with("\xEF\xBB\xBF"))
    return out;
  bool in_comment = false;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.ends_with('\r'))
      line.remove_suffix(1);
    if (line.ends_with('\\') || line.find('?') != std::string_view::npos)
      return out; // a continuation, or maybe a trigraph
    std::string code;
    for (size_t i = 0; i < line.size();) {
      if (in_comment) {
        const size_t close = line.find("*/", i);
        if (close == std::string_view::npos)
          break;
        in_comment = false;
        code += ' ';
        i = close + 2;
      } else if (line.substr(i, 2) == "/*") {
        in_comment = true;
        i += 2;
      } else if (line.substr(i, 2) == "//") {
        break;
      } else {
        code += line[i++];
      }
    }
    std::string_view rest = skip_blanks(code);
    if (rest.empty())
      continue;
    if (!rest.starts_with('#'))
      return out;
    rest = skip_blanks(rest.substr(1));
    if (!rest.starts_with("include"))
      return out;
    rest = skip_blanks(rest.substr(7));
    std::optional<HeaderName> name = header_name_at(rest);
    if (!name || !skip_blanks(rest.substr(name->name.size() + 2)).empty())
      return out;
    out.push_back(std::move(*name));
  }
  return out;
}

std::vector<HeaderName> shareable_prefix(const std::string& file,
                                         const std::vector<std::string>& args, bool beside) {
  if (std::any_of(args.begin(), args.end(), blocks_auto_pch))
    return {};
  std::optional<std::string> text = support::read_file(file, nullptr, kMaxSourceBytes);
  if (!text)
    return {};
  std::vector<HeaderName> prefix = leading_includes(*text);
  if (beside)
    return prefix;
  // A quoted name the file's own directory has is not found the same way
  // from the store: the prefix ends before it.
  const std::string dir = includer_dir(file, args);
  auto local = std::find_if(prefix.begin(), prefix.end(), [&](const HeaderName& name) {
    return name.quoted && !names_no_file(joined(dir, name.name));
  });
  prefix.erase(local, prefix.end());
  return prefix;
}

PchPlan plan_pchs(const std::vector<PchCandidate>& files, const PrefixCosts& costs) {
  PchPlan plan;
  plan.pch_of.assign(files.size(), -1);
  // Files compiled alike, by their arguments (and directory, when prefixes
  // may hold names found beside them).
  std::map<std::pair<std::vector<std::string>, std::string>, std::vector<size_t>> groups;
  std::vector<std::vector<HeaderName>> prefixes(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const PchCandidate& file = files[i];
    prefixes[i] = shareable_prefix(file.file, file.args, costs.beside);
    if (!prefixes[i].empty())
      groups[{file.args, costs.beside ? includer_dir(file.file, file.args) : ""}].push_back(i);
  }
  for (const auto& [group, members] : groups) {
    const auto& [args, dir] = group;
    // Every prefix two files or more share, with the files that have it.
    std::map<std::vector<HeaderName>, std::vector<size_t>> shared;
    for (size_t i : members) {
      for (size_t n = 1; n <= prefixes[i].size(); ++n)
        shared[{prefixes[i].begin(), prefixes[i].begin() + n}].push_back(i);
    }
    ReachEstimator estimator(args);
    struct Node {
      const std::vector<HeaderName>* includes;
      const std::vector<size_t>* files;
      size_t bytes;
      bool chosen = false;
    };
    std::vector<Node> nodes;
    for (const auto& [includes, with] : shared) {
      if (with.size() < 2)
        continue;
      // Quoted names are in no file's directory (checked above), or the
      // files share one: any member's directory gives the same lookups.
      const size_t bytes = estimator.bytes(includes, includer_dir(files[with[0]].file, args));
      if (bytes >= kMinPrefixBytes)
        nodes.push_back({&includes, &with, bytes});
    }
    // Greedy: the prefix that saves most, while one saves anything.
    std::map<size_t, size_t> covered; // file -> bytes its chosen prefix reaches
    std::map<size_t, size_t> node_of; // file -> node
    for (;;) {
      Node* best = nullptr;
      double best_gain = 0;
      for (Node& node : nodes) {
        if (node.chosen)
          continue;
        const double bytes = static_cast<double>(node.bytes);
        double gain = -costs.make * bytes;
        for (size_t f : *node.files) {
          const double before = static_cast<double>(covered[f]);
          gain += std::max(0.0, bytes - before) - (before == 0 ? costs.load * bytes : 0.0);
        }
        if (gain > best_gain) {
          best_gain = gain;
          best = &node;
        }
      }
      if (!best)
        break;
      best->chosen = true;
      for (size_t f : *best->files) {
        if (best->bytes > covered[f]) {
          covered[f] = best->bytes;
          node_of[f] = static_cast<size_t>(best - nodes.data());
        }
      }
    }
    std::map<size_t, int> pch_of_node;
    for (const auto& [file, node] : node_of) {
      auto [it, added] = pch_of_node.emplace(node, static_cast<int>(plan.pchs.size()));
      if (added)
        plan.pchs.push_back({args, *nodes[node].includes, dir});
      plan.pch_of[file] = it->second;
    }
    estimator.add_read(plan.read);
  }
  return plan;
}

PchStore::PchStore(std::filesystem::path dir, FragmentCache& cache)
    : dir_(std::filesystem::absolute(dir).lexically_normal()), cache_(cache) {
  // Headers a killed scan was saving: a live scan's are its own.
  support::remove_orphans(dir_, support::Orphan::file,
                          [](std::string_view name) { return name.find(".pch.") != name.npos; });
}

std::string PchStore::failure() const {
  std::lock_guard lock(failure_mutex_);
  return failure_;
}

void PchStore::fail(std::string why) {
  std::lock_guard lock(failure_mutex_);
  if (failure_.empty())
    failure_ = std::move(why);
}

bool PchStore::usable() {
  struct stat st {};
  if (::lstat(dir_.c_str(), &st) != 0 || S_ISDIR(st.st_mode))
    return true;
  fail(dir_.string() + " is not a directory" +
       (S_ISLNK(st.st_mode) ? " but a symbolic link; opscan writes precompiled headers only into "
                              "a real directory"
                            : ""));
  return false;
}

bool PchStore::holds(const std::string& path) const {
  return fs::path(path).parent_path() == dir_;
}

PchStore::Names PchStore::names_of(const PlannedPch& planned) const {
  Names names;
  names.text = header_text(planned.includes);
  std::string material = names.text;
  for (const std::string& arg : planned.args)
    material += '\0' + arg;
  const std::string name = support::sha256_hex(material).substr(0, 32);
  names.header = (dir_ / (name + ".h")).string();
  names.pch = (dir_ / (name + ".pch")).string();
  names.key = cache_.key(names.header, planned.args, "automatic precompiled header");
  return names;
}

// What a scan loading it depends on: its inputs but the store's files.
AutoPch PchStore::loadable(const std::string& pch, Dependencies dependencies) const {
  std::erase_if(dependencies.inputs, [&](const CachedInput& input) { return holds(input.path); });
  return AutoPch{pch, std::move(dependencies)};
}

std::optional<AutoPch> PchStore::stored(const PlannedPch& planned) {
  const Names names = names_of(planned);
  if (names_no_file(names.pch))
    return std::nullopt;
  std::optional<FragmentCache::Entry> entry =
      cache_.lookup(names.key, names.header, /*with_absent=*/true);
  if (!entry)
    return std::nullopt;
  // libclang checks the times of a precompiled header's inputs too.
  struct stat made {};
  bool fresh = ::stat(names.pch.c_str(), &made) == 0;
  for (const std::string& input : entry->inputs) {
    struct stat status {};
    fresh = fresh && ::stat(input.c_str(), &status) == 0 &&
            (status.st_mtim.tv_sec < made.st_mtim.tv_sec ||
             (status.st_mtim.tv_sec == made.st_mtim.tv_sec &&
              status.st_mtim.tv_nsec <= made.st_mtim.tv_nsec));
  }
  if (!fresh)
    return std::nullopt;
  // The entry's hashes were just checked against these.
  Dependencies dependencies;
  for (const std::string& input : entry->inputs)
    dependencies.inputs.push_back({input, cache_.hash_of(input)});
  dependencies.absent = std::move(entry->absent);
  return loadable(names.pch, std::move(dependencies));
}

std::optional<AutoPch> PchStore::find(const std::vector<std::string>& args,
                                      const std::vector<HeaderName>& prefix) {
  for (size_t n = prefix.size(); n > 0; --n) {
    if (std::optional<AutoPch> pch = stored({args, {prefix.begin(), prefix.begin() + n}, {}}))
      return pch;
  }
  return std::nullopt;
}

std::optional<AutoPch> PchStore::get(CXIndex index, const PlannedPch& planned) {
  if (std::optional<AutoPch> pch = stored(planned))
    return pch;
  const Names names = names_of(planned);
  const std::string& text = names.text;
  const std::string& header = names.header;
  const std::string& pch = names.pch;
  const std::string& key = names.key;
  const std::string name = fs::path(pch).stem().string();
  if (!usable())
    return std::nullopt;
  // Below the cache directory, through real directories only.
  const support::WriteFilesResult written =
      support::write_files({{header, text, dir_.parent_path()}});
  if (!written.ok()) {
    fail("cannot write " + written.failed_path->string() + ": " + written.error);
    return std::nullopt;
  }
  std::error_code ec;
  std::vector<std::string> args = planned.args;
  args.insert(args.end(), {"-x", "c++-header"}); // the last -x wins
  diag::Diagnostics diagnostics;
  TranslationUnit tu = parse(index, header, args,
                             CXTranslationUnit_ForSerialization |
                                 CXTranslationUnit_SkipFunctionBodies | kExtractParseOptions,
                             diagnostics);
  if (!tu || !diagnostics.empty() || !clang_errors(tu.get()).empty())
    return std::nullopt;
  // The sources' own #include lines must add nothing after it: each header
  // it names directly is guarded against a second inclusion.
  // System headers are made to be included again (<cmath> and <cassert>
  // are not wholly guarded, on purpose).
  struct Direct {
    CXTranslationUnit tu;
    bool guarded = true;
  } direct{tu.get()};
  clang_getInclusions(
      tu.get(),
      [](CXFile file, CXSourceLocation*, unsigned depth, CXClientData data) {
        auto& d = *static_cast<Direct*>(data);
        if (depth == 1 && !clang_isFileMultipleIncludeGuarded(d.tu, file) &&
            !clang_Location_isInSystemHeader(clang_getLocation(d.tu, file, 1, 1)))
          d.guarded = false;
      },
      &direct);
  if (!direct.guarded)
    return std::nullopt;
  // A kernel, or anything opscan reports, in the headers: the scans must see
  // them as each file's own.
  Extracted extracted = extract_kernels(tu.get(), header, nullptr, {});
  if (!extracted.fragment.kernels.empty() || !extracted.diagnostics.empty())
    return std::nullopt;

  const fs::path temporary = dir_ / support::temporary_name(name + ".pch");
  if (!usable())
    return std::nullopt;
  if (clang_saveTranslationUnit(tu.get(), temporary.c_str(), clang_defaultSaveOptions(tu.get())) !=
      CXSaveError_None) {
    fs::remove(temporary, ec);
    const std::string why = support::unwritable_reason(dir_, kLargePchBytes);
    fail("libclang could not save a precompiled header in " + dir_.string() +
         (why.empty() ? "" : ": " + why));
    return std::nullopt;
  }
  std::optional<std::string> bytes = support::read_file(temporary.string(), nullptr, size_t{1} << 30, support::Links::refuse);
  fs::rename(temporary, pch, ec);
  if (ec || !bytes) {
    fail("cannot store " + pch + ": " + (ec ? ec.message() : "it cannot be read back"));
    fs::remove(temporary, ec);
    return std::nullopt;
  }
  Dependencies dependencies = dependencies_of(tu.get(), inclusions_of(tu.get()), args, cache_);
  add_inputs(dependencies, {{pch, support::sha256_hex(*bytes)}});
  cache_.store(key, header, dependencies, extracted.fragment);
  return loadable(pch, std::move(dependencies));
}

} // namespace opscan::scan
