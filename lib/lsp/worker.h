// The language server's analysis worker: a child process (the opscan
// binary, `opscan lsp --worker`) that runs every analysis (analysis.h), so
// that libclang never runs in the server. A crash, a fatal error or a hang
// of libclang ends or stops the worker, never the server: each call has a
// time limit, after which the worker is killed; the next call starts a new
// one. The worker keeps its parsed units between calls (preambles stay
// warm across edits) and writes its temporary files (libclang's preambles)
// in a private directory the server removes whenever the worker ends.
#pragma once

#include "lsp/protocol.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace opscan::lsp {

// How to start the worker: the program and its arguments (argv[0] first).
struct WorkerCommand {
  std::string program;
  std::vector<std::string> args;
};

struct WorkerOutcome {
  enum class Kind {
    answered,    // `answer` is set
    timed_out,   // killed after the time limit
    crashed,     // ended without an answer (`why` says how)
    interrupted, // interrupt() was called
  };
  Kind kind = Kind::answered;
  Json answer;
  std::string why; // "killed by signal SIGSEGV (Segmentation fault)", "exited with code 1", ...
};

class Worker {
public:
  // `hello`: the first message each new worker process gets.
  Worker(WorkerCommand command, Json hello);
  ~Worker(); // kills the worker and removes its directory
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Sends `request` and waits at most `limit` for its answer, starting a
  // worker first if none runs. On a time-out or a crash the worker is gone
  // (killed, reaped, its temporary directory removed) when this returns.
  WorkerOutcome call(const Json& request, std::chrono::milliseconds limit);

  // From another thread: makes the waiting call (and every later one) end
  // at once with `interrupted`. For the server's exit.
  void interrupt();

private:
  struct Process;
  std::unique_ptr<Process> spawn(std::string& why);
  void stop();
  WorkerCommand command_;
  Json hello_;
  std::unique_ptr<Process> process_;
  int interrupt_[2] = {-1, -1}; // a pipe: a byte written ends the wait
};

// The worker's side (`opscan lsp --worker`, started by Worker): answers
// analysis requests on descriptor 3 until the server closes it (0; also at
// a message it cannot read), or its server is gone (1). The worker dies
// with its server.
int serve_worker();

} // namespace opscan::lsp
