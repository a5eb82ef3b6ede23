// Compiler arguments that would make libclang write files (dependency files,
// module caches, ...), print, read options from a configuration file, move
// the process to another directory, or load plugins: given after --, in a
// --flags-file, in a response file or in a compilation database (written
// here, and made by real CMake and Meson), the real opscan scans all the
// same, notes each dropped option once, prints nothing on standard output,
// and leaves every file of the project's tree as it was: none appears, none
// changes. The scan runs in that tree, with HOME, XDG_CACHE_HOME and TMPDIR
// inside it, so whatever the compiler would write would land there. Sources
// that would crash or hang libclang end in a located error, or parse.
#include "files.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <string>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRepo = OPSCAN_SOURCE_DIR;

using opscan::testing::read_file;
using opscan::testing::snapshot;
using opscan::testing::Snapshot;
using opscan::testing::TempDir;

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `command` (a shell command line) in `cwd`, its temporary and cache
// directories in `tree`.
RunResult run_in(const fs::path& tree, const fs::path& cwd, const std::string& command) {
  TempDir io;
  const std::string line = "cd " + quoted(cwd.string()) +
                           " && env HOME=" + quoted((tree / "home").string()) +
                           " XDG_CACHE_HOME=" + quoted((tree / "cache").string()) +
                           " TMPDIR=" + quoted((tree / "tmp").string()) + " " + command + " >" +
                           quoted((io.path() / "out").string()) + " 2>" +
                           quoted((io.path() / "err").string());
  const int status = std::system(line.c_str());
  RunResult run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file(io.path() / "out");
  run.err = read_file(io.path() / "err");
  return run;
}

RunResult opscan_in(const fs::path& tree, const fs::path& cwd, const std::string& args) {
  return run_in(tree, cwd, quoted(OPSCAN_BINARY) + " " + args);
}

// Every path under `dir`, directories too (a compiler may make those).
std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    paths.insert(fs::relative(entry.path(), dir).string());
  return paths;
}

// A project tree: src/k.cpp (one kernel), the empty directories the scan's
// environment points at, an empty directory `elsewhere` (where
// -working-directory would move the process), and the files hostile
// arguments name: planted.cfg (a clang configuration file) and planted.rsp
// (a response file), each asking for a dependency file and a module cache.
void make_project(const TempDir& tree, const std::string& source_dir = "src") {
  tree.write(source_dir + "/k.cpp", read_file(kRepo / "test/cli/inputs/good.cpp"));
  for (const char* dir : {"home", "cache", "tmp", "elsewhere"})
    fs::create_directories(tree.path() / dir);
  tree.write("planted.cfg", "-MD -MF planted.d\n-fmodules -fmodules-cache-path=planted-modules\n");
  tree.write("planted.rsp", "-MD -MF planted.d\n");
  // What clang 14's driver runs to pick the GPU of an OpenMP offload target
  // (found on -B, --prefix, -ccc-install-dir, COMPILER_PATH): it leaves a
  // file in the tree, the scan's working directory.
  tree.write("bin/amdgpu-arch", "#!/bin/sh\ntouch ran-amdgpu-arch\necho gfx906\n");
  fs::permissions(tree.path() / "bin/amdgpu-arch", fs::perms::owner_exec, fs::perm_options::add);
}

const std::vector<std::string> kIncludes = {"-std=c++17", "-I" + (kRepo / "include").string(),
                                           "-I" + (kRepo / "examples/include").string()};

// Files made before a scan, each with this content and an old time.
const std::string kOldContent = "made before the scan\n";
void make_old(const fs::path& file) {
  fs::create_directories(file.parent_path());
  opscan::testing::write_file(file, kOldContent);
  fs::last_write_time(file, fs::file_time_type::clock::now() - std::chrono::hours(1));
}

std::string note_lines(std::vector<std::string> messages) {
  std::sort(messages.begin(), messages.end()); // as diagnostics at one place are
  std::string lines;
  for (const std::string& m : messages)
    lines += "opscan: note: " + m + " [opscan-dropped-flag]\n";
  return lines;
}

// The scan's IR holds the kernel of src/k.cpp.
void expect_ir(const fs::path& ir) {
  EXPECT_NE(read_file(ir).find("\"demo::neg.out(Tensor self"), std::string::npos) << ir;
}

// ---------------------------------------------------------------------------
// Each argument given three ways

const std::string kWrites = ", which makes the compiler write files";
const std::string kOutput = ", which names a compiler output";
const std::string kPrints = ", which makes the compiler print to opscan's output";
const std::string kPlugin = ", which makes the compiler load a plugin";
const std::string kModules =
    ", which makes the compiler write a module cache (headers are included as text instead)";
const std::string kMoves = ", which would move opscan into another directory";
const std::string kConfig = ", which makes the compiler read options from a configuration file";
const std::string kDriver = ", which makes the compiler read its arguments as another driver "
                            "(only the gcc and g++ modes are scanned)";
const std::string kNotRun = ", which passes options to a part of the compiler a scan does not run";
const std::string kUnknown =
    ", which passes the compiler's frontend an option opscan does not know to be safe";
const std::string kRuns = ", which can make the compiler run a program";
const std::string kEnds = ", after which the compiler reads every argument as a file to compile";
const std::string kLimit =
    ", which raises a compiler limit above its default (deep input would overflow the stack)";

std::string with_value(const std::string& option, const std::string& why) {
  return "dropped '" + option + "' and its value" + why;
}
std::string alone(const std::string& option, const std::string& why) {
  return "dropped '" + option + "'" + why;
}

