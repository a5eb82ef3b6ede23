// An interrupted generation leaves the old set of files or the new one, never
// a mix, and the next run leaves exactly the new one. Finding 7 of issue 23:
// a signal between the renames of a generation (Ctrl-C in Ninja, a CI
// time-out, SIGTERM, SIGHUP) left new RegisterKernels.* beside an old
// Functions.h and ir.json, plus temporaries no later run removed; `ulimit -f`
// killed opscan with SIGXFSZ halfway through its writes.
//
// strace injects the signal at each rename of a generation in turn (the real
// opscan binary, a real generation that changes every file of the library);
// the files are then compared with those of a clean run of the old and of
// the new source.
#include "files.h"

#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

using opscan::testing::read_file;
using opscan::testing::TempDir;

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const std::string kStrace = OPSCAN_STRACE;
// LeakSanitizer cannot run under ptrace: a sanitized opscan that strace
// traces keeps AddressSanitizer's other checks only (later options win).
std::string leak_checks_off() {
  const char* asan = std::getenv("ASAN_OPTIONS");
  return std::string("ASAN_OPTIONS=") + (asan ? std::string(asan) + ":" : "") + "detect_leaks=0";
}
// The rename system calls: glibc's rename() is `rename` on x86-64, opscan
// calls renameat(); other C libraries and architectures use renameat2.
const std::string kRenames = "rename,renameat,renameat2";

// How a command ended, and what it printed on stderr.
struct Ended {
  int exit_code = -1; // -1: killed
  int signal = 0;     // the signal that killed it
  std::string err;
};

// Runs `argv` in `dir` as a build tool starts it: stdin /dev/null, the
// interrupting signals at their defaults. Under timeout(1) (which dies of
// its command's signal), so that a hang fails instead of blocking.
Ended run(const fs::path& dir, const std::vector<std::string>& argv) {
  TempDir io;
  std::vector<std::string> all = {"timeout", "-k", "5", "60"};
  all.insert(all.end(), argv.begin(), argv.end());
  std::vector<char*> args;
  for (std::string& arg : all)
    args.push_back(arg.data());
  args.push_back(nullptr);
  const std::string err = io.file("err");
  const pid_t child = ::fork();
  if (child == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
      ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open("/dev/null", O_WRONLY);
    const int error = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || error < 0 || ::chdir(dir.c_str()) != 0 || ::dup2(in, 0) < 0 ||
        ::dup2(out, 1) < 0 || ::dup2(error, 2) < 0)
      ::_exit(127);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  Ended ended;
  if (child < 0 || ::waitpid(child, &status, 0) != child)
    return ended;
  if (WIFEXITED(status))
    ended.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    ended.signal = WTERMSIG(status);
  ended.err = read_file(err);
  return ended;
}

using Files = std::map<std::string, std::string>;

// Every entry under `dir`: a regular file's content, or what else it is.
// Equal maps mean the same files, and nothing beside them (no temporary).
Files contents(const fs::path& dir) {
  Files out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    out[fs::relative(entry.path(), dir).string()] = entry.is_symlink() ? "<link>"
                                                    : entry.is_regular_file()
                                                        ? read_file(entry.path())
                                                    : entry.is_directory() ? "<directory>"
                                                                           : "<other>";
  }
  return out;
}

// How `now` differs from `expected`, by name ("" when equal): short enough
// for a failure message.
std::string differences(const Files& now, const Files& expected) {
  std::string out;
  for (const auto& [name, content] : now) {
    auto it = expected.find(name);
    if (it == expected.end())
      out += " extra " + name + ";";
    else if (it->second != content)
      out += " changed " + name + ";";
  }
  for (const auto& [name, content] : expected) {
    if (!now.count(name))
      out += " missing " + name + ";";
  }
  return out;
}

