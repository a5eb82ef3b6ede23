// Faults around a command's files, each with a clear message and the
// documented exit code:
//  - the --export-fixes file is written with the command's other outputs,
//    all or nothing: a fixes path that cannot be written (a FIFO, a
//    directory, a read-only file) leaves every output as it was;
//  - an empty path given to any option or argument is a usage error;
//  - a current directory that was removed stops every command first;
//  - an unusable TMPDIR costs a multi-file scan its automatic precompiled
//    headers, not its result;
//  - a number in an IR file that no double holds is located at the number;
//  - a parse that never ends is ended by --parse-timeout.
#include "files.h"
#include "run.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

using opscan::testing::read_file;
using opscan::testing::run_command;
using opscan::testing::RunResult;
using opscan::testing::Snapshot;
using opscan::testing::snapshot;
using opscan::testing::TempDir;
using opscan::testing::write_file;

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const std::string kSources = "'" + (kRepo / "examples/kernels/elementwise.cpp").string() + "' '" +
                             (kRepo / "examples/kernels/reduce.cpp").string() + "'";
const std::string kFlags = " -- -std=c++17 -I'" + (kRepo / "include").string() + "' -I'" +
                           (kRepo / "examples/include").string() + "'";
const std::string kImport = (kRepo / "test/cli/inputs/import").string();

RunResult opscan(const fs::path& dir, const std::string& args) {
  return run_command(dir, "'" OPSCAN_BINARY "' " + args);
}

// The IR of the examples, scanned into `dir`/ir.json.
void scan_examples(const fs::path& dir) {
  const RunResult scan = opscan(dir, "scan " + kSources + " -o ir.json" + kFlags);
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
}

// ---------------------------------------------------------------------------
// --export-fixes: part of the command's all-or-nothing write.

struct FixesTarget {
  const char* name;
  void (*make)(const fs::path&);
  std::string why; // what the message says
};

const std::vector<FixesTarget> kUnwritable = {
    {"fifo", [](const fs::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); },
     "Not a regular file (a FIFO); opscan replaces only regular files"},
    {"directory", [](const fs::path& p) { fs::create_directory(p); },
     "Is a directory; opscan replaces only regular files"},
    {"read_only",
     [](const fs::path& p) {
       write_file(p, "the user's\n");
       fs::permissions(p, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
     },
     "Read-only file; opscan does not replace read-only files"},
};

// Each command that writes outputs, its outputs there already (an earlier
// run's, or the user's sources), so that a write would show.
struct Writing {
  const char* name;
  std::string args;          // before --export-fixes
  std::string compiler = ""; // after it: "-- ..."
};

std::vector<Writing> writing_commands() {
  return {
      {"scan", "scan " + kSources + " -o ir.json --depfile ir.d --stamp ir.stamp", kFlags},
      {"run", "run " + kSources + " --registration static --lib l -o out", kFlags},
      {"generate", "generate ir.json --registration static --lib l -o out"},
      {"pch", "pch '" + (kRepo / "include/opscan/annotations.h").string() + "' -o h.pch", kFlags},
      {"pch_shared", "pch --shared " + kSources + " --cache cache -o shared.txt", kFlags},
      {"import_yaml", "import-yaml '" + kImport + "/functions.yaml' kernels.cpp", kFlags},
  };
}

// The tree each command runs in: the examples' IR, earlier outputs
// (different from what the commands write now) and a source to annotate.
void make_tree(const fs::path& dir) {
  scan_examples(dir);
  const RunResult generate = opscan(dir, "generate ir.json --registration named --lib l -o out");
  ASSERT_EQ(generate.exit_code, 0) << generate.err;
  fs::copy_file(kImport + "/kernels.cpp", dir / "kernels.cpp");
}

TEST(ExportFixes, AFixesFileThatCannotBeWrittenLeavesEveryOutputAsItWas) {
  TempDir earlier;
  ASSERT_NO_FATAL_FAILURE(make_tree(earlier.path()));
  for (const Writing& command : writing_commands()) {
    for (const FixesTarget& target : kUnwritable) {
      SCOPED_TRACE(std::string(command.name) + ", fixes file: " + target.name);
      TempDir dir;
      fs::copy(earlier.path(), dir.path(), fs::copy_options::recursive);
      target.make(dir.path() / "fixes.yaml");
      const Snapshot before = snapshot(dir.path());

      const RunResult run =
          opscan(dir.path(), command.args + " --export-fixes fixes.yaml" + command.compiler);
      EXPECT_EQ(run.exit_code, 3) << run.err;
      EXPECT_NE(run.err.find("opscan: error: cannot write fixes.yaml (--export-fixes): " +
                             target.why + " (no output was changed) [opscan-io]\n"),
                std::string::npos)
          << run.err;
      EXPECT_TRUE(snapshot(dir.path()) == before) << "an output was written";
      EXPECT_TRUE(fs::exists(fs::symlink_status(dir.path() / "fixes.yaml")));
    }
  }
}

