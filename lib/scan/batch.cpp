// How a run parses many files: their compile commands, libclang indexes per
// worker thread, the threads, and the units files that share leading
// #include lines are parsed in (batch.h).
#include "scan/batch.h"

#include "scan/libclang_loader.h"
#include "support/files.h"
#include "support/temporaries.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace opscan::scan {
namespace {

// libclang indexes must be created and disposed of one at a time.
std::mutex index_mutex;

// TMPDIR set to a directory while the object lives: libclang writes the
// preambles of units there. Set and restored while no other thread runs
// (the environment is not thread-safe).
class TemporaryDirectoryVariable {
public:
  explicit TemporaryDirectoryVariable(const std::filesystem::path& dir) {
    if (const char* old = std::getenv("TMPDIR"))
      old_ = old;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TemporaryDirectoryVariable() {
    if (old_)
      ::setenv("TMPDIR", old_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  TemporaryDirectoryVariable(const TemporaryDirectoryVariable&) = delete;
  TemporaryDirectoryVariable& operator=(const TemporaryDirectoryVariable&) = delete;

private:
  std::optional<std::string> old_;
};

} // namespace

// Every file of `inclusions`: the main file and its includes.
std::vector<std::string> inputs_of(const std::vector<Inclusion>& inclusions) {
  std::vector<std::string> files;
  for (const Inclusion& inclusion : inclusions)
    files.push_back(inclusion.path);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
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
  CompileCommand command{file, {}, {}};
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
  command.args =
      parse_arguments(file, std::move(command.args), dropped, database_args, command.directory);
  return command;
}

// The commands of every file of options.files that has one, each dropped
// argument noted once.
std::vector<CompileCommand> commands_for(const Options& options, const CompilationDatabase* db,
                                         diag::Diagnostics& diags) {
  std::vector<CompileCommand> commands;
  std::set<std::string> dropped;
  for (const std::string& file : options.files) {
    diag::Diagnostics notes;
    std::optional<CompileCommand> command = command_for(file, options, db, diags, notes);
    add_once(diags, notes, dropped);
    if (command)
      commands.push_back(std::move(*command));
  }
  return commands;
}

// The compilation database of options.build_dir (none without one); false,
// with an error in `diags`, when it cannot be opened.
bool open_database(const Options& options, std::unique_ptr<CompilationDatabase>& db,
                   diag::Diagnostics& diags) {
  if (options.build_dir)
    db = CompilationDatabase::open(*options.build_dir, diags);
  return !options.build_dir || db;
}

bool ready_to_parse(const Options& options, std::unique_ptr<CompilationDatabase>& db,
                    diag::Diagnostics& diags) {
  if (auto unavailable = libclang_unavailable()) {
    diags.push_back(std::move(*unavailable));
    return false;
  }
  return open_database(options, db, diags);
}

CXIndex index_of(Index& index, bool skip_pch) {
  if (!index) {
    std::lock_guard lock(index_mutex);
    index = Index(clang_createIndex(skip_pch, /*displayDiagnostics=*/0));
  }
  return index.get();
}

// Runs task(indexes, i) for every i < n, on up to `jobs` threads.
void in_parallel(unsigned jobs, size_t n, const std::function<void(Indexes&, size_t)>& task) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    Indexes indexes;
    for (size_t i = next++; i < n; i = next++)
      task(indexes, i);
    std::lock_guard lock(index_mutex);
    indexes.plain.reset();
    indexes.skip_pch.reset();
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs && t < n; ++t)
    threads.emplace_back(worker);
  worker();
  for (auto& t : threads)
    t.join();
}

// Worker threads for `files` files: options.jobs, or one per core.
unsigned jobs_for(const Options& options, size_t files) {
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(jobs, files)));
}

// Parses `candidates` on up to `jobs` threads: with `units`, the files that
// share leading #include lines (as planned for preamble units) one after
// another in a unit, each other file alone. parse(indexes, unit, k) parses
// candidates[k], in `unit` when it is not null, and says whether the unit
// stood for the file. Returns how many units stood for a file.
size_t in_units(const std::vector<PchCandidate>& candidates, bool units, unsigned jobs,
                const std::function<bool(Indexes&, PreambleUnit*, size_t)>& parse) {
  PchPlan plan;
  if (units && candidates.size() > 1)
    plan = plan_pchs(candidates, kPreambleUnitCosts);
  plan.pch_of.resize(candidates.size(), -1);
  // A task is a unit's files or a file alone; the largest first.
  std::vector<std::vector<size_t>> tasks(plan.pchs.size());
  for (size_t k = 0; k < candidates.size(); ++k) {
    if (plan.pch_of[k] >= 0)
      tasks[plan.pch_of[k]].push_back(k);
    else
      tasks.push_back({k});
  }
  auto largest_first = [&] {
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const auto& a, const auto& b) { return a.size() > b.size(); });
  };
  largest_first();
  // A unit is parsed on one core: while cores would idle, a large one is
  // split in two, each half making the preamble again (it costs about two
  // parses; each further file about a twentieth of one).
  constexpr size_t kSplitUnitFiles = 16;
  while (!tasks.empty() && tasks.size() < jobs && tasks.front().size() >= kSplitUnitFiles) {
    std::vector<size_t> half(tasks.front().begin() + tasks.front().size() / 2, tasks.front().end());
    tasks.front().resize(tasks.front().size() / 2);
    tasks.push_back(std::move(half));
    largest_first();
  }
  // The units' preambles, in a private directory that a killed scan leaves
  // for the next run to remove (without one, in TMPDIR itself).
  std::optional<support::PrivateDirectory> preambles;
  std::optional<TemporaryDirectoryVariable> preambles_variable;
  if (!plan.pchs.empty() && (preambles = support::PrivateDirectory::make("scan")))
    preambles_variable.emplace(preambles->path());
  std::atomic<size_t> used{0};
  in_parallel(jobs, tasks.size(), [&](Indexes& indexes, size_t task) {
    std::optional<PreambleUnit> unit;
    const std::vector<size_t>& members = tasks[task];
    if (members.size() > 1)
      unit.emplace(plan.pchs[plan.pch_of[members[0]]], candidates[members[0]].file);
    bool used_unit = false;
    for (size_t k : members)
      used_unit = parse(indexes, unit ? &*unit : nullptr, k) || used_unit;
    used += used_unit;
  });
  return used;
}

// Every file of `files`, absolute with symbolic links resolved: what build
// tools must watch (a lexically normalised "/usr/bin/../lib" may not exist).
std::vector<std::string> real_paths(const std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  // Files share most of their headers, and headers their directories:
  // resolve each name once, and each directory once (resolving costs a
  // system call per path component); only a file that is a link itself
  // is resolved whole.
  std::set<std::string> names(files.begin(), files.end());
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  std::map<std::string, fs::path> dirs;
  std::set<std::string> paths;
  for (const std::string& name : names) {
    const fs::path path = cwd / name; // an absolute name stays itself
    auto dir = dirs.find(path.parent_path().string());
    if (dir == dirs.end())
      dir = dirs.emplace(path.parent_path().string(), fs::weakly_canonical(path.parent_path(), ec))
                .first;
    fs::path real = dir->second / path.filename();
    if (dir->second.empty() || path.filename() == ".." || path.filename() == "." ||
        fs::is_symlink(real, ec))
      real = fs::weakly_canonical(path, ec);
    paths.insert(real.string());
  }
  return {paths.begin(), paths.end()};
}

} // namespace opscan::scan
