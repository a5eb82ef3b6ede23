// Compile commands, headers' includers and the build's libraries, per database.
#include "lsp/workspace.h"

#include "emit/registry.h"
#include "support/files.h"

#include <ctime>
#include <filesystem>
#include <set>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace opscan::lsp {
namespace {

// A database lists the sources; reading each to find a header's includer is
// bounded, however large the project.
constexpr size_t kMaxSourcesRead = 5000;
constexpr size_t kMaxSourceBytes = 4 << 20;
// Generated libraries are looked for this deep under the build directory.
constexpr int kMaxLibraryDepth = 8;

std::string canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? fs::path(path).lexically_normal().string() : p.string();
}

// Whether `text` has an #include line naming a file called `name` (the
// last component of what it includes).
bool includes_name(std::string_view text, std::string_view name) {
  size_t at = 0;
  while ((at = text.find("include", at)) != std::string_view::npos) {
    const size_t line_start =
        text.rfind('\n', at) == std::string_view::npos ? 0 : text.rfind('\n', at) + 1;
    std::string_view before = text.substr(line_start, at - line_start);
    at += 7;
    // "#", "# ", "  #  " before the keyword, nothing else.
    if (before.find('#') == std::string_view::npos ||
        before.find_first_not_of(" \t#") != std::string_view::npos)
      continue;
    const size_t open = text.find_first_of("\"<\n", at);
    if (open == std::string_view::npos || text[open] == '\n')
      continue;
    const size_t close = text.find_first_of(text[open] == '"' ? "\"\n" : ">\n", open + 1);
    if (close == std::string_view::npos || text[close] == '\n')
      continue;
    std::string_view included = text.substr(open + 1, close - open - 1);
    const size_t slash = included.rfind('/');
    if ((slash == std::string_view::npos ? included : included.substr(slash + 1)) == name)
      return true;
  }
  return false;
}

int64_t mtime_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return -1;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

size_t content_hash(const std::string& path) {
  std::optional<std::string> text = support::read_file(path);
  return text ? std::hash<std::string>{}(*text) : 0;
}

// Reads the library IRs `files`, each as the command line would.
BuiltLibraries read_libraries(const std::vector<std::string>& files, const fs::path& build) {
  BuiltLibraries built;
  driver::ReadIrs read = driver::read_irs(files, emit::builtin_targets());
  built.problems = std::move(read.diagnostics);
  for (driver::IrFile& file : read.files) {
    if (!file.module.library)
      continue;
    // Generated to validate it; the server never generates.
    file.regenerated.reset();
    std::vector<diag::Location>& locations = built.locations.emplace_back();
    for (const ir::Kernel& kernel : file.module.kernels) {
      diag::Location at = kernel.location;
      if (!at.file.empty() && fs::path(at.file).is_relative())
        at.file = (build / at.file).lexically_normal().string();
      locations.push_back(std::move(at));
    }
    built.files.push_back(std::move(file));
  }
  built.check = driver::check_libraries(built.files, emit::builtin_targets());
  // Only the check locates problems in the IRs: their positions go.
  for (driver::IrFile& file : built.files)
    file.positions = {};
  return built;
}

} // namespace

struct Workspace::Database {
  std::string file;        // compile_commands.json
  Stamp stamp;             // of the file as read
  bool racy = false;       // the stamp was too recent to tell a change (racy())
  size_t content_hash = 0; // of the file as read, while racy
  std::unique_ptr<scan::CompilationDatabase> db;
  diag::Diagnostics problems; // why db is unset: the file cannot be used
  std::map<std::string, std::string> includers;          // header -> a source whose unit read it
  std::map<std::string, std::vector<std::string>> noted; // unit -> the files it read, as noted
  BuiltLibraries libraries;
  std::map<std::string, int64_t> library_mtimes; // by IR file
  bool libraries_found = false;
};

bool racy(const Stamp& stamp) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const int64_t now_ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  return now_ns - stamp.mtime < 2000000000;
}

Stamp stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return {};
  return {st.st_dev, st.st_ino, st.st_size,
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
}

std::string find_database(const std::string& path) {
  for (fs::path dir = fs::path(path).parent_path(); !dir.empty(); dir = dir.parent_path()) {
    for (const fs::path& candidate :
         {dir / "compile_commands.json", dir / "build" / "compile_commands.json"}) {
      std::error_code ec;
      if (fs::exists(candidate, ec))
        return candidate.string();
    }
    if (dir == dir.root_path())
      break;
  }
  return {};
}

Workspace::Workspace(std::optional<std::string> database_dir)
    : database_dir_(std::move(database_dir)) {}

Workspace::~Workspace() = default;