TEST(ExportFixes, AWritableFixesFileIsWrittenWithTheOutputs) {
  TempDir earlier;
  ASSERT_NO_FATAL_FAILURE(make_tree(earlier.path()));
  for (const Writing& command : writing_commands()) {
    SCOPED_TRACE(command.name);
    TempDir dir;
    fs::copy(earlier.path(), dir.path(), fs::copy_options::recursive);
    write_file(dir.path() / "fixes.yaml", "stale\n");
    const RunResult run =
        opscan(dir.path(), command.args + " --export-fixes fixes.yaml" + command.compiler);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(read_file(dir.path() / "fixes.yaml").starts_with("---\nMainSourceFile:"))
        << read_file(dir.path() / "fixes.yaml");
  }
}

// ---------------------------------------------------------------------------
// An empty path is a usage error, whichever option or argument it is.

struct EmptyPath {
  std::string args;
  std::string name; // as the message names it
};

std::vector<EmptyPath> empty_paths() {
  const std::string scan = "scan " + kSources + " -o ir2.json";
  const std::string generate = "generate ir.json --registration named --lib l";
  return {
      {"scan " + kSources + " -o ''" + kFlags, "--output"},
      {"run " + kSources + " --registration named --lib l -o ''" + kFlags, "--output"},
      {"pch '" + (kRepo / "include/opscan/annotations.h").string() + "' -o ''", "--output"},
      {generate + " -o ''", "--output"},
      {"report ir.json -o ''", "--output"},
      {scan + " --depfile ''" + kFlags, "--depfile"},
      {scan + " --stamp ''" + kFlags, "--stamp"},
      {scan + " --export-fixes ''" + kFlags, "--export-fixes"},
      {scan + " --cache ''" + kFlags, "--cache"},
      {scan + " -p ''" + kFlags, "-p"},
      {scan + " --schemas ''" + kFlags, "--schemas"},
      {scan + " --flags-file ''" + kFlags, "--flags-file"},
      {"scan '' -o ir2.json" + kFlags, "files"},
      {generate + " -o gen --operators-from ''", "--operators-from"},
      {generate + " -o gen --srcroot ''", "--srcroot"},
      {"generate ''", "ir"},
      {"check ir.json --stamp ''", "--stamp"},
      {"check --model '' ir.json", "--model"},
      {"import-yaml '' kernels.cpp" + kFlags, "yaml"},
      {"diff '' ir.json", "old"},
      {"diff ir.json ir.json --allow ''", "--allow"},
      {"report ir.json --against ''", "--against"},
      {"lsp --compile-commands-dir ''", "--compile-commands-dir"},
  };
}

TEST(EmptyPaths, AreUsageErrorsAndWriteNothing) {
  TempDir dir;
  scan_examples(dir.path());
  fs::copy_file(kImport + "/kernels.cpp", dir.path() / "kernels.cpp");
  const Snapshot before = snapshot(dir.path());
  for (const EmptyPath& c : empty_paths()) {
    SCOPED_TRACE(c.args);
    const RunResult run = opscan(dir.path(), c.args);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.err, "opscan: error: " + c.name +
                           ": the path is empty; see opscan --help [opscan-usage]\n");
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(snapshot(dir.path()), before);
  }
}

// ---------------------------------------------------------------------------
// A removed current directory: every command says so before any work, even
// with every path absolute.

TEST(RemovedDirectory, EveryCommandSaysSoAndDoesNothing) {
  TempDir dir;
  scan_examples(dir.path());
  const std::string d = dir.path().string() + "/";
  const std::vector<std::string> commands = {
      "scan " + kSources + " -o '" + d + "new.json'" + kFlags,
      "pch '" + (kRepo / "include/opscan/annotations.h").string() + "' -o '" + d + "h.pch'",
      "generate '" + d + "ir.json' --registration named --lib l -o '" + d + "gen'",
      "check '" + d + "ir.json' --registration named --lib l",
      "run " + kSources + " --registration named --lib l -o '" + d + "gen'" + kFlags,
      "import-yaml '" + kImport + "/functions.yaml' '" + d + "kernels.cpp' --dry-run" + kFlags,
      "diff '" + d + "ir.json' '" + d + "ir.json'",
      "report '" + d + "ir.json' -o '" + d + "report.md'",
      "lsp",
  };
  fs::copy_file(kImport + "/kernels.cpp", dir.path() / "kernels.cpp");
  const Snapshot before = snapshot(dir.path());
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    write_file(dir.path() / "gone.sh", "mkdir gone && cd gone && rmdir ../gone && exec '" +
                                           std::string(OPSCAN_BINARY) + "' " + command + "\n");
    const RunResult run = run_command(dir.path(), "sh gone.sh");
    fs::remove(dir.path() / "gone.sh");
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_EQ(run.err, "opscan: error: the current directory no longer exists [opscan-io]\n");
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(snapshot(dir.path()), before);
  }
}