// k.cpp's library generated into out/t (the old set), then k.cpp edited so
// that every file of the library changes (the new set).
class InterruptedGeneration : public ::testing::Test {
protected:
  void SetUp() override {
    if (::access(kStrace.c_str(), X_OK) != 0)
      GTEST_SKIP() << kStrace << " is not installed (scripts/setup.sh installs it): no signal "
                   << "can be injected between the renames";
    dir_.write("k.cpp", read_file(kRepo / "test/cli/inputs/good.cpp"));
    Ended first = run(dir_.path(), opscan());
    ASSERT_EQ(first.exit_code, 0) << first.err;
    old_ = contents(dir_.path() / "out");
    fs::copy(dir_.path() / "out", refs_.path() / "old", fs::copy_options::recursive);

    dir_.write("k.cpp", read_file(dir_.path() / "k.cpp") +
                            "OPSCAN_KERNEL(\"demo::abs.out\")\nTensor& abs_out("
                            "KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n");
    const fs::path trace = refs_.path() / "renames.txt";
    std::vector<std::string> traced = {kStrace,
                                       "-f",
                                       "-qq",
                                       "-E",
                                       leak_checks_off(),
                                       "-o",
                                       trace.string(),
                                       "-e",
                                       "trace=" + kRenames};
    Ended second = run(dir_.path(), opscan(traced));
    ASSERT_EQ(second.exit_code, 0) << second.err;
    new_ = contents(dir_.path() / "out");

    // The premise: every file of the library changed, and each was renamed
    // into place once.
    size_t files = 0;
    for (const auto& [name, content] : new_) {
      if (content == "<directory>")
        continue;
      ++files;
      ASSERT_TRUE(old_.count(name) && old_.at(name) != content) << name << " did not change";
    }
    const std::string lines = read_file(trace);
    for (size_t at = lines.find("rename"); at != std::string::npos;
         at = lines.find("rename", lines.find('\n', at)))
      ++renames_;
    ASSERT_EQ(renames_, files) << lines;
  }

  // opscan run of k.cpp into out/, after `before` (strace and its options).
  std::vector<std::string> opscan(std::vector<std::string> before = {}) const {
    for (const char* arg : {OPSCAN_BINARY, "run", "k.cpp", "--registration", "named", "--lib", "t",
                            "-o", "out", "--"})
      before.push_back(arg);
    before.push_back("-I" + (kRepo / "include").string());
    before.push_back("-I" + (kRepo / "examples/include").string());
    return before;
  }

  // out/ as the first generation left it.
  void restore_old() {
    fs::remove_all(dir_.path() / "out");
    fs::copy(refs_.path() / "old", dir_.path() / "out", fs::copy_options::recursive);
  }

  // The generation of the edited k.cpp over the old set, with `signal` sent
  // to opscan as its n-th rename begins.
  Ended interrupted(const std::string& signal, size_t n) {
    restore_old();
    return run(dir_.path(),
               opscan({kStrace, "-f", "-qq", "-E", leak_checks_off(), "-o", "/dev/null", "-e",
                       "trace=" + kRenames, "-e",
                       "inject=" + kRenames + ":signal=" + signal + ":when=" + std::to_string(n)}));
  }

  // For each rename: the process dies of `sig`, and out/ holds exactly the
  // old set or exactly the new one.
  void between_every_rename(int sig, const std::string& name) {
    for (size_t n = 1; n <= renames_; ++n) {
      SCOPED_TRACE(name + " at rename " + std::to_string(n) + " of " + std::to_string(renames_));
      const Ended ended = interrupted(name, n);
      EXPECT_EQ(ended.signal, sig) << "exit code " << ended.exit_code << "\n" << ended.err;
      const auto now = contents(dir_.path() / "out");
      EXPECT_TRUE(now == old_ || now == new_)
          << "the output mixes the two sets, or holds a temporary; against the old set:"
          << differences(now, old_) << " against the new set:" << differences(now, new_);
    }
  }

  TempDir dir_;
  TempDir refs_;
  Files old_, new_;
  size_t renames_ = 0;
};

TEST_F(InterruptedGeneration, SigtermBetweenTheRenamesLeavesOneWholeSet) {
  between_every_rename(SIGTERM, "SIGTERM");
}

TEST_F(InterruptedGeneration, SigintBetweenTheRenamesLeavesOneWholeSet) {
  between_every_rename(SIGINT, "SIGINT");
}

