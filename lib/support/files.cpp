#include "support/files.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <map>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace opscan::support {
namespace fs = std::filesystem;
namespace {

std::string system_error(int code) {
  return std::strerror(code);
}

// Why a file of this type is not read or replaced.
std::string not_regular(mode_t mode) {
  if (S_ISDIR(mode))
    return system_error(EISDIR);
  const char* kind = S_ISFIFO(mode)   ? "a FIFO"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                     : S_ISLNK(mode)  ? "a symbolic link"
                                      : "not a file";
  return std::string("Not a regular file (") + kind + ")";
}

std::string too_large(std::uintmax_t max_bytes) {
  return "File too large (opscan reads at most " +
         (max_bytes >= (1u << 20) ? std::to_string(max_bytes >> 20) + " MiB"
                                  : std::to_string(max_bytes) + " bytes") +
         ")";
}

// A file descriptor closed when it goes.
class Descriptor {
public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor& operator=(Descriptor&&) = delete;
  int get() const { return fd_; }
  // Closes now, reporting the error a delayed write may only show here.
  bool close() { return ::close(std::exchange(fd_, -1)) == 0; }

private:
  int fd_;
};

bool write_all(int fd, const std::string& content) {
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// One write_files call: what it has created so far, undone unless committed.
class Transaction {
public:
  ~Transaction() {
    if (!committed_)
      rollback();
  }

  // Creates the missing directories of `dir`; false with the failure set.
  bool make_directories(const fs::path& dir) {
    std::vector<fs::path> missing;
    fs::path at = dir;
    struct stat st;
    while (!at.empty() && ::lstat(at.c_str(), &st) != 0) {
      if (errno != ENOENT)
        return fail(at, system_error(errno));
      missing.push_back(at);
      at = at.parent_path();
    }
    // The deepest existing ancestor must be a directory (a symbolic link to
    // one is fine: it is not replaced).
    if (!at.empty()) {
      if (::stat(at.c_str(), &st) != 0)
        return fail(at, system_error(errno));
      if (!S_ISDIR(st.st_mode))
        return fail(at, system_error(ENOTDIR));
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (::mkdir(it->c_str(), 0777) == 0) {
        created_dirs_.push_back(*it);
      } else if (errno != EEXIST || !fs::is_directory(*it)) {
        return fail(*it, system_error(errno));
      }
    }
    return true;
  }

  // Holds an exclusive lock on `dir` until the transaction ends. Best
  // effort: a file system without locks still gets atomic renames.
  void lock(const fs::path& dir) {
    Descriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() >= 0 && ::flock(fd.get(), LOCK_EX) == 0)
      locks_.push_back(std::move(fd));
  }

  // Writes `content` to a new temporary beside `destination`, with `mode`.
  bool write_temporary(const fs::path& destination, const std::string& content, mode_t mode) {
    static std::atomic<unsigned> counter{0};
    fs::path temp = destination.parent_path() /
                    ("." + destination.filename().string() + ".opscan-" +
                     std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".tmp");
    pending_.push_back({destination, temp, {}, mode});
    if (!create_file(temp, content, mode)) {
      int saved = errno;
      if (saved != EEXIST)
        ::unlink(temp.c_str());
      pending_.back().temp.clear();
      return fail(destination, system_error(saved));
    }
    return true;
  }

  // Keeps the current `destination` reachable under a second name, so a
  // failed transaction can put it back: a hard link, or a copy where the
  // file system has no hard links.
  bool keep_original(size_t i) {
    Pending& p = pending_[i];
    fs::path backup = p.temp;
    backup.replace_extension(".old");
    if (::link(p.destination.c_str(), backup.c_str()) != 0) {
      std::string why = system_error(errno);
      std::optional<std::string> original = read_file(p.destination, &why);
      if (!original || !create_file(backup, *original, p.mode)) {
        ::unlink(backup.c_str());
        return fail(p.destination, "cannot keep the original while replacing it: " + why);
      }
    }
    p.backup = backup;
    return true;
  }

  bool rename_all(const WriteHooks& hooks) {
    for (Pending& p : pending_) {
      if (hooks.before_rename)
        hooks.before_rename(p.destination);
      if (::rename(p.temp.c_str(), p.destination.c_str()) != 0)
        return fail(p.destination, system_error(errno));
      p.renamed = true;
    }
    return true;
  }

  void commit() {
    committed_ = true;
    for (const Pending& p : pending_)
      if (!p.backup.empty())
        ::unlink(p.backup.c_str());
  }

  bool fail(const fs::path& path, std::string why) {
    failed_path = path;
    error = std::move(why);
    return false;
  }

  std::optional<fs::path> failed_path;
  std::string error;

private:
  struct Pending {
    fs::path destination;
    fs::path temp;   // empty once removed
    fs::path backup; // empty: the destination did not exist
    mode_t mode = 0666;
    bool renamed = false;
  };

  // A new file at `path` holding `content` with exactly `mode` (the umask
  // applies to new files only: a replaced file keeps its mode).
  static bool create_file(const fs::path& path, const std::string& content, mode_t mode) {
    Descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, mode));
    return fd.get() >= 0 && ::fchmod(fd.get(), mode) == 0 && write_all(fd.get(), content) &&
           fd.close();
  }

  void rollback() {
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      if (it->renamed) {
        if (it->backup.empty())
          ::unlink(it->destination.c_str());
        else
          ::rename(it->backup.c_str(), it->destination.c_str());
      } else {
        if (!it->temp.empty())
          ::unlink(it->temp.c_str());
        if (!it->backup.empty())
          ::unlink(it->backup.c_str());
      }
    }
    for (auto it = created_dirs_.rbegin(); it != created_dirs_.rend(); ++it)
      ::rmdir(it->c_str());
  }

  std::vector<Pending> pending_;
  std::vector<fs::path> created_dirs_;
  std::vector<Descriptor> locks_;
  bool committed_ = false;
};

} // namespace

