// The build step's promises under bad input and faults, each a finding of a
// hostile review of opscan: outputs all or nothing, inputs never
// overwritten, special files never opened or replaced, bounded time and
// messages, I/O errors naming their path. The real opscan binary, run in a
// temporary directory; every file there is compared before and after.
#include "files.h"
#include "run.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <tuple>

namespace fs = std::filesystem;

namespace {

using opscan::testing::RunResult;
using opscan::testing::Snapshot;
using opscan::testing::snapshot;
using opscan::testing::TempDir;

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const std::string kFlags = " -- -I'" + (kRepo / "include").string() + "' -I'" +
                           (kRepo / "examples/include").string() + "'";

class BuildStep : public ::testing::Test {
protected:
  void SetUp() override {
    dir_.write("k.cpp", opscan::testing::read_file(kRepo / "test/cli/inputs/good.cpp"));
  }
  RunResult opscan(const std::string& args) {
    return opscan::testing::run_command(dir_.path(), "'" OPSCAN_BINARY "' " + args, 30);
  }
  // A generated library in out/t, to be damaged by the test.
  void generate_once() {
    RunResult run = opscan("run k.cpp --registration named --lib t -o out" + kFlags);
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  TempDir dir_;
};

// Finding 1: one output that cannot be written (a directory in its place)
// left the other files of the library replaced.
TEST_F(BuildStep, AnOutputThatCannotBeWrittenLeavesEveryOutputAsItWas) {
  generate_once();
  fs::remove(dir_.path() / "out/t/RegisterKernels.cpp");
  fs::create_directories(dir_.path() / "out/t/RegisterKernels.cpp/inner");
  const Snapshot before = snapshot(dir_.path());
  // Static registration changes every file of the library.
  RunResult run = opscan("run k.cpp --registration static --lib t -o out" + kFlags);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "opscan: error: cannot write out/t/RegisterKernels.cpp: Is a directory; "
                     "opscan replaces only regular files (no output was changed) [opscan-io]\n");
  EXPECT_EQ(snapshot(dir_.path()), before);
}

TEST_F(BuildStep, AReadOnlyOutputLeavesEveryOutputAsItWas) {
  generate_once();
  fs::permissions(dir_.path() / "out/t/Functions.h", fs::perms::owner_read);
  const Snapshot before = snapshot(dir_.path());
  RunResult run = opscan("run k.cpp --registration static --lib t -o out" + kFlags);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("cannot write out/t/Functions.h: Read-only file"), std::string::npos)
      << run.err;
  EXPECT_EQ(snapshot(dir_.path()), before);
}

// Finding 2: outputs that are inputs were overwritten.
TEST_F(BuildStep, AnOutputThatIsAnInputIsRefused) {
  dir_.write("h.h", "#pragma once\nint h();\n");
  dir_.write("flags.txt", "-DX=1\n");
  fs::create_hard_link(dir_.path() / "k.cpp", dir_.path() / "alias.cpp");
  const Snapshot before = snapshot(dir_.path());
  for (const auto& [args, message] : {
           // Named by the command line: refused before the scan, by role.
           std::pair{"scan k.cpp -o k.cpp" + kFlags, std::string("k.cpp is both -o and a source")},
           std::pair{"scan k.cpp -o ir.json --depfile alias.cpp" + kFlags,
                     std::string("alias.cpp (--depfile) is k.cpp (a source)")},
           // Found by the scan: refused after it.
           std::pair{"scan k.cpp -o ir.json --depfile h.h -- -include h.h" + kFlags.substr(3),
                     "h.h (--depfile) is " + (dir_.path() / "h.h").string() +
                         " (an input of this step)"},
           std::pair{"scan k.cpp -o ir.json --stamp flags.txt --flags-file flags.txt" + kFlags,
                     std::string("flags.txt is both --stamp and --flags-file")},
           std::pair{std::string("pch h.h -o h.h"), std::string("h.h is both -o and the header")},
       }) {
    SCOPED_TRACE(args);
    RunResult run = opscan(args);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.err, "opscan: error: " + message +
                           "; opscan does not overwrite its inputs [opscan-output-is-input]\n");
    EXPECT_EQ(snapshot(dir_.path()), before);
  }
}

