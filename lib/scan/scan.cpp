// Scanning: sources to IR with libclang, in parallel, through the cache and shared preambles.
#include "scan/scan.h"

#include "ir/validate.h"
#include "scan/annotation.h"
#include "scan/auto_pch.h"
#include "scan/cache.h"
#include "scan/dependencies.h"
#include "scan/clang.h"
#include "scan/extract.h"
#include "scan/flags.h"
#include "scan/known_schemas.h"
#include "scan/libclang_loader.h"
#include "scan/preamble_unit.h"
#include "scan/signature.h"
#include "scan/types.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/temporaries.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
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
  std::string known_hash;        // of the known-schemas file, part of cache keys
  PchStore* pch_store = nullptr; // automatic precompiled headers, with a cache
};

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

// A file's command and cache key, and whether it still needs parsing.
struct Prepared {
  std::optional<CompileCommand> command;
  std::string cache_key;
  bool done = false; // from the cache, or without a command: nothing to parse
};

// Finds how `file` is compiled and looks it up in the cache.
FileResult prepare(const ScanContext& context, const std::string& file, Prepared& prepared) {
  FileResult result;
  prepared.command =
      command_for(file, context.options, context.db, result.diagnostics, result.dropped);
  prepared.done = !prepared.command;
  if (!prepared.command)
    return result;
  // Only clean scans are cached, so a hit has no diagnostics to replay.
  if (context.cache && result.diagnostics.empty()) {
    prepared.cache_key =
        context.cache->key(prepared.command->file, prepared.command->args, context.known_hash);
    if (auto hit = context.cache->lookup(prepared.cache_key, prepared.command->file)) {
      result.fragment = std::move(hit->fragment);
      result.inputs = std::move(hit->inputs);
      prepared.done = true;
    }
  }
  return result;
}

// A file's unit placement undone: what the unit reports of its main file
// is the file's own. False when something cannot be mapped back (the file
// then needs a plain parse).
bool undo_placement(const UnitPlacement& at, const std::string& text, ir::Module& fragment,
                    Dependencies& dependencies, std::vector<std::string>& inputs) {
  for (ir::Kernel& kernel : fragment.kernels) {
    if (at.file != at.unit &&
        kernel.usr.find(std::filesystem::path(at.unit).filename().string()) != std::string::npos)
      return false; // a name of internal linkage, which names its file
    if (kernel.location.file != at.unit)
      continue;
    if (kernel.location.line <= at.lines || kernel.location.offset < at.bytes)
      return false;
    kernel.location = {at.file, kernel.location.line - at.lines, kernel.location.column,
                       kernel.location.offset - at.bytes};
  }
  const std::string unit_shown = support::display_path(at.unit);
  for (ir::SourceFile& source : fragment.sources) {
    if (source.path == unit_shown)
      source = {support::display_path(at.file), support::sha256_hex(text)};
  }
  for (CachedInput& input : dependencies.inputs) {
    if (input.path == at.unit)
      input = {at.file, support::sha256_hex(text)};
  }
  std::sort(dependencies.inputs.begin(), dependencies.inputs.end(),
            [](const CachedInput& a, const CachedInput& b) { return a.path < b.path; });
  std::replace(inputs.begin(), inputs.end(), at.unit, at.file);
  return true;
}

// How a prepared file is parsed: alone, loading an automatic precompiled
// header, or in a unit that shares its leading #include lines.
struct ParseWith {
  const AutoPch* pch = nullptr;
  PreambleUnit* unit = nullptr;
};

