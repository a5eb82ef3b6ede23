// The bad-input matrix: one row per bad input (a source, an annotation, a
// schema, a name, an IR file, a cache entry, an option, a file-system fault,
// a special file, two runs at once), each run with the real opscan binary in
// a fresh temporary tree that already holds a good generation. A refused row
// asserts the exit code, the diagnostic code, a bounded time and stderr, and
// that no regular file in the tree changed (content and modification time)
// and none appeared. Cache rows and concurrency rows expect success and
// assert the IR or the output equals that of a plain run. See README.md.
#include "files.h"
#include "run.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <ostream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

using opscan::testing::read_file;
using opscan::testing::RunResult;
using opscan::testing::Snapshot;
using opscan::testing::snapshot;
using opscan::testing::TempDir;
using opscan::testing::write_file;

const fs::path kRepo = OPSCAN_SOURCE_DIR;
// The good generation every tree starts from (test/matrix/CMakeLists.txt):
// k.cpp, its scan ir.json, and the named library t generated into out/.
const fs::path kBase = OPSCAN_MATRIX_BASE;
const std::string kFlags = " -- -I'" + (kRepo / "include").string() + "' -I'" +
                           (kRepo / "examples/include").string() + "'";
constexpr int kBound = 30;          // seconds; a run killed after it exits 124
constexpr size_t kMaxStderr = 8192; // a bad input never floods the terminal

RunResult opscan(const fs::path& dir, const std::string& args, int bound = kBound) {
  return opscan::testing::run_command(dir, "'" OPSCAN_BINARY "' " + args, bound);
}

// ---- Setup steps: each changes the tree before the snapshot is taken. ----

using Step = std::function<void(const fs::path&)>;

Step put(const std::string& relative, const std::string& content) {
  return [=](const fs::path& dir) {
    fs::create_directories((dir / relative).parent_path());
    write_file(dir / relative, content);
  };
}
Step put_from(const std::string& relative, const fs::path& from) {
  return put(relative, read_file(from));
}
Step fifo(const std::string& relative) {
  return [=](const fs::path& dir) {
    ASSERT_EQ(::mkfifo((dir / relative).c_str(), 0644), 0) << relative;
  };
}
Step symlink(const std::string& target, const std::string& relative) {
  return [=](const fs::path& dir) {
    fs::remove(dir / relative);
    fs::create_symlink(target, dir / relative);
  };
}
Step hardlink(const std::string& target, const std::string& relative) {
  return [=](const fs::path& dir) { fs::create_hard_link(dir / target, dir / relative); };
}
Step directory(const std::string& relative) {
  return [=](const fs::path& dir) {
    fs::remove(dir / relative);
    fs::create_directories(dir / relative / "inner");
  };
}
Step read_only(const std::string& relative) {
  return [=](const fs::path& dir) {
    fs::permissions(dir / relative,
                    fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  };
}
// An opscan run that must succeed (a previous generation, a warm cache).
Step ran(const std::string& args) {
  return [=](const fs::path& dir) {
    const RunResult run = opscan(dir, args);
    ASSERT_EQ(run.exit_code, 0) << args << "\n" << run.err;
  };
}
// Edits `relative`: the first `from` becomes `to`.
Step edit(const std::string& relative, const std::string& from, const std::string& to) {
  return [=](const fs::path& dir) {
    std::string text = read_file(dir / relative);
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from << " in " << relative;
    write_file(dir / relative, text.replace(at, from.size(), to));
  };
}
Step truncate(const std::string& relative, size_t keep) {
  return [=](const fs::path& dir) {
    write_file(dir / relative, read_file(dir / relative).substr(0, keep));
  };
}

// ---- Sources. ----

const std::string kHead = "#include <opscan/annotations.h>\n"
                          "#include <opscan_examples/executorch_types.h>\n"
                          "using executorch::aten::Tensor;\n"
                          "using executorch::aten::Scalar;\n"
                          "using executorch::runtime::KernelRuntimeContext;\n";
const std::string kNeg = "Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, "
                         "Tensor& out);\n";

// A source of one kernel: its annotation and declaration.
std::string kernel(const std::string& annotation, const std::string& declaration = kNeg) {
  return kHead + annotation + "\n" + declaration;
}
// A second good source, of another operator.
const std::string kAbs = kernel("OPSCAN_KERNEL(\"demo::abs.out\")",
                                "Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, "
                                "Tensor& out);\n");

// `run FILE` into the previous generation out/t.
std::string run(const std::string& files, const std::string& options = "") {
  return "run " + files + " --registration named --lib t" + options + " -o out" + kFlags;
}
std::string generate(const std::string& irs, const std::string& options = "") {
  return "generate " + irs + " --registration named --lib t" + options + " -o out";
}
std::string generate_as(const std::string& lib) {
  return "generate ir.json --registration named --lib " + lib + " -o out";
}
// A source whose kernel takes one more argument: `schema` in its declared
// schema, `cpp` in its C++ signature.
std::string with_argument(const std::string& schema, const std::string& cpp) {
  return kernel("OPSCAN_KERNEL(\"demo::neg.out(Tensor self, " + schema +
                    ", *, Tensor(a!) out) -> Tensor(a!)\")",
                "Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, " + cpp +
                    ", Tensor& out);\n");
}

// ---- The rows. ----

enum class Expect {
  refused,    // the exit code and diagnostic; nothing in the tree changed
  cache_miss, // exit 0; ir.json equals ref.json (an uncached scan); inputs unchanged
  custom,     // the row's own check does everything
};

struct Case {
  std::string name; // <category>_<what>
  std::vector<Step> setup;
  std::string command; // opscan's arguments, run in the tree
  int exit_code = 0;
  std::string code; // the diagnostic code, without brackets
  Expect expect = Expect::refused;
  std::function<void(const fs::path&)> check = {};
  int bound = kBound; // seconds
};

// gtest names a failing row by this.
// (The name only: ctest shows it in every test's name.)
void PrintTo(const Case& row, std::ostream* out) {
  *out << row.name;
}

Case refused(std::string name, std::vector<Step> setup, std::string command, int exit_code,
             std::string code) {
  return Case{std::move(name),
              std::move(setup),
              std::move(command),
              exit_code,
              std::move(code),
              Expect::refused,
              {},
              kBound};
}

// A cache row: k.cpp and a.cpp scanned once with --cache cache (and once
// without, into ref.json); `damage` then breaks entries; the row's scan must
// treat them as misses.
const std::string kCachedScan = "scan --cache cache k.cpp a.cpp -o ir.json" + kFlags;
Case cache_miss(std::string name, std::vector<Step> damage) {
  std::vector<Step> setup{put("a.cpp", kAbs), ran("scan k.cpp a.cpp -o ref.json" + kFlags),
                          ran("scan --cache cache k.cpp a.cpp -o warm.json" + kFlags)};
  setup.insert(setup.end(), damage.begin(), damage.end());
  return Case{std::move(name), std::move(setup), kCachedScan, 0, "", Expect::cache_miss, {},
              kBound};
}

// The cache's entries, in name order.
// The cache's entries (not the other files it keeps, libclang's version).
std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir / "cache")) {
    if (entry.path().extension() == ".entry")
      out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}
// Applies `damage` to every entry of the cache.
Step each_entry(std::function<void(const fs::path&)> damage) {
  return [=](const fs::path& dir) {
    const std::vector<fs::path> all = entries(dir);
    ASSERT_FALSE(all.empty());
    for (const fs::path& entry : all)
      damage(entry);
  };
}

// The contents of every regular file under `dir`/`sub`, without times: what
// two runs that wrote the same output agree on.
std::map<std::string, std::string> contents(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& [name, file] : snapshot(dir))
    out[name] = file.first;
  return out;
}

// Runs `a` and `b` (opscan's arguments) at the same time in `dir`; returns
// their results.
std::pair<RunResult, RunResult> at_once(const fs::path& dir, const std::string& a,
                                        const std::string& b) {
  TempDir io;
  const std::string bin = "'" OPSCAN_BINARY "' ";
  write_file(io.path() / "both.sh", bin + a + " >'" + io.file("a.out") + "' 2>'" +
                                        io.file("a.err") + "' & pa=$!\n" + bin + b + " >'" +
                                        io.file("b.out") + "' 2>'" + io.file("b.err") +
                                        "' & pb=$!\n" + "wait $pa; echo $? >'" + io.file("a.rc") +
                                        "'\nwait $pb; echo $? >'" + io.file("b.rc") + "'\n");
  const RunResult both =
      opscan::testing::run_command(dir, "sh '" + io.file("both.sh") + "'", kBound);
  EXPECT_NE(both.exit_code, 124) << "the two runs did not end within " << kBound << " s";
  auto result = [&](const std::string& which) {
    RunResult r;
    r.exit_code = std::stoi("0" + read_file(io.path() / (which + ".rc")));
    r.out = read_file(io.path() / (which + ".out"));
    r.err = read_file(io.path() / (which + ".err"));
    return r;
  };
  return {result("a"), result("b")};
}

// A run that failed must have failed cleanly: an I/O exit code and an
// opscan diagnostic, not a crash.
void ok_or_clean_failure(const RunResult& run) {
  if (run.exit_code == 0)
    return;
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("[opscan-"), std::string::npos) << run.err;
}

// Two `opscan run`s of different sources into one output directory at once:
// the final output is exactly one of the two single runs', never a mix.
void two_runs_one_output(const fs::path& dir) {
  const std::string first = run("k.cpp"), second = run("a.cpp");
  std::vector<std::map<std::string, std::string>> singles;
  for (const std::string& args : {first, second}) {
    const RunResult single = opscan(dir, args);
    ASSERT_EQ(single.exit_code, 0) << single.err;
    singles.push_back(contents(dir / "out"));
  }
  ASSERT_NE(singles[0], singles[1]);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto [a, b] = at_once(dir, first, second);
    ok_or_clean_failure(a);
    ok_or_clean_failure(b);
    EXPECT_TRUE(a.exit_code == 0 || b.exit_code == 0) << a.err << b.err;
    const auto final_output = contents(dir / "out");
    EXPECT_TRUE(final_output == singles[0] || final_output == singles[1])
        << "the output directory mixes the two runs";
  }
}

