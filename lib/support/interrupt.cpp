// Holding SIGINT, SIGTERM, SIGHUP and SIGQUIT while a set of files is committed.
#include "support/interrupt.h"

#include <atomic>
#include <csignal>
#include <pthread.h>
#include <unistd.h>

namespace opscan::support {
namespace {

// Only lock-free atomics may be touched from a signal handler.
static_assert(std::atomic<int>::is_always_lock_free);

// The signal caught and not yet acted on (0: none), and the commits in
// progress. Sequentially consistent, so no signal is lost: the handler sets
// `pending` before it reads `commits`, and a section's end lowers `commits`
// before it reads `pending`; so either the handler sees no commit and ends
// the process itself, or the last section to end sees the signal.
std::atomic<int> pending{0};
std::atomic<int> commits{0};

// Ends the process of `sig` the way it would have without a handler (async-
// signal-safe: called from the handler too, where the signal is blocked).
void die_of(int sig) {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(sig, &action, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(sig);
}

void on_signal(int sig) {
  pending.store(sig);
  if (commits.load() == 0)
    die_of(sig);
}

// The end of a section: the last one acts on a pending signal.
void leave() {
  if (commits.fetch_sub(1) == 1) {
    if (int sig = pending.load())
      die_of(sig);
  }
}

} // namespace

void hold_interrupts_during_commits() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN)
      continue;
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(sig, &action, nullptr);
  }
  ::signal(SIGXFSZ, SIG_IGN);
}

CriticalSection::CriticalSection() {
  commits.fetch_add(1);
  if (pending.load() == 0)
    return;
  // The process is dying of a signal: start nothing. The last commit still
  // in progress (another thread's, if any) ends the process.
  leave();
  for (;;)
    ::pause();
}

CriticalSection::~CriticalSection() {
  leave();
}

} // namespace opscan::support