struct Case {
  std::string name;
  std::vector<std::string> args;
  // What libclang 14 writes given `args` (relative to the tree, where the
  // scan runs): made beforehand, they must stay as they were.
  std::vector<std::string> writes;
  std::vector<std::string> notes;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

const std::vector<Case> kCases = {
    {"MD", {"-MD"}, {"k.d"}, {alone("-MD", kWrites)}},
    {"MMD", {"-MMD"}, {"k.d"}, {alone("-MMD", kWrites)}},
    {"MD_MF", {"-MD", "-MF", "deps.d"}, {"deps.d"},
     {alone("-MD", kWrites), with_value("-MF", kWrites)}},
    {"MMD_MFjoined", {"-MMD", "-MFdeps.d"}, {"deps.d"},
     {alone("-MMD", kWrites), with_value("-MF", kWrites)}},
    // Without -MF, -M prints the rule to standard output.
    {"M", {"-M"}, {}, {alone("-M", kWrites)}},
    {"MM_MG_MF", {"-MM", "-MG", "-MF", "deps.d"}, {"deps.d"},
     {alone("-MM", kWrites), alone("-MG", kWrites), with_value("-MF", kWrites)}},
    {"MD_MT_MQ_MP", {"-MD", "-MT", "k.o", "-MQ", "k.o", "-MP", "-MF", "deps.d"}, {"deps.d"},
     {alone("-MD", kWrites), with_value("-MT", kWrites), with_value("-MQ", kWrites),
      alone("-MP", kWrites), with_value("-MF", kWrites)}},
    {"MJ", {"-MJ", "fragment.json"}, {"fragment.json"}, {with_value("-MJ", kWrites)}},
    {"MJjoined", {"-MJfragment.json"}, {"fragment.json"}, {with_value("-MJ", kWrites)}},
    {"WriteDependencies", {"--write-dependencies"}, {"k.d"},
     {alone("--write-dependencies", kWrites)}},
    {"UserDependencies", {"--user-dependencies"}, {}, {alone("--user-dependencies", kWrites)}},
    {"Wp_MD", {"-Wp,-MD,deps.d"}, {"deps.d"}, {with_value("-Wp,-MD", kWrites)}},
    {"Wp_MMD_and_a_macro", {"-Wp,-MMD,deps.d,-DFROM_WP=1"}, {"deps.d"},
     {with_value("-Wp,-MMD", kWrites)}},
    {"Output", {"-o", "a.o", "-ob.o", "--output=c.o", "--output", "d.o"}, {},
     {with_value("-o", kOutput), alone("--output=c.o", kOutput), with_value("--output", kOutput)}},
    {"Emit", {"-emit-ast", "-emit-llvm", "-emit-pch"}, {},
     {alone("-emit-ast", kWrites), alone("-emit-llvm", kWrites), alone("-emit-pch", kWrites)}},
    {"SaveTemps", {"-save-temps"}, {}, {alone("-save-temps", kWrites)}},
    {"SaveTempsObj", {"-save-temps=obj"}, {}, {alone("-save-temps=obj", kWrites)}},
    {"SerializeDiagnostics", {"--serialize-diagnostics", "diags.dia"}, {},
     {with_value("--serialize-diagnostics", kWrites)}},
    {"TimeTrace", {"-ftime-trace", "-ftime-trace=trace.json"}, {},
     {alone("-ftime-trace", kWrites), alone("-ftime-trace=trace.json", kWrites)}},
    {"Statistics",
     {"-save-stats", "-fproc-stat-report", "-fproc-stat-report=report.txt",
      "-fcrash-diagnostics-dir=crash"},
     {},
     {alone("-save-stats", kWrites), alone("-fproc-stat-report", kWrites),
      alone("-fproc-stat-report=report.txt", kWrites),
      alone("-fcrash-diagnostics-dir=crash", kWrites)}},
    {"CommandsOnly", {"-###"}, {}, {alone("-###", kPrints)}},
    {"Verbose", {"-v"}, {}, {alone("-v", kPrints)}},
    {"ShowIncludes", {"-H"}, {}, {alone("-H", kPrints)}},
    {"PrintResourceDir", {"-print-resource-dir"}, {}, {alone("-print-resource-dir", kPrints)}},
    {"PrintStats", {"-Xclang", "-print-stats"}, {}, {alone("-Xclang -print-stats", kPrints)}},
    {"Plugins", {"-fplugin=/nonexistent/a.so", "-fpass-plugin=/nonexistent/b.so"}, {},
     {alone("-fplugin=/nonexistent/a.so", kPlugin),
      alone("-fpass-plugin=/nonexistent/b.so", kPlugin)}},
    {"LoadPlugin", {"-Xclang", "-load", "-Xclang", "/nonexistent/a.so"}, {},
     {with_value("-Xclang -load", kPlugin)}},
    {"PluginAction", {"-Xclang", "-plugin", "-Xclang", "print-fns"}, {},
     {with_value("-Xclang -plugin", kPlugin)}},
    {"AddPlugin", {"-Xclang", "-add-plugin", "-Xclang", "print-fns"}, {},
     {with_value("-Xclang -add-plugin", kPlugin)}},
    // The module cache's files are named by hashes: none may appear.
    {"ImplicitModules", {"-fmodules"}, {}, {alone("-fmodules", kModules)}},
    {"ModulesCachePath", {"-fmodules", "-fmodules-cache-path=modules"}, {},
     {alone("-fmodules", kModules), alone("-fmodules-cache-path=modules", kWrites)}},
    {"FrontendDependencyFile",
     {"-Xclang", "-dependency-file", "-Xclang", "deps.d", "-Xclang", "-MT", "-Xclang", "k.o"},
     {"deps.d"},
     {with_value("-Xclang -dependency-file", kWrites), with_value("-Xclang -MT", kWrites)}},
    {"FrontendDependencyDot", {"-Xclang", "-dependency-dot", "-Xclang", "deps.dot"}, {"deps.dot"},
     {with_value("-Xclang -dependency-dot", kWrites)}},
    {"FrontendHeaderIncludeFile",
     {"-Xclang", "-header-include-file", "-Xclang", "headers.txt", "-Xclang", "-H"},
     {"headers.txt"},
     {with_value("-Xclang -header-include-file", kWrites), alone("-Xclang -H", kPrints)}},
    {"FrontendModuleDependencyDir", {"-Xclang", "-module-dependency-dir", "-Xclang", "copies"},
     {"copies/vfs.yaml"},
     {with_value("-Xclang -module-dependency-dir", kWrites)}},
    {"SaveTempsLong", {"--save-temps"}, {}, {alone("--save-temps", kWrites)}},
    {"CompilationDatabaseFragment", {"-gen-cdb-fragment-path", "cdb"}, {},
     {with_value("-gen-cdb-fragment-path", kWrites)}},
    // Moves the process: -o and relative sources would resolve there.
    {"WorkingDirectory", {"-working-directory", "elsewhere"}, {},
     {with_value("-working-directory", kMoves)}},
    {"WorkingDirectoryJoined", {"-working-directory=elsewhere"}, {},
     {alone("-working-directory=elsewhere", kMoves)}},
    {"WorkingDirectoryJoinedWithoutEquals", {"-working-directoryelsewhere"}, {},
     {with_value("-working-directory", kMoves)}},
    // Reads options past the filter (planted.cfg asks for a dependency file
    // and a module cache).
    {"ConfigFile", {"--config", "./planted.cfg"}, {"planted.d"},
     {with_value("--config", kConfig)}},
    {"ConfigFileJoined", {"--config=./planted.cfg"}, {"planted.d"},
     {alone("--config=./planted.cfg", kConfig)}},
    {"ConfigDirectories", {"--config-system-dir=.", "--config-user-dir=."}, {},
     {alone("--config-system-dir=.", kConfig), alone("--config-user-dir=.", kConfig)}},
    // Print on standard output.
    {"HelpAndVersion", {"--help", "--version", "-dumpmachine", "-dumpversion"}, {},
     {alone("--help", kPrints), alone("--version", kPrints), alone("-dumpmachine", kPrints),
      alone("-dumpversion", kPrints)}},
    {"Autocomplete", {"--autocomplete=-fsyn", "-print-targets"}, {},
     {alone("--autocomplete=-fsyn", kPrints), alone("-print-targets", kPrints)}},
    {"FrontendPrinting",
     {"-Xclang", "--show-includes", "-Xclang", "-fdump-record-layouts", "-Xclang", "-ast-dump"},
     {},
     {alone("-Xclang --show-includes", kUnknown), alone("-Xclang -fdump-record-layouts", kUnknown),
      alone("-Xclang -ast-dump", kUnknown)}},
    {"ClDriverMode", {"--driver-mode=cl"}, {}, {alone("--driver-mode=cl", kDriver)}},
    {"NotRun", {"-mllvm", "-stats", "-Xanalyzer", "-analyzer-output=html"}, {},
     {with_value("-mllvm", kNotRun), with_value("-Xanalyzer", kNotRun)}},
    {"RaisedLimits", {"-fbracket-depth=100000", "-ftemplate-depth=100000"}, {},
     {with_value("-fbracket-depth=100000", kLimit), with_value("-ftemplate-depth=100000", kLimit)}},
    // Runs a program: bin/amdgpu-arch, for the GPU of an offload target.
    {"OffloadArchTool",
     {"-fopenmp", "-fopenmp-targets=amdgcn-amd-amdhsa", "--amdgpu-arch-tool=./bin/amdgpu-arch"},
     {},
     {alone("-fopenmp-targets=amdgcn-amd-amdhsa", kRuns),
      alone("--amdgpu-arch-tool=./bin/amdgpu-arch", kRuns)}},
    {"ProgramPaths",
     {"-fopenmp", "-fopenmp-targets=amdgcn-amd-amdhsa", "-Bbin", "--prefix", "bin",
      "--prefix=bin", "-ccc-install-dir", "bin"},
     {},
     {alone("-fopenmp-targets=amdgcn-amd-amdhsa", kRuns), with_value("-B", kRuns),
      with_value("--prefix", kRuns), alone("--prefix=bin", kRuns),
      with_value("-ccc-install-dir", kRuns)}},
    // Makes the driver read what follows (opscan's own arguments too) as more
    // files to compile, each planned with a temporary file.
    {"DashDash", {"--", "-DX"}, {}, {alone("--", kEnds)}},
    // Read as any input, and filtered as the arguments around it.
    {"ResponseFile", {"@planted.rsp"}, {"planted.d"},
     {alone("-MD", kWrites), with_value("-MF", kWrites)}},
};

enum class Route { dashes, flags_file, database };

std::string route_name(Route route) {
  switch (route) {
  case Route::dashes:
    return "Dashes";
  case Route::flags_file:
    return "FlagsFile";
  case Route::database:
    return "Database";
  }
  return "";
}

class WritingArguments : public ::testing::TestWithParam<std::tuple<Case, Route>> {
protected:
  // The scan's arguments, given the route's way: the files that way needs
  // are written into the tree.
  std::string scan_args(const Case& c, Route route, const fs::path& ir) const {
    std::string args = "scan src/k.cpp -o " + quoted(ir.string());
    switch (route) {
    case Route::dashes:
      args += " --";
      for (const std::string& a : kIncludes)
        args += " " + quoted(a);
      for (const std::string& a : c.args)
        args += " " + quoted(a);
      break;
    case Route::flags_file: {
      std::string lines;
      for (const std::string& a : kIncludes)
        lines += a + "\n";
      for (const std::string& a : c.args)
        lines += a + "\n";
      tree_.write("flags.txt", lines);
      args += " --flags-file flags.txt";
      break;
    }
    case Route::database: {
      std::string json = R"([{"directory": ")" + tree_.path().string() +
                         R"(", "file": "src/k.cpp", "arguments": ["c++")";
      for (const std::string& a : kIncludes)
        json += ", \"" + a + "\"";
      for (const std::string& a : c.args)
        json += ", \"" + a + "\"";
      json += R"(, "-c", "src/k.cpp"]}])";
      tree_.write("build/compile_commands.json", json);
      args += " -p build";
      break;
    }
    }
    return args;
  }

