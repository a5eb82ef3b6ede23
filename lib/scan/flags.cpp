#include "scan/flags.h"

#include "scan/clang.h"

#include <algorithm>
#include <clang-c/CXCompilationDatabase.h>
#include <filesystem>
#include <iterator>
#include <string_view>

namespace opscan::scan {
namespace fs = std::filesystem;

void add_default_language(std::vector<std::string>& args) {
  auto given = [&](std::string_view prefix) {
    return std::any_of(args.begin(), args.end(),
                       [&](const std::string& a) { return a.starts_with(prefix); });
  };
  if (!given("-std=") && !given("--std"))
    args.insert(args.begin(), "-std=c++17");
  if (!given("-x"))
    args.insert(args.begin(), {"-x", "c++"});
}

void add_scanning_arguments(std::vector<std::string>& args) {
  args.insert(args.begin(), "-DOPSCAN_SCANNING=1");
  // No warnings (only errors matter here, and warnings cost time) but the
  // one clang gives for an attribute it drops, which is how an
  // OPSCAN_KERNEL before a class would vanish. Last, so the project's own
  // warning flags cannot turn others on, nor this one into an error.
  args.insert(args.end(), {"-Wno-everything", "-Wignored-attributes", "-Wno-error"});
  bool has_resource_dir = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "-resource-dir" || a.starts_with("-resource-dir=");
  });
  if (!has_resource_dir)
    args.insert(args.begin(), {"-resource-dir", OPSCAN_CLANG_RESOURCE_DIR});
}

bool is_gcc_only_flag(const std::string& arg) {
  // Each one checked against libclang 14, which fails with "unknown argument"
  // (or, for -fdiagnostics-format=json, refuses to parse at all). Flags clang
  // merely ignores with a warning (-fno-fat-lto-objects, -fno-tree-vrp,
  // -fmax-errors=...) or accepts (-fdiagnostics-color=, -fstack-usage) are
  // kept: they do no harm.
  static constexpr std::string_view kExact[] = {
      "-fallow-store-data-races",
      "-fcallgraph-info",
      "-fchecking",
      "-fcompare-debug-second",
      "-fconcepts",
      "-fconcepts-ts",
      "-fconserve-stack",
      "-fcoroutines",
      "-fext-numeric-literals",
      "-fimplicit-constexpr",
      "-fipa-pta",
      "-flarge-source-files",
      "-fnew-ttp-matching",
      "-fno-allow-store-data-races",
      "-fno-canonical-system-headers",
      "-fno-code-hoisting",
      "-fno-crossjumping",
      "-fno-diagnostics-show-caret",
      "-fno-diagnostics-show-labels",
      "-fno-early-inlining",
      "-fno-gnu-unique",
      "-fno-guess-branch-probability",
      "-fno-ipa-bit-cp",
      "-fno-ipa-cp-clone",
      "-fno-ipa-icf",
      "-fno-ipa-pta",
      "-fno-ipa-ra",
      "-fno-ipa-sra",
      "-fno-keep-inline-dllexport",
      "-fno-lifetime-dse",
      "-fno-peephole2",
      "-fno-printf-return-value",
      "-fno-reorder-blocks-and-partition",
      "-fno-shrink-wrap",
      "-fno-toplevel-reorder",
      "-fno-tree-loop-distribute-patterns",
      "-fno-tree-pre",
      "-fno-var-tracking-assignments",
      "-freorder-blocks-and-partition",
      "-fsched-pressure",
      "-fvar-tracking-assignments",
      "-mindirect-branch-register",
      "-mno-direct-extern-access",
      "-mrecord-mcount",
  };
  static constexpr std::string_view kPrefix[] = {
      "-fconcepts-diagnostics-depth=",
      "-fdiagnostics-format=json",
      "-fdiagnostics-urls=",
      "-fdump-tree-",
      "-fira-region=",
      "-flto-compression-level=",
      "-flto-partition=",
      "-fopt-info",
      "-ftrack-macro-expansion=",
      "-mfunction-return=",
      "-mindirect-branch=",
      "-mpreferred-stack-boundary=",
  };
  if (std::find(std::begin(kExact), std::end(kExact), arg) != std::end(kExact))
    return true;
  return std::any_of(std::begin(kPrefix), std::end(kPrefix),
                     [&](std::string_view p) { return arg.starts_with(p); });
}