// Two identical `opscan run`s into one output directory at once (a build
// tool that starts a step twice): both succeed, the output is the single
// run's.
void two_identical_runs(const fs::path& dir) {
  const std::string args = run("a.cpp");
  const RunResult single = opscan(dir, args);
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const auto expected = contents(dir / "out");
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto [a, b] = at_once(dir, args, args);
    EXPECT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(contents(dir / "out"), expected);
  }
}

// Two scans sharing one --cache directory at once, cold and then warm: both
// IRs equal the uncached scan's.
void two_scans_one_cache(const fs::path& dir) {
  const RunResult plain = opscan(dir, "scan k.cpp a.cpp -o ref.json" + kFlags);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string ref = read_file(dir / "ref.json");
  for (const char* state : {"cold", "warm"}) {
    SCOPED_TRACE(state);
    const auto [a, b] = at_once(dir, "scan --cache cache k.cpp a.cpp -o x.json" + kFlags,
                                "scan --cache cache a.cpp k.cpp -o y.json" + kFlags);
    EXPECT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(read_file(dir / "x.json"), ref);
    EXPECT_EQ(read_file(dir / "y.json"), ref);
  }
}

// An operator name longer than YAML's implicit keys (1,024 characters):
// the library's own selected_operators.yaml selects it again.
void long_name_round_trip(const fs::path& dir) {
  const RunResult first = opscan(dir, "run long.cpp --registration named --lib l -o gen" + kFlags);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const RunResult again =
      opscan(dir, "generate gen/l/ir.json --operators-from gen/l/selected_operators.yaml "
                  "--registration named --lib l2 -o gen2");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(
      read_file(dir / "gen2/l2/selected_operators.yaml").find("demo::" + std::string(2000, 'n')),
      std::string::npos);
}

// A one-line allow-list of `entries` entries, the last with a date that is
// none.
std::string one_line_allow_list(size_t entries) {
  std::string text = "{\"allow\": [";
  for (size_t i = 0; i < entries; ++i) {
    text += (i ? ", " : "") + std::string("{\"operator\": \"demo::op") + std::to_string(i) +
            ".out\", \"change\": \"operator-removed\", \"reason\": \"r\", \"expires\": \"" +
            (i + 1 == entries ? "2030-02-30" : "2030-01-01") + "\"}";
  }
  return text + "]}";
}

// An entry of functions.yaml for demo::native::neg_out (kNeg).
std::string neg_entry(const std::string& op, const std::string& arg_meta = "null") {
  return "- op: " + op + "\n  type_alias: {T0: [Float]}\n  dim_order_alias: {D0: [0, 1]}\n" +
         "  kernels:\n    - arg_meta: " + arg_meta + "\n      kernel_name: demo::neg_out\n";
}

// ---- Links planted in the output tree, file modes, interrupted runs (issue
// 23, findings 1, 7 and 18). ----

// Moves `relative` (a directory or file of the tree) into elsewhere/ and
// plants a symbolic link to it in its place: a write through the link would
// change elsewhere/, which the snapshot sees.
Step planted_link(const std::string& relative) {
  return [=](const fs::path& dir) {
    fs::create_directories(dir / "elsewhere");
    const fs::path moved = dir / "elsewhere" / fs::path(relative).filename();
    fs::rename(dir / relative, moved);
    fs::create_symlink(moved, dir / relative);
  };
}

// opscan's arguments run with the umask `mask`, set by the shell that
// starts it.
RunResult with_umask(const fs::path& dir, const std::string& mask, const std::string& args) {
  return opscan::testing::run_command(
      dir, "sh -c \"umask " + mask + " && exec '" OPSCAN_BINARY "' " + args + "\"", kBound);
}

// The mode bits of `path`.
unsigned mode_of(const fs::path& path) {
  return static_cast<unsigned>(fs::symlink_status(path).permissions());
}

// Runs `args` with the umask `mask`; every file and directory under
// `made` (relative to the tree) is then new, with the mode the umask gives.
std::function<void(const fs::path&)> made_with_umask(std::string mask, std::string args,
                                                     std::string made) {
  return [=](const fs::path& dir) {
    ASSERT_FALSE(fs::exists(dir / made));
    const RunResult run = with_umask(dir, mask, args);
    ASSERT_EQ(run.exit_code, 0) << args << "\n" << run.err;
    const unsigned umask = static_cast<unsigned>(std::stoul(mask, nullptr, 8));
    EXPECT_EQ(mode_of(dir / made), 0777u & ~umask) << made;
    size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir / made)) {
      files += entry.is_regular_file();
      EXPECT_EQ(mode_of(entry.path()), (entry.is_directory() ? 0777u : 0666u) & ~umask)
          << entry.path();
    }
    EXPECT_GT(files, 0u);
  };
}

// A generation that replaces out/t/RegisterKernels.cpp, made 0640 first,
// under umask 077: it stays 0640.
void replaced_keeps_its_mode(const fs::path& dir) {
  const fs::path file = dir / "out/t/RegisterKernels.cpp";
  fs::permissions(file, fs::perms(0640));
  const std::string before = read_file(file);
  const RunResult run =
      with_umask(dir, "077", "generate ir.json --registration static --lib t -o out");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(read_file(file), before);
  EXPECT_EQ(mode_of(file), 0640u);
}

// ulimit -f 4 (2 or 4 KiB): a generation whose RegisterKernels.cpp is
// larger fails as an I/O error, everything undone, instead of dying of
// SIGXFSZ between two writes.
void file_size_limit(const fs::path& dir) {
  ASSERT_GT(fs::file_size(dir / "out/t/RegisterKernels.cpp"), 4096u);
  const Snapshot before = snapshot(dir);
  const RunResult run = opscan::testing::run_command(
      dir, "sh -c \"ulimit -f 4 && exec '" OPSCAN_BINARY
           "' generate ir.json --registration static --lib t -o out\"", kBound);
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("File too large (no output was changed) [opscan-io]"), std::string::npos)
      << run.err;
  EXPECT_EQ(snapshot(dir), before);
}

// The temporaries and backups of a run killed mid-generation (SIGKILL) are
// removed by the next one; those of a live process and other names stay.
void leftovers_of_a_killed_run(const fs::path& dir) {
  const pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const std::string dead = std::to_string(child), live = std::to_string(::getpid());
  for (const std::string& name : {".RegisterKernels.cpp.opscan-" + dead + "-1.tmp",
                                  ".Functions.h.opscan-" + dead + "-3.old",
                                  ".RegisterKernels.cpp.opscan-" + live + "-1.tmp", std::string("notes.old")})
    write_file(dir / "out/t" / name, "left\n");
  const RunResult run = opscan(dir, "generate ir.json --registration static --lib t -o out");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(fs::exists(dir / "out/t" / (".RegisterKernels.cpp.opscan-" + dead + "-1.tmp")));
  EXPECT_FALSE(fs::exists(dir / "out/t" / (".Functions.h.opscan-" + dead + "-3.old")));
  EXPECT_TRUE(fs::exists(dir / "out/t" / (".RegisterKernels.cpp.opscan-" + live + "-1.tmp")));
  EXPECT_TRUE(fs::exists(dir / "out/t/notes.old"));
}

// ---- Compiler arguments. ----

// A clang configuration file asking for a dependency file and a module cache.
const std::string kPlantedConfig = "-MD -MF planted.d\n-fmodules -fmodules-cache-path=modules\n";

// build/compile_commands.json with one entry: `source` in the tree, compiled
// with the examples' include paths and `args` (JSON strings, comma-separated).
Step database_of(const std::string& source, const std::string& args) {
  return [=](const fs::path& dir) {
    fs::create_directories(dir / "build");
    write_file(dir / "build/compile_commands.json",
               "[{\"directory\": \"" + dir.string() + "\", \"file\": \"" + source +
                   "\", \"arguments\": [\"c++\", \"-std=c++17\", \"-I" + (kRepo / "include").string() + "\", \"-I" +
                   (kRepo / "examples/include").string() + "\", " + args + ", \"-c\", \"" + source +
                   "\"]}]\n");
  };
}

// An amdgpu-arch program at `relative` that leaves a file in the tree (the
// scan's working directory) when run.
Step amdgpu_arch(const std::string& relative) {
  return [=](const fs::path& dir) {
    put(relative, "#!/bin/sh\ntouch ran-amdgpu-arch\necho gfx906\n")(dir);
    fs::permissions(dir / relative, fs::perms::owner_exec, fs::perm_options::add);
  };
}

// A declaration libclang's parser recurses on once per operator, with no
// limit to raise: deeper than its stack.
std::string deep_unary() {
  std::string text = "int unary = ";
  for (int i = 0; i < 200000; ++i)
    text += "- ";
  return text + "1;\n";
}

// A database entry's -working-directory would move the process: the run's
// relative -o would land there.
void database_working_directory(const fs::path& dir) {
  const RunResult result = opscan(dir, "run -p build a.cpp --registration named --lib u -o out");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "out/u/RegisterKernels.cpp"));
  EXPECT_FALSE(fs::exists(dir / "elsewhere/out"));
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere/inner"));
}

Case custom(std::string name, std::vector<Step> setup, std::function<void(const fs::path&)> check) {
  return Case{std::move(name), std::move(setup), "",    0, "",
              Expect::custom,  std::move(check), kBound};
}