  TempDir tree_;
};

TEST_P(WritingArguments, AreDroppedAndWriteNothing) {
  const auto& [c, route] = GetParam();
  make_project(tree_);
  TempDir out;
  const fs::path ir = out.path() / "ir.json";
  const std::string args = scan_args(c, route, ir);
  // A database's own output is its build's: dropped without a note.
  std::vector<std::string> notes;
  for (const std::string& note : c.notes) {
    if (route != Route::database || !note.ends_with(kOutput))
      notes.push_back(note);
  }

  // Nothing there before.
  const std::set<std::string> paths = entries(tree_.path());
  RunResult run = opscan_in(tree_.path(), tree_.path(), args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_ir(ir);
  EXPECT_EQ(run.err, note_lines(notes));
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(entries(tree_.path()), paths);

  // Made before: left as they were.
  if (c.writes.empty())
    return;
  for (const std::string& file : c.writes)
    make_old(tree_.path() / file);
  const Snapshot before = snapshot(tree_.path());
  fs::remove(ir);
  run = opscan_in(tree_.path(), tree_.path(), args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_ir(ir);
  EXPECT_EQ(snapshot(tree_.path()), before);
  for (const std::string& file : c.writes)
    EXPECT_EQ(read_file(tree_.path() / file), kOldContent) << file;
}

INSTANTIATE_TEST_SUITE_P(
    EachWay, WritingArguments,
    ::testing::Combine(::testing::ValuesIn(kCases),
                       ::testing::Values(Route::dashes, Route::flags_file, Route::database)),
    [](const ::testing::TestParamInfo<std::tuple<Case, Route>>& info) {
      return std::get<0>(info.param).name + "_" + route_name(std::get<1>(info.param));
    });

// Options a value only looks like: passed on, so the scan sees the macro
// (an #error otherwise) and nothing is dropped.
TEST(CompileArgs, ValuesThatLookLikeDroppedOptionsAreKept) {
  TempDir tree;
  make_project(tree);
  tree.write("src/k.cpp", "#ifndef FROM_WP\n#error no macro\n#endif\n" +
                              read_file(tree.path() / "src/k.cpp"));
  TempDir out;
  std::string args = "scan src/k.cpp -o " + quoted((out.path() / "ir.json").string()) +
                     " --";
  for (const std::string& a : kIncludes)
    args += " " + quoted(a);
  args += " -Wp,-MD,deps.d,-DFROM_WP=1 -include -v";
  tree.write("-v", "");
  const std::set<std::string> paths = entries(tree.path());
  RunResult run = opscan_in(tree.path(), tree.path(), args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_ir(out.path() / "ir.json");
  EXPECT_EQ(run.err, note_lines({with_value("-Wp,-MD", kWrites)}));
  EXPECT_EQ(entries(tree.path()), paths);
}

// Notes come once per run, not once per file.
TEST(CompileArgs, EachDroppedOptionIsNotedOnce) {
  TempDir tree;
  make_project(tree);
  tree.write("src/other.cpp", read_file(kRepo / "test/cli/inputs/all_types.cpp"));
  TempDir out;
  std::string args = "scan src/k.cpp src/other.cpp -j 2 -o " +
                     quoted((out.path() / "ir.json").string()) + " --";
  for (const std::string& a : kIncludes)
    args += " " + quoted(a);
  args += " -MD -MF deps.d -fconcepts";
  RunResult run = opscan_in(tree.path(), tree.path(), args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, note_lines({alone("-MD", kWrites), with_value("-MF", kWrites),
                                 "dropped '-fconcepts', which libclang does not accept"}));
  EXPECT_FALSE(fs::exists(tree.path() / "deps.d"));
}

// pch and import-yaml parse with the same arguments.
TEST(CompileArgs, PchAndImportYamlDropThemToo) {
  TempDir tree;
  make_project(tree);
  TempDir out;
  std::string args;
  for (const std::string& a : kIncludes)
    args += " " + quoted(a);
  args += " -MD -MF deps.d";
  const std::set<std::string> paths = entries(tree.path());
  const std::string notes = note_lines({alone("-MD", kWrites), with_value("-MF", kWrites)});

  RunResult pch = opscan_in(tree.path(), tree.path(),
                            "pch " + quoted((kRepo / "examples/include/opscan_examples/"
                                                     "executorch_types.h").string()) +
                                " -o " + quoted((out.path() / "types.pch").string()) + " --" +
                                args);
  EXPECT_EQ(pch.exit_code, 0) << pch.err;
  EXPECT_TRUE(fs::is_regular_file(out.path() / "types.pch"));
  EXPECT_EQ(pch.err, notes);
  EXPECT_EQ(entries(tree.path()), paths);

  RunResult import = opscan_in(
      tree.path(), tree.path(),
      "import-yaml " + quoted((kRepo / "test/cli/inputs/import/functions.yaml").string()) +
          " src/k.cpp --dry-run --" + args);
  EXPECT_EQ(import.exit_code, 0) << import.err;
  EXPECT_NE(import.err.find(notes), std::string::npos) << import.err;
  EXPECT_EQ(entries(tree.path()), paths);
}

// ---------------------------------------------------------------------------
// The working directory

// The scan's arguments before --, then kIncludes and `more` after it.
std::string with_includes(const std::string& args, const std::vector<std::string>& more = {}) {
  std::string line = args + " --";
  for (const std::string& a : kIncludes)
    line += " " + quoted(a);
  for (const std::string& a : more)
    line += " " + quoted(a);
  return line;
}

// COMPILER_PATH, where clang's driver looks for the programs it runs, is
// cleared: an offload target's amdgpu-arch is not run from it (nor is the
// target kept).
TEST(CompileArgs, CompilerPathRunsNothing) {
  TempDir tree;
  make_project(tree);
  TempDir out;
  const std::set<std::string> paths = entries(tree.path());
  RunResult run = run_in(tree.path(), tree.path(),
                         "COMPILER_PATH=" + quoted((tree.path() / "bin").string()) + " " +
                             quoted(OPSCAN_BINARY) + " " +
                             with_includes("scan src/k.cpp -o " +
                                               quoted((out.path() / "ir.json").string()),
                                           {"-fopenmp", "-fopenmp-targets=amdgcn-amd-amdhsa"}));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_ir(out.path() / "ir.json");
  EXPECT_EQ(run.err, note_lines({alone("-fopenmp-targets=amdgcn-amd-amdhsa", kRuns)}));
  EXPECT_EQ(entries(tree.path()), paths);
}

// -working-directory would move the whole process: relative outputs would
// land there, and a relative source would be missing.
TEST(CompileArgs, WorkingDirectoryMovesNothing) {
  TempDir tree;
  make_project(tree);
  const std::string header =
      (kRepo / "examples/include/opscan_examples/executorch_types.h").string();
  for (const std::string& command : std::vector<std::string>{
           "scan src/k.cpp -o ir.json", "run src/k.cpp --registration named --lib t -o out",
           "pch " + quoted(header) + " -o types.pch"}) {
    for (std::string spelling : {"-working-directory elsewhere", "-working-directory=elsewhere",
                                 "-working-directoryelsewhere"}) {
      SCOPED_TRACE(command + " " + spelling);
      std::vector<std::string> more;
      if (spelling.find(' ') != std::string::npos)
        more = {"-working-directory", "elsewhere"};
      else
        more = {spelling};
      RunResult run = opscan_in(tree.path(), tree.path(), with_includes(command, more));
      EXPECT_EQ(run.exit_code, 0) << run.err;
      EXPECT_TRUE(fs::is_empty(tree.path() / "elsewhere"));
      EXPECT_EQ(run.out.find("elsewhere"), std::string::npos) << run.out;
    }
  }
  expect_ir(tree.path() / "ir.json");
  EXPECT_TRUE(fs::is_regular_file(tree.path() / "out/t/RegisterKernels.cpp"));
  EXPECT_TRUE(fs::is_regular_file(tree.path() / "types.pch"));
}

// The frontend's -working-directory moves nothing, but would read every
// relative path (the source's, a forced include's) from elsewhere: there, a
// planted source and header declare another kernel. Only a database entry's
// directory sets it.
TEST(CompileArgs, TheFrontendsWorkingDirectoryIsOpscans) {
  TempDir tree;
  make_project(tree);
  std::string planted = read_file(tree.path() / "src/k.cpp");
  planted.replace(planted.find("demo::neg.out"), 13, "demo::planted.out");
  planted.replace(planted.find("neg_out"), 7, "planted_out");
  tree.write("elsewhere/src/k.cpp", planted);
  tree.write("elsewhere/extra.h", planted);
  tree.write("extra.h", "");
  const std::string kReads =
      ", which makes the compiler read relative paths from another directory";
  const std::vector<std::pair<std::vector<std::string>, std::string>> spellings = {
      {{"-Xclang", "-working-directory=elsewhere"},
       alone("-Xclang -working-directory=elsewhere", kReads)},
      {{"-Xclang", "-working-directory", "-Xclang", "elsewhere"},
       with_value("-Xclang -working-directory", kReads)},
      {{"-Xclang", "-working-directoryelsewhere"}, with_value("-Xclang -working-directory", kReads)},
      {{"-Wp,-working-directory=elsewhere"}, alone("-Wp,-working-directory=elsewhere", kReads)},
      {{"-Wp,-DX,-working-directory,elsewhere"}, with_value("-Wp,-working-directory", kReads)},
  };
  for (auto [more, note] : spellings) {
    SCOPED_TRACE(more.back());
    fs::remove(tree.path() / "ir.json");
    more.insert(more.begin(), {"-include", "extra.h"});
    RunResult run =
        opscan_in(tree.path(), tree.path(), with_includes("scan src/k.cpp -o ir.json", more));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    expect_ir(tree.path() / "ir.json");
    EXPECT_EQ(read_file(tree.path() / "ir.json").find("planted"), std::string::npos);
    EXPECT_EQ(run.err, note_lines({note}));
    // In a database entry, before and after its own directory.
    std::string json = R"([{"directory": ")" + tree.path().string() +
                       R"(", "file": "src/k.cpp", "arguments": ["c++")";
    for (const std::string& a : kIncludes)
      json += ", \"" + a + "\"";
    for (const std::string& a : more)
      json += ", \"" + a + "\"";
    json += R"(, "-c", "src/k.cpp"]}])";
    tree.write("build/compile_commands.json", json);
    fs::remove(tree.path() / "ir.json");
    run = opscan_in(tree.path(), tree.path(), "scan src/k.cpp -p build -o ir.json");
    EXPECT_EQ(run.exit_code, 0) << run.err;
    expect_ir(tree.path() / "ir.json");
    EXPECT_EQ(read_file(tree.path() / "ir.json").find("planted"), std::string::npos);
    EXPECT_EQ(run.err, note_lines({note}));
  }
}

// A scan into `tree`/ir.json succeeded, said nothing, and made no other
// file than its IR (`paths` were there before).
void expect_quiet_scan(const RunResult& run, const fs::path& tree, std::set<std::string> paths) {
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  expect_ir(tree / "ir.json");
  paths.insert("ir.json");
  EXPECT_EQ(entries(tree), paths);
}

// A database entry's "directory" applies to its own relative paths (an
// include directory, the source), and to nothing of opscan's: -o and the
// sources on the command line are relative to opscan's working directory.
TEST(CompileArgs, ADatabaseDirectoryMovesNothing) {
  TempDir tree;
  make_project(tree);
  tree.write("project/inc/local.h", "#define LOCAL_HEADER_READ 1\n");
  tree.write("src/k.cpp", "#include \"local.h\"\n#ifndef LOCAL_HEADER_READ\n#error no header\n#endif\n" +
                              read_file(tree.path() / "src/k.cpp"));
  std::string json = R"([{"directory": ")" + (tree.path() / "project").string() +
                     R"(", "file": "../src/k.cpp", "arguments": ["c++", "-Iinc")";
  for (const std::string& a : kIncludes)
    json += ", \"" + a + "\"";
  json += R"(, "-c", "../src/k.cpp", "-o", "k.o"]}])";
  tree.write("build/compile_commands.json", json);
  const std::set<std::string> paths = entries(tree.path());
  RunResult run = opscan_in(tree.path(), tree.path(), "scan src/k.cpp -p build -o ir.json");
  expect_quiet_scan(run, tree.path(), paths);
}

// ---------------------------------------------------------------------------
// Standard output holds the document and nothing else

// With --format json, standard output is one JSON document: the notes of
// the options dropped, whatever they would have printed.
TEST(CompileArgs, StandardOutputIsOneDocument) {
  TempDir tree;
  make_project(tree);
  const std::vector<std::string> printing = {
      "--help",    "--help-hidden", "--version", "-dumpmachine", "-dumpversion",
      "--autocomplete=-fsyn", "-print-search-dirs", "--print-targets", "-###", "-v", "-H",
      "-M",        "-Xclang", "--show-includes", "-Xclang", "-fdump-record-layouts",
      "-Xclang",   "-sys-header-deps", "-Xclang", "-print-stats", "--driver-mode=cl"};
  for (std::string route : {"--", "--flags-file"}) {
    SCOPED_TRACE(route);
    std::string args = "scan src/k.cpp -o ir.json --format json";
    if (route == "--") {
      args = with_includes(args, printing);
    } else {
      std::string lines;
      for (const std::string& a : kIncludes)
        lines += a + "\n";
      for (const std::string& a : printing)
        lines += a + "\n";
      tree.write("flags.txt", lines);
      args += " --flags-file flags.txt";
    }
    RunResult run = opscan_in(tree.path(), tree.path(), args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err, "");
    const nlohmann::json document = nlohmann::json::parse(run.out, nullptr, false);
    ASSERT_FALSE(document.is_discarded()) << run.out.substr(0, 2000);
    ASSERT_TRUE(document.contains("diagnostics")) << run.out.substr(0, 2000);
    for (const auto& d : document["diagnostics"])
      EXPECT_EQ(d["code"], "opscan-dropped-flag") << d.dump();
    EXPECT_EQ(document["diagnostics"].size(), 17u);
    expect_ir(tree.path() / "ir.json");
  }
}

// ---------------------------------------------------------------------------
// Response files

TEST(CompileArgs, ResponseFilesAreReadAsInputs) {
  TempDir tree;
  make_project(tree);
  std::string lines;
  for (const std::string& a : kIncludes)
    lines += quoted(a) + "\n";
  tree.write("includes.rsp", lines + "@more.rsp\n");
  tree.write("more.rsp", "-DFROM_RSP=1 '-DSPACED=a b'\n");
  tree.write("src/k.cpp", "#if !defined(FROM_RSP) || !defined(SPACED)\n#error no macros\n#endif\n" +
                              read_file(tree.path() / "src/k.cpp"));
  RunResult run = opscan_in(tree.path(), tree.path(),
                            "scan src/k.cpp -o ir.json --depfile ir.d -- @includes.rsp");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  expect_ir(tree.path() / "ir.json");
  // Inputs of the step as the flags file is: an edit scans again, and no
  // output may replace one.
  const std::string depfile = read_file(tree.path() / "ir.d");
  for (const char* file : {"includes.rsp", "more.rsp"}) {
    const std::string listed = " " + (tree.path() / file).string();
    EXPECT_TRUE(depfile.find(listed + " ") != std::string::npos ||
                depfile.ends_with(listed + "\n"))
        << file << " is not in the depfile:\n"
        << depfile;
  }
  RunResult over = opscan_in(tree.path(), tree.path(), "scan src/k.cpp -o more.rsp -- @includes.rsp");
  EXPECT_EQ(over.exit_code, 2) << over.err;
  EXPECT_EQ(over.err, "opscan: error: more.rsp is both -o and a response file; opscan does not "
                      "overwrite its inputs [opscan-output-is-input]\n");
  EXPECT_EQ(read_file(tree.path() / "more.rsp"), "-DFROM_RSP=1 '-DSPACED=a b'\n");

  // One that cannot be read: an I/O error naming it, nothing written, and
  // a FIFO never waited for.
  ASSERT_EQ(::mkfifo((tree.path() / "fifo.rsp").c_str(), 0644), 0);
  tree.write("loop.rsp", "@loop.rsp\n");
  fs::remove(tree.path() / "ir.json");
  for (const auto& [arg, why] : std::vector<std::pair<std::string, std::string>>{
           {"@missing.rsp", "cannot read the response file 'missing.rsp': No such file or "
                            "directory"},
           {"@fifo.rsp", "cannot read the response file 'fifo.rsp': Not a regular file (a FIFO)"},
           {"@loop.rsp", "cannot read the response file 'loop.rsp' (named in 'loop.rsp'): it "
                         "names itself, through the response files it is read from"}}) {
    SCOPED_TRACE(arg);
    const std::set<std::string> paths = entries(tree.path());
    RunResult bad = run_in(tree.path(), tree.path(),
                           "timeout 60 " + quoted(OPSCAN_BINARY) + " scan src/k.cpp -o ir.json -- " +
                               arg);
    EXPECT_EQ(bad.exit_code, 3) << bad.err;
    EXPECT_EQ(bad.err, "opscan: error: " + why + " [opscan-io]\n");
    EXPECT_EQ(entries(tree.path()), paths);
  }
}

// ---------------------------------------------------------------------------
// Malformed compilation databases

TEST(CompileArgs, AMalformedDatabaseIsALocatedError) {
  TempDir tree;
  make_project(tree);
  tree.write("build/compile_commands.json",
             "[{\"directory\": \"/\", \"file\": \"k.cpp\",\n  \"arguments\": [\"c++\"]},\n"
             "  {oops}]\n");
  const std::set<std::string> paths = entries(tree.path());
  RunResult run = opscan_in(tree.path(), tree.path(), "scan src/k.cpp -p build -o ir.json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "build/compile_commands.json:3:4: error: not valid JSON "
                     "[opscan-compile-commands-invalid]\n  {oops}]\n   ^\n");
  EXPECT_EQ(entries(tree.path()), paths);
}

// ---------------------------------------------------------------------------
// Sources that would crash or hang libclang

// #pragma clang __debug crash, llvm_fatal_error, overflow_stack ... would
// abort, kill or hang the process; each is ignored, written as a pragma,
// through _Pragma or in an included header.
TEST(CompileArgs, DebugPragmasAreIgnored) {
  TempDir tree;
  make_project(tree);
  const std::string good = read_file(tree.path() / "src/k.cpp");
  for (std::string pragma : {"crash", "llvm_fatal_error", "overflow_stack", "parser_crash",
                             "assert", "llvm_unreachable"}) {
    for (std::string way : {"pragma", "_Pragma", "header"}) {
      SCOPED_TRACE(pragma + " by " + way);
      const std::string line = "#pragma clang __debug " + pragma + "\n";
      if (way == "pragma") {
        tree.write("src/k.cpp", good + line);
      } else if (way == "_Pragma") {
        tree.write("src/k.cpp", good + "_Pragma(\"clang __debug " + pragma + "\")\n");
      } else {
        tree.write("src/debug.h", line);
        tree.write("src/k.cpp", "#include \"debug.h\"\n" + good);
      }
      fs::remove(tree.path() / "ir.json");
      RunResult run = run_in(tree.path(), tree.path(),
                             "timeout 60 " + quoted(OPSCAN_BINARY) + " " +
                                 with_includes("scan src/k.cpp -o ir.json"));
      EXPECT_EQ(run.exit_code, 0) << run.err;
      expect_ir(tree.path() / "ir.json");
      EXPECT_EQ(run.err.find("crash detected"), std::string::npos) << run.err;
    }
  }
}

// Nesting deeper than libclang's stack holds: with a raised -fbracket-depth
// (dropped), and without any limit to raise (unary operators, which the
// parser recurses on without one), a located error; the process lives.
TEST(CompileArgs, DeeplyNestedSourcesEndInALocatedError) {
  TempDir tree;
  make_project(tree);
  const std::string good = read_file(tree.path() / "src/k.cpp");
  const std::string brackets =
      "int deep = " + std::string(100000, '(') + "1" + std::string(100000, ')') + ";\n";
  std::string minuses = "int unary = ";
  for (int i = 0; i < 200000; ++i)
    minuses += "- ";
  minuses += "1;\n";
  struct Case {
    std::string name, source;
    std::vector<std::string> args;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {"brackets", brackets, {"-fbracket-depth=100000"},
            "error: bracket nesting level exceeded maximum of 256 [opscan-clang-error]"},
           {"brackets_frontend", brackets, {"-Xclang", "-fbracket-depth", "-Xclang", "100000"},
            "error: bracket nesting level exceeded maximum of 256 [opscan-clang-error]"},
           {"unary", minuses, {},
            "opscan: error: libclang could not parse src/k.cpp (error 2): libclang crashed (on a "
            "construct nested too deeply for its stack, or a bug of libclang's) "
            "[opscan-parse-failed]"}}) {
    SCOPED_TRACE(c.name);
    tree.write("src/k.cpp", good + c.source);
    const std::set<std::string> paths = entries(tree.path());
    RunResult run = run_in(tree.path(), tree.path(),
                           "timeout 60 " + quoted(OPSCAN_BINARY) + " " +
                               with_includes("scan src/k.cpp -o ir.json", c.args));
    EXPECT_EQ(run.exit_code, 1) << run.err.substr(0, 4000);
    EXPECT_NE(run.err.find(c.error), std::string::npos) << run.err.substr(0, 4000);
    EXPECT_EQ(entries(tree.path()), paths);
  }
}

