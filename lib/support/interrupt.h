// Signals that end a run (Ctrl-C in a build, a CI time-out, a closed
// terminal) wait for a set of files being committed to be whole, so an
// interrupted generation leaves either the old set or the new one; the
// process then dies of the signal, so the build tool sees why it stopped.
#pragma once

namespace opscan::support {

// For programs (tool/main.cpp), once, at the start of main: SIGINT, SIGTERM,
// SIGHUP and SIGQUIT are held while a CriticalSection exists, then end the
// process as they would have; SIGXFSZ is ignored, so that a file size limit
// (ulimit -f) fails a write with EFBIG, which write_files undoes, instead of
// killing the process between two writes. A signal ignored at start stays
// ignored (nohup, a background job of a non-interactive shell).
void hold_interrupts_during_commits();

// A commit in progress (support::write_files holds one from its first
// directory to its last rename or undo). While any exists, a signal the
// handlers above caught is kept pending; when the last one ends, the process
// dies of it. A section begun after such a signal arrived never returns:
// the process dies before it writes anything. Without the handlers (library
// users, tests) it changes nothing.
class CriticalSection {
public:
  CriticalSection();
  ~CriticalSection();
  CriticalSection(const CriticalSection&) = delete;
  CriticalSection& operator=(const CriticalSection&) = delete;
};

} // namespace opscan::support