// `script` (sh syntax; "OPSCAN" stands for the binary) run in `dir`, which
// must not change: exit code 3 and `message` on stderr.
std::function<void(const fs::path&)> fails_with_io(std::string script, std::string message) {
  return [=](const fs::path& dir) {
    std::string line = script;
    line.replace(line.find("OPSCAN"), 6, "'" OPSCAN_BINARY "'");
    write_file(dir / "fault.sh", line + "\n");
    const Snapshot before = snapshot(dir);
    const RunResult run = opscan::testing::run_command(dir, "sh fault.sh", kBound);
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_NE(run.err.find("opscan: error: " + message + " [opscan-io]"), std::string::npos)
        << run.err;
    EXPECT_TRUE(snapshot(dir) == before) << "a file in the tree changed or appeared";
  };
}

// A multi-file scan with TMPDIR `tmpdir`: its IR is that of a scan without
// automatic precompiled headers, and nothing is said.
std::function<void(const fs::path&)> scans_with_tmpdir(std::string tmpdir) {
  return [=](const fs::path& dir) {
    const RunResult plain = opscan(dir, "scan k.cpp a.cpp --no-auto-pch -o ref.json" + kFlags);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const RunResult scan = opscan::testing::run_command(
        dir,
        "env TMPDIR='" + tmpdir + "' '" OPSCAN_BINARY "' scan k.cpp a.cpp -o ir2.json" + kFlags,
        kBound);
    EXPECT_EQ(scan.exit_code, 0) << scan.err;
    EXPECT_EQ(scan.err, "");
    EXPECT_EQ(read_file(dir / "ir2.json"), read_file(dir / "ref.json"));
  };
}

