// The analysis worker process: started, called with a time limit, killed.
#include "lsp/worker.h"

#include "lsp/analysis.h"
#include "support/temporaries.h"

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;

namespace opscan::lsp {
namespace {

using Clock = std::chrono::steady_clock;

// The server and its worker trust each other: an analysis of a file of
// 100,000 kernels answers with more than a client may send.
constexpr size_t kMaxWorkerMessage = size_t{1} << 31;

// The worker's end of its socket.
constexpr int kWorkerFd = 3;

void close_fd(int& fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::sigabbrev_np(sig);
    return fmt::format("killed by signal {} ({})",
                       name ? "SIG" + std::string(name) : std::to_string(sig), ::strsignal(sig));
  }
  if (WIFEXITED(status))
    return fmt::format("exited with code {}", WEXITSTATUS(status));
  return "ended";
}

enum class Wait { ready, timed_out, interrupted };

// Waits until `fd` is ready for `events`, the deadline passes or the
// interrupt pipe has a byte.
Wait wait_for(int fd, short events, Clock::time_point deadline, int interrupt) {
  for (;;) {
    pollfd fds[2] = {{fd, events, 0}, {interrupt, POLLIN, 0}};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0)
      return Wait::timed_out;
    const int n = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 60000)));
    if (n < 0 && errno != EINTR)
      return Wait::interrupted; // cannot wait: give up as if told to
    if (n <= 0)
      continue;
    if (fds[1].revents != 0)
      return Wait::interrupted;
    if (fds[0].revents != 0)
      return Wait::ready; // readable, writable, or closed (read/send say which)
  }
}

} // namespace

struct Worker::Process {
  pid_t pid = -1;
  int fd = -1; // the server's end of the socket
  // The worker's TMPDIR (libclang's preambles), when one could be made.
  std::optional<support::PrivateDirectory> directory;
  std::unique_ptr<FrameReader> reader;
  // For the reader, while a call waits.
  Clock::time_point deadline;
  int interrupt = -1;
  Wait waited = Wait::ready;

  ~Process() { end(); }