// ---------------------------------------------------------------------------
// An unusable TMPDIR: a multi-file scan goes on without its automatic
// precompiled headers (the IR is the same, and nothing is said), a database
// is still read; `pch`, which needs a temporary file, says what is wrong.

TEST(UnusableTmpdir, AMultiFileScanGoesOnWithoutItsPrecompiledHeaders) {
  TempDir dir;
  write_file(dir.path() / "a-file", "not a directory\n");
  const RunResult plain =
      opscan(dir.path(), "scan " + kSources + " -o plain.json --no-auto-pch" + kFlags);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // /proc: a directory no one may create files in (not even root).
  for (const std::string tmpdir : {"missing", "a-file", "/proc", ""}) {
    SCOPED_TRACE("TMPDIR='" + tmpdir + "'");
    const RunResult scan =
        run_command(dir.path(), "env TMPDIR='" + tmpdir + "' '" OPSCAN_BINARY "' scan " + kSources +
                                    " -o ir.json" + kFlags);
    EXPECT_EQ(scan.exit_code, 0) << scan.err;
    EXPECT_EQ(scan.err, "");
    EXPECT_EQ(read_file(dir.path() / "ir.json"), read_file(dir.path() / "plain.json"));
    fs::remove(dir.path() / "ir.json");
  }
}

// libclang would read a compile_flags.txt beside the database instead of
// it: opscan reads the database through a private directory, in /tmp when
// TMPDIR cannot hold one.
TEST(UnusableTmpdir, ADatabaseBesideCompileFlagsIsStillRead) {
  TempDir dir;
  const std::string source = (kRepo / "examples/kernels/reduce.cpp").string();
  fs::create_directories(dir.path() / "build");
  write_file(dir.path() / "build/compile_flags.txt", "-DNOT_READ\n");
  write_file(dir.path() / "build/compile_commands.json",
             "[{\"directory\": \"" + dir.path().string() + "\", \"file\": \"" + source +
                 "\", \"arguments\": [\"c++\", \"-std=c++17\", \"-I" + (kRepo / "include").string() +
                 "\", \"-I" + (kRepo / "examples/include").string() + "\", \"-c\", \"" + source +
                 "\"]}]\n");
  for (const std::string tmpdir : {"missing", "/proc"}) {
    SCOPED_TRACE("TMPDIR='" + tmpdir + "'");
    const RunResult scan = run_command(dir.path(), "env TMPDIR='" + tmpdir + "' '" OPSCAN_BINARY
                                                   "' scan -p build '" + source + "' -o ir.json");
    EXPECT_EQ(scan.exit_code, 0) << scan.err;
    EXPECT_EQ(scan.err, "");
    EXPECT_TRUE(fs::exists(dir.path() / "ir.json"));
    fs::remove(dir.path() / "ir.json");
  }
}

TEST(UnusableTmpdir, PchSaysItHasNoTemporaryDirectory) {
  TempDir dir;
  write_file(dir.path() / "a-file", "not a directory\n");
  const RunResult pch =
      run_command(dir.path(), "env TMPDIR=a-file '" OPSCAN_BINARY "' pch '" +
                                  (kRepo / "include/opscan/annotations.h").string() + "' -o h.pch");
  EXPECT_EQ(pch.exit_code, 3) << pch.err;
  EXPECT_EQ(pch.err, "opscan: error: cannot save the precompiled header: no temporary directory "
                     "(TMPDIR: Not a directory) [opscan-io]\n");
  EXPECT_FALSE(fs::exists(dir.path() / "h.pch"));
}

// ---------------------------------------------------------------------------
// Numbers in an IR file beyond a double's range: located at the number, as
// every other IR error is, never the JSON library's text.

struct Number {
  const char* name;
  std::string key;   // the first value of this key (digits) is replaced
  std::string value; // by this
  std::string error; // after "bad.json:LINE:COL: error: "
};