// Arguments libclang's driver refuses: the error says so, whichever way they
// come (no serialized file is involved).
TEST(CompileArgs, ArgumentsTheDriverRefusesAreSaidToBeInvalid) {
  TempDir tree;
  make_project(tree);
  tree.write("src/other.cpp", "int other;\n");
  const std::string invalid =
      "opscan: error: libclang could not parse " + (tree.path() / "src/k.cpp").string() +
      " (error 4): the compiler arguments are invalid: libclang's driver refused them";
  auto expect_invalid = [&](const std::string& args, const std::string& file) {
    SCOPED_TRACE(args);
    RunResult run = opscan_in(tree.path(), tree.path(), args);
    EXPECT_EQ(run.exit_code, 1) << run.err;
    std::string expected = invalid;
    expected.replace(expected.find(tree.path() / "src/k.cpp"),
                     (tree.path() / "src/k.cpp").string().size(), file);
    EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("serialized"), std::string::npos) << run.err;
  };
  for (const std::vector<std::string>& more : std::vector<std::vector<std::string>>{
           {"-mcpu=?"}, {"-mtune=?"}, {"-fdiagnostics-format=sarif"},
           {"-Xclang", "-ferror-limit=0"}, {"--working-directory", "/tmp"}, {"src/other.cpp"},
           {"-x", "c"}}) {
    expect_invalid(with_includes("scan src/k.cpp -o ir.json", more), "src/k.cpp");
  }
  std::string lines;
  for (const std::string& a : kIncludes)
    lines += a + "\n";
  tree.write("flags.txt", lines + "src/other.cpp\n");
  expect_invalid("scan src/k.cpp -o ir.json --flags-file flags.txt", "src/k.cpp");
  // A database entry with two sources.
  std::string json = R"([{"directory": ")" + tree.path().string() +
                     R"(", "file": "src/k.cpp", "arguments": ["c++")";
  for (const std::string& a : kIncludes)
    json += ", \"" + a + "\"";
  json += R"(, "-c", "src/k.cpp", "src/other.cpp"]}])";
  tree.write("build/compile_commands.json", json);
  expect_invalid("scan src/k.cpp -p build -o ir.json", (tree.path() / "src/k.cpp").string());
}

