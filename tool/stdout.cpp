// Keeping stdout for opscan's own document, and reporting a failed write to it.
#include "stdout.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace opscan::tool {
namespace {

int g_fd = -1;   // opscan's stdout
int g_error = 0; // the first error writing to it (errno)
bool g_wrote = false;

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

// Puts /dev/null at `fd`, which is closed.
void occupy(int fd, int flags) {
  const int null = ::open("/dev/null", flags);
  if (null >= 0 && null != fd) {
    ::dup2(null, fd);
    ::close(null);
  }
}

} // namespace

void keep_stdout_private() {
  std::signal(SIGPIPE, SIG_IGN);
  const bool out_open = is_open(STDOUT_FILENO);
  // In order, so that /dev/null opened for one lands on it, not another.
  if (!is_open(STDIN_FILENO))
    occupy(STDIN_FILENO, O_RDONLY);
  if (!out_open)
    occupy(STDOUT_FILENO, O_WRONLY);
  if (!is_open(STDERR_FILENO))
    occupy(STDERR_FILENO, O_WRONLY);
  if (out_open) {
    g_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    if (g_fd < 0)
      g_error = errno;
  } else {
    g_error = EBADF;
  }
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
}

bool write_stdout(std::string_view text) {
  if (text.empty())
    return g_error == 0;
  g_wrote = true;
  while (g_error == 0 && !text.empty()) {
    const ssize_t n = ::write(g_fd, text.data(), text.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      g_error = n < 0 ? errno : EIO;
    else
      text.remove_prefix(static_cast<size_t>(n));
  }
  return g_error == 0;
}

int stdout_descriptor() {
  return g_fd;
}

std::optional<std::string> close_stdout() {
  // A file system may report a failed write only at its close (NFS).
  if (g_fd >= 0 && ::close(g_fd) != 0 && g_error == 0)
    g_error = errno;
  g_fd = -1;
  if (!g_wrote || g_error == 0)
    return std::nullopt;
  return std::strerror(g_error);
}

} // namespace opscan::tool
