// How a run parses many files, for scan, precompile_shared and
// locate_functions: each file's compile command, libclang indexes per worker
// thread, the threads, and the preamble units that files sharing leading
// #include lines are parsed in. Private to lib/scan.
#pragma once

#include "diag/diag.h"
#include "scan/auto_pch.h"
#include "scan/clang.h"
#include "scan/dependencies.h"
#include "scan/flags.h"
#include "scan/preamble_unit.h"
#include "scan/scan.h"

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opscan::scan {

// Every file of `inclusions`: the main file and its includes, sorted, once.
std::vector<std::string> inputs_of(const std::vector<Inclusion>& inclusions);

// Every file of `files`, absolute with symbolic links resolved: what build
// tools must watch (a lexically normalised "/usr/bin/../lib" may not exist).
std::vector<std::string> real_paths(const std::vector<std::string>& files);

// `notes` without repeats, appended to `diags`: a run notes each dropped
// argument once, where it first met it, however many files it was given to.
void add_once(diag::Diagnostics& diags, const diag::Diagnostics& notes,
              std::set<std::string>& seen);

// The headers -include-pch loads: each stands for every file it was made
// from (libclang's inclusion list no longer names them).
std::vector<std::string> precompiled_headers(const std::vector<std::string>& args);

// A location's file as the user sees it.
std::string display(diag::Location loc);

// How `file` is compiled, for libclang: the compilation database's command
// (or the file alone), the extra arguments, the default language without a
// database, and opscan's own arguments; a note in `dropped` for each
// argument left out. Nullopt, with an error, when the database has no
// command for it.
std::optional<CompileCommand> command_for(const std::string& file, const Options& options,
                                          const CompilationDatabase* db, diag::Diagnostics& diags,
                                          diag::Diagnostics& dropped);

// The commands of every file of options.files that has one, each dropped
// argument noted once.
std::vector<CompileCommand> commands_for(const Options& options, const CompilationDatabase* db,
                                         diag::Diagnostics& diags);

// The compilation database of options.build_dir (none without one); false,
// with an error in `diags`, when it cannot be opened.
bool open_database(const Options& options, std::unique_ptr<CompilationDatabase>& db,
                   diag::Diagnostics& diags);

// What a run that parses needs first: libclang, and the compilation
// database of options.build_dir (if any); false, with an error in `diags`,
// without either.
bool ready_to_parse(const Options& options, std::unique_ptr<CompilationDatabase>& db,
                    diag::Diagnostics& diags);

// A worker's libclang indexes, made when first needed: one that walks the
// declarations of precompiled headers too, one that skips them (for files
// loading an automatic one, whose declarations are not theirs).
struct Indexes {
  Index plain, skip_pch;
};
CXIndex index_of(Index& index, bool skip_pch);

// Runs task(indexes, i) for every i < n, on up to `jobs` threads.
void in_parallel(unsigned jobs, size_t n, const std::function<void(Indexes&, size_t)>& task);

// Worker threads for `files` files: options.jobs, or one per core.
unsigned jobs_for(const Options& options, size_t files);

// Parses `candidates` on up to `jobs` threads: with `units`, the files that
// share leading #include lines (as planned for preamble units) one after
// another in a unit, each other file alone. parse(indexes, unit, k) parses
// candidates[k], in `unit` when it is not null, and says whether the unit
// stood for the file. Returns how many units stood for a file.
size_t in_units(const std::vector<PchCandidate>& candidates, bool units, unsigned jobs,
                const std::function<bool(Indexes&, PreambleUnit*, size_t)>& parse);

} // namespace opscan::scan