// libclang's own environment variables in the user's environment change
// nothing: LIBCLANG_DISABLE_CRASH_RECOVERY would let a deep source kill the
// process, LIBCLANG_LOGGING write files in TMPDIR (and run
// llvm-symbolizer) and print, LIBCLANG_TIMING and LIBCLANG_RESOURCE_USAGE
// print.
TEST(CompileArgs, LibclangsEnvironmentVariablesChangeNothing) {
  TempDir tree;
  make_project(tree);
  const std::string env = "LIBCLANG_DISABLE_CRASH_RECOVERY=1 LIBCLANG_LOGGING=2 LIBCLANG_TIMING=1 "
                          "LIBCLANG_RESOURCE_USAGE=1 LIBCLANG_OBJTRACKING=1 ";
  const std::set<std::string> paths = entries(tree.path());
  RunResult run = run_in(tree.path(), tree.path(),
                         env + quoted(OPSCAN_BINARY) + " " + with_includes("scan src/k.cpp -o ir.json"));
  expect_quiet_scan(run, tree.path(), paths);

  std::string bangs = "int bang = " + std::string(100000, '!') + "0;\n";
  tree.write("src/k.cpp", read_file(tree.path() / "src/k.cpp") + bangs);
  fs::remove(tree.path() / "ir.json");
  run = run_in(tree.path(), tree.path(),
               "timeout 60 env " + env + quoted(OPSCAN_BINARY) + " " +
                   with_includes("scan src/k.cpp -o ir.json"));
  EXPECT_EQ(run.exit_code, 1) << run.err.substr(0, 4000);
  EXPECT_NE(run.err.find("libclang could not parse src/k.cpp (error 2): libclang crashed"),
            std::string::npos)
      << run.err.substr(0, 4000);
  EXPECT_EQ(entries(tree.path()), paths);
}