TEST(IrNumbers, ANumberNoDoubleHoldsIsLocatedAtTheNumber) {
  TempDir dir;
  scan_examples(dir.path());
  const std::string ir = read_file(dir.path() / "ir.json");
  const std::string brackets(600, '[');
  const std::vector<Number> numbers = {
      {"too large", "\"version\": ", "1e309",
       "not valid JSON: the number '1e309' is outside a double's range"},
      {"too large, negative", "\"line\": ", "-1e309",
       "not valid JSON: the number '-1e309' is outside a double's range"},
      {"too large, deep in arrays", "\"version\": ", brackets + "1e309" + std::string(600, ']'),
       "not valid JSON: the number '1e309' is outside a double's range"},
      {"too small (zero to JSON readers)", "\"line\": ", "1e-400",
       "kernels[0].location.line: must be a non-negative integer"},
  };
  for (const Number& n : numbers) {
    SCOPED_TRACE(n.name);
    const size_t at = ir.find(n.key);
    ASSERT_NE(at, std::string::npos);
    const size_t value = at + n.key.size();
    std::string edited = ir;
    edited.replace(value, edited.find_first_not_of("0123456789", value) - value, n.value);
    write_file(dir.path() / "bad.json", edited);
    // Where the number is: 1-based line and byte column.
    const size_t number = value + n.value.find_first_of("-0123456789");
    const size_t line = static_cast<size_t>(std::count(
                            edited.begin(), edited.begin() + static_cast<long>(number), '\n')) +
                        1;
    const size_t column = number - (edited.rfind('\n', number) + 1) + 1;
    const std::string expected = "bad.json:" + std::to_string(line) + ":" + std::to_string(column) +
                                 ": error: " + n.error + " [opscan-ir-invalid]\n";
    for (const std::string command : {"check bad.json --registration named --lib l",
                                      "generate bad.json --registration named --lib l -o gen",
                                      "report bad.json", "diff ir.json bad.json"}) {
      SCOPED_TRACE(command);
      const RunResult run = opscan(dir.path(), command);
      EXPECT_EQ(run.exit_code, 1) << run.err;
      EXPECT_TRUE(run.err.starts_with(expected)) << "expected " << expected << "got " << run.err;
      EXPECT_EQ(run.err.find("json.exception"), std::string::npos) << run.err;
    }
    EXPECT_FALSE(fs::exists(dir.path() / "gen"));
  }
}

} // namespace

// ---------------------------------------------------------------------------
// A parse that never ends (an #include of a FIFO; libclang cannot be
// stopped): --parse-timeout ends the command with a located error, exit 1,
// nothing written, and no private directory left in TMPDIR (seven files
// that share their leading #include lines: the scan makes one).
namespace {

TEST(ParseTimeout, EndsTheCommandWithALocatedErrorAndLeavesNothing) {
  TempDir dir;
  fs::create_directories(dir.path() / "inc");
  fs::create_directories(dir.path() / "tmp");
  ASSERT_EQ(::mkfifo((dir.path() / "inc/pipe.h").c_str(), 0644), 0);
  std::string files;
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g"}) {
    dir.write(std::string(name) + ".cpp", "#include <map>\n#include <vector>\n#include <functional>\n"
                                          "#include <pipe.h>\nint " +
                                              std::string(name) + ";\n");
    files += std::string(" ") + name + ".cpp";
  }
  const Snapshot before = snapshot(dir.path());
  const RunResult scan = run_command(
      dir.path(), "env TMPDIR=tmp '" OPSCAN_BINARY "' scan" + files +
                      " -j 1 -o ir.json --parse-timeout 1 --format json -- -Iinc");
  EXPECT_EQ(scan.exit_code, 1) << scan.err;
  EXPECT_EQ(scan.err, "");
  const auto report = nlohmann::json::parse(scan.out);
  ASSERT_EQ(report["diagnostics"].size(), 1u) << scan.out;
  const auto& error = report["diagnostics"][0];
  EXPECT_EQ(error["code"], "opscan-parse-timeout");
  EXPECT_EQ(error["location"]["file"], "a.cpp");
  EXPECT_EQ(error["message"],
            "libclang did not finish parsing a.cpp within 1 s (--parse-timeout): the source or a "
            "header it includes never ends (a FIFO or device) or is too large to parse");
  EXPECT_EQ(snapshot(dir.path()), before) << "a file was written, or left in TMPDIR";
}

TEST(ParseTimeout, ZeroMeansNoLimit) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir.path() / "pipe.h").c_str(), 0644), 0);
  dir.write("k.cpp", "#include \"pipe.h\"\n");
  // The parse waits for a writer: here, one that writes after 3 s, which a
  // limit of 1 s would not have waited for.
  const RunResult scan = run_command(
      dir.path(), "sh -c '(sleep 3; echo \"int k;\" > pipe.h) & exec \"$0\" scan k.cpp -o ir.json "
                  "--parse-timeout 0' '" OPSCAN_BINARY "'");
  EXPECT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_TRUE(fs::exists(dir.path() / "ir.json"));
}

} // namespace