TEST_F(InterruptedGeneration, SighupBetweenTheRenamesLeavesOneWholeSet) {
  between_every_rename(SIGHUP, "SIGHUP");
}

// SIGKILL cannot be held: the set may be mixed, with the dead process's
// temporaries beside it. The next run repairs it (it rewrites every file
// whose content differs) and removes them.
TEST_F(InterruptedGeneration, AfterSigkillTheNextRunLeavesTheNewSet) {
  for (size_t n = 1; n <= renames_; ++n) {
    SCOPED_TRACE("SIGKILL at rename " + std::to_string(n) + " of " + std::to_string(renames_));
    const Ended killed = interrupted("SIGKILL", n);
    EXPECT_EQ(killed.signal, SIGKILL) << killed.err;
    const Ended next = run(dir_.path(), opscan());
    EXPECT_EQ(next.exit_code, 0) << next.err;
    EXPECT_EQ(differences(contents(dir_.path() / "out"), new_), "");
  }
}

// ulimit -f: a write past the limit fails (EFBIG) instead of killing opscan
// with SIGXFSZ; the generation fails as an I/O error, everything undone.
TEST_F(InterruptedGeneration, AFileSizeLimitFailsTheGenerationAndChangesNothing) {
  // 4 blocks: 2 KiB where the shell counts 512-byte blocks (dash), 4 KiB
  // where it counts KiB (bash). Some files of the new set fit, one does not.
  size_t smallest = SIZE_MAX, largest = 0;
  for (const auto& [name, content] : new_) {
    if (content != "<directory>") {
      smallest = std::min(smallest, content.size());
      largest = std::max(largest, content.size());
    }
  }
  ASSERT_LT(smallest, 2048u);
  ASSERT_GT(largest, 4096u);
  restore_old();
  std::vector<std::string> limited = {"sh", "-c", "ulimit -f 4 && exec \"$@\"", "sh"};
  for (const std::string& arg : opscan())
    limited.push_back(arg);
  const Ended ended = run(dir_.path(), limited);
  EXPECT_EQ(ended.exit_code, 3) << "signal " << ended.signal << "\n" << ended.err;
  EXPECT_NE(ended.err.find("opscan: error: cannot write out/t/"), std::string::npos) << ended.err;
  EXPECT_NE(ended.err.find(": File too large (no output was changed) [opscan-io]"),
            std::string::npos)
      << ended.err;
  EXPECT_EQ(differences(contents(dir_.path() / "out"), old_), "");
}

// A scan killed while it holds temporaries outside its declared outputs (a
// private directory in TMPDIR, a precompiled header being saved into the
// cache) leaves them behind; the next run removes them, and only them.
class KilledScan : public ::testing::Test {
protected:
  void SetUp() override {
    if (::access(kStrace.c_str(), X_OK) != 0)
      GTEST_SKIP() << kStrace << " is not installed (scripts/setup.sh installs it)";
    // Seven files sharing enough #include lines for a precompiled header.
    for (const char* name : {"a", "b", "c", "d", "e", "f", "g"}) {
      dir_.write(std::string(name) + ".cpp",
                 "#include <map>\n#include <vector>\n#include <functional>\n"
                 "#include <opscan/annotations.h>\n#include <opscan_examples/executorch_types.h>\n"
                 "using executorch::aten::Tensor;\nOPSCAN_KERNEL(\"t::" +
                     std::string(name) + ".out\")\nTensor& " + name +
                     "_out(const Tensor& self, Tensor& out);\n");
      files_.push_back(std::string(name) + ".cpp");
    }
    fs::create_directories(dir_.path() / "tmp");
  }

  // opscan `command` with TMPDIR=tmp, after `before` (strace and its options).
  std::vector<std::string> opscan(const std::vector<std::string>& command,
                                  std::vector<std::string> before = {}) const {
    std::vector<std::string> all = {"env", "TMPDIR=" + (dir_.path() / "tmp").string()};
    all.insert(all.end(), before.begin(), before.end());
    all.push_back(OPSCAN_BINARY);
    all.insert(all.end(), command.begin(), command.end());
    for (const char* flag : {"--", "-std=c++17"})
      all.push_back(flag);
    all.push_back("-I" + (kRepo / "include").string());
    all.push_back("-I" + (kRepo / "examples/include").string());
    return all;
  }

