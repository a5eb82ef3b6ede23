// driver: the files of a build step (flags files, depfiles, stamps).
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

TEST(FinishStep, WritesTheDepfileForTheStampThenTouchesIt) {
  TempDir dir;
  const std::string stamp = (dir.path() / "step.stamp").string();
  const std::string depfile = (dir.path() / "step.d").string();
  diag::Diagnostics diags =
      driver::finish_step("out.json", {"/src/a.cpp"}, {"", ""}, depfile, stamp);
  EXPECT_TRUE(diags.empty());
  EXPECT_TRUE(fs::exists(stamp));
  EXPECT_EQ(read_file(depfile).substr(0, stamp.size() + 1), stamp + ":");
  EXPECT_NE(read_file(depfile).find("/src/a.cpp"), std::string::npos);
}

TEST(FinishStep, AStampThatCannotBeWrittenIsAnIoError) {
  TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  diag::Diagnostics diags =
      driver::finish_step("out", {}, {}, "", (dir.path() / "file" / "stamp").string());
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "opscan-io");
}

} // namespace