  // Kills the worker (if it still runs), reaps it, and removes its
  // directory; how it ended.
  std::string end(bool kill = true) {
    std::string how;
    if (pid > 0) {
      int status = 0;
      pid_t r = 0;
      if (!kill) {
        // It closed its end: give it a moment to finish ending by itself,
        // so its own way of ending is what is reported.
        for (int i = 0; i < 100 && (r = ::waitpid(pid, &status, WNOHANG)) == 0; ++i)
          ::usleep(10000);
      }
      if (r == 0 || kill) {
        ::kill(pid, SIGKILL);
        while ((r = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
        }
      }
      how = r == pid ? describe_status(status) : "ended";
      pid = -1;
    }
    close_fd(fd);
    directory.reset();
    return how;
  }
};

Worker::Worker(WorkerCommand command, Json hello)
    : command_(std::move(command)), hello_(std::move(hello)) {
  if (::pipe2(interrupt_, O_CLOEXEC | O_NONBLOCK) != 0)
    interrupt_[0] = interrupt_[1] = -1;
  hello_["parent"] = ::getpid();
}

Worker::~Worker() {
  stop();
  close_fd(interrupt_[0]);
  close_fd(interrupt_[1]);
}

void Worker::stop() {
  process_.reset();
}

void Worker::interrupt() {
  if (interrupt_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(interrupt_[1], &byte, 1);
  }
}

WorkerOutcome Worker::call(const Json& request, std::chrono::milliseconds limit) {
  const Clock::time_point deadline = Clock::now() + limit;
  auto interrupted = [&] {
    stop();
    return WorkerOutcome{WorkerOutcome::Kind::interrupted, {}, "interrupted"};
  };
  auto crashed = [&](std::string why, bool kill) {
    std::string how = process_ ? process_->end(kill) : std::string();
    process_.reset();
    if (!how.empty())
      why = why.empty() ? how : why + "; it " + how;
    return WorkerOutcome{WorkerOutcome::Kind::crashed, {}, why};
  };
  {
    pollfd p{interrupt_[0], POLLIN, 0};
    if (interrupt_[0] < 0 || ::poll(&p, 1, 0) != 0)
      return interrupted();
  }
  // A worker that ended while idle (killed from outside) is replaced: its
  // end is not this request's doing.
  if (process_ && ::waitpid(process_->pid, nullptr, WNOHANG) == process_->pid) {
    process_->pid = -1;
    stop();
  }
  const std::string message = frame(request);
  bool fresh = false;
  if (!process_) {
    std::string why;
    process_ = spawn(why);
    if (!process_)
      return WorkerOutcome{WorkerOutcome::Kind::crashed, {}, why};
    fresh = true;
  }
  Process& p = *process_;
  p.deadline = deadline;
  p.interrupt = interrupt_[0];

  // Send the request (after the hello, to a new worker).
  const std::string hello = fresh ? frame(hello_) : std::string();
  for (std::string_view left : {std::string_view(hello), std::string_view(message)}) {
    while (!left.empty()) {
      const ssize_t n = ::send(p.fd, left.data(), left.size(), MSG_NOSIGNAL);
      if (n > 0) {
        left.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        switch (wait_for(p.fd, POLLOUT, deadline, interrupt_[0])) {
        case Wait::ready:
          continue;
        case Wait::timed_out:
          stop();
          return WorkerOutcome{WorkerOutcome::Kind::timed_out, {}, "timed out"};
        case Wait::interrupted:
          return interrupted();
        }
      }
      return crashed("", false); // it closed its end: it ended
    }
  }

  // Wait for the answer.
  p.waited = Wait::ready;
  Frame answer = p.reader->next();
  if (answer.body) {
    Parsed parsed = parse_message(*answer.body);
    if (parsed.json.is_object())
      return WorkerOutcome{WorkerOutcome::Kind::answered, std::move(parsed.json), {}};
    return crashed("it answered with something that is not a JSON object", true);
  }
  if (p.waited == Wait::timed_out) {
    stop();
    return WorkerOutcome{WorkerOutcome::Kind::timed_out, {}, "timed out"};
  }
  if (p.waited == Wait::interrupted)
    return interrupted();
  if (!answer.error.empty() && !answer.end)
    return crashed("it answered with a malformed message: " + answer.error, true);
  return crashed("", false);
}

std::unique_ptr<Worker::Process> Worker::spawn(std::string& why) {
  auto p = std::make_unique<Process>();
  p->directory = support::PrivateDirectory::make("lsp");

  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    why = fmt::format("could not be started (a socket for it: {})", std::strerror(errno));
    return nullptr;
  }
  p->fd = sockets[0];
  // The child's end is moved to 3 there; kept above it here so that the
  // dup2 is never of a descriptor onto itself (which would keep it
  // close-on-exec).
  int child = ::fcntl(sockets[1], F_DUPFD_CLOEXEC, 10);
  ::close(sockets[1]);
  if (child < 0) {
    why = fmt::format("could not be started (a socket for it: {})", std::strerror(errno));
    return nullptr;
  }
  ::fcntl(p->fd, F_SETFL, ::fcntl(p->fd, F_GETFL) | O_NONBLOCK);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Nothing to read on stdin; whatever libclang prints goes to the
  // server's stderr (the editor's log), never into a protocol stream.
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, child, kWorkerFd);
  // The worker starts as a fresh process would: no signal blocked, none
  // ignored (the server ignores SIGPIPE; a worker whose server is gone
  // should end).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> environment;
  for (char** e = environ; e && *e; ++e) {
    if (p->directory && std::string_view(*e).starts_with("TMPDIR="))
      continue;
    environment.emplace_back(*e);
  }
  if (p->directory)
    environment.push_back("TMPDIR=" + p->directory->path().string());
  std::vector<char*> envp;
  for (std::string& e : environment)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command_.args;
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  const int error = ::posix_spawn(&pid, command_.program.c_str(), &actions, &attributes,
                                  argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(child);
  if (error != 0) {
    why = fmt::format("could not be started ({}: {})", command_.program, std::strerror(error));
    return nullptr;
  }
  p->pid = pid;
  Process* raw = p.get();
  p->reader = std::make_unique<FrameReader>(
      [raw](char* buffer, size_t size) -> size_t {
        for (;;) {
          const ssize_t n = ::read(raw->fd, buffer, size);
          if (n > 0)
            return static_cast<size_t>(n);
          if (n == 0)
            return 0;
          if (errno == EINTR)
            continue;
          if (errno != EAGAIN && errno != EWOULDBLOCK)
            return 0;
          raw->waited = wait_for(raw->fd, POLLIN, raw->deadline, raw->interrupt);
          if (raw->waited != Wait::ready)
            return 0;
        }
      },
      kMaxWorkerMessage);
  return p;
}

int serve_worker() {
  // Killed when the server's thread that started it ends, whichever way
  // the server ends: a worker hung in libclang must not outlive it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The worker process is the unit of isolation: a crash in libclang ends
  // it, and the server reports it and starts a fresh one. libclang's own
  // recovery would keep a long-lived process going in whatever state the
  // crash left (read when the first index is made, so set before).
  ::setenv("LIBCLANG_DISABLE_CRASH_RECOVERY", "1", 1);
  FrameReader reader(
      [](char* buffer, size_t size) -> size_t {
        for (;;) {
          const ssize_t n = ::read(kWorkerFd, buffer, size);
          if (n < 0 && errno == EINTR)
            continue;
          return n < 0 ? 0 : static_cast<size_t>(n);
        }
      },
      kMaxWorkerMessage);
  // Buffered by stdio (no handler runs in the worker, so no write is
  // interrupted).
  FILE* out = ::fdopen(kWorkerFd, "w");
  if (!out)
    return 1;
  auto next = [&]() -> std::optional<Json> {
    Frame f = reader.next();
    if (!f.body)
      return std::nullopt;
    Parsed parsed = parse_message(*f.body);
    if (!parsed.json.is_object())
      return std::nullopt;
    return std::move(parsed.json);
  };
  std::optional<Json> hello = next();
  // A server that ended before the death signal was asked for is not this
  // worker's parent any more.
  if (!hello || hello->value("parent", Json()) != Json(::getppid()))
    return 1;
  Analyzer analyzer(analyzer_options(hello->value("options", Json::object())));
  for (;;) {
    std::optional<Json> request = next();
    if (!request)
      return 0;
    const std::string answer = frame(analyzer.analyze(*request));
    if (std::fwrite(answer.data(), 1, answer.size(), out) != answer.size() || std::fflush(out) != 0)
      return 1;
  }
}

} // namespace opscan::lsp
