// Compiler arguments for parsing one source file with libclang.
#pragma once

#include "diag/diag.h"

#include <optional>
#include <string>
#include <vector>

namespace opscan::scan {

struct CompileCommand {
  std::string file;               // as libclang should open it
  std::vector<std::string> args;  // without the compiler, the input file, -c and -o
};

// Arguments used when neither a compilation database nor "--" gives any:
// C++17 is the oldest standard kernel sources build with.
std::vector<std::string> default_arguments();

// Arguments opscan always adds: the scanning macro, the resource directory
// of the libclang it links (unless given), and no warnings (only errors
// matter here, and warnings cost time).
void add_scanning_arguments(std::vector<std::string>& args);

// Flags GCC accepts and clang rejects; dropped with a note.
bool is_gcc_only_flag(const std::string& arg);

// Reads the compile command of `file` from `build_dir`/compile_commands.json.
// Returns nullopt with an error diagnostic when the database or the entry is
// missing.
std::optional<CompileCommand> command_from_database(const std::string& build_dir,
                                                    const std::string& file,
                                                    diag::Diagnostics& diags);

}  // namespace opscan::scan