TEST_F(BuildStep, AGenerationDoesNotOverwriteItsIrInputOrATemplate) {
  RunResult scanned = opscan("scan k.cpp -o t/ir.json" + kFlags);
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  const Snapshot before = snapshot(dir_.path());
  // Library IRs are written as <out>/<lib>/ir.json: -o . with --lib t names
  // the input itself.
  RunResult run = opscan("generate t/ir.json --registration named --lib t -o .");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "opscan: error: ./t/ir.json (an output) is t/ir.json (an IR input); opscan "
                     "does not overwrite its inputs [opscan-output-is-input]\n");
  EXPECT_EQ(snapshot(dir_.path()), before);
}

// Finding 2: -o naming a device replaced the device node with a file.
TEST_F(BuildStep, SpecialFilesAreNeverReplaced) {
  ASSERT_EQ(::mkfifo((dir_.path() / "fifo").c_str(), 0666), 0);
  const bool device = ::mknod((dir_.path() / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
  fs::create_symlink("/dev/null", dir_.path() / "null-link");
  for (std::string target : {"fifo", "null-link", "null"}) {
    if (target == "null" && !device)
      continue; // creating a device node needs privileges
    SCOPED_TRACE(target);
    const Snapshot before = snapshot(dir_.path());
    for (const std::string option : {"-o ", "-o ir.json --depfile ", "-o ir.json --stamp "}) {
      RunResult run = opscan("scan k.cpp " + option + target + kFlags);
      EXPECT_EQ(run.exit_code, 3) << option;
      EXPECT_NE(run.err.find(target + ": Not a regular file ("), std::string::npos) << run.err;
      EXPECT_EQ(snapshot(dir_.path()), before);
    }
    EXPECT_EQ(fs::symlink_status(dir_.path() / target).type(),
              target == "fifo"        ? fs::file_type::fifo
              : target == "null-link" ? fs::file_type::symlink
                                      : fs::file_type::character);
  }
}

// Finding 5: /dev/zero as an input grew memory without limit; a FIFO as an
// input blocked forever.
TEST_F(BuildStep, SpecialFilesAreNeverRead) {
  ASSERT_EQ(::mkfifo((dir_.path() / "fifo").c_str(), 0666), 0);
  fs::create_directories(dir_.path() / "db");
  ASSERT_EQ(::mkfifo((dir_.path() / "db/compile_commands.json").c_str(), 0666), 0);
  const Snapshot before = snapshot(dir_.path());
  for (const auto& [args, message] : {
           std::pair{std::string("scan /dev/zero -o ir.json"),
                     "cannot read /dev/zero (a source): Not a regular file (a character device) "
                     "[opscan-io]"},
           std::pair{std::string("scan fifo -o ir.json"),
                     "cannot read fifo (a source): Not a regular file (a FIFO) [opscan-io]"},
           std::pair{std::string("generate /dev/zero --registration named --lib t -o out"),
                     "cannot read /dev/zero: Not a regular file (a character device) [opscan-io]"},
           std::pair{std::string("generate fifo --registration named --lib t -o out"),
                     "cannot read fifo: Not a regular file (a FIFO) [opscan-io]"},
           std::pair{"scan k.cpp -o ir.json --schemas fifo" + kFlags,
                     "cannot read the schemas file fifo: Not a regular file (a FIFO) [opscan-io]"},
           std::pair{"scan k.cpp -o ir.json --flags-file /dev/zero" + kFlags,
                     "cannot read /dev/zero: Not a regular file (a character device) [opscan-io]"},
           std::pair{std::string("pch fifo -o x.pch"),
                     "cannot read fifo (a source): Not a regular file (a FIFO) [opscan-io]"},
           std::pair{"scan k.cpp -o ir.json -p db" + kFlags,
                     "cannot read db/compile_commands.json: Not a regular file (a FIFO) "
                     "[opscan-no-compile-commands]"},
       }) {
    SCOPED_TRACE(args);
    RunResult run = opscan(args);
    EXPECT_EQ(run.exit_code, 3);
    EXPECT_EQ(run.err, "opscan: error: " + std::string(message) + "\n");
    EXPECT_EQ(snapshot(dir_.path()), before);
  }
}

// Finding 6: an IR file that cannot be read was "internal error:
// basic_filebuf::underflow"; an I/O error did not name its path.
TEST_F(BuildStep, IoErrorsNameThePathAndTheReason) {
  RunResult run = opscan("generate /proc/self/mem --registration named --lib t -o out");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "opscan: error: cannot read /proc/self/mem: Input/output error [opscan-io]\n");

  dir_.write("file", "x");
  run = opscan("scan k.cpp -o file/ir.json" + kFlags);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "opscan: error: cannot write " + (dir_.path() / "file").string() +
                         ": Not a directory (no output was changed) [opscan-io]\n");
  EXPECT_FALSE(fs::exists(dir_.path() / "ir.json"));
}

