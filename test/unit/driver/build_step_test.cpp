// driver: the files of a build step (flags files, outputs, depfiles, stamps).
#include "driver/driver.h"
#include "files.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
using namespace opscan;
using opscan::testing::read_file;
using opscan::testing::TempDir;

TEST(CompilerArgs, FlagsFileLinesComeBeforeTheExtraArguments) {
  TempDir dir;
  std::ofstream(dir.path() / "flags.txt") << "-Iinclude dir\r\n\n-DX=1\n";
  diag::Diagnostics diags;
  auto args = driver::compiler_args((dir.path() / "flags.txt").string(), {"-std=c++17"}, diags);
  ASSERT_TRUE(args.has_value());
  EXPECT_EQ(*args, (std::vector<std::string>{"-Iinclude dir", "-DX=1", "-std=c++17"}));
  EXPECT_TRUE(diags.empty());
}

TEST(CompilerArgs, AnUnreadableFlagsFileIsAnIoErrorNamingIt) {
  TempDir dir;
  diag::Diagnostics diags;
  const std::string missing = (dir.path() / "missing.txt").string();
  EXPECT_FALSE(driver::compiler_args(missing, {}, diags).has_value());
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "opscan-io");
  EXPECT_EQ(diags[0].location.file, missing);
}

TEST(WriteStep, WritesTheOutputAndTheDepfileForTheStampThenTouchesIt) {
  TempDir dir;
  const std::string output = (dir.path() / "out.json").string();
  const std::string stamp = (dir.path() / "step.stamp").string();
  const std::string depfile = (dir.path() / "step.d").string();
  driver::Outcome written =
      driver::write_step({output, "{}\n", depfile, stamp}, {"/src/a.cpp"}, {});
  EXPECT_TRUE(written.diagnostics.empty());
  EXPECT_EQ(written.status, driver::Status::ok);
  EXPECT_EQ(read_file(output), "{}\n");
  EXPECT_TRUE(fs::exists(stamp));
  EXPECT_EQ(read_file(depfile), stamp + ": \\\n  /src/a.cpp\n");
}

TEST(WriteStep, AStampThatCannotBeWrittenIsAnIoError) {
  TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  driver::Outcome written = driver::write_step(
      {(dir.path() / "out").string(), "", "", (dir.path() / "file" / "stamp").string()}, {}, {});
  ASSERT_EQ(written.diagnostics.size(), 1u);
  EXPECT_EQ(written.diagnostics[0].code, "opscan-io");
  EXPECT_EQ(written.status, driver::Status::failure);
}

// Finding: `scan v.cpp -o v.cpp`, `--depfile v.cpp` and `pch h.h -o h.h`
// overwrote their own input.
TEST(WriteStep, AnOutputThatIsAnInputIsRefusedAndNothingIsWritten) {
  TempDir dir;
  const std::string source = dir.write("src/k.cpp", "int k;\n");
  fs::create_hard_link(source, dir.path() / "hard.cpp");
  fs::create_symlink(source, dir.path() / "soft.cpp");
  const std::string flags = dir.write("flags.txt", "-DX\n");
  struct Case {
    driver::StepFiles files;
    std::string message;
  };
  const std::string depfile = (dir.path() / "k.d").string();
  for (const Case& c : std::vector<Case>{
           {{source, "x", "", ""},
            source + " is both -o and an input of this step; opscan does "
                     "not overwrite its inputs"},
           {{dir.file("hard.cpp"), "x", "", ""},
            dir.file("hard.cpp") + " (-o) is " + source +
                " (an input of this step); opscan does not overwrite its inputs"},
           {{dir.file("ir.json"), "x", dir.file("soft.cpp"), ""},
            dir.file("soft.cpp") + " (--depfile) is " + source +
                " (an input of this step); opscan does not overwrite its inputs"},
           {{dir.file("ir.json"), "x", depfile, flags},
            flags + " is both --stamp and --flags-file; opscan does not overwrite its inputs"},
       }) {
    SCOPED_TRACE(c.message);
    opscan::testing::Snapshot before = opscan::testing::snapshot(dir.path());
    driver::Outcome written = driver::write_step(c.files, {source}, {{"--flags-file", flags}});
    ASSERT_EQ(written.diagnostics.size(), 1u);
    EXPECT_EQ(written.diagnostics[0].code, "opscan-output-is-input");
    EXPECT_EQ(written.diagnostics[0].message, c.message);
    EXPECT_EQ(written.status, driver::Status::usage);
    EXPECT_EQ(opscan::testing::snapshot(dir.path()), before);
    EXPECT_FALSE(fs::exists(dir.path() / "ir.json"));
  }
}

TEST(WriteStep, TwoOutputsNamingOneFileAreRefused) {
  TempDir dir;
  const std::string out = dir.file("out.json");
  driver::Outcome written =
      driver::write_step({out, "x", dir.path() / "." / "out.json", ""}, {}, {});
  ASSERT_EQ(written.diagnostics.size(), 1u);
  EXPECT_EQ(written.diagnostics[0].code, "opscan-output-twice");
  EXPECT_EQ(written.status, driver::Status::usage);
  EXPECT_FALSE(fs::exists(out));
}

// Finding: a newline in a path broke the depfile.
TEST(WriteStep, APathADepfileCannotHoldIsAnErrorAndNothingIsWritten) {
  TempDir dir;
  const std::string out = dir.file("out.json");
  driver::Outcome written =
      driver::write_step({out, "x", dir.file("out.d"), ""}, {"/src/a\nb.h"}, {});
  ASSERT_EQ(written.diagnostics.size(), 1u);
  EXPECT_EQ(written.diagnostics[0].code, "opscan-depfile-path");
  EXPECT_EQ(written.diagnostics[0].message,
            "cannot write the depfile " + dir.file("out.d") +
                ": the path '/src/a\\nb.h' holds a line break, which Make and Ninja cannot read "
                "in a depfile (nothing was written)");
  EXPECT_EQ(written.status, driver::Status::failure);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

// Exit code 3 for every I/O error, 1 for errors in the input.
TEST(StatusOf, IoErrorsAreFailuresOtherErrorsAreErrors) {
  const diag::Diagnostic io = diag::make_error("opscan-io", {}, "cannot read x: why");
  const diag::Diagnostic no_database =
      diag::make_error("opscan-no-compile-commands", {}, "cannot read b/compile_commands.json");
  const diag::Diagnostic input = diag::make_error("opscan-clang-error", {}, "expected ';'");
  const diag::Diagnostic io_note = diag::make_note("opscan-io", {}, "only a note");
  EXPECT_EQ(driver::status_of({}), driver::Status::ok);
  EXPECT_EQ(driver::status_of({io_note}), driver::Status::ok);
  EXPECT_EQ(driver::status_of({input}), driver::Status::errors);
  EXPECT_EQ(driver::status_of({input, io}), driver::Status::failure);
  EXPECT_EQ(driver::status_of({no_database}), driver::Status::failure);
}

} // namespace