// Parses a prepared file into `result` (which holds what preparing it
// found). False, leaving `result` alone, when a scan with a header or in a
// unit reports anything or cannot stand for a plain parse: the caller scans
// again without, so that what is reported is the same.
bool parse_prepared(CXIndex index, const ScanContext& context, const Prepared& prepared,
                    ParseWith with, FileResult& result) {
  const CompileCommand& command = *prepared.command;
  const AutoPch* pch = with.pch;
  std::vector<std::string> args = command.args;
  if (pch)
    args.insert(args.end(), {"-include-pch", pch->path});
  FileResult out = result;
  TranslationUnit own;
  CXTranslationUnit tu = nullptr;
  UnitPlacement at;
  std::optional<std::string> text;
  if (with.unit) {
    text = support::read_file(command.file, nullptr, kMaxSourceBytes);
    tu = text ? with.unit->parse(index, command.file, *text, at) : nullptr;
    if (!tu)
      return false;
  } else {
    own = parse(index, command.file, args,
                CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing |
                    kExtractParseOptions,
                out.diagnostics);
    tu = own.get();
    if (pch && (!tu || out.diagnostics.size() != result.diagnostics.size()))
      return false;
    if (!tu) {
      result = std::move(out);
      return true;
    }
  }
  const bool shared = pch || with.unit;
  Extracted extracted = extract_kernels(tu, with.unit ? at.unit : command.file, context.known,
                                        context.options.check_field);
  if (shared && !extracted.diagnostics.empty())
    return false;
  out.fragment = std::move(extracted.fragment);
  out.diagnostics.insert(out.diagnostics.end(), extracted.diagnostics.begin(),
                         extracted.diagnostics.end());
  out.parsed = true;
  // The files the unit read; those a precompiled header holds are its own
  // (loaded ones list no headers), and the automatic one's store is no input.
  auto from_store = [&](const std::string& path) {
    return context.pch_store && context.pch_store->holds(path);
  };
  const std::vector<Inclusion> inclusions = inclusions_of(tu, with.unit);
  const bool cached = !prepared.cache_key.empty() && out.diagnostics.empty();
  Dependencies dependencies;
  if (cached) {
    dependencies = dependencies_of(tu, inclusions, args, *context.cache);
    for (const std::string& user_pch : precompiled_headers(command.args))
      dependencies.inputs.push_back({user_pch, context.cache->hash_of(user_pch)});
    if (pch) {
      std::erase_if(dependencies.inputs,
                    [&](const CachedInput& input) { return from_store(input.path); });
      std::erase_if(dependencies.absent, from_store);
      dependencies.inputs.insert(dependencies.inputs.end(), pch->dependencies.inputs.begin(),
                                 pch->dependencies.inputs.end());
      dependencies.absent.insert(dependencies.absent.end(), pch->dependencies.absent.begin(),
                                 pch->dependencies.absent.end());
      std::sort(dependencies.inputs.begin(), dependencies.inputs.end(),
                [](const CachedInput& a, const CachedInput& b) { return a.path < b.path; });
      dependencies.inputs.erase(
          std::unique(dependencies.inputs.begin(), dependencies.inputs.end(),
                      [](const CachedInput& a, const CachedInput& b) { return a.path == b.path; }),
          dependencies.inputs.end());
    }
  }
  out.inputs = inputs_of(inclusions);
  if (with.unit && !undo_placement(at, *text, out.fragment, dependencies, out.inputs))
    return false;
  if (cached)
    context.cache->store(prepared.cache_key, command.file, dependencies, out.fragment);
  std::erase_if(out.inputs, from_store);
  if (pch) {
    for (const CachedInput& input : pch->dependencies.inputs)
      out.inputs.push_back(input.path);
  }
  std::vector<std::string> user_pchs = precompiled_headers(command.args);
  out.inputs.insert(out.inputs.end(), user_pchs.begin(), user_pchs.end());
  result = std::move(out);
  return true;
}

// Every path in a file's results as the user sees it.
void show_paths(FileResult& result) {
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

// A worker's libclang indexes, made when first needed: one that walks the
// declarations of precompiled headers too, one that skips them (for files
// loading an automatic one, whose declarations are not theirs).
struct Indexes {
  Index plain, skip_pch;
};

// libclang indexes must be created and disposed of one at a time.
std::mutex index_mutex;

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

} // namespace

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