std::vector<Case> cases() {
  const std::string hostile = (kRepo / "test/data/ir/hostile").string() + "/";
  const std::string y = (kRepo / "test/data/schemas_yaml").string() + "/";
  std::vector<Case> rows = {
      // ---- sources ----
      refused("sources_syntax_error", {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                                             "Tensor& neg_out(const Tensor& self "))},
              run("bad.cpp"), 1, "opscan-clang-error"),
      refused("sources_missing_include",
              {put("bad.cpp", "#include <no/such/header.h>\n" + kernel("OPSCAN_KERNEL(\"demo::neg.out\")"))},
              run("bad.cpp"), 1, "opscan-clang-error"),
      refused("sources_unknown_type",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& neg_out(const Frobnicator& self, Tensor& out);\n"))},
              run("bad.cpp"), 1, "opscan-scan-invalid-type"),
      refused("sources_unsupported_int",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& neg_out(const Tensor& self, int dim, Tensor& out);\n"))},
              run("bad.cpp"), 1, "opscan-scan-unsupported-type"),
      refused("sources_unsupported_pointer",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& neg_out(const Tensor* self, Tensor& out);\n"))},
              run("bad.cpp"), 1, "opscan-scan-unsupported-type"),
      refused("sources_unsupported_rvalue_reference",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& neg_out(Tensor&& self, Tensor& out);\n"))},
              run("bad.cpp"), 1, "opscan-scan-unsupported-type"),
      refused("sources_unsupported_user_class",
              {put("bad.cpp", kHead + "struct Opaque {};\nOPSCAN_KERNEL(\"demo::neg.out\")\n"
                                     "Tensor& neg_out(const Opaque& self, Tensor& out);\n")},
              run("bad.cpp"), 1, "opscan-scan-unsupported-type"),
      refused("sources_function_template",
              {put("bad.cpp", kernel("template <typename T> OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& neg_out(const Tensor& self, Tensor& out);\n"))},
              run("bad.cpp"), 1, "opscan-scan-template"),
      refused("sources_inline_kernel",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\") inline"))}, run("bad.cpp"),
              1, "opscan-scan-inline"),
      refused("sources_internal_linkage",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\") static"))}, run("bad.cpp"),
              1, "opscan-scan-internal-linkage"),
      refused("sources_huge_line",
              {put("bad.cpp", kHead + "OPSCAN_KERNEL(\"demo::neg.out\")\nTensor& neg_out(const " +
                                  std::string(2'000'000, 'T') + "& self, Tensor& out);\n")},
              run("bad.cpp"), 1, "opscan-scan-invalid-type"),
      refused("sources_binary_garbage", {put("bad.cpp", std::string("\x7f" "ELF\0\0\x01\xff\xfe", 10))},
              run("bad.cpp"), 1, "opscan-clang-error"),
      refused("sources_no_kernels", {put("bad.cpp", kHead)}, run("bad.cpp"), 1, "opscan-no-kernels"),

      // ---- annotations ----
      refused("annotations_unquoted_name",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(demo::neg.out)"))}, run("bad.cpp"), 1,
              "opscan-annotation-syntax"),
      refused("annotations_empty", {put("bad.cpp", kernel("OPSCAN_KERNEL(\"\")"))}, run("bad.cpp"),
              1, "opscan-schema-syntax"),
      refused("annotations_unknown_field",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\", colour = \"red\")"))},
              run("bad.cpp"), 1, "opscan-annotation-syntax"),
      refused("annotations_field_twice",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\", key = \"v1/6;0,1|6;0,1\", "
                                     "key = \"v1/6;0,1|6;0,1\")"))},
              run("bad.cpp"), 1, "opscan-annotation-syntax"),
      refused("annotations_field_not_a_string",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\", key = 3)"))}, run("bad.cpp"),
              1, "opscan-annotation-syntax"),
      refused("annotations_bad_kernel_key",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\", key = \"v9/garbage\")"))},
              run("bad.cpp"), 1, "opscan-kernel-key"),
      refused("annotations_kernel_key_wrong_arity",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\", key = \"v1/6;0,1\")"))},
              run("bad.cpp"), 1, "opscan-kernel-key"),
      refused("annotations_bad_dispatch_key",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\", dispatch = \"NoSuchKey\")"))},
              "scan bad.cpp -o ir.json" + kFlags, 1, "opscan-dispatch-key"),
      refused("annotations_dispatch_key_for_executorch",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\", dispatch = \"CPU\")"))},
              run("bad.cpp"), 1, "opscan-unsupported-field"),
      refused("annotations_kernel_key_for_torch",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\", key = \"v1/6;0,1|6;0,1\")"))},
              run("bad.cpp", " --target torch"), 1, "opscan-unsupported-field"),
      refused("annotations_duplicate_operator",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")") +
                                  "OPSCAN_KERNEL(\"demo::neg.out\")\nTensor& neg2_out("
                                  "KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n")},
              run("bad.cpp"), 1, "opscan-duplicate-kernel"),
      refused("annotations_duplicate_across_files",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& other_neg_out(KernelRuntimeContext& ctx, const "
                                     "Tensor& self, Tensor& out);\n"))},
              run("k.cpp bad.cpp"), 1, "opscan-duplicate-kernel"),
      refused("annotations_misplaced_on_variable",
              {put("bad.cpp", kHead + "OPSCAN_KERNEL(\"demo::neg.out\") int not_a_kernel;\n")},
              run("bad.cpp"), 1, "opscan-annotation-misplaced"),
      refused("annotations_misplaced_on_method",
              {put("bad.cpp", kHead + "struct S { OPSCAN_KERNEL(\"demo::neg.out\") " + kNeg + "};\n")},
              run("bad.cpp"), 1, "opscan-scan-method"),

      // ---- schemas ----
      refused("schemas_bad_grammar",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out(Tensor self, *, Tensor(a!) out "
                                     "-> Tensor(a!)\")"))},
              run("bad.cpp"), 1, "opscan-schema-syntax"),
      refused("schemas_unknown_type",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out(Gizmo self, *, Tensor(a!) "
                                     "out) -> Tensor(a!)\")"))},
              run("bad.cpp"), 1, "opscan-schema-unknown-type"),
      refused("schemas_duplicate_argument",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out(Tensor self, *, Tensor(a!) "
                                     "self) -> Tensor(a!)\")"))},
              run("bad.cpp"), 1, "opscan-schema-duplicate-argument"),
      refused("schemas_too_many_arguments",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out(Tensor self, int dim, *, "
                                     "Tensor(a!) out) -> Tensor(a!)\")"))},
              run("bad.cpp"), 1, "opscan-mismatch-count"),
      refused("schemas_wrong_type",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out(int self, *, Tensor(a!) out) "
                                     "-> Tensor(a!)\")"))},
              run("bad.cpp"), 1, "opscan-mismatch-type"),
      refused("schemas_wrong_mutability",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out(Tensor self, *, Tensor out) "
                                     "-> Tensor(a!)\")"))},
              run("bad.cpp"), 1, "opscan-mismatch-mutability"),
      refused("schemas_wrong_returns",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out(Tensor self, *, Tensor(a!) "
                                     "out) -> ()\")"))},
              run("bad.cpp"), 1, "opscan-mismatch-returns"),
      refused("schemas_file_known_mismatch",
              {put_from("known.txt", kRepo / "test/cli/inputs/known_schemas.txt")},
              run("k.cpp", " --schemas known.txt"), 1, "opscan-mismatch-count"),
      refused("schemas_file_missing", {}, run("k.cpp", " --schemas nowhere.txt"), 3, "opscan-io"),
      refused("schemas_file_is_a_directory", {directory("schemas.txt")},
              run("k.cpp", " --schemas schemas.txt"), 3, "opscan-io"),
      refused("schemas_yaml_malformed", {put_from("malformed.yaml", y + "malformed.yaml")},
              run("k.cpp", " --schemas malformed.yaml"), 1, "opscan-yaml-syntax"),
      refused("schemas_yaml_not_operators", {put("ops.yaml", "colours:\n  - red\n  - green\n")},
              run("k.cpp", " --schemas ops.yaml"), 1, "opscan-yaml-format"),
      refused("schemas_yaml_by_content", {put("ops.txt", "# a list\n- func: [1, 2]\n")},
              run("k.cpp", " --schemas ops.txt"), 1, "opscan-yaml-format"),
      // yaml-cpp reads an unterminated flow sequence to the end of the file:
      // the entry is then refused as not a schema, still located.
      refused("schemas_yaml_unterminated_flow", {put("ops.yaml", "- func: [\n")},
              run("k.cpp", " --schemas ops.yaml"), 1, "opscan-yaml-format"),
      refused("schemas_import_yaml_malformed", {put("ops.yaml", "- func: a\n   b: c\n")},
              "import-yaml ops.yaml k.cpp" + kFlags, 1, "opscan-yaml-syntax"),
      refused("schemas_yaml_func_not_a_string", {put("ops.yaml", "- func:\n    nested: map\n")},
              run("k.cpp", " --schemas ops.yaml"), 1, "opscan-yaml-format"),

      // ---- names ----
      refused("names_operator_without_namespace",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"neg.out\")"))}, run("bad.cpp"), 1,
              "opscan-schema-syntax"),
      refused("names_operator_bad_character",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::ne-g.out\")"))}, run("bad.cpp"), 1,
              "opscan-schema-syntax"),
      refused("names_operator_out_suffix",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg_out\")"))}, run("bad.cpp"), 1,
              "opscan-schema-out-suffix"),
      refused("names_operator_reserved_overload",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.default\")"))}, run("bad.cpp"), 1,
              "opscan-schema-reserved-overload"),
      refused("names_cpp_reserved_identifier",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& _Neg_out(KernelRuntimeContext& ctx, const Tensor& "
                                     "self, Tensor& out);\n"))},
              run("bad.cpp"), 1, "opscan-ir-cpp-name"),
      refused("names_cpp_double_underscore",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& neg__out(KernelRuntimeContext& ctx, const Tensor& "
                                     "self, Tensor& out);\n"))},
              run("bad.cpp"), 1, "opscan-ir-cpp-name"),
      refused("names_lib_hyphen", {}, "run k.cpp --registration named --lib foo-bar -o out" + kFlags,
              1, "opscan-libname-invalid"),
      refused("names_lib_keyword", {}, "run k.cpp --registration named --lib class -o out" + kFlags,
              1, "opscan-ident-keyword"),
      refused("names_lib_all", {}, "run k.cpp --registration named --lib all -o out" + kFlags, 1,
              "opscan-libname-all"),
      refused("names_lib_empty", {}, "run k.cpp --registration named --lib '' -o out" + kFlags, 1,
              "opscan-libname-empty"),
      refused("names_lib_reserved_symbol", {},
              "run k.cpp --registration named --lib _x -o out" + kFlags, 1, "opscan-libname-symbol"),
      refused("names_lib_not_nfc", {},
              "run k.cpp --registration named --lib 'e\xcc\x81' -o out" + kFlags, 1,
              "opscan-ident-not-nfc"),
      refused("names_lib_invalid_utf8", {},
              "run k.cpp --registration named --lib 'a\xff' -o out" + kFlags, 1,
              "opscan-ident-invalid-utf8"),
      refused("names_lib_starts_with_digit", {},
              "generate ir.json --registration named --lib 9t -o out", 1,
              "opscan-ident-invalid-start"),

      // ---- IR files ----
      refused("ir_not_json", {put("bad.json", "this is not JSON\n")}, generate("bad.json"), 1,
              "opscan-ir-invalid"),
      refused("ir_empty", {put("bad.json", "")}, generate("bad.json"), 1, "opscan-ir-invalid"),
      refused("ir_truncated", {put_from("bad.json", kBase / "ir.json"), truncate("bad.json", 200)},
              generate("bad.json"), 1, "opscan-ir-invalid"),
      refused("ir_truncated_check",
              {put_from("bad.json", kBase / "ir.json"), truncate("bad.json", 400)},
              "check bad.json --registration named --lib t", 1, "opscan-ir-invalid"),
      refused("ir_top_level_array", {put("bad.json", "[]\n")}, generate("bad.json"), 1,
              "opscan-ir-invalid"),
      refused("ir_wrong_format",
              {put_from("bad.json", kBase / "ir.json"),
               edit("bad.json", "\"opscan-ir\"", "\"other-ir\"")},
              generate("bad.json"), 1, "opscan-ir-invalid"),
      refused("ir_version_1",
              {put_from("bad.json", kBase / "ir.json"), edit("bad.json", "\"version\": 2", "\"version\": 1")},
              generate("bad.json"), 1, "opscan-ir-invalid"),
      refused("ir_version_huge",
              {put_from("bad.json", kBase / "ir.json"),
               edit("bad.json", "\"version\": 2", "\"version\": 1e999")},
              generate("bad.json"), 1, "opscan-ir-invalid"),
      refused("ir_nul_byte",
              {put_from("bad.json", kBase / "ir.json"),
               edit("bad.json", "demo", std::string("de\0mo", 5))},
              generate("bad.json"), 1, "opscan-ir-invalid"),
      refused("ir_hostile_same_kernel_twice", {put_from("bad.json", hostile + "same_kernel_twice.json")},
              "generate bad.json -o out", 1, "opscan-duplicate-kernel"),
      refused("ir_library_and_fragment", {}, "generate ir.json out/t/ir.json -o out", 2,
              "opscan-usage"),
      refused("ir_hostile_deep_nesting", {put_from("bad.json", hostile + "deep_nesting.json")},
              "generate bad.json -o out", 1, "opscan-ir-invalid"),
      refused("ir_hostile_not_utf8", {put_from("bad.json", hostile + "not_utf8.json")},
              "check bad.json", 1, "opscan-ir-invalid"),
      refused("ir_hostile_cpp_function_injection",
              {put_from("bad.json", hostile + "cpp_function_injection.json")},
              "generate bad.json -o out", 1, "opscan-ir-cpp-name"),
      refused("ir_hostile_default_breaks_out",
              {put_from("bad.json", hostile + "default_breaks_out.json")},
              generate("bad.json"), 1, "opscan-ir-schema"),

      // ---- cache entries: misses, never errors ----
      cache_miss("cache_entry_garbage",
                 {each_entry([](const fs::path& e) { write_file(e, "garbage\n"); })}),
      cache_miss("cache_entry_truncated", {each_entry([](const fs::path& e) {
                   write_file(e, read_file(e).substr(0, read_file(e).size() / 2));
                 })}),
      cache_miss("cache_entry_empty", {each_entry([](const fs::path& e) { write_file(e, ""); })}),
      cache_miss("cache_entry_fifo", {each_entry([](const fs::path& e) {
                   fs::remove(e);
                   ASSERT_EQ(::mkfifo(e.c_str(), 0644), 0);
                 })}),
      cache_miss("cache_entry_directory", {each_entry([](const fs::path& e) {
                   fs::remove(e);
                   fs::create_directories(e / "inner");
                 })}),
      cache_miss("cache_entry_dev_zero", {each_entry([](const fs::path& e) {
                   fs::remove(e);
                   fs::create_symlink("/dev/zero", e);
                 })}),
      cache_miss("cache_entry_symlink_to_another", {[](const fs::path& dir) {
                   const std::vector<fs::path> all = entries(dir);
                   ASSERT_EQ(all.size(), 2u);
                   fs::remove(all[0]);
                   fs::create_symlink(all[1].filename(), all[0]);
                 }}),
      cache_miss("cache_entry_copied_from_another", {[](const fs::path& dir) {
                   const std::vector<fs::path> all = entries(dir);
                   ASSERT_EQ(all.size(), 2u);
                   write_file(all[0], read_file(all[1]));
                 }}),

      // ---- command-line options ----
      refused("options_unknown_target", {}, run("k.cpp", " --target tensorflow"), 2, "opscan-usage"),
      refused("options_unknown_registration", {},
              "run k.cpp --registration eager --lib t -o out" + kFlags, 2, "opscan-usage"),
      refused("options_missing_o", {}, "run k.cpp --registration named --lib t" + kFlags, 2,
              "opscan-usage"),
      refused("options_missing_registration", {}, "run k.cpp --lib t -o out" + kFlags, 2,
              "opscan-usage"),
      refused("options_unknown_option", {}, run("k.cpp", " --frobnicate"), 2, "opscan-usage"),
      refused("options_unknown_command", {}, "frobnicate k.cpp -o out", 2, "opscan-usage"),
      refused("options_operators_unknown", {}, run("k.cpp", " --operators demo::nope.out"), 1,
              "opscan-unknown-operator"),
      refused("options_operators_malformed", {}, run("k.cpp", " --operators 'not an operator'"), 1,
              "opscan-schema-syntax"),
      refused("options_operators_without_lib", {}, "generate out/t/ir.json --operators demo::neg.out -o out",
              2, "opscan-usage"),
      refused("options_o_twice", {}, "scan k.cpp -o ir.json -o ir2.json" + kFlags, 2,
              "opscan-usage"),
      refused("options_jobs_not_a_number", {}, "scan -j abc k.cpp -o ir2.json" + kFlags, 2, "opscan-usage"),
      refused("options_nonexistent_source", {}, run("nowhere.cpp"), 3, "opscan-io"),
      refused("options_nonexistent_ir", {}, generate("nowhere.json"), 3, "opscan-io"),
      refused("options_build_dir_without_database", {directory("build")},
              "scan -p build k.cpp -o ir2.json", 3, "opscan-no-compile-commands"),
      refused("options_build_dir_missing", {}, "scan -p nowhere k.cpp -o ir2.json", 3,
              "opscan-no-compile-commands"),
      refused("options_source_not_in_database",
              {put("build/compile_commands.json",
                   "[{\"directory\": \"/\", \"file\": \"/elsewhere.cpp\", \"arguments\": "
                   "[\"c++\", \"-c\", \"/elsewhere.cpp\"]}]\n")},
              "scan -p build k.cpp -o ir2.json", 1, "opscan-no-compile-command"),
      refused("options_database_not_json", {put("build/compile_commands.json", "{[\n")},
              "scan -p build k.cpp -o ir2.json", 1, "opscan-compile-commands-invalid"),
      refused("options_bad_dispatch_key", {},
              "generate ir.json --target torch --registration named --lib t --dispatch-key Nope -o out",
              1, "opscan-dispatch-key"),

      // ---- file-system faults ----
      refused("fs_output_directory_is_a_file", {put("file", "x")}, "generate ir.json --registration named --lib t -o file",
              3, "opscan-io"),
      refused("fs_output_parent_is_a_file", {put("file", "x")}, "scan k.cpp -o file/ir.json" + kFlags,
              3, "opscan-io"),
      refused("fs_directory_where_an_output_goes", {directory("out/t/RegisterKernels.cpp")},
              "generate ir.json --registration static --lib t -o out", 3, "opscan-io"),
      refused("fs_read_only_output", {read_only("out/t/Functions.h")},
              "generate ir.json --registration static --lib t -o out", 3, "opscan-io"),
      refused("fs_output_is_input", {}, "scan k.cpp -o k.cpp" + kFlags, 2, "opscan-output-is-input"),
      refused("fs_depfile_is_input", {}, "scan k.cpp -o ir2.json --depfile k.cpp" + kFlags, 2,
              "opscan-output-is-input"),
      refused("fs_stamp_is_flags_file", {put("flags.txt", "-DX=1\n")},
              "scan k.cpp -o ir2.json --stamp flags.txt --flags-file flags.txt" + kFlags, 2,
              "opscan-output-is-input"),
      refused("fs_stamp_is_ir_input", {}, "generate ir.json --registration named --lib t --stamp ir.json -o out",
              2, "opscan-output-is-input"),
      refused("fs_output_hard_link_to_input", {hardlink("k.cpp", "alias.json")},
              "scan k.cpp -o alias.json" + kFlags, 2, "opscan-output-is-input"),
      refused("fs_output_symlink_to_input", {symlink("k.cpp", "link.json")},
              "scan k.cpp -o link.json" + kFlags, 2, "opscan-output-is-input"),
      refused("fs_generation_over_its_own_ir", {}, "generate out/t/ir.json -o out", 2,
              "opscan-output-is-input"),
      refused("fs_depfile_is_output", {}, "scan k.cpp -o ir2.json --depfile ir2.json" + kFlags, 2,
              "opscan-output-twice"),
      refused("fs_stamp_is_output", {}, "scan k.cpp -o ir2.json --stamp ir2.json" + kFlags, 2,
              "opscan-output-twice"),
      refused("fs_stamp_parent_is_a_file", {put("file", "x")},
              "generate ir.json --registration named --lib t --stamp file/stamp -o out", 3,
              "opscan-io"),

      // ---- special files ----
      refused("special_fifo_source", {fifo("fifo.cpp")}, run("fifo.cpp"), 3, "opscan-io"),
      refused("special_dev_zero_source", {symlink("/dev/zero", "zero.cpp")}, run("zero.cpp"), 3,
              "opscan-io"),
      refused("special_directory_source", {directory("dir.cpp")}, run("dir.cpp"), 3, "opscan-io"),
      refused("special_fifo_ir", {fifo("fifo.json")}, generate("fifo.json"), 3, "opscan-io"),
      refused("special_dev_zero_ir", {symlink("/dev/zero", "zero.json")}, "check zero.json", 3,
              "opscan-io"),
      refused("special_fifo_schemas", {fifo("fifo.txt")}, run("k.cpp", " --schemas fifo.txt"), 3,
              "opscan-io"),
      refused("special_dev_zero_schemas", {symlink("/dev/zero", "zero.yaml")},
              run("k.cpp", " --schemas zero.yaml"), 3, "opscan-io"),
      refused("special_fifo_flags_file", {fifo("flags.txt")}, run("k.cpp", " --flags-file flags.txt"),
              3, "opscan-io"),
      refused("special_dev_zero_flags_file", {symlink("/dev/zero", "flags.txt")},
              "scan k.cpp --flags-file flags.txt -o ir2.json" + kFlags, 3, "opscan-io"),
      refused("special_fifo_database", {directory("build"), [](const fs::path& dir) {
                 ASSERT_EQ(::mkfifo((dir / "build/compile_commands.json").c_str(), 0644), 0);
               }},
              "scan -p build k.cpp -o ir2.json", 3, "opscan-no-compile-commands"),
      refused("special_fifo_as_o", {fifo("fifo.json")}, "scan k.cpp -o fifo.json" + kFlags, 3,
              "opscan-io"),
      refused("special_fifo_as_depfile", {fifo("fifo.d")},
              "scan k.cpp -o ir2.json --depfile fifo.d" + kFlags, 3, "opscan-io"),
      refused("special_fifo_as_stamp", {fifo("fifo.stamp")},
              "generate ir.json --registration named --lib t --stamp fifo.stamp -o out", 3,
              "opscan-io"),
      refused("special_symlink_to_dev_null_as_o", {symlink("/dev/null", "null.json")},
              "scan k.cpp -o null.json" + kFlags, 3, "opscan-io"),
      refused("special_fifo_as_generated_file", {[](const fs::path& dir) { fs::remove(dir / "out/t/Functions.h"); }, fifo("out/t/Functions.h")},
              "generate ir.json --registration static --lib t -o out", 3, "opscan-io"),
      refused("special_fifo_import_yaml", {fifo("fifo.yaml")}, "import-yaml fifo.yaml k.cpp" + kFlags,
              3, "opscan-io"),
      refused("special_dev_zero_import_yaml", {}, "import-yaml /dev/zero k.cpp --dry-run" + kFlags, 3,
              "opscan-io"),
      refused("options_nonexistent_pch_header", {}, "pch nowhere.h -o x.pch", 3, "opscan-io"),
      refused("special_fifo_pch_header", {fifo("fifo.h")}, "pch fifo.h -o x.pch", 3, "opscan-io"),

      // ---- concurrency ----
      custom("concurrency_two_runs_one_output", {put("a.cpp", kAbs)}, two_runs_one_output),
      custom("concurrency_two_identical_runs", {put("a.cpp", kAbs)}, two_identical_runs),
      custom("concurrency_two_scans_one_cache", {put("a.cpp", kAbs)}, two_scans_one_cache),

      // ---- checks: annotations in bodies, long lists, YAML round trips, imports, IR readers ----
      refused("checks_annotation_in_function_body",
              {put("bad.cpp", kHead + "void host() {\n  OPSCAN_KERNEL(\"demo::neg.out\") " + kNeg +
                                  "}\n")},
              run("bad.cpp"), 1, "opscan-annotation-misplaced"),
      refused("checks_annotation_in_member_function_body",
              {put("bad.cpp", kHead + "struct S {\n  void m() { OPSCAN_KERNEL(\"demo::neg.out\") " +
                                  kNeg + "}\n};\n" + kernel("OPSCAN_KERNEL(\"demo::abs\")",
                                                            "Tensor abs(const Tensor& self);\n"))},
              run("bad.cpp"), 1, "opscan-annotation-misplaced"),
      refused("checks_annotation_in_lambda_in_variable",
              {put("bad.cpp", kHead + "auto v = [] {\n  OPSCAN_KERNEL(\"demo::neg.out\") " + kNeg +
                                  "  return 0;\n};\n")},
              run("bad.cpp"), 1, "opscan-annotation-misplaced"),
      refused("checks_annotation_in_template_body",
              {put("bad.cpp", kHead + "template <class T> void host() {\n  OPSCAN_KERNEL(\"demo::"
                                      "neg.out\") " +
                                  kNeg + "}\n")},
              run("bad.cpp"), 1, "opscan-annotation-misplaced"),
      refused("checks_annotation_on_namespace",
              {put("bad.cpp", kHead + "namespace n OPSCAN_KERNEL(\"demo::neg.out\") {}\n")},
              run("bad.cpp"), 1, "opscan-annotation-misplaced"),
      refused("checks_annotation_in_header_body",
              {put("body.h", "#pragma once\n" + kHead + "inline void host() { OPSCAN_KERNEL(\"demo::"
                                                        "neg.out\") " +
                                 kNeg + "}\n"),
               put("bad.cpp", "#include \"body.h\"\n" + kAbs)},
              run("bad.cpp"), 1, "opscan-annotation-misplaced"),
      // Read in linear time (20,000 entries on one line took over 2 minutes).
      refused("checks_allow_list_of_20000_entries_on_one_line",
              {put("allow.json", one_line_allow_list(20'000))},
              "diff out/t/ir.json out/t/ir.json --allow allow.json", 1, "opscan-allow-date"),
      custom("checks_selected_operators_long_operator_name",
             {put("long.cpp", kernel("OPSCAN_KERNEL(\"demo::" + std::string(2000, 'n') + ".out\")"))},
             long_name_round_trip),
      refused("checks_import_reserved_operator_name",
              {put("imp.cpp", kHead + "namespace demo::native {\n" + kNeg + "}\n"),
               put("functions.yaml", neg_entry("__neg__.out"))},
              "import-yaml functions.yaml imp.cpp" + kFlags, 0, "opscan-import-refused"),
      refused("checks_import_kernel_key_of_100000_entries",
              {put("imp.cpp", kHead + "namespace demo::native {\n" + kNeg + "}\n"),
               put("functions.yaml", neg_entry("neg.out", [] {
                     std::string meta = "{";
                     for (int i = 0; i < 100'000; ++i)
                       meta += (i ? ", a" : "a") + std::to_string(i) + ": [T0, D0]";
                     return meta + "}";
                   }()))},
              "import-yaml functions.yaml imp.cpp" + kFlags, 0, "opscan-import-refused"),
      refused("checks_import_20000_unmatched_entries",
              {put("imp.cpp", kHead + "namespace demo::native {\n" + kNeg + "}\n"),
               put("functions.yaml",
                   [] {
                     std::string yaml;
                     for (int i = 0; i < 20'000; ++i)
                       yaml += "- op: op" + std::to_string(i) + ".out\n  kernels:\n    - "
                               "kernel_name: demo::missing" +
                               std::to_string(i) + "\n";
                     return yaml;
                   }())},
              "import-yaml functions.yaml imp.cpp" + kFlags, 0, "opscan-import-more"),
      refused("checks_ir_report_context_none_in_executorch_library",
              {put_from("bad.json", hostile + "context_none_in_executorch_library.json")},
              "report bad.json", 1, "opscan-executorch-unsupported"),
      refused("checks_ir_diff_dispatch_key_of_one_megabyte",
              {put_from("bad.json", hostile + "dispatch_key_one_megabyte.json")},
              "diff out/t/ir.json bad.json", 1, "opscan-dispatch-key"),
      refused("checks_ir_report_sources_twice",
              {put_from("bad.json", hostile + "sources_twice_other_hash.json")}, "report bad.json",
              1, "opscan-ir-invalid"),
      refused("checks_ir_list_outputs_hostile_kernel_key",
              {put_from("bad.json", hostile + "kernel_key_version.json")},
              "generate bad.json --list-outputs", 1, "opscan-kernel-key"),

      // ---- output tree: planted links, file modes ----
      refused("links_library_directory_elsewhere", {planted_link("out/t")},
              "generate ir.json --registration static --lib t -o out", 3, "opscan-io"),
      refused("links_run_into_library_link", {planted_link("out/t")}, run("k.cpp"), 3,
              "opscan-io"),
      refused("links_subdirectory_elsewhere", {planted_link("out/t/kernel_count")},
              "generate ir.json --registration static --lib t -o out", 3, "opscan-io"),
      refused("links_new_library_elsewhere", {directory("elsewhere"), symlink("../elsewhere", "out/u")},
              "generate ir.json --registration named --lib u -o out", 3, "opscan-io"),
      refused("links_generated_file_elsewhere", {planted_link("out/t/RegisterKernels.cpp")},
              "generate ir.json --registration static --lib t -o out", 3, "opscan-io"),
      custom("modes_umask_077_new_library", {},
             made_with_umask("077", "generate ir.json --registration named --lib u -o out", "out/u")),
      custom("modes_umask_022_new_library", {},
             made_with_umask("022", "generate ir.json --registration named --lib u -o out", "out/u")),
      custom("modes_umask_077_cache_entries", {},
             made_with_umask("077", "scan --cache cache k.cpp -o ir2.json" + kFlags, "cache")),
      custom("modes_replaced_file_keeps_its_mode", {}, replaced_keeps_its_mode),
      custom("signals_file_size_limit", {}, file_size_limit),
      custom("signals_leftovers_of_a_killed_run", {}, leftovers_of_a_killed_run),

      // ---- stdout, the fixes file, empty paths, the environment ----
      refused("paths_empty_o", {}, "scan k.cpp -o ''" + kFlags, 2, "opscan-usage"),
      refused("paths_empty_o_of_run", {}, "run k.cpp --registration named --lib t -o ''" + kFlags,
              2, "opscan-usage"),
      refused("paths_empty_depfile", {}, "scan k.cpp -o ir2.json --depfile ''" + kFlags, 2,
              "opscan-usage"),
      refused("paths_empty_ir", {}, "generate '' --registration named --lib t -o out", 2,
              "opscan-usage"),
      refused("fixes_fifo", {fifo("fixes.yaml")},
              "scan k.cpp -o ir2.json --export-fixes fixes.yaml" + kFlags, 3, "opscan-io"),
      refused("fixes_directory", {directory("fixes.yaml")},
              "generate ir.json --registration static --lib t -o out --export-fixes fixes.yaml", 3,
              "opscan-io"),
      refused("fixes_read_only", {put("fixes.yaml", "the user's\n"), read_only("fixes.yaml")},
              "run k.cpp --registration static --lib t -o out --export-fixes fixes.yaml" + kFlags,
              3, "opscan-io"),
      refused("ir_number_too_large", {edit("ir.json", "\"version\": 2", "\"version\": 1e309")},
              generate("ir.json"), 1, "opscan-ir-invalid"),
      refused("ir_number_too_large_negative",
              {edit("ir.json", "\"version\": 2", "\"version\": -1e309")}, "check ir.json", 1,
              "opscan-ir-invalid"),
      custom("stdout_full_report", {},
             fails_with_io("exec OPSCAN report ir.json >/dev/full",
                           "cannot write to stdout: No space left on device")),
      custom("stdout_full_sarif", {},
             fails_with_io("exec OPSCAN check out/t/ir.json --format sarif >/dev/full",
                           "cannot write to stdout: No space left on device")),
      custom("stdout_closed_list_outputs", {},
             fails_with_io("exec OPSCAN generate --list-outputs --registration named --lib t >&-",
                           "cannot write to stdout: Bad file descriptor")),
      custom("stdout_closed_diff_json", {},
             fails_with_io("exec OPSCAN diff ir.json out/t/ir.json --format json >&-",
                           "cannot write to stdout: Bad file descriptor")),
      custom("cwd_removed", {},
             fails_with_io("mkdir gone && cd gone && rmdir ../gone && exec OPSCAN generate "
                           "\"$OLDPWD/ir.json\" --registration static --lib t -o \"$OLDPWD/out\"",
                           "the current directory no longer exists")),
      custom("tmpdir_missing", {put("a.cpp", kAbs)}, scans_with_tmpdir("missing")),
      custom("tmpdir_a_file", {put("a.cpp", kAbs), put("file", "x")}, scans_with_tmpdir("file")),
      custom("tmpdir_not_writable", {put("a.cpp", kAbs)}, scans_with_tmpdir("/proc")),

      // ---- what the runtimes cannot read; names that are macros; spaced names ----
      // (issue 23: findings 5, 13, 19 and the library name of 16)
      refused("runtime_int_default_beyond_int64",
              {put("bad.cpp", with_argument("int by=18446744073709551616", "int64_t by"))},
              run("bad.cpp"), 1, "opscan-schema-default-type"),
      refused("runtime_int_default_below_int64",
              {put("bad.cpp", with_argument("int by=-9223372036854775809", "int64_t by"))},
              run("bad.cpp"), 1, "opscan-schema-default-type"),
      refused("runtime_int_default_beyond_int64_torch_static",
              {put("bad.cpp", with_argument("int by=18446744073709551616", "int64_t by"))},
              "run bad.cpp --target torch --registration static -o out" + kFlags, 1,
              "opscan-schema-default-type"),
      refused("runtime_float_default_overflows",
              {put("bad.cpp", with_argument("float v=1e309", "double v"))}, run("bad.cpp"), 1,
              "opscan-schema-default-type"),
      refused("runtime_float_default_negative_overflow",
              {put("bad.cpp", with_argument("float v=-1e309", "double v"))}, run("bad.cpp"), 1,
              "opscan-schema-default-type"),
      refused("runtime_float_default_underflows",
              {put("bad.cpp", with_argument("float v=1e-310", "double v"))}, run("bad.cpp"), 1,
              "opscan-schema-default-type"),
      refused("runtime_float_default_nan",
              {put("bad.cpp", with_argument("float v=nan", "double v"))}, run("bad.cpp"), 1,
              "opscan-schema-default-type"),
      refused("runtime_float_default_inf",
              {put("bad.cpp", with_argument("float v=inf", "double v"))}, run("bad.cpp"), 1,
              "opscan-schema-default-type"),
      refused("runtime_scalar_default_30_digits",
              {put("bad.cpp", with_argument("Scalar v=123456789012345678901234567890",
                                            "const Scalar& v"))},
              run("bad.cpp"), 1, "opscan-schema-default-type"),
      refused("runtime_scalar_default_uppercase_exponent",
              {put("bad.cpp", with_argument("Scalar v=1E5", "const Scalar& v"))}, run("bad.cpp"),
              1, "opscan-schema-default-type"),
      refused("runtime_dtype_default_unknown_to_libtorch",
              {put("bad.cpp", with_argument("ScalarType t=bfloat16", "executorch::aten::ScalarType t"))},
              run("bad.cpp"), 1, "opscan-schema-default-type"),
      refused("runtime_string_default_hex_escape",
              {put("bad.cpp", with_argument("str s='\\\\x41'", "std::string_view s"))},
              run("bad.cpp"), 1, "opscan-schema-default-type"),
      refused("runtime_device_default_unknown",
              {put("bad.cpp", with_argument("Device d='gpu'", "executorch::aten::Device d"))}, run("bad.cpp"), 1,
              "opscan-schema-default-type"),
      refused("runtime_list_default_too_long_to_repeat",
              {put("bad.cpp", with_argument("int[100000] v=1", "executorch::aten::ArrayRef<int64_t> v"))},
              run("bad.cpp"), 1, "opscan-schema-default-type"),
      refused("runtime_list_size_beyond_32_bits",
              {put("bad.cpp", with_argument("int[4294967296] v", "executorch::aten::ArrayRef<int64_t> v"))},
              run("bad.cpp"), 1, "opscan-schema-syntax"),
      refused("runtime_argument_named_class",
              {put("bad.cpp", with_argument("int class", "int64_t klass"))}, run("bad.cpp"), 1,
              "opscan-schema-reserved-word"),
      refused("runtime_argument_named_in_inferred",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& "
                                     "self, int64_t in, Tensor& out);\n"))},
              run("bad.cpp"), 1, "opscan-schema-reserved-word"),
      refused("runtime_namespace_keyword",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"None::neg.out\")"))}, run("bad.cpp"), 1,
              "opscan-schema-reserved-word"),
      refused("macros_argument_NULL", {put("bad.cpp", with_argument("int NULL", "int64_t n"))},
              run("bad.cpp"), 1, "opscan-schema-macro-name"),
      refused("macros_argument_errno", {put("bad.cpp", with_argument("int errno", "int64_t n"))},
              run("bad.cpp"), 1, "opscan-schema-macro-name"),
      refused("macros_argument_INT64_MAX",
              {put("bad.cpp", with_argument("int INT64_MAX", "int64_t n"))}, run("bad.cpp"), 1,
              "opscan-schema-macro-name"),
      refused("macros_argument_linux_inferred",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg.out\")",
                                     "Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& "
                                     "self, int64_t linux, Tensor& out);\n"))},
              run("bad.cpp") + " -std=c++17", 1, "opscan-schema-macro-name"),
      refused("macros_namespace_EOF", {put("bad.cpp", kernel("OPSCAN_KERNEL(\"EOF::neg.out\")"))},
              run("bad.cpp"), 1, "opscan-schema-macro-name"),
      refused("macros_name_SIZE_MAX",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::SIZE_MAX.out\")"))}, run("bad.cpp"), 1,
              "opscan-schema-macro-name"),
      refused("macros_namespace_unix", {put("bad.cpp", kernel("OPSCAN_KERNEL(\"unix::neg.out\")"))},
              run("bad.cpp"), 1, "opscan-schema-macro-name"),
      refused("macros_lib_linux", {}, "run k.cpp --registration named --lib linux -o out" + kFlags,
              1, "opscan-ident-macro"),
      refused("spaced_name_space", {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg .out\")"))},
              run("bad.cpp"), 1, "opscan-schema-name-whitespace"),
      refused("spaced_name_escaped_line_break",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::neg\\n.out\")"))}, run("bad.cpp"), 1,
              "opscan-schema-name-whitespace"),
      refused("spaced_name_tab_after_colons",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo::\\tneg.out\")"))}, run("bad.cpp"), 1,
              "opscan-schema-name-whitespace"),
      refused("spaced_name_no_break_space",
              {put("bad.cpp", kernel("OPSCAN_KERNEL(\"demo\xc2\xa0::neg.out\")"))}, run("bad.cpp"),
              1, "opscan-schema-name-whitespace"),
      refused("spaced_name_raw_line_break_in_annotate",
              {put("bad.cpp", kHead + "__attribute__((annotate(\"opscan:kernel:\\\"demo::neg\\n"
                                      ".out\\\"\"))) " + kNeg)},
              run("bad.cpp"), 1, "opscan-schema-name-whitespace"),
      refused("long_lib_name_run", {},
              "run k.cpp --registration named --lib " + std::string(201, 'a') + " -o out" + kFlags,
              1, "opscan-libname-too-long"),
      refused("long_lib_name_generate", {}, generate_as(std::string(300, 'a')), 1,
              "opscan-libname-too-long"),
      refused("long_lib_name_check", {},
              "check ir.json --registration named --lib " + std::string(300, 'a'), 1,
              "opscan-libname-too-long"),

      // ---- compiler arguments and sources that would crash libclang ----
      // bad.cpp declares no kernel: a run that parses it ends with
      // opscan-no-kernels (exit 1), having written nothing, in its directory.
      refused("flags_working_directory", {directory("build"), put("bad.cpp", kHead)},
              run("bad.cpp") + " -working-directory build", 1, "opscan-no-kernels"),
      refused("flags_working_directory_joined", {directory("build"), put("bad.cpp", kHead)},
              run("bad.cpp") + " -working-directory=build", 1, "opscan-no-kernels"),
      refused("flags_config_file", {put("bad.cpp", kHead), put("planted.cfg", kPlantedConfig)},
              run("bad.cpp") + " --config ./planted.cfg", 1, "opscan-no-kernels"),
      refused("flags_config_file_joined", {put("bad.cpp", kHead), put("planted.cfg", kPlantedConfig)},
              run("bad.cpp") + " --config=./planted.cfg", 1, "opscan-no-kernels"),
      refused("flags_config_file_in_a_response_file",
              {put("bad.cpp", kHead), put("planted.cfg", kPlantedConfig),
               put("flags.rsp", "--config ./planted.cfg\n")},
              run("bad.cpp") + " @flags.rsp", 1, "opscan-no-kernels"),
      refused("flags_help_and_version", {put("bad.cpp", kHead)},
              run("bad.cpp") + " --help --version -dumpmachine -dumpversion --autocomplete=-f", 1,
              "opscan-no-kernels"),
      refused("flags_frontend_printing", {put("bad.cpp", kHead)},
              run("bad.cpp") + " -Xclang --show-includes -Xclang -fdump-record-layouts", 1,
              "opscan-no-kernels"),
      refused("flags_cl_driver_mode", {put("bad.cpp", kHead)},
              run("bad.cpp") + " --driver-mode=cl", 1, "opscan-no-kernels"),
      refused("flags_save_temps", {put("bad.cpp", kHead)}, run("bad.cpp") + " --save-temps", 1,
              "opscan-no-kernels"),
      refused("flags_cdb_fragment", {put("bad.cpp", kHead)},
              run("bad.cpp") + " -gen-cdb-fragment-path cdb", 1, "opscan-no-kernels"),
      refused("flags_response_file_writes", {put("bad.cpp", kHead), put("flags.rsp", "-MD -MF deps.d\n")},
              run("bad.cpp") + " @flags.rsp", 1, "opscan-no-kernels"),
      refused("flags_response_file_missing", {}, run("k.cpp") + " @missing.rsp", 3, "opscan-io"),
      refused("flags_response_file_fifo", {fifo("fifo.rsp")}, run("k.cpp") + " @fifo.rsp", 3,
              "opscan-io"),
      refused("flags_response_file_names_itself", {put("loop.rsp", "-DX @loop.rsp\n")},
              run("k.cpp") + " @loop.rsp", 3, "opscan-io"),
      refused("flags_response_file_dev_zero", {symlink("/dev/zero", "zero.rsp")},
              run("k.cpp") + " @zero.rsp", 3, "opscan-io"),
      refused("flags_database_malformed",
              {put("build/compile_commands.json", "[{\"directory\": \"/\",\n  {oops}]\n")},
              "scan -p build k.cpp -o ir2.json", 1, "opscan-compile-commands-invalid"),
      refused("flags_database_unknown_field",
              {put("build/compile_commands.json",
                   "[{\"directory\": \"/\", \"file\": \"k.cpp\", \"argument\": [\"c++\"]}]\n")},
              "scan -p build k.cpp -o ir2.json", 1, "opscan-compile-commands-invalid"),
      refused("flags_database_response_file_fifo",
              {put("bad.cpp", kHead), fifo("fifo.rsp"), database_of("bad.cpp", "\"@fifo.rsp\"")},
              "run -p build bad.cpp --registration named --lib t -o out", 3, "opscan-io"),
      custom("flags_database_working_directory",
             {put("a.cpp", kAbs), directory("elsewhere"),
              database_of("a.cpp", "\"-working-directory\", \"elsewhere\"")},
             database_working_directory),
      refused("flags_database_beside_a_compile_flags_fifo",
              {put("bad.cpp", kHead), database_of("bad.cpp", "\"-DX\""), fifo("build/compile_flags.txt")},
              "run -p build bad.cpp --registration named --lib t -o out", 1, "opscan-no-kernels"),
      refused("flags_raised_bracket_depth_deep_input",
              {put("bad.cpp", kHead + "int deep = " + std::string(100000, '(') + "1" +
                                  std::string(100000, ')') + ";\n")},
              run("bad.cpp") + " -fbracket-depth=100000", 1, "opscan-clang-error"),
      refused("flags_raised_limits_frontend",
              {put("bad.cpp", kHead + "int deep = " + std::string(100000, '(') + "1" +
                                  std::string(100000, ')') + ";\n")},
              run("bad.cpp") + " -Xclang -fbracket-depth -Xclang 100000", 1, "opscan-clang-error"),
      refused("flags_deep_unary_operators", {put("bad.cpp", kHead + deep_unary())}, run("bad.cpp"),
              1, "opscan-parse-failed"),

      // ---- second campaign: flags ----
      // clang 14's driver runs amdgpu-arch for an OpenMP offload target: the
      // planted one would leave a file in the tree.
      refused("flags_offload_arch_tool", {put("bad.cpp", kHead), amdgpu_arch("tool/amdgpu-arch")},
              run("bad.cpp") +
                  " -fopenmp -fopenmp-targets=amdgcn-amd-amdhsa --amdgpu-arch-tool=tool/amdgpu-arch",
              1, "opscan-no-kernels"),
      refused("flags_offload_program_path", {put("bad.cpp", kHead), amdgpu_arch("bin/amdgpu-arch")},
              run("bad.cpp") + " -fopenmp -fopenmp-targets=amdgcn-amd-amdhsa -B bin", 1,
              "opscan-no-kernels"),
      refused("flags_offload_in_a_database",
              {put("bad.cpp", kHead), amdgpu_arch("bin/amdgpu-arch"),
               database_of("bad.cpp", "\"-fopenmp\", \"-fopenmp-targets=amdgcn-amd-amdhsa\", "
                                      "\"-Bbin\"")},
              "run -p build bad.cpp --registration named --lib t -o out", 1, "opscan-no-kernels"),
      refused("flags_working_directory_joined_without_equals",
              {directory("build"), put("bad.cpp", kHead)},
              run("bad.cpp") + " -working-directorybuild", 1, "opscan-no-kernels"),
      // The frontend's working directory would read bad.cpp from elsewhere,
      // where a planted one declares a kernel.
      refused("flags_frontend_working_directory",
              {put("bad.cpp", kHead), put("elsewhere/bad.cpp", kAbs)},
              run("bad.cpp") + " -Xclang -working-directory=elsewhere", 1, "opscan-no-kernels"),
      refused("flags_preprocessor_working_directory",
              {put("bad.cpp", kHead), put("elsewhere/bad.cpp", kAbs)},
              run("bad.cpp") + " -Wp,-DX,-working-directory,elsewhere", 1, "opscan-no-kernels"),
      refused("flags_frontend_working_directory_in_a_database",
              {put("bad.cpp", kHead), put("extra.h", ""), put("elsewhere/extra.h", kAbs),
               database_of("bad.cpp", "\"-include\", \"extra.h\", \"-Xclang\", "
                                      "\"-working-directory=elsewhere\"")},
              "run -p build bad.cpp --registration named --lib t -o out", 1, "opscan-no-kernels"),
  };
  // A file an argument names that is not a regular file: refused before
  // libclang opens it (a FIFO would block it, /dev/zero fill memory), by
  // every command that parses, whichever way it is given.
  for (const auto& [what, setup, args] : std::vector<std::tuple<std::string, Step, std::string>>{
           {"include_fifo", fifo("f.h"), " -include f.h"},
           {"include_joined_fifo", fifo("f.h"), " -includef.h"},
           {"include_dev_zero", {}, " -include /dev/zero"},
           {"imacros_dev_urandom", {}, " -imacros /dev/urandom"},
           {"include_pch_fifo", fifo("f.pch"), " -include-pch f.pch"},
           {"vfs_overlay_fifo", fifo("o.yaml"), " -ivfsoverlay o.yaml"},
           {"profile_list_fifo", fifo("l.txt"), " -fprofile-list=l.txt"},
           {"sanitize_ignorelist_fifo", fifo("l.txt"),
            " -fsanitize=address -fsanitize-ignorelist=l.txt"},
           {"sanitize_blacklist_dev_zero", {}, " -fsanitize=address -fsanitize-blacklist=/dev/zero"},
           {"profile_instr_use_fifo", fifo("p.prof"), " -fprofile-instr-use=p.prof"},
           {"frontend_profile_use_fifo", fifo("p.prof"),
            " -Xclang -fprofile-instrument-use-path=p.prof"},
           {"preprocessor_include_fifo", fifo("f.h"), " -Wp,-include,f.h"},
       }) {
    std::vector<Step> steps;
    if (setup)
      steps.push_back(setup);
    rows.push_back(refused("flags_named_file_" + what, steps, run("k.cpp") + args, 3, "opscan-io"));
  }
  for (const auto& [what, command] : std::vector<std::pair<std::string, std::string>>{
           {"scan", "scan k.cpp -o ir2.json" + kFlags},
           {"pch", "pch k.cpp -o h.pch" + kFlags},
           {"import_yaml", "import-yaml functions.yaml k.cpp" + kFlags}}) {
    rows.push_back(refused("flags_named_file_include_fifo_" + what,
                           {fifo("f.h"), put("functions.yaml", "- op: neg.out\n  kernels:\n"
                                                               "    - arg_meta: null\n"
                                                               "      kernel_name: t::neg_out\n")},
                           command + " -include f.h", 3, "opscan-io"));
  }
  // In a database entry, relative to its directory.
  rows.push_back(refused("flags_named_file_include_fifo_in_a_database",
                         {put("bad.cpp", kHead), directory("entry"), fifo("entry/f.h"),
                          [](const fs::path& dir) {
                            fs::create_directories(dir / "build");
                            write_file(dir / "build/compile_commands.json",
                                       "[{\"directory\": \"" + (dir / "entry").string() +
                                           "\", \"file\": \"" + (dir / "bad.cpp").string() +
                                           "\", \"arguments\": [\"c++\", \"-I" +
                                           (kRepo / "include").string() + "\", \"-I" +
                                           (kRepo / "examples/include").string() +
                                           "\", \"-include\", \"f.h\", \"-c\", \"" +
                                           (dir / "bad.cpp").string() + "\"]}]\n");
                          }},
                         "run -p build bad.cpp --registration named --lib t -o out", 3,
                         "opscan-io"));
  // ---- parses that never end: bounded by --parse-timeout ----
  // libclang blocks for ever on an #include of a FIFO; every command that
  // parses ends, with a located error and nothing written.
  const Step hanging = [](const fs::path& dir) {
    ASSERT_EQ(::mkfifo((dir / "pipe.h").c_str(), 0644), 0);
    opscan::testing::write_file(dir / "hang.cpp", "#include \"pipe.h\"\n");
  };
  const std::string limit = " --parse-timeout 2";
  for (const auto& [what, command] : std::vector<std::pair<std::string, std::string>>{
           {"scan", "scan hang.cpp -o ir2.json" + limit + kFlags},
           {"run", run("hang.cpp", limit)},
           {"pch", "pch hang.cpp -o h.pch" + limit + kFlags},
           {"import_yaml", "import-yaml functions.yaml hang.cpp" + limit + kFlags}}) {
    rows.push_back(refused("parse_timeout_fifo_include_" + what,
                           {hanging, put("functions.yaml", "- op: neg.out\n  kernels:\n"
                                                           "    - arg_meta: null\n"
                                                           "      kernel_name: t::neg_out\n")},
                           command, 1, "opscan-parse-timeout"));
  }
  // ---- second campaign: stamps, the cache's own directories ----
  // A stamp that is a link: its target's time would change (Make would
  // take some other file for up to date).
  for (const auto& [what, command] : std::vector<std::pair<std::string, std::string>>{
           {"scan", "scan k.cpp -o ir2.json --stamp k.stamp" + kFlags},
           {"generate", "generate ir.json --registration named --lib t -o out2 --stamp k.stamp"},
           {"check", "check ir.json --registration named --lib t --stamp k.stamp"},
           {"pch", "pch k.cpp -o k.pch --stamp k.stamp" + kFlags}}) {
    rows.push_back(refused("stamp_symlink_" + what,
                           {put("other.o", "precious\n"), symlink("other.o", "k.stamp")}, command,
                           3, "opscan-io"));
  }
  // Outputs known from the command line are checked before any source is
  // read: a broken source cannot hide them, and the cache is not filled.
  rows.push_back(refused("outputs_twice_beside_a_broken_source",
                         {put("bad.cpp", "#include <opscan/annotations.h>\n"
                                         "OPSCAN_KERNEL(\"bad::x\") int f(int);\n")},
                         "scan k.cpp bad.cpp -o ir2.json --depfile ir2.json" + kFlags, 2,
                         "opscan-output-twice"));
  // A response file a database entry names is an input too.
  rows.push_back(refused("outputs_database_response_file_as_o",
                         {put("flags.rsp", "-std=c++17\n"),
                          database_of("k.cpp", "\"@" + std::string("flags.rsp") + "\"")},
                         "scan -p build k.cpp -o flags.rsp", 2, "opscan-output-is-input"));
  rows.push_back(refused("outputs_source_as_o_with_a_cache", {},
                         "scan k.cpp -o k.cpp --cache cache" + kFlags, 2,
                         "opscan-output-is-input"));
  for (const std::string pragma :
       {"crash", "llvm_fatal_error", "overflow_stack", "parser_crash", "assert", "llvm_unreachable"}) {
    const std::string line = "#pragma clang __debug " + pragma + "\n";
    rows.push_back(refused("flags_pragma_" + pragma, {put("bad.cpp", kHead + line)}, run("bad.cpp"),
                           1, "opscan-no-kernels"));
    rows.push_back(refused("flags_pragma_operator_" + pragma,
                           {put("bad.cpp", kHead + "_Pragma(\"clang __debug " + pragma + "\")\n")},
                           run("bad.cpp"), 1, "opscan-no-kernels"));
    rows.push_back(refused("flags_pragma_in_header_" + pragma,
                           {put("debug.h", line), put("bad.cpp", "#include \"debug.h\"\n" + kHead)},
                           run("bad.cpp"), 1, "opscan-no-kernels"));
  }
  return rows;
}