// Finding 6: a newline in a path broke the depfile.
TEST_F(BuildStep, APathADepfileCannotHoldIsAnError) {
  dir_.write("inc\nlude/extra.h", "#pragma once\n");
  dir_.write("h.cpp", "#include \"extra.h\"\n" + opscan::testing::read_file(dir_.path() / "k.cpp"));
  const Snapshot before = snapshot(dir_.path());
  RunResult run = opscan("scan h.cpp -o ir.json --depfile ir.d" + kFlags + " -I'inc\nlude'");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "opscan: error: cannot write the depfile ir.d: the path '" +
                         (dir_.path() / "inc\\nlude/extra.h").string() +
                         "' holds a line break, which Make and Ninja cannot read in a depfile "
                         "(nothing was written) [opscan-depfile-path]\n");
  EXPECT_EQ(snapshot(dir_.path()), before);
}

// Finding 6: a 10 MB broken annotation was echoed whole, and one bad type
// of 100,000 '?' made a 400 KB message.
TEST_F(BuildStep, MessagesStayShortWhateverTheInput) {
  const std::string head = "#include <opscan/annotations.h>\n"
                           "#include <opscan_examples/executorch_types.h>\n"
                           "using executorch::aten::Tensor;\n"
                           "using executorch::runtime::KernelRuntimeContext;\n";
  const std::string kernel = "Tensor& x_out(KernelRuntimeContext& ctx, const Tensor& a, "
                             "Tensor& out);\n";
  dir_.write("long.cpp", head + "OPSCAN_KERNEL(\"demo::x.out\" " + std::string(10'000'000, 'x') +
                             ")\n" + kernel);
  dir_.write("type.cpp", head + "OPSCAN_KERNEL(\"demo::x.out(Tensor" + std::string(100'000, '?') +
                             " a, *, Tensor(a!) out) -> Tensor(a!)\")\n" + kernel);
  for (const char* file : {"long.cpp", "type.cpp"}) {
    SCOPED_TRACE(file);
    RunResult run = opscan(std::string("scan ") + file + " -o ir.json" + kFlags);
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_LT(run.err.size(), 4000u) << run.err.substr(0, 4000);
    EXPECT_NE(run.err.find("\u2026"), std::string::npos) << "clipped text is marked";
    EXPECT_FALSE(fs::exists(dir_.path() / "ir.json"));
  }
}

// Finding 6: a missing -include-pch gave one unexplained line per source.
TEST_F(BuildStep, AMissingPrecompiledHeaderIsExplainedOnce) {
  for (const char* name : {"a.cpp", "b.cpp", "c.cpp"})
    fs::copy_file(dir_.path() / "k.cpp", dir_.path() / name);
  RunResult run = opscan("scan a.cpp b.cpp c.cpp -o ir.json" + kFlags + " -include-pch gone.pch");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "opscan: error: cannot read gone.pch, given with -include-pch: No such file "
                     "or directory; no file that uses it can be scanned [opscan-io]\n");

  dir_.write("damaged.pch", "not a precompiled header");
  run = opscan("scan a.cpp b.cpp c.cpp -o ir.json" + kFlags + " -include-pch damaged.pch");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "opscan: error: libclang could not load the precompiled header damaged.pch "
                     "(-include-pch): it is damaged, or was made by another libclang or with "
                     "other arguments; make it again with opscan pch and the scan's arguments "
                     "[opscan-parse-failed]\n");
  EXPECT_FALSE(fs::exists(dir_.path() / "ir.json"));
}

} // namespace

