#include "support/files.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace opscan::support {
namespace fs = std::filesystem;

std::optional<std::string> read_file(const fs::path& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error)
      *error = std::strerror(errno);
    return std::nullopt;
  }
  // A directory opens like a file here but reads as nothing.
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    if (error)
      *error = std::strerror(EISDIR);
    return std::nullopt;
  }
  // Read in large blocks into one buffer sized from the file: IR files run
  // to megabytes, and a stringstream copies them twice.
  std::string content;
  if (auto size = fs::file_size(path, ec); !ec)
    content.reserve(size);
  char block[1 << 16];
  while (in.read(block, sizeof block) || in.gcount() > 0)
    content.append(block, static_cast<size_t>(in.gcount()));
  if (in.bad()) {
    if (error)
      *error = "read error";
    return std::nullopt;
  }
  return content;
}

WriteOutcome write_if_changed(const fs::path& path, const std::string& content,
                              std::string* error) {
  if (auto existing = read_file(path); existing && *existing == content) {
    return WriteOutcome::unchanged;
  }
  std::error_code ec;
  if (path.has_parent_path())
    fs::create_directories(path.parent_path(), ec);
  if (ec) {
    if (error)
      *error = ec.message();
    return WriteOutcome::failed;
  }
  // The pid and a counter keep concurrent writers of the same file apart,
  // across processes and threads.
  static std::atomic<unsigned> counter{0};
  fs::path temp = path.parent_path() / (".opscan-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter++) + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out) {
      if (error)
        *error = std::string("cannot write ") + temp.string() + ": " + std::strerror(errno);
      fs::remove(temp, ec);
      return WriteOutcome::failed;
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    if (error)
      *error = ec.message();
    fs::remove(temp, ec);
    return WriteOutcome::failed;
  }
  return WriteOutcome::written;
}

bool touch(const fs::path& path, std::string* error) {
  std::error_code ec;
  if (path.has_parent_path())
    fs::create_directories(path.parent_path(), ec);
  if (ec) {
    if (error)
      *error = ec.message();
    return false;
  }
  // No O_TRUNC: an existing stamp keeps its content, only its time changes.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666);
  if (fd < 0) {
    if (error)
      *error = std::strerror(errno);
    return false;
  }
  // A null time sets both times to now; creating the file alone would leave
  // an existing file's time as it was.
  bool ok = ::futimens(fd, nullptr) == 0;
  int saved = errno;
  ::close(fd);
  if (!ok && error)
    *error = std::strerror(saved);
  return ok;
}

std::string display_path(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  // "a/link/.." is not "a" when link is a symbolic link (libclang reports
  // such paths for the standard library): resolve those, lexically
  // normalise the others.
  bool has_parent_step = std::any_of(absolute.begin(), absolute.end(),
                                     [](const fs::path& part) { return part == ".."; });
  absolute = has_parent_step ? fs::weakly_canonical(absolute, ec) : absolute.lexically_normal();
  fs::path cwd = fs::current_path(ec);
  if (!ec) {
    fs::path relative = absolute.lexically_relative(cwd);
    if (!relative.empty() && *relative.begin() != "..")
      return relative.generic_string();
  }
  return absolute.generic_string();
}

} // namespace opscan::support
