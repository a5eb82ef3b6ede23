// Compiler arguments for parsing one source file with libclang.
#pragma once

#include "diag/diag.h"
#include "scan/clang.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opscan::scan {

struct CompileCommand {
  std::string file;              // as libclang should open it
  std::vector<std::string> args; // without the compiler, the input file and -c
  std::string directory;         // a database entry's, its relative paths' base; "" for none
};

// Without a compilation database, sources are C++ (headers too) in C++17,
// the oldest standard kernel sources build with, unless the arguments say
// otherwise with -x or -std.
void add_default_language(std::vector<std::string>& args);

// Arguments opscan always adds: the scanning macro, the resource directory
// of the libclang it links (unless given), and no warnings but
// -Wignored-attributes (only errors matter here, and warnings cost time;
// that one shows an annotation clang dropped). (parse() adds one more, for
// every parse: see clang.h.)
void add_scanning_arguments(std::vector<std::string>& args);

// Why filter_arguments drops an argument.
enum class DropReason {
  gcc_only,          // GCC accepts it and libclang rejects it
  output,            // names the compiler's output (-o)
  writes_files,      // makes the compiler write files (dependency files, traces, ...)
  prints,            // makes the compiler print to opscan's own output (-v, --help, ...)
  loads_code,        // plugins
  module_cache,      // implicit modules, built into a cache on disk
  changes_directory, // -working-directory: the driver moves the whole process there
  reads_config,      // --config FILE: options read past this filter
  driver_mode,       // --driver-mode other than gcc and g++ (cl's /options print and write)
  not_run,           // options for parts a scan never runs (-mllvm, -Xanalyzer, -Xarch_...)
  unknown_frontend,  // a frontend option (-Xclang X) not on the list of safe ones
  raises_limit,      // a recursion limit above clang's default: deep input overflows the stack
  reads_elsewhere,   // the frontend's -working-directory: relative paths resolved elsewhere
  response_file,     // @FILE left unread (the caller expands response files first)
  ends_options,      // "--": the driver reads what follows as inputs, opscan's own arguments too
  runs_programs,     // offload targets and where programs are found: the driver runs amdgpu-arch
};

struct DroppedArgument {
  // The option as the note names it: "-MF" for "-MF x" and "-MFx", the whole
  // argument when it has no value ("-MD", "-fplugin=x.so").
  std::string option;
  DropReason reason;
  bool has_value = false; // a value was dropped with it
  size_t index = 0;       // where it began in the arguments given
};

struct FilteredArguments {
  std::vector<std::string> kept;
  std::vector<DroppedArgument> dropped; // in order
};

// The one place that decides which compiler arguments reach libclang, for
// every command (scan, pch, import-yaml, the language server) and every
// source of arguments (--, --flags-file, compile_commands.json).
//
// `args` without what a scan must not pass to libclang: flags it rejects,
// and arguments that make the compiler write, print, read options from
// elsewhere, change the directory, or load anything beyond the sources and
// headers it reads (an option taking a separate value drops that value
// too). None of these changes what the sources declare: without implicit
// modules (-fmodules) the headers are included as text. The rule:
//
// - The driver's own options (what a build passes) are kept unless listed:
//   a deny list, checked against every option clang 14's driver knows
//   (`clang --autocomplete=-`, each alone, with a value and with =value,
//   run through libclang in an empty directory): the -M family, -o,
//   -emit-*, -save-temps, -gen-cdb-fragment-path, traces and statistics,
//   plugins, module caches; -v, -H, -###, --help, --version, -dump*,
//   -print-*, --autocomplete=, -ccc-print-*; -ccc-arcmt-*/-ccc-objcmt-*
//   (which rewrite sources); -working-directory; --config and its
//   directories; --driver-mode other than gcc and g++; -mllvm, -Xanalyzer,
//   -Xarch_*, -Xopenmp-target, -Xcuda-*; what makes the driver run a
//   program (clang 14 runs amdgpu-arch for an OpenMP offload target
//   without -march): -fopenmp-targets=, --amdgpu-arch-tool=, and where it
//   finds programs (-B, --prefix, -ccc-install-dir); raised -fbracket-depth,
//   -ftemplate-depth, -fconstexpr-depth and -fconstexpr-steps (a value at
//   most clang's default is kept).
// - The frontend's options (-Xclang X, -Xpreprocessor X, the parts of
//   -Wp,A,B) can do anything (dump the AST or record layouts on standard
//   output, write dependency files, apply fix-its, load plugins), so only an
//   allow list passes: macros and include paths (-D, -U, -I, -include,
//   -isystem, ...), warnings (-W...), -std=, target options (-triple,
//   -target-feature, ...), and -f... flags but those of the
//   deny list and -fdump-*, -fixit, -ftime-*, -fmodules*. One that takes a
//   value is dropped without it, as it would take opscan's next argument.
//   The frontend's -working-directory (which moves nothing, but reads every
//   relative path, a header's too, from elsewhere) is opscan's own: how a
//   database entry's directory applies (parse_arguments adds it).
// - @FILE (a response file) is dropped: the caller reads them first, as
//   any input (expand_response_files, scan/response_files.h).
// - "--" is dropped wherever it is, even where an option's value would be:
//   after it the driver reads every argument (opscan's too) as a file to
//   compile, each planned with a temporary file.
FilteredArguments filter_arguments(const std::vector<std::string>& args);