namespace {

// The mode bits of `path` (not following a link).
unsigned mode_of(const fs::path& path) {
  return static_cast<unsigned>(fs::symlink_status(path).permissions());
}

// opscan run with the umask `mask`, set in the shell that starts it.
RunResult opscan_with_umask(const fs::path& dir, const std::string& mask, const std::string& args) {
  return opscan::testing::run_command(
      dir, "sh -c \"umask " + mask + " && exec '" OPSCAN_BINARY "' " + args + "\"", 60);
}

// Finding 1 of issue 23: every new output and cache entry was world-writable
// (0666) whatever the umask; another user could rewrite a cache entry or the
// generated code. Every file and directory opscan makes gets the mode open(2)
// and mkdir(2) give: the library, the IR, a depfile, a stamp, exported fixes,
// a precompiled header, cache entries and the automatic precompiled header
// stored with them.
TEST(FileModes, NewFilesGetTheModeTheUmaskGives) {
  for (const auto& [mask, file_mode, dir_mode] :
       {std::tuple{"077", 0600u, 0700u}, std::tuple{"022", 0644u, 0755u}}) {
    SCOPED_TRACE(std::string("umask ") + mask);
    TempDir dir;
    std::set<fs::path> inputs = {
        dir.write("k.cpp", opscan::testing::read_file(kRepo / "test/cli/inputs/good.cpp")),
        dir.write("h.h", "#pragma once\nint h();\n")};
    // Sources that share enough leading #include lines for an automatic
    // precompiled header (as in cache_cli_test.cpp).
    std::string sources;
    for (int i = 0; i < 7; ++i) {
      const std::string name = "k" + std::to_string(i);
      inputs.insert(dir.write(
          "src/" + name + ".cpp",
          "#include <map>\n#include <vector>\n#include <functional>\n"
          "#include <opscan/annotations.h>\n#include <opscan_examples/executorch_types.h>\n"
          "OPSCAN_KERNEL(\"t::" + name + ".out\")\nexecutorch::aten::Tensor& " + name +
              "_out(executorch::runtime::KernelRuntimeContext& ctx, const "
              "executorch::aten::Tensor& self, executorch::aten::Tensor& out);\n"));
      sources += " src/" + name + ".cpp";
    }
    inputs.insert(dir.path() / "src");
    for (const std::string& args :
         {"run k.cpp --registration named --lib t -o out" + kFlags,
          "scan --cache cache" + sources +
              " -o ir.json --depfile ir.d --stamp ir.stamp --export-fixes fixes.yaml" + kFlags +
              " -std=c++17",
          "pch --shared --cache cache" + sources + " -o shared.txt" + kFlags + " -std=c++17",
          std::string("pch h.h -o pch/h.pch --depfile pch/h.d")}) {
      RunResult run = opscan_with_umask(dir.path(), mask, args);
      ASSERT_EQ(run.exit_code, 0) << args << "\n" << run.err;
    }
    std::set<std::string> made;
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
      if (inputs.count(entry.path()))
        continue;
      const std::string name = fs::relative(entry.path(), dir.path()).string();
      made.insert(entry.path().extension() == ".entry" || entry.path().extension() == ".pch"
                      ? entry.path().parent_path().filename().string() + "/*" +
                            entry.path().extension().string()
                      : name);
      EXPECT_EQ(mode_of(entry.path()), entry.is_directory() ? dir_mode : file_mode) << name;
    }
    for (const char* expected :
         {"out", "out/t", "out/t/RegisterKernels.cpp", "out/t/ir.json", "ir.json", "ir.d",
          "ir.stamp", "fixes.yaml", "cache", "cache/*.entry", "cache/pch", "pch/*.pch",
          "pch/h.d"})
      EXPECT_TRUE(made.count(expected)) << expected << " was not made";
    bool stored_pch = false;
    for (const auto& entry : fs::directory_iterator(dir.path() / "cache/pch"))
      stored_pch |= entry.path().extension() == ".pch";
    EXPECT_TRUE(stored_pch) << "no shared precompiled header was stored";
  }
}