class Matrix : public ::testing::TestWithParam<Case> {};

TEST_P(Matrix, Row) {
  const Case& row = GetParam();
  // A run that reads without end (a special file) must not take the
  // machine's memory with it: opscan needs far less than 2 GiB of address
  // space, and inherits the limit through run_command.
  const rlimit memory{2ull << 30, 2ull << 30};
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &memory), 0);
  TempDir tree;
  fs::copy(kBase, tree.path(), fs::copy_options::recursive);
  for (const Step& step : row.setup) {
    step(tree.path());
    if (::testing::Test::HasFatalFailure())
      return;
  }
  if (row.expect == Expect::custom) {
    row.check(tree.path());
    return;
  }

  Snapshot before = snapshot(tree.path());
  const RunResult result = opscan(tree.path(), row.command, row.bound);
  SCOPED_TRACE("opscan " + row.command + "\nstderr: " + result.err.substr(0, kMaxStderr));
  ASSERT_NE(result.exit_code, 124) << "opscan did not end within " << row.bound << " s";
  EXPECT_EQ(result.exit_code, row.exit_code);
  EXPECT_LT(result.err.size(), kMaxStderr);
  Snapshot after = snapshot(tree.path());

  if (row.expect == Expect::cache_miss) {
    EXPECT_EQ(read_file(tree.path() / "ir.json"), read_file(tree.path() / "ref.json"));
    // The cache may be rewritten and ir.json is the output; the rest are
    // inputs.
    auto inputs = [](Snapshot files) {
      std::erase_if(files, [](const auto& file) {
        return file.first == "ir.json" || file.first.starts_with("cache/");
      });
      return files;
    };
    EXPECT_EQ(inputs(after), inputs(before)) << "an input changed";
    return;
  }

  EXPECT_NE(result.err.find("[" + row.code + "]"), std::string::npos);
  EXPECT_EQ(after, before) << "a file in the tree changed or appeared";
}

INSTANTIATE_TEST_SUITE_P(BadInput, Matrix, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

} // namespace