  std::vector<std::string> scan(const std::vector<std::string>& options) const {
    std::vector<std::string> command = {"scan", "-o", "ir.json"};
    command.insert(command.end(), options.begin(), options.end());
    command.insert(command.end(), files_.begin(), files_.end());
    return command;
  }

  // `command` killed by SIGKILL at the n-th of `calls`.
  Ended killed(const std::vector<std::string>& command, const std::string& calls, size_t n) const {
    return run(dir_.path(),
               opscan(command, {kStrace, "-f", "-qq", "-E", leak_checks_off(), "-o", "/dev/null",
                                "-e", "trace=" + calls, "-e",
                                "inject=" + calls + ":signal=SIGKILL:when=" + std::to_string(n)}));
  }

  // The names under `dir` that carry a process's mark.
  static std::vector<std::string> temporaries(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.find("opscan-") != std::string::npos)
        out.push_back(fs::relative(entry.path(), dir).string());
    }
    return out;
  }

  TempDir dir_;
  std::vector<std::string> files_;
};

TEST_F(KilledScan, APchCommandsPrivateDirectoryIsRemovedByTheNextRun) {
  const std::vector<std::string> pch = {
      "pch", (kRepo / "examples/include/opscan_examples/executorch_types.h").string(), "-o",
      "h.pch"};
  const Ended first = killed(pch, "unlink,unlinkat,rmdir", 1);
  ASSERT_EQ(first.signal, SIGKILL) << first.err;
  ASSERT_FALSE(temporaries(dir_.path() / "tmp").empty()) << "the premise: it left its directory";
  // Any command that parses removes it, even one that makes no private
  // directory itself (a scan of one file).
  const Ended next = run(dir_.path(), opscan({"scan", "-o", "ir.json", "a.cpp"}));
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(temporaries(dir_.path() / "tmp"), std::vector<std::string>{});
}

// The preambles libclang keeps for files that share their first lines are
// files in TMPDIR, which a scan points at a private directory.
TEST_F(KilledScan, AScansPreamblesAreRemovedByTheNextRun) {
  const Ended first = killed(scan({}), "unlink,unlinkat,rmdir", 1);
  ASSERT_EQ(first.signal, SIGKILL) << first.err;
  ASSERT_FALSE(temporaries(dir_.path() / "tmp").empty()) << "the premise: it left its preamble";
  const Ended next = run(dir_.path(), opscan(scan({})));
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(temporaries(dir_.path() / "tmp"), std::vector<std::string>{});
}

// libclang saves a header to a temporary of its own beside the one opscan
// names, then renames it: a kill at either rename leaves one in the cache.
TEST_F(KilledScan, AHeaderBeingSavedIntoTheCacheIsRemovedByTheNextRun) {
  std::vector<std::string> cached = {"pch", "--shared", "--cache", "cache", "-o", "list.txt"};
  cached.insert(cached.end(), files_.begin(), files_.end());
  for (size_t n : {1, 2}) { // strace counts each system call apart: these are rename(2)s
    SCOPED_TRACE("SIGKILL at rename " + std::to_string(n));
    fs::remove_all(dir_.path() / "cache");
    const Ended first = killed(cached, kRenames, n);
    ASSERT_EQ(first.signal, SIGKILL) << first.err;
    ASSERT_FALSE(temporaries(dir_.path() / "cache").empty()) << "the premise: a header was saving";
    const Ended next = run(dir_.path(), opscan(cached));
    EXPECT_EQ(next.exit_code, 0) << next.err;
    EXPECT_EQ(temporaries(dir_.path() / "cache"), std::vector<std::string>{});
    EXPECT_EQ(temporaries(dir_.path() / "tmp"), std::vector<std::string>{});
  }
}

} // namespace