// A replaced file keeps its own mode, whatever the umask.
TEST_F(BuildStep, AReplacedOutputKeepsItsMode) {
  generate_once();
  fs::permissions(dir_.path() / "out/t/RegisterKernels.cpp", fs::perms(0640));
  fs::permissions(dir_.path() / "out/t/ir.json", fs::perms(0664));
  const std::string named = opscan::testing::read_file(dir_.path() / "out/t/RegisterKernels.cpp");
  RunResult run = opscan_with_umask(dir_.path(), "077",
                                    "run k.cpp --registration static --lib t -o out" + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(opscan::testing::read_file(dir_.path() / "out/t/RegisterKernels.cpp"), named);
  EXPECT_EQ(mode_of(dir_.path() / "out/t/RegisterKernels.cpp"), 0640u);
  EXPECT_EQ(mode_of(dir_.path() / "out/t/ir.json"), 0664u);
}

// Finding 18 of issue 23: a symbolic link planted inside the output tree (in
// place of out/<lib> or a directory below it) was followed, and files were
// written outside -o. Refused before anything is written; `elsewhere` (a
// copy of the library the link points into) is unchanged.
TEST_F(BuildStep, ALinkPlantedInTheOutputTreeIsRefused) {
  const std::string refused = ": a symbolic link; opscan writes only below the output "
                              "directory, through real directories (no output was changed) "
                              "[opscan-io]\n";
  for (const auto& [planted, target, args, message] : {
           std::tuple{"out/t", "../elsewhere", std::string("--lib t"), "out/t" + refused},
           std::tuple{"out/t/kernel_count", "../../elsewhere/kernel_count",
                      std::string("--lib t"), "out/t/kernel_count" + refused},
           std::tuple{"out/t/kernel_count/executorch/runtime",
                      "../../../../elsewhere/kernel_count/executorch/runtime",
                      std::string("--lib t"), "out/t/kernel_count/executorch/runtime" + refused},
           // A library not made yet, into a planted link.
           std::tuple{"out/u", "../elsewhere", std::string("--lib u"), "out/u" + refused},
           // Links to files were refused already.
           std::tuple{"out/t/Functions.h", "../../elsewhere/Functions.h", std::string("--lib t"),
                      std::string("out/t/Functions.h: Not a regular file (a symbolic link); "
                                  "opscan replaces only regular files (no output was changed) "
                                  "[opscan-io]\n")},
       }) {
    SCOPED_TRACE(planted);
    fs::remove_all(dir_.path() / "out");
    fs::remove_all(dir_.path() / "elsewhere");
    generate_once();
    fs::copy(dir_.path() / "out/t", dir_.path() / "elsewhere", fs::copy_options::recursive);
    fs::remove_all(dir_.path() / planted);
    fs::create_symlink(target, dir_.path() / planted);
    ASSERT_TRUE(fs::exists(dir_.path() / planted)) << "the link points to a real path";
    const Snapshot before = snapshot(dir_.path());
    RunResult run = opscan("run k.cpp --registration static " + args + " -o out" + kFlags);
    EXPECT_EQ(run.exit_code, 3);
    EXPECT_EQ(run.err, "opscan: error: cannot write " + message);
    EXPECT_EQ(snapshot(dir_.path()), before);
  }
}

// -o itself is the user's choice: a link to a directory is written through.
TEST_F(BuildStep, TheOutputDirectoryMayBeALink) {
  fs::create_directories(dir_.path() / "real");
  fs::create_symlink("real", dir_.path() / "out");
  generate_once();
  EXPECT_TRUE(fs::is_regular_file(dir_.path() / "real/t/RegisterKernels.cpp"));
}

} // namespace