PrecompileResult precompile(const PrecompileOptions& options) {
  PrecompileResult out;
  if (auto unavailable = libclang_unavailable()) {
    out.diagnostics.push_back(std::move(*unavailable));
    return out;
  }
  std::vector<std::string> args = options.args;
  add_default_language(args);
  args = parse_arguments(options.header, std::move(args), out.diagnostics);
  args.insert(args.end(), {"-x", "c++-header"}); // the last -x wins
  Index index(clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0));
  // With the preprocessing record, which scans loading the header read.
  if (TranslationUnit tu =
          parse(index.get(), options.header, args,
                CXTranslationUnit_ForSerialization | kExtractParseOptions, out.diagnostics)) {
    diag::Diagnostics errors = clang_errors(tu.get());
    out.diagnostics.insert(out.diagnostics.end(), errors.begin(), errors.end());
    if (errors.empty()) {
      // libclang saves to a path only: a private temporary, read back.
      std::string why;
      std::optional<std::string> pch;
      if (auto dir = support::PrivateDirectory::make("pch", &why)) {
        const std::filesystem::path temporary = dir->path() / "header.pch";
        if (clang_saveTranslationUnit(tu.get(), temporary.c_str(),
                                      clang_defaultSaveOptions(tu.get())) == CXSaveError_None)
          pch = support::read_file(temporary, &why, size_t{1} << 30);
        else if (std::string full = support::unwritable_reason(dir->path(), kLargePchBytes);
                 !full.empty())
          why = "libclang could not write it into " + dir->path().parent_path().string() +
                " (TMPDIR): " + full;
      }
      if (pch) {
        out.pch = std::move(*pch);
        out.inputs = real_paths(inputs_of(inclusions_of(tu.get())));
      } else {
        out.diagnostics.push_back(
            !why.empty() ? diag::make_error("opscan-io", {options.header, 0, 0, 0},
                                            "cannot save the precompiled header: " + why)
                         : diag::make_error("opscan-pch-failed", {options.header, 0, 0, 0},
                                            "libclang could not save the precompiled header"));
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
  std::optional<FragmentCache> cache;
  if (options.cache_dir)
    cache.emplace(*options.cache_dir);
  // The cache remembers libclang's version: a scan that parses nothing
  // does not load libclang.
  const std::string version = cache ? cache->libclang_version() : libclang_version();
  if (version.empty()) {
    out.diagnostics.push_back(*libclang_unavailable());
    return out;
  }
  out.module.libclang_version = version;
  std::unique_ptr<CompilationDatabase> db;
  if (!open_database(options, db, out.diagnostics))
    return out;
  // The known schemas matter only to a parse: read while the cache is asked.
  std::optional<KnownSchemas> known;
  diag::Diagnostics known_diagnostics;
  std::jthread known_loader;
  if (options.schemas_file)
    known_loader = std::jthread(
        [&] { known = load_known_schemas(*options.schemas_file, known_diagnostics); });
  ScanContext context{options, db.get(), nullptr, nullptr, {}};
  if (cache) {
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
  // Headers `opscan pch --shared` stored in the cache, for files no unit
  // takes (the scan makes none: a unit costs a third of making one).
  std::optional<PchStore> pch_store;
  if (context.cache && options.auto_pch)
    pch_store.emplace(std::filesystem::path(*options.cache_dir) / "pch", *context.cache);
  context.pch_store = pch_store ? &*pch_store : nullptr;
  const unsigned jobs = jobs_for(options, files);
  std::vector<FileResult> results(files);
  std::vector<Prepared> prepared(files);
  std::mutex progress_mutex;
  size_t done = 0;
  auto file_done = [&](size_t i) {
    if (options.progress) {
      std::lock_guard lock(progress_mutex);
      options.progress(++done, files, options.files[i]);
    }
  };
  // First what the cache has, then the files left: those that share
  // leading #include lines in units, each unit's files one after another.
  in_parallel(jobs, files, [&](Indexes&, size_t i) {
    results[i] = prepare(context, options.files[i], prepared[i]);
    if (prepared[i].done)
      file_done(i);
  });
  if (known_loader.joinable()) {
    known_loader.join();
    out.diagnostics.insert(out.diagnostics.end(), known_diagnostics.begin(),
                           known_diagnostics.end());
    if (!known)
      return out;
    context.known = &*known;
  }
  std::vector<size_t> to_parse;
  std::vector<PchCandidate> candidates;
  for (size_t i = 0; i < files; ++i) {
    if (!prepared[i].done) {
      to_parse.push_back(i);
      candidates.push_back({prepared[i].command->file, prepared[i].command->args});
    }
  }
  if (!to_parse.empty()) {
    if (auto unavailable = libclang_unavailable()) {
      out.diagnostics.push_back(std::move(*unavailable));
      return out;
    }
  }
  std::atomic<size_t> shared{0};
  std::set<std::string> stored_used;
  std::mutex stored_mutex;
  const size_t units = in_units(
      candidates, options.auto_pch, jobs, [&](Indexes& indexes, PreambleUnit* unit, size_t k) {
        const size_t i = to_parse[k];
        const CompileCommand& command = *prepared[i].command;
        bool done = unit && parse_prepared(index_of(indexes.skip_pch, true), context, prepared[i],
                                           {nullptr, unit}, results[i]);
        const bool in_unit = done;
        // A header stored by `opscan pch --shared` for the file's first lines.
        std::optional<AutoPch> pch;
        if (!done && pch_store)
          pch = pch_store->find(command.args, shareable_prefix(command.file, command.args));
        if (!done && pch) {
          done = parse_prepared(index_of(indexes.skip_pch, true), context, prepared[i],
                                {&*pch, nullptr}, results[i]);
          if (done) {
            std::lock_guard lock(stored_mutex);
            stored_used.insert(pch->path);
          }
        }
        if (done)
          ++shared;
        else
          parse_prepared(index_of(indexes.plain, false), context, prepared[i], {}, results[i]);
        file_done(i);
        return in_unit;
      });
  out.files_with_pch = shared;
  out.pchs = units + stored_used.size();
  // A cache that cannot be written costs the next scan its speed, not its
  // result: said once, as a warning.
  if (cache) {
    std::string why = cache->failure();
    if (why.empty() && options.auto_pch && context.cache)
      why = pch_store->failure();
    if (!why.empty())
      out.diagnostics.push_back(
          diag::make_warning("opscan-cache-unusable", {*options.cache_dir, 0, 0, 0},
                             "nothing more is kept in the cache " + *options.cache_dir + ": " +
                                 why + " (the IR is the same; the next scan is not faster)"));
  }
  for (FileResult& r : results)
    show_paths(r);

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
  if (db)
    inputs.insert(inputs.end(), db->response_files().begin(), db->response_files().end());
  out.inputs = real_paths(inputs);
  ir::MergeResult merged = ir::merge(std::move(fragments));
  out.module = std::move(merged.module);
  out.module.libclang_version = version;
  out.diagnostics.insert(out.diagnostics.end(), merged.diagnostics.begin(),
                         merged.diagnostics.end());
  // The scan's own checks come first; the IR's rules guard what they missed.
  diag::Diagnostics invalid = ir::validate(out.module, ir::Locator());
  out.diagnostics.insert(out.diagnostics.end(), invalid.begin(), invalid.end());
  diag::sort(out.diagnostics);
  return out;
}

SharedPchResult precompile_shared(const Options& options) {
  SharedPchResult out;
  if (!options.cache_dir)
    return out;
  if (auto unavailable = libclang_unavailable()) {
    out.diagnostics.push_back(std::move(*unavailable));
    return out;
  }
  std::unique_ptr<CompilationDatabase> db;
  if (!open_database(options, db, out.diagnostics))
    return out;
  FragmentCache cache(*options.cache_dir);
  PchStore store(std::filesystem::path(*options.cache_dir) / "pch", cache);
  std::vector<PchCandidate> candidates;
  for (CompileCommand& command : commands_for(options, db.get(), out.diagnostics))
    candidates.push_back({command.file, std::move(command.args)});
  const PchPlan plan = plan_pchs(candidates);
  std::vector<std::optional<AutoPch>> made(plan.pchs.size());
  in_parallel(jobs_for(options, plan.pchs.size()), plan.pchs.size(),
              [&](Indexes& indexes, size_t i) {
                made[i] = store.get(index_of(indexes.plain, false), plan.pchs[i]);
              });
  if (std::string why = store.failure(); !why.empty() || !(why = cache.failure()).empty())
    out.diagnostics.push_back(diag::make_error("opscan-io", {*options.cache_dir, 0, 0, 0},
                                               "cannot store the precompiled headers in " +
                                                   *options.cache_dir + ": " + why));
  // What the list depends on: the sources, the headers read to plan it,
  // and those of each header made.
  std::vector<std::string> inputs = plan.read;
  for (const PchCandidate& candidate : candidates)
    inputs.push_back(candidate.file);
  if (db)
    inputs.insert(inputs.end(), db->response_files().begin(), db->response_files().end());
  for (size_t i = 0; i < made.size(); ++i) {
    if (!made[i])
      continue;
    SharedPch pch{made[i]->path, {}, 0};
    for (const HeaderName& name : plan.pchs[i].includes)
      pch.includes.push_back(name.quoted ? '"' + name.name + '"' : '<' + name.name + '>');
    pch.files = std::count(plan.pch_of.begin(), plan.pch_of.end(), static_cast<int>(i));
    out.pchs.push_back(std::move(pch));
    for (const CachedInput& input : made[i]->dependencies.inputs)
      inputs.push_back(input.path);
  }
  std::sort(out.pchs.begin(), out.pchs.end(),
            [](const SharedPch& a, const SharedPch& b) { return a.path < b.path; });
  out.inputs = real_paths(inputs);
  for (auto& d : out.diagnostics)
    d.location.file = display(d.location);
  diag::sort(out.diagnostics);
  return out;
}

LocateResult locate_functions(const Options& options) {
  LocateResult out;
  if (auto unavailable = libclang_unavailable()) {
    out.diagnostics.push_back(std::move(*unavailable));
    return out;
  }
  std::unique_ptr<CompilationDatabase> db;
  if (!open_database(options, db, out.diagnostics))
    return out;
  const std::vector<CompileCommand> commands = commands_for(options, db.get(), out.diagnostics);
  std::vector<std::optional<SourceSites>> sites(commands.size());
  std::vector<diag::Diagnostics> diagnostics(commands.size());
  std::vector<PchCandidate> candidates;
  for (const CompileCommand& command : commands)
    candidates.push_back({command.file, command.args});
  // As scan parses them: files that share leading #include lines in units,
  // and a file the unit reports anything about, or whose sites cannot be
  // mapped back, alone.
  std::atomic<size_t> in_unit{0};
  in_units(candidates, options.auto_pch, jobs_for(options, commands.size()),
           [&](Indexes& indexes, PreambleUnit* unit, size_t i) {
             const CompileCommand& command = commands[i];
             if (unit) {
               UnitPlacement at;
               const std::optional<std::string> text =
                   support::read_file(command.file, nullptr, kMaxSourceBytes);
               CXTranslationUnit tu =
                   text ? unit->parse(index_of(indexes.skip_pch, true), command.file, *text, at)
                        : nullptr;
               if (tu && clang_getNumDiagnostics(tu) == 0)
                 sites[i] = unit_sites_of(tu, at);
               if (sites[i]) {
                 ++in_unit;
                 return true;
               }
             }
             TranslationUnit tu =
                 parse(index_of(indexes.plain, false), command.file, command.args,
                       CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing,
                       diagnostics[i]);
             if (!tu)
               return false;
             diag::Diagnostics errors = clang_errors(tu.get());
             if (!errors.empty())
               diagnostics[i].insert(diagnostics[i].end(), errors.begin(), errors.end());
             else
               sites[i] = sites_of(tu.get(), command.file);
             return false;
           });
  out.files_in_units = in_unit;
  for (size_t i = 0; i < commands.size(); ++i) {
    out.diagnostics.insert(out.diagnostics.end(), diagnostics[i].begin(), diagnostics[i].end());
    if (sites[i])
      out.files.push_back(std::move(*sites[i]));
  }
  for (auto& d : out.diagnostics)
    d.location.file = display(d.location);
  diag::sort(out.diagnostics);
  return out;
}

} // namespace opscan::scan
