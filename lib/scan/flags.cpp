#include "scan/flags.h"

#include "scan/clang_util.h"

#include <clang-c/CXCompilationDatabase.h>
#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>

namespace opscan::scan {
namespace fs = std::filesystem;

std::vector<std::string> default_arguments() { return {"-x", "c++", "-std=c++17"}; }

void add_scanning_arguments(std::vector<std::string>& args) {
  args.insert(args.begin(), {"-DOPSCAN_SCANNING=1", "-w"});
  bool has_resource_dir = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "-resource-dir" || a.starts_with("-resource-dir=");
  });
  if (!has_resource_dir) args.insert(args.begin(), {"-resource-dir", OPSCAN_CLANG_RESOURCE_DIR});
}

bool is_gcc_only_flag(const std::string& arg) {
  static constexpr std::array<std::string_view, 12> kExact = {
      "-fconcepts", "-fno-canonical-system-headers", "-fno-gnu-unique", "-fconserve-stack",
      "-fno-var-tracking-assignments", "-mno-direct-extern-access", "-fno-ipa-cp-clone",
      "-fcoroutines", "-fno-fat-lto-objects", "-flto-partition=none", "-fno-semantic-interposition-gcc",
      "-fno-tree-loop-distribute-patterns"};
  static constexpr std::array<std::string_view, 5> kPrefix = {
      "-fdiagnostics-color=", "-flto-compression-level=", "-fstack-usage", "-fno-reorder-blocks-and-partition",
      "-mpreferred-stack-boundary="};
  if (std::find(kExact.begin(), kExact.end(), arg) != kExact.end()) return true;
  return std::any_of(kPrefix.begin(), kPrefix.end(), [&](std::string_view p) { return arg.starts_with(p); });
}

std::optional<CompileCommand> command_from_database(const std::string& build_dir,
                                                    const std::string& file,
                                                    diag::Diagnostics& diags) {
  CXCompilationDatabase_Error error;
  CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(build_dir.c_str(), &error);
  if (error != CXCompilationDatabase_NoError) {
    diags.push_back(diag::make_error("opscan-no-compile-commands", {},
                                     "cannot read " + (fs::path(build_dir) / "compile_commands.json").string()));
    return std::nullopt;
  }
  std::error_code ec;
  std::string absolute = fs::absolute(file, ec).lexically_normal().string();
  CXCompileCommands commands = clang_CompilationDatabase_getCompileCommands(db, absolute.c_str());
  std::optional<CompileCommand> result;
  if (clang_CompileCommands_getSize(commands) == 0) {
    diags.push_back(diag::make_error("opscan-no-compile-command", {file, 0, 0, 0},
                                     "no entry for this file in " + build_dir +
                                         "/compile_commands.json"));
  } else {
    CXCompileCommand command = clang_CompileCommands_getCommand(commands, 0);
    CompileCommand out;
    out.file = absolute;
    std::string directory = take(clang_CompileCommand_getDirectory(command));
    // libclang does not apply the entry's directory by itself.
    out.args.push_back("-working-directory=" + directory);
    unsigned n = clang_CompileCommand_getNumArgs(command);
    for (unsigned i = 1; i < n; ++i) {  // 0 is the compiler
      std::string arg = take(clang_CompileCommand_getArg(command, i));
      if (arg == "-c") continue;
      if (arg == "-o" && i + 1 < n) {
        ++i;
        continue;
      }
      if (arg.starts_with("-o") && arg.size() > 2) continue;
      if (fs::absolute(fs::path(directory) / arg, ec).lexically_normal() == absolute) continue;
      out.args.push_back(std::move(arg));
    }
    result = std::move(out);
  }
  clang_CompileCommands_dispose(commands);
  clang_CompilationDatabase_dispose(db);
  return result;
}

}  // namespace opscan::scan