// ---------------------------------------------------------------------------
// Compilation databases as build systems write them

class CMakeDatabase : public ::testing::TestWithParam<std::string> {};

// CMake 3.25 puts no dependency flags in its entries (its Ninja rules carry
// them): the project adds its own, as some do.
TEST_P(CMakeDatabase, ScansWithoutWritingTheDependencyFile) {
  TempDir tree;
  make_project(tree, "proj/src");
  std::string includes;
  for (const std::string& a : kIncludes)
    includes += " " + a;
  tree.write("proj/CMakeLists.txt",
             "cmake_minimum_required(VERSION 3.20)\nproject(k CXX)\n"
             "add_library(k OBJECT src/k.cpp)\n"
             "target_compile_options(k PRIVATE" + includes +
                 " -MMD -MF ${CMAKE_CURRENT_BINARY_DIR}/k.deps)\n");
  RunResult configure =
      run_in(tree.path(), tree.path(),
             quoted(OPSCAN_CMAKE) + " -S proj -B build -G " + quoted(GetParam()) +
                 " -DCMAKE_EXPORT_COMPILE_COMMANDS=ON");
  ASSERT_EQ(configure.exit_code, 0) << configure.out << configure.err;
  const fs::path build = tree.path() / "build";
  const std::string database = read_file(build / "compile_commands.json");
  ASSERT_NE(database.find("-MF " + (build / "k.deps").string()), std::string::npos) << database;
  ASSERT_NE(database.find("-o "), std::string::npos) << database;

  make_old(build / "k.deps");
  const Snapshot before = snapshot(tree.path());
  const std::set<std::string> paths = entries(tree.path());
  TempDir out;
  RunResult run = opscan_in(tree.path(), tree.path(),
                            "scan proj/src/k.cpp -p build -o " +
                                quoted((out.path() / "ir.json").string()));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_ir(out.path() / "ir.json");
  EXPECT_EQ(run.err, note_lines({alone("-MMD", kWrites), with_value("-MF", kWrites)}));
  EXPECT_EQ(snapshot(tree.path()), before);
  EXPECT_EQ(entries(tree.path()), paths);
}

