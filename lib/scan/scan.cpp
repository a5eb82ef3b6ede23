// Scanning: sources to IR with libclang, in parallel, through the cache and shared preambles.
#include "scan/scan.h"

#include "ir/validate.h"
#include "kernel/annotation.h"
#include "kernel/known_schemas.h"
#include "kernel/signature.h"
#include "scan/auto_pch.h"
#include "scan/batch.h"
#include "scan/cache.h"
#include "scan/clang.h"
#include "scan/dependencies.h"
#include "scan/extract.h"
#include "scan/flags.h"
#include "scan/libclang_loader.h"
#include "scan/preamble_unit.h"
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
  const kernel::KnownSchemas* known = nullptr;
  FragmentCache* cache = nullptr;
  // Part of cache keys: the fields annotations may set (one a scan does
  // not know is an error) and the known-schemas files' hashes.
  std::string key_material;
  PchStore* pch_store = nullptr; // automatic precompiled headers, with a cache
};

// A file's command and cache key, and whether it still needs parsing.
struct FilePlan {
  std::optional<CompileCommand> command;
  std::string cache_key;
  bool done = false; // from the cache, or without a command: nothing to parse
};

// Finds how `file` is compiled and looks it up in the cache.
FileResult prepare(const ScanContext& context, const std::string& file, FilePlan& prepared) {
  FileResult result;
  prepared.command =
      command_for(file, context.options, context.db, result.diagnostics, result.dropped);
  prepared.done = !prepared.command;
  if (!prepared.command)
    return result;
  // Only clean scans are cached, so a hit has no diagnostics to replay.
  if (context.cache && result.diagnostics.empty()) {
    prepared.cache_key =
        context.cache->key(prepared.command->file, prepared.command->args, context.key_material);
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
bool parse_prepared(CXIndex index, const ScanContext& context, const FilePlan& prepared,
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
                                        context.options.fields);
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
      add_inputs(dependencies, pch->dependencies.inputs);
      dependencies.absent.insert(dependencies.absent.end(), pch->dependencies.absent.begin(),
                                 pch->dependencies.absent.end());
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

} // namespace

namespace {

// What a run's files came to, merged: the module (and its rules checked),
// every file read, the run's diagnostics.
void merge_results(std::vector<FileResult>& results, const ir::Fields& fields,
                   const CompilationDatabase* db, const std::string& version, Result& out) {
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
  ir::MergeResult merged = ir::merge(std::move(fragments), fields);
  out.module = std::move(merged.module);
  out.module.libclang_version = version;
  out.diagnostics.insert(out.diagnostics.end(), merged.diagnostics.begin(),
                         merged.diagnostics.end());
  // The scan's own checks come first; the IR's rules guard what they missed.
  diag::Diagnostics invalid = ir::validate(out.module, ir::Locator());
  out.diagnostics.insert(out.diagnostics.end(), invalid.begin(), invalid.end());
}

// Parses the files the cache did not have (`to_parse`, prepared): in units
// that share their leading #include lines, else loading a header `opscan
// pch --shared` stored, else alone. Counts in `out` how many shared.
void parse_rest(const ScanContext& context, const std::vector<size_t>& to_parse,
                const std::vector<FilePlan>& prepared, unsigned jobs,
                const std::function<void(size_t)>& file_done, std::vector<FileResult>& results,
                Result& out) {
  std::vector<PchCandidate> candidates;
  for (size_t i : to_parse)
    candidates.push_back({prepared[i].command->file, prepared[i].command->args});
  PchStore* pch_store = context.pch_store;
  std::atomic<size_t> shared{0};
  std::set<std::string> stored_used;
  std::mutex stored_mutex;
  const size_t units = in_units(
      candidates, context.options.auto_pch, jobs,
      [&](Indexes& indexes, PreambleUnit* unit, size_t k) {
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
}

} // namespace

Result scan(const Options& options) {
  Result out;
  std::optional<FragmentCache> cache;
  if (options.cache_dir)
    cache.emplace(*options.cache_dir, options.fields);
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
  std::optional<kernel::KnownSchemas> known;
  diag::Diagnostics known_diagnostics;
  std::jthread known_loader;
  if (!options.schemas_files.empty())
    known_loader = std::jthread(
        [&] { known = kernel::load_known_schemas(options.schemas_files, known_diagnostics); });
  ScanContext context{options, db.get(), nullptr, nullptr, {}};
  for (const ir::Field& field : options.fields)
    context.key_material += '\0' + field.annotation + '=' + field.key + ':' + field.code;
  if (cache) {
    context.cache = &*cache;
    for (const std::string& schemas : options.schemas_files) {
      const std::string hash = cache->hash_of(schemas);
      // A schemas file that is not a regular file (a pipe) has no hash to
      // key by: without it, the key would be that of a scan without it.
      if (hash.empty())
        context.cache = nullptr;
      context.key_material += '\0' + hash;
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
  std::vector<FilePlan> prepared(files);
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
  for (size_t i = 0; i < files; ++i) {
    if (!prepared[i].done)
      to_parse.push_back(i);
  }
  if (!to_parse.empty()) {
    if (auto unavailable = libclang_unavailable()) {
      out.diagnostics.push_back(std::move(*unavailable));
      return out;
    }
  }
  parse_rest(context, to_parse, prepared, jobs, file_done, results, out);
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

  merge_results(results, options.fields, db.get(), version, out);
  diag::sort(out.diagnostics);
  return out;
}

} // namespace opscan::scan
