// The command line of `opscan lsp` and its worker: the server on stdin and stdout.
#include "lsp_command.h"

#include "lsp/protocol.h"
#include "lsp/server.h"
#include "lsp/worker.h"
#include "stdout.h"
#include "support/temporaries.h"

#include <cerrno>
#include <csignal>
#include <malloc.h>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace opscan::tool {
namespace {

// Writes all of `data` to stdout; false when the client has gone.
bool write_all(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(stdout_descriptor(), data.data(), data.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Editors stop a server with SIGTERM (a closed terminal sends SIGHUP,
// Ctrl-C SIGINT). Dying of it at once left the worker's private directory
// in TMPDIR until a later run swept it: the signals are taken by one thread
// (blocked in the others, which inherit the mask before they start), which
// removes the private directories and then lets the signal end the process
// as it would have (the worker dies with its parent). A signal ignored at
// start (nohup) stays ignored.
void remove_temporaries_when_stopped() {
  sigset_t stopping;
  sigemptyset(&stopping);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler != SIG_IGN)
      sigaddset(&stopping, signal);
  }
  ::pthread_sigmask(SIG_BLOCK, &stopping, nullptr);
  std::thread([stopping] {
    int signal = 0;
    if (::sigwait(&stopping, &signal) != 0)
      return;
    support::remove_private_directories();
    std::signal(signal, SIG_DFL);
    sigset_t just;
    sigemptyset(&just);
    sigaddset(&just, signal);
    ::pthread_sigmask(SIG_UNBLOCK, &just, nullptr);
    std::raise(signal);
  }).detach();
}

} // namespace

int run_lsp(const LspArgs& args) {
  if (args.worker) {
    // Each re-parse allocates and frees large blocks; by default glibc maps
    // and unmaps each one, and unmapping (a TLB flush on every core) cost a
    // fifth of a re-parse. Kept in the heap, they are reused by the next one.
    ::mallopt(M_MMAP_THRESHOLD, 64 << 20);
    ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
    return lsp::serve_worker();
  }
  remove_temporaries_when_stopped();
  support::remove_orphaned_private_directories();
  std::mutex out;
  lsp::ServerOptions options;
  options.compilation_database_dir = args.compilation_database_dir;
  options.debounce = std::chrono::milliseconds(args.debounce_ms);
  options.analysis_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(args.analysis_timeout * 1000 + 0.5));
  // The worker is this very binary (even if the file was replaced since).
  options.worker = {"/proc/self/exe", {"opscan", "lsp", "--worker"}};
  lsp::Server server(
      [&out](const lsp::Json& message) {
        const std::string framed = lsp::frame(message);
        std::lock_guard lock(out);
        write_all(framed);
      },
      options);
  lsp::FrameReader reader([](char* buffer, size_t size) -> size_t {
    for (;;) {
      const ssize_t n = ::read(STDIN_FILENO, buffer, size);
      if (n < 0 && errno == EINTR)
        continue;
      return n < 0 ? 0 : static_cast<size_t>(n);
    }
  });
  while (!server.exited()) {
    lsp::Frame frame = reader.next();
    if (!frame.error.empty())
      server.receive_error(frame.error);
    if (frame.body)
      server.receive(*frame.body);
    if (frame.end)
      break;
  }
  // The input ended without `exit`: the client is gone (exit code 1, as
  // after an exit without shutdown).
  return server.exited() ? server.exit_code() : 1;
}

} // namespace opscan::tool