INSTANTIATE_TEST_SUITE_P(Generators, CMakeDatabase,
                         ::testing::Values("Ninja", "Unix Makefiles"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "Ninja" ? "Ninja" : "UnixMakefiles";
                         });

// Meson's entries: -MD -MQ OBJ -MF OBJ.d -o OBJ -c SOURCE, relative to the
// build directory, where the scan runs (as `cd build && opscan scan -p .`).
TEST(MesonDatabase, ScansWithoutWritingTheDependencyFile) {
  TempDir tree;
  make_project(tree, "proj/src");
  std::string args;
  for (const std::string& a : kIncludes)
    args += std::string(args.empty() ? "" : ", ") + "'" + a + "'";
  tree.write("proj/meson.build", "project('k', 'cpp')\nstatic_library('k', 'src/k.cpp', "
                                 "cpp_args: [" + args + "])\n");
  RunResult setup =
      run_in(tree.path(), tree.path(), quoted(OPSCAN_MESON) + " setup build proj");
  ASSERT_EQ(setup.exit_code, 0) << "meson (scripts/setup.sh installs it): " << setup.out
                                << setup.err;
  const fs::path build = tree.path() / "build";
  const std::string database = read_file(build / "compile_commands.json");
  const std::string depfile = "libk.a.p/src_k.cpp.o.d";
  ASSERT_NE(database.find("-MD -MQ libk.a.p/src_k.cpp.o -MF " + depfile), std::string::npos)
      << database;

  make_old(build / depfile);
  const Snapshot before = snapshot(tree.path());
  const std::set<std::string> paths = entries(tree.path());
  TempDir out;
  RunResult run = opscan_in(tree.path(), build,
                            "scan ../proj/src/k.cpp -p . -o " +
                                quoted((out.path() / "ir.json").string()));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_ir(out.path() / "ir.json");
  EXPECT_EQ(run.err, note_lines({alone("-MD", kWrites), with_value("-MQ", kWrites),
                                 with_value("-MF", kWrites)}));
  EXPECT_EQ(snapshot(tree.path()), before);
  EXPECT_EQ(entries(tree.path()), paths);
}

} // namespace