Workspace::Database* Workspace::open(const std::string& file) {
  if (file.empty())
    return nullptr;
  // Stamped before reading: a change while it is read shows next time.
  const Stamp stamp = stamp_of(file);
  auto [it, fresh] = databases_.try_emplace(file);
  if (!fresh) {
    Database& old = *it->second;
    bool changed = old.stamp != stamp;
    if (!changed && old.racy) {
      changed = content_hash(file) != old.content_hash;
      old.racy = racy(stamp);
    }
    if (changed) {
      // What was learnt from it goes too (the units that read headers, the
      // libraries of its build directory).
      it->second.reset();
      fresh = true;
    }
  }
  if (fresh) {
    auto database = std::make_unique<Database>();
    database->file = file;
    database->stamp = stamp;
    database->racy = racy(stamp);
    if (database->racy)
      database->content_hash = content_hash(file);
    // An unusable database: files use default flags, and are told why.
    database->db = scan::CompilationDatabase::open(fs::path(file).parent_path().string(),
                                                   database->problems);
    it->second = std::move(database);
  }
  return it->second.get();
}

Workspace::Database* Workspace::database_for(const std::string& path) {
  if (database_dir_)
    return open((fs::path(*database_dir_) / "compile_commands.json").string());
  // Looked for on every analysis (a few stat calls), not remembered: a
  // database made or removed after the file was opened applies at once.
  return open(find_database(path));
}

FileCommand Workspace::command_for(const std::string& path) {
  FileCommand command{path, {}, {}, {}, {}};
  Database* database = database_for(path);
  if (!database || !database->db) {
    if (database)
      command.database_problems = database->problems;
    scan::add_default_language(command.args);
    return command;
  }
  command.database = database->file;
  diag::Diagnostics ignored;
  const std::string normal = fs::path(path).lexically_normal().string();
  if (database->db->files().contains(normal)) {
    if (auto found = database->db->command_for(normal, ignored)) {
      command.args = std::move(found->args);
      command.directory = std::move(found->directory);
    }
    return command;
  }
  // A header: through the unit that read it last, else a source including it.
  std::string includer;
  if (auto it = database->includers.find(canonical(path)); it != database->includers.end())
    includer = it->second;
  if (includer.empty()) {
    const std::string name = fs::path(path).filename().string();
    size_t read = 0;
    for (const std::string& source : database->db->files()) {
      if (++read > kMaxSourcesRead)
        break;
      std::optional<std::string> text = support::read_file(source, nullptr, kMaxSourceBytes);
      if (text && includes_name(*text, name)) {
        includer = source;
        break;
      }
    }
  }
  if (!includer.empty()) {
    if (auto found = database->db->command_for(includer, ignored)) {
      command.main_file = includer;
      command.args = std::move(found->args);
      command.directory = std::move(found->directory);
      return command;
    }
  }
  scan::add_default_language(command.args);
  return command;
}

void Workspace::note_includes(const std::string& main_file, const std::string& database,
                              const std::vector<std::string>& files) {
  auto it = databases_.find(database);
  if (it == databases_.end() || !it->second->db)
    return;
  // Most edits leave a unit's includes as they were: resolving hundreds of
  // paths after each would cost more than the re-parse.
  std::vector<std::string>& noted = it->second->noted[main_file];
  if (noted == files)
    return;
  noted = files;
  for (const std::string& file : files) {
    if (file != main_file)
      it->second->includers[canonical(file)] = main_file;
  }
}

const BuiltLibraries& Workspace::built_libraries(const std::string& database_file) {
  static const BuiltLibraries none;
  Database* database = open(database_file);
  if (!database || !database->db)
    return none;
  const fs::path build = fs::path(database_file).parent_path();
  if (!database->libraries_found) {
    database->libraries_found = true;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             build, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it.depth() >= kMaxLibraryDepth) {
        it.disable_recursion_pending();
        continue;
      }
      const fs::path& p = it->path();
      if (p.filename() == "ir.json" && p.parent_path().parent_path().filename() == "include" &&
          p.parent_path().parent_path().parent_path().extension() == ".opscan")
        database->library_mtimes[p.string()] = -2; // not read yet
    }
  }
  bool changed = false;
  for (auto& [file, mtime] : database->library_mtimes) {
    const int64_t now = mtime_of(file);
    changed = changed || now != mtime;
    mtime = now;
  }
  if (changed) {
    std::vector<std::string> files;
    for (const auto& [file, mtime] : database->library_mtimes) {
      if (mtime >= 0) // one removed since it was found is no problem
        files.push_back(file);
    }
    database->libraries = read_libraries(files, build);
  }
  return database->libraries;
}

} // namespace opscan::lsp
