// Tests for lib/support/interrupt: a signal that arrives during a commit
// waits for its end, and the process then dies of it. Each runs in a child
// process (a death test) that installs the handlers as the tool does; a
// statement that ends with exit(0) shows the process did not die there.
#include "support/interrupt.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

namespace {

using opscan::support::CriticalSection;
using opscan::support::hold_interrupts_during_commits;

// To stderr, unbuffered: what a death test matches.
void say(const char* text) {
  (void)!::write(2, text, std::strlen(text));
}

// SIGQUIT's default action dumps core: not in the test's directory.
void no_core_files() {
  const rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
}

TEST(InterruptDeathTest, OutsideACommitASignalEndsTheProcessAtOnce) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    SCOPED_TRACE(sig);
    EXPECT_EXIT(
        {
          no_core_files();
          hold_interrupts_during_commits();
          ::raise(sig);
          std::exit(0);
        },
        ::testing::KilledBySignal(sig), "");
  }
}

TEST(InterruptDeathTest, DuringACommitASignalWaitsForItsEnd) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    SCOPED_TRACE(sig);
    EXPECT_EXIT(
        {
          no_core_files();
          hold_interrupts_during_commits();
          {
            CriticalSection commit;
            ::raise(sig);
            ::raise(sig); // twice: still one death, at the end
            say("committed;");
          }
          std::exit(0);
        },
        ::testing::KilledBySignal(sig), "^committed;$");
  }
}

TEST(InterruptDeathTest, TheLastOfSeveralCommitsEndsTheProcess) {
  EXPECT_EXIT(
      {
        hold_interrupts_during_commits();
        {
          CriticalSection outer;
          {
            CriticalSection inner;
            ::raise(SIGTERM);
            say("inner;");
          }
          say("outer;");
        }
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "^inner;outer;$");
}

// A commit begun (on another thread) after the signal arrived writes
// nothing: it waits for the process to die with the one in progress.
TEST(InterruptDeathTest, NoCommitBeginsAfterTheSignal) {
  EXPECT_EXIT(
      {
        hold_interrupts_during_commits();
        {
          CriticalSection first;
          ::raise(SIGTERM);
          std::thread late([] {
            CriticalSection second;
            say("late commit;");
          });
          late.detach();
          say("first;");
        }
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "^first;$");
}

// Library users and tests, without the handlers: signals act at once.
TEST(InterruptDeathTest, WithoutTheHandlersNothingChanges) {
  EXPECT_EXIT(
      {
        CriticalSection commit;
        ::raise(SIGTERM);
        say("committed;");
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "^$");
}

// nohup, or a background job of a non-interactive shell.
TEST(InterruptDeathTest, ASignalIgnoredAtStartStaysIgnored) {
  EXPECT_EXIT(
      {
        ::signal(SIGHUP, SIG_IGN);
        hold_interrupts_during_commits();
        ::raise(SIGHUP);
        {
          CriticalSection commit;
          ::raise(SIGHUP);
        }
        say("ignored;");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "^ignored;$");
}

// ulimit -f: a write past the limit fails (EFBIG) instead of killing the
// process with SIGXFSZ, so a transaction can be undone.
TEST(InterruptDeathTest, AFileSizeLimitFailsTheWrite) {
  EXPECT_EXIT(
      {
        hold_interrupts_during_commits();
        rlimit limit;
        ::getrlimit(RLIMIT_FSIZE, &limit);
        limit.rlim_cur = 16;
        ::setrlimit(RLIMIT_FSIZE, &limit);
        char name[] = "/tmp/opscan-fsize-XXXXXX";
        const int fd = ::mkstemp(name);
        ::unlink(name);
        const char block[64] = {};
        const ssize_t first = ::write(fd, block, sizeof block); // short: up to the limit
        const ssize_t second = ::write(fd, block, sizeof block);
        say(first == 16 && second < 0 && errno == EFBIG ? "EFBIG;" : "other;");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "^EFBIG;$");
}

} // namespace
