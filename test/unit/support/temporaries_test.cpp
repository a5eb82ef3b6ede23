// Tests for lib/support/temporaries: names that carry their process, the
// removal of what dead processes left, and private directories in TMPDIR.
#include "files.h"
#include "support/temporaries.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace opscan::support;
using opscan::testing::TempDir;
using opscan::testing::write_file;

// A pid that ran and ended: a child of this test, reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(TemporaryName, CarriesThisProcessAndIsFreshEachTime) {
  const std::string a = temporary_name(".RegisterKernels.cpp");
  const std::string b = temporary_name(".RegisterKernels.cpp");
  EXPECT_NE(a, b);
  EXPECT_TRUE(a.starts_with(".RegisterKernels.cpp.opscan-" + std::to_string(::getpid()) + "-"))
      << a;
  EXPECT_EQ(temporary_owner(a), ::getpid());
  EXPECT_EQ(temporary_owner(a + ".tmp"), ::getpid());
}

TEST(TemporaryOwner, ReadsOnlyTheMarksOpscanWrites) {
  EXPECT_EQ(temporary_owner(".ir.json.opscan-4242-7.tmp"), 4242);
  EXPECT_EQ(temporary_owner("0123abcd.pch.opscan-17-0"), 17);
  EXPECT_EQ(temporary_owner("opscan-lsp-4242-AbCdEf"), 4242);
  EXPECT_EQ(temporary_owner("opscan-pch-99-x"), 99);
  // The last mark counts: a file named like one keeps its own.
  EXPECT_EQ(temporary_owner(".opscan-1-2.opscan-33-0.tmp"), 33);
  for (const char* name : {"opscan-XXXXXX", "opscan-lsp-notapid", "opscan-12", "opscan-12-",
                           "opscan--12-3", "opscan-lsp-12", "opscan-0-1", "ir.json", "opscan-",
                           "opscan-LSP-12-x", "opscan-99999999999999999999-1"})
    EXPECT_EQ(temporary_owner(name), 0) << name;
}

TEST(RemoveOrphans, RemovesWhatDeadProcessesLeftAndNothingElse) {
  TempDir dir;
  const std::string dead = std::to_string(dead_pid());
  const std::string live = std::to_string(::getpid());
  const fs::path orphan_file = dir.path() / ("a.pch.opscan-" + dead + "-0");
  const fs::path orphan_dir = dir.path() / ("opscan-pch-" + dead + "-AbCdEf");
  const fs::path live_file = dir.path() / ("a.pch.opscan-" + live + "-0");
  const fs::path not_ours = dir.path() / ("b.h.opscan-" + dead + "-0");
  const fs::path link = dir.path() / ("c.pch.opscan-" + dead + "-0");
  const fs::path target = dir.path() / "kept";
  for (const fs::path& file : {orphan_file, live_file, not_ours, target})
    write_file(file, "x");
  fs::create_directories(orphan_dir / "deep");
  write_file(orphan_dir / "deep" / "header.pch", "x");
  fs::create_symlink(target, link);

  auto ours = [](std::string_view name) {
    return name.find(".pch.") != name.npos || name.starts_with("opscan-");
  };
  remove_orphans(dir.path(), Orphan::file, ours);
  EXPECT_FALSE(fs::exists(orphan_file));
  EXPECT_TRUE(fs::exists(orphan_dir / "deep" / "header.pch")); // not a file
  remove_orphans(dir.path(), Orphan::directory, ours);
  EXPECT_FALSE(fs::exists(orphan_dir));
  EXPECT_TRUE(fs::exists(live_file));
  EXPECT_TRUE(fs::exists(not_ours)); // the filter refused it
  EXPECT_TRUE(fs::is_symlink(link)); // a link is never an orphan
  EXPECT_EQ(opscan::testing::read_file(target), "x");
}

TEST(RemoveOrphans, AMissingDirectoryIsNothingToDo) {
  TempDir dir;
  remove_orphans(dir.path() / "missing", Orphan::file, [](std::string_view) { return true; });
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

// Each case runs in a child process: the first private directory a process
// makes is the one that sweeps TMPDIR.
TEST(PrivateDirectoryDeathTest, IsPrivateRemovedAtItsEndAndTheFirstSweepsOrphans) {
  TempDir tmp;
  const fs::path orphan = tmp.path() / ("opscan-lsp-" + std::to_string(dead_pid()) + "-AbCdEf");
  const fs::path someone_elses = tmp.path() / "opscan-XXXXXX";
  fs::create_directories(orphan);
  fs::create_directories(someone_elses);
  write_file(orphan / "preamble.pch", "x");
  EXPECT_EXIT(
      {
        ::setenv("TMPDIR", tmp.path().c_str(), 1);
        fs::path made;
        {
          std::optional<PrivateDirectory> dir = PrivateDirectory::make("pch");
          if (!dir || fs::exists(orphan) || !fs::exists(someone_elses))
            std::exit(1);
          made = dir->path();
          struct stat st;
          if (made.parent_path() != tmp.path() || ::stat(made.c_str(), &st) != 0 ||
              (st.st_mode & 0777) != 0700 ||
              temporary_owner(made.filename().string()) != ::getpid())
            std::exit(2);
          fs::create_directories(made / "inner");
          write_file(made / "inner" / "file", "x");
        }
        std::exit(fs::exists(made) ? 3 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(PrivateDirectoryDeathTest, AnUnusableTmpdirSaysWhy) {
  TempDir tmp;
  write_file(tmp.path() / "a-file", "x");
  EXPECT_EXIT(
      {
        ::setenv("TMPDIR", (tmp.path() / "a-file").c_str(), 1);
        std::string error;
        const bool made = PrivateDirectory::make("pch", &error).has_value();
        std::exit(!made && error == "no temporary directory (TMPDIR: Not a directory)" ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

} // namespace