std::string unreadable_reason(const fs::path& path, std::uintmax_t max_bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return system_error(errno);
  if (!S_ISREG(st.st_mode))
    return not_regular(st.st_mode);
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    return too_large(max_bytes);
  return {};
}

namespace {

// The first `head` bytes of a regular file of at most `max_bytes` bytes
// (the whole file when it is shorter).
std::optional<std::string> read_regular(const fs::path& path, std::string* error,
                                        std::uintmax_t max_bytes, std::uintmax_t head) {
  auto fail = [&](std::string why) -> std::optional<std::string> {
    if (error)
      *error = std::move(why);
    return std::nullopt;
  };
  // Checked before opening (opening a device can act on it), and again on
  // the open file, which nothing can swap. O_NONBLOCK: a FIFO swapped in
  // between must not wait for a writer.
  if (std::string why = unreadable_reason(path, max_bytes); !why.empty())
    return fail(why);
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  struct stat st;
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0)
    return fail(system_error(errno));
  if (!S_ISREG(st.st_mode))
    return fail(not_regular(st.st_mode));
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    return fail(too_large(max_bytes));
  std::string content;
  content.reserve(static_cast<size_t>(std::min<std::uintmax_t>(st.st_size, head)));
  char block[1 << 16];
  for (;;) {
    const auto want =
        static_cast<size_t>(std::min<std::uintmax_t>(sizeof block, head - content.size()));
    if (want == 0)
      return content;
    ssize_t n = ::read(fd.get(), block, want);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail(system_error(errno));
    if (n == 0)
      return content;
    if (content.size() + static_cast<size_t>(n) > max_bytes) // it grew while read
      return fail(too_large(max_bytes));
    content.append(block, static_cast<size_t>(n));
  }
}

} // namespace

std::optional<std::string> read_file(const fs::path& path, std::string* error,
                                     std::uintmax_t max_bytes) {
  return read_regular(path, error, max_bytes, max_bytes);
}