// The note's text: "dropped '-MF' and its value, which ...".
std::string dropped_message(const DroppedArgument& dropped);

// The arguments libclang gets for `file`: `args` without those
// filter_arguments drops, plus opscan's own, and `directory` (a database
// entry's) as the frontend's working directory. A note for each dropped goes
// to `notes`, but for the output of a compilation database's entry (its
// first `database_args`), which every entry names: that one is expected.
std::vector<std::string> parse_arguments(const std::string& file, std::vector<std::string> args,
                                         diag::Diagnostics& notes, size_t database_args = 0,
                                         const std::string& directory = {});

// An error (opscan-io, located at the file) when a file `args` name for the
// compiler to read (-include, -imacros, -include-pch, -ivfsoverlay, profile
// data, sanitizer and XRay lists, module files and maps, ...; given to the
// driver or the frontend) exists but is not a regular file, or is a text
// input larger than support::kMaxInputBytes: libclang would block on a FIFO
// or read a device without end. With `missing_too`, a file that does not
// exist is one as well (libclang, which failed, could not read it). Relative
// paths are taken from the frontend's working directory.
std::optional<diag::Diagnostic> unreadable_named_file(const std::vector<std::string>& args,
                                                      bool missing_too = false);

// A build directory's compile_commands.json, read once per scan. Safe to
// query from several threads.
class CompilationDatabase {
public:
  // Null, with an error diagnostic, when `build_dir` has no readable
  // database (opscan-no-compile-commands) or it is not a compilation
  // database in JSON (opscan-compile-commands-invalid, located), or a
  // response file an entry names cannot be read as one. Read as libclang
  // 14's reader read it (without loading libclang). A compile_flags.txt
  // beside it is not read.
  static std::unique_ptr<CompilationDatabase> open(const std::string& build_dir,
                                                   diag::Diagnostics& diags);
  ~CompilationDatabase();
  CompilationDatabase(const CompilationDatabase&) = delete;
  CompilationDatabase& operator=(const CompilationDatabase&) = delete;

  // The compile command of `file`, or nullopt with an error diagnostic when
  // the database has no entry for it. (libclang would infer a command from a
  // similar file; scanning with guessed flags would hide the problem.)
  std::optional<CompileCommand> command_for(const std::string& file,
                                            diag::Diagnostics& diags) const;

  const std::string& build_dir() const { return build_dir_; }
  // The files it has entries for: absolute, lexically normal.
  const std::set<std::string>& files() const { return files_; }
  // The response files its entries name (@FILE), read when it was checked:
  // inputs of a scan, as the database is.
  const std::vector<std::string>& response_files() const { return response_files_; }

private:
  explicit CompilationDatabase(std::string build_dir);

  struct Entry {
    std::string directory;
    std::vector<std::string> args; // the compiler first
  };
  std::string build_dir_;
  std::set<std::string> files_;           // absolute, lexically normal
  std::map<std::string, Entry> commands_; // by file, as in files_
  std::vector<std::string> response_files_;
};

} // namespace opscan::scan
