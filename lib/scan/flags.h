// Compiler arguments for parsing one source file with libclang.
#pragma once

#include "diag/diag.h"
#include "scan/clang.h"

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opscan::scan {

struct CompileCommand {
  std::string file;              // as libclang should open it
  std::vector<std::string> args; // without the compiler, the input file, -c and -o
};

// Without a compilation database, sources are C++ (headers too) in C++17,
// the oldest standard kernel sources build with, unless the arguments say
// otherwise with -x or -std.
void add_default_language(std::vector<std::string>& args);

// Arguments opscan always adds: the scanning macro, the resource directory
// of the libclang it links (unless given), and no warnings but
// -Wignored-attributes (only errors matter here, and warnings cost time;
// that one shows an annotation clang dropped).
void add_scanning_arguments(std::vector<std::string>& args);

// Flags GCC accepts and clang rejects; dropped with a note.
bool is_gcc_only_flag(const std::string& arg);

// A build directory's compile_commands.json, read once per scan. Safe to
// query from several threads.
class CompilationDatabase {
public:
  // Null, with an error diagnostic, when `build_dir` has no readable database.
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

private:
  CompilationDatabase(CompilationDatabaseHandle db, std::string build_dir,
                      std::set<std::string> files);

  CompilationDatabaseHandle db_;
  std::string build_dir_;
  std::set<std::string> files_; // absolute, lexically normal
  mutable std::mutex mutex_;
};

} // namespace opscan::scan