namespace {

// `path` made absolute against `directory`, lexically normal.
std::string absolute_in(const fs::path& directory, const std::string& path) {
  std::error_code ec;
  return fs::absolute(directory / path, ec).lexically_normal().string();
}

} // namespace

std::unique_ptr<CompilationDatabase> CompilationDatabase::open(const std::string& build_dir,
                                                               diag::Diagnostics& diags) {
  const std::string path = (fs::path(build_dir) / "compile_commands.json").string();
  auto fail = [&] {
    diags.push_back(diag::make_error("opscan-no-compile-commands", {}, "cannot read " + path));
    return nullptr;
  };
  // Checked first: libclang prints to stderr when there is none.
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return fail();
  CXCompilationDatabase_Error error;
  CompilationDatabaseHandle db(clang_CompilationDatabase_fromDirectory(build_dir.c_str(), &error));
  if (error != CXCompilationDatabase_NoError)
    return fail();
  std::set<std::string> files;
  CompileCommands all(clang_CompilationDatabase_getAllCompileCommands(db.get()));
  for (unsigned i = 0, n = clang_CompileCommands_getSize(all.get()); i < n; ++i) {
    CXCompileCommand command = clang_CompileCommands_getCommand(all.get(), i);
    files.insert(absolute_in(take(clang_CompileCommand_getDirectory(command)),
                             take(clang_CompileCommand_getFilename(command))));
  }
  return std::unique_ptr<CompilationDatabase>(
      new CompilationDatabase(std::move(db), build_dir, std::move(files)));
}

CompilationDatabase::CompilationDatabase(CompilationDatabaseHandle db, std::string build_dir,
                                         std::set<std::string> files)
    : db_(std::move(db)), build_dir_(std::move(build_dir)), files_(std::move(files)) {}

CompilationDatabase::~CompilationDatabase() = default;

std::optional<CompileCommand> CompilationDatabase::command_for(const std::string& file,
                                                               diag::Diagnostics& diags) const {
  std::string absolute = absolute_in(fs::current_path(), file);
  if (!files_.contains(absolute)) {
    diags.push_back(
        diag::make_error("opscan-no-compile-command", {file, 0, 0, 0},
                         "no entry for this file in " + build_dir_ + "/compile_commands.json"));
    return std::nullopt;
  }
  std::lock_guard lock(mutex_);
  CompileCommands commands(
      clang_CompilationDatabase_getCompileCommands(db_.get(), absolute.c_str()));
  std::optional<CompileCommand> result;
  if (clang_CompileCommands_getSize(commands.get()) == 0) {
    diags.push_back(
        diag::make_error("opscan-no-compile-command", {file, 0, 0, 0},
                         "no entry for this file in " + build_dir_ + "/compile_commands.json"));
  } else {
    CXCompileCommand command = clang_CompileCommands_getCommand(commands.get(), 0);
    CompileCommand out;
    out.file = absolute;
    std::string directory = take(clang_CompileCommand_getDirectory(command));
    // libclang does not apply the entry's directory by itself. Given to the
    // driver, -working-directory changes the directory of the whole process
    // (for every thread, and for good); the frontend resolves relative paths
    // against it without that.
    out.args.insert(out.args.end(), {"-Xclang", "-working-directory=" + directory});
    unsigned n = clang_CompileCommand_getNumArgs(command);
    for (unsigned i = 1; i < n; ++i) { // 0 is the compiler
      std::string arg = take(clang_CompileCommand_getArg(command, i));
      if (arg == "-c")
        continue;
      if (arg == "-o" && i + 1 < n) {
        ++i;
        continue;
      }
      if (arg.starts_with("-o") && arg.size() > 2)
        continue;
      if (absolute_in(directory, arg) == absolute)
        continue;
      out.args.push_back(std::move(arg));
    }
    result = std::move(out);
  }
  return result;
}

} // namespace opscan::scan