std::optional<std::string> read_file_head(const fs::path& path, std::uintmax_t head,
                                          std::string* error) {
  return read_regular(path, error, std::numeric_limits<std::uintmax_t>::max(), head);
}

WriteFilesResult write_files(const std::vector<FileWrite>& files, const WriteHooks& hooks) {
  WriteFilesResult result;
  result.outcomes.assign(files.size(), WriteOutcome::failed);
  Transaction transaction;
  auto failed = [&] {
    result.failed_path = transaction.failed_path;
    result.error = transaction.error;
    return result;
  };

  // Directories first, each locked once, in one order (no deadlock between
  // two writers).
  std::set<fs::path> directories;
  std::set<fs::path> destinations;
  for (const FileWrite& file : files) {
    fs::path absolute = fs::absolute(file.path).lexically_normal();
    if (!destinations.insert(absolute).second) {
      transaction.fail(file.path, "named twice as an output");
      return failed();
    }
    directories.insert(absolute.parent_path());
  }
  for (const fs::path& dir : directories) {
    if (!transaction.make_directories(dir))
      return failed();
    transaction.lock(dir);
  }

  // Every destination is judged before anything is written.
  std::vector<size_t> changed;
  std::vector<mode_t> modes(files.size(), 0666);
  std::vector<bool> existed(files.size(), false);
  for (size_t i = 0; i < files.size(); ++i) {
    const FileWrite& file = files[i];
    struct stat st;
    if (::lstat(file.path.c_str(), &st) != 0) {
      if (errno != ENOENT) {
        transaction.fail(file.path, system_error(errno));
        return failed();
      }
      changed.push_back(i);
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      transaction.fail(file.path, not_regular(st.st_mode) + "; opscan replaces only regular files");
      return failed();
    }
    if ((st.st_mode & 0222) == 0) {
      transaction.fail(file.path, "Read-only file; opscan does not replace read-only files");
      return failed();
    }
    existed[i] = true;
    modes[i] = st.st_mode & 07777;
    if (static_cast<std::uintmax_t>(st.st_size) == file.content.size()) {
      if (auto current = read_file(file.path, nullptr, file.content.size());
          current && *current == file.content) {
        result.outcomes[i] = WriteOutcome::unchanged;
        continue;
      }
    }
    changed.push_back(i);
  }

  for (size_t i : changed) {
    if (!transaction.write_temporary(files[i].path, files[i].content, modes[i]))
      return failed();
  }
  for (size_t k = 0; k < changed.size(); ++k) {
    if (existed[changed[k]] && !transaction.keep_original(k))
      return failed();
  }
  if (!transaction.rename_all(hooks))
    return failed();
  transaction.commit();
  for (size_t i : changed)
    result.outcomes[i] = WriteOutcome::written;
  return result;
}

WriteOutcome write_if_changed(const fs::path& path, const std::string& content,
                              std::string* error) {
  WriteFilesResult result = write_files({{path, content}});
  if (result.ok())
    return result.outcomes[0];
  if (error) {
    *error = *result.failed_path == path ? result.error
                                         : result.failed_path->string() + ": " + result.error;
  }
  return WriteOutcome::failed;
}

bool touch(const fs::path& path, std::string* error) {
  auto fail = [&](std::string why) {
    if (error)
      *error = std::move(why);
    return false;
  };
  std::error_code ec;
  if (path.has_parent_path())
    fs::create_directories(path.parent_path(), ec);
  if (ec)
    return fail(ec.message());
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return fail(not_regular(st.st_mode));
  // No O_TRUNC: an existing stamp keeps its content, only its time changes.
  // O_NONBLOCK: a FIFO swapped in after the check must not block.
  Descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, 0666));
  if (fd.get() < 0)
    return fail(system_error(errno));
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return fail(not_regular(st.st_mode));
  // A null time sets both times to now; creating the file alone would leave
  // an existing file's time as it was.
  if (::futimens(fd.get(), nullptr) != 0)
    return fail(system_error(errno));
  return true;
}

std::optional<FileId> file_id(const fs::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return std::nullopt;
  return FileId{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
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
