// Reading regular files safely, and writing a set of files all or nothing.
#include "support/files.h"

#include "support/interrupt.h"
#include "support/temporaries.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <limits>
#include <map>
#include <set>
#include <signal.h>
#include <string_view>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

// The first `head` bytes of the open file `fd`, which must be a regular file
// of at most `max_bytes` bytes (the whole file when it is shorter).
std::optional<std::string> read_descriptor(int fd, std::string* error, std::uintmax_t max_bytes,
                                           std::uintmax_t head) {
  auto fail = [&](std::string why) -> std::optional<std::string> {
    if (error)
      *error = std::move(why);
    return std::nullopt;
  };
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0)
    return fail(system_error(errno));
  if (!S_ISREG(st.st_mode))
    return fail(not_regular(st.st_mode));
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    return fail(too_large(max_bytes));
  // Straight into the string, sized by the stat and one byte more, so that
  // the read that finds the end needs no growth; a file that grew since is
  // read on to its end (or `head`), one that shrank ends early.
  const auto want = [&](std::uintmax_t size) {
    return static_cast<size_t>(std::min<std::uintmax_t>(size, head));
  };
  std::string content(want(static_cast<std::uintmax_t>(st.st_size) + 1), '\0');
  size_t size = 0;
  for (;;) {
    if (size == content.size()) {
      if (size == head)
        return content;
      content.resize(want(size + (1 << 16)));
    }
    ssize_t n = ::read(fd, content.data() + size, content.size() - size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail(system_error(errno));
    if (n == 0) {
      content.resize(size);
      return content;
    }
    size += static_cast<size_t>(n);
    if (size > max_bytes) // it grew while read
      return fail(too_large(max_bytes));
  }
}

// The file `name` in the directory `dir`, never through a symbolic link.
std::optional<std::string> read_at(int dir, const std::string& name, std::string* error,
                                   std::uintmax_t max_bytes) {
  Descriptor fd(
      ::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  return read_descriptor(fd.get(), error, max_bytes, max_bytes);
}

// A new file `name` in `dir` holding `content`. Its mode is what open(2)
// gives (0666 less the umask), or `keep` (a replaced file's own mode).
bool create_at(int dir, const std::string& name, const std::string& content,
               std::optional<mode_t> keep) {
  Descriptor fd(
      ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666));
  return fd.get() >= 0 && (!keep || ::fchmod(fd.get(), *keep) == 0) &&
         write_all(fd.get(), content) && fd.close();
}

// Removes from `dir` the temporaries and backups of write_files calls whose
// process is gone (killed mid-transaction, e.g. by SIGKILL). Called with the
// directory's lock held, so no live transaction has files there; the
// process check covers file systems without locks.
void remove_stale_temporaries(int dir) {
  // ".NAME.opscan-PID-N.tmp" or ".old", NAME never empty.
  remove_orphans(dir, Orphan::file, [](std::string_view name) {
    const size_t mark = name.rfind(".opscan-");
    return name.starts_with('.') && mark != name.npos && mark >= 2 &&
           (name.ends_with(".tmp") || name.ends_with(".old"));
  });
}

// Why a directory below the output directory is refused.
constexpr const char* kLinkedDirectory =
    "a symbolic link; opscan writes only below the output directory, through real directories";

// One write_files call: what it has created so far, undone unless committed.
// Every file operation below a directory goes through that directory's
// descriptor, opened once: a directory swapped for a link after it was
// checked cannot redirect a write.
class Transaction {
public:
  ~Transaction() {
    if (!committed_)
      rollback();
  }

  // The directory `below` under `root`, opened (missing ones are created):
  // its descriptor, or -1 with the failure set. `root` is the caller's, a
  // symbolic link to a directory is fine there; each directory below it
  // must be a real one. `shown` is root as the caller spelled it, for
  // messages.
  int open_directory(const fs::path& root, const fs::path& shown, const fs::path& below) {
    int at = open_root(root);
    if (at < 0)
      return at;
    fs::path path = root;
    fs::path shown_path = shown;
    for (const fs::path& part : below) {
      path /= part;
      shown_path /= part;
      if (auto known = dirs_.find(path); known != dirs_.end()) {
        at = known->second.get();
        continue;
      }
      auto open = [&] {
        return ::openat(at, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      };
      int fd = open();
      if (fd < 0 && errno == ENOENT) {
        if (::mkdirat(at, part.c_str(), 0777) == 0)
          created_dirs_.push_back({at, part});
        else if (errno != EEXIST)
          return refuse(shown_path, system_error(errno));
        fd = open();
      }
      if (fd < 0) {
        const int saved = errno;
        struct stat st;
        if (::fstatat(at, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
          return refuse(shown_path, kLinkedDirectory);
        return refuse(shown_path, system_error(saved));
      }
      at = dirs_.emplace(path, Descriptor(fd)).first->second.get();
    }
    return at;
  }

  // Holds an exclusive lock on `dir` until the transaction ends, then
  // removes what dead writers left there. Best effort: a file system
  // without locks still gets atomic renames.
  void lock(int dir) {
    Descriptor fd(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() >= 0 && ::flock(fd.get(), LOCK_EX) == 0)
      locks_.push_back(std::move(fd));
    remove_stale_temporaries(dir);
  }

  // Writes `content` to a new temporary beside `name` in `dir`; `keep`: the
  // mode of the file it replaces.
  bool write_temporary(int dir, const std::string& name, const fs::path& destination,
                       const std::string& content, std::optional<mode_t> keep) {
    const std::string stem = temporary_name("." + name);
    pending_.push_back({dir, name, destination, stem + ".tmp", {}, keep, false});
    if (!create_at(dir, pending_.back().temp, content, keep)) {
      const int saved = errno;
      if (saved != EEXIST)
        ::unlinkat(dir, pending_.back().temp.c_str(), 0);
      pending_.back().temp.clear();
      return fail(destination, system_error(saved));
    }
    pending_.back().backup = stem + ".old";
    return true;
  }

  // Keeps the current destination of pending file `i` reachable under a
  // second name, so a failed transaction can put it back: a hard link, or a
  // copy where the file system has no hard links.
  bool keep_original(size_t i) {
    Pending& p = pending_[i];
    if (::linkat(p.dir, p.name.c_str(), p.dir, p.backup.c_str(), 0) != 0) {
      std::string why = system_error(errno);
      std::optional<std::string> original =
          read_at(p.dir, p.name, &why, std::numeric_limits<std::uintmax_t>::max());
      if (!original || !create_at(p.dir, p.backup, *original, p.keep)) {
        ::unlinkat(p.dir, p.backup.c_str(), 0);
        p.backup.clear();
        return fail(p.destination, "cannot keep the original while replacing it: " + why);
      }
    }
    p.kept = true;
    return true;
  }

  bool rename_all(const WriteHooks& hooks) {
    for (Pending& p : pending_) {
      if (hooks.before_rename)
        hooks.before_rename(p.destination);
      if (::renameat(p.dir, p.temp.c_str(), p.dir, p.name.c_str()) != 0)
        return fail(p.destination, system_error(errno));
      p.renamed = true;
    }
    return true;
  }

  void commit() {
    committed_ = true;
    for (const Pending& p : pending_)
      if (p.kept)
        ::unlinkat(p.dir, p.backup.c_str(), 0);
  }

  bool fail(const fs::path& path, std::string why) {
    failed_path = path;
    error = std::move(why);
    return false;
  }

  std::optional<fs::path> failed_path;
  std::string error;

private:
  // fail, for the functions that return a descriptor.
  int refuse(const fs::path& path, std::string why) {
    fail(path, std::move(why));
    return -1;
  }

  struct Pending {
    int dir; // a descriptor in dirs_
    std::string name;
    fs::path destination; // as the caller named it
    std::string temp;     // empty once removed
    std::string backup;
    std::optional<mode_t> keep; // the replaced file's mode; none: a new file
    bool kept = false;          // `backup` holds the replaced file
    bool renamed = false;
  };

  // The caller's directory `root` (absolute, normalised), its missing
  // directories created (following links: the caller chose the path).
  int open_root(const fs::path& root) {
    if (auto known = dirs_.find(root); known != dirs_.end())
      return known->second.get();
    std::vector<fs::path> missing;
    fs::path at = root;
    struct stat st;
    while (!at.empty() && ::lstat(at.c_str(), &st) != 0) {
      if (errno != ENOENT)
        return refuse(at, system_error(errno));
      missing.push_back(at);
      at = at.parent_path();
    }
    // The deepest existing ancestor must be a directory (a symbolic link to
    // one is fine: it is not replaced).
    if (!at.empty()) {
      if (::stat(at.c_str(), &st) != 0)
        return refuse(at, system_error(errno));
      if (!S_ISDIR(st.st_mode))
        return refuse(at, system_error(ENOTDIR));
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (::mkdir(it->c_str(), 0777) == 0) {
        created_dirs_.push_back({AT_FDCWD, *it});
      } else if (errno != EEXIST || !fs::is_directory(*it)) {
        return refuse(*it, system_error(errno));
      }
    }
    const int fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return refuse(root, system_error(errno));
    return dirs_.emplace(root, Descriptor(fd)).first->second.get();
  }

  void rollback() {
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      if (it->renamed) {
        if (it->kept)
          ::renameat(it->dir, it->backup.c_str(), it->dir, it->name.c_str());
        else
          ::unlinkat(it->dir, it->name.c_str(), 0);
      } else {
        if (!it->temp.empty())
          ::unlinkat(it->dir, it->temp.c_str(), 0);
        if (it->kept)
          ::unlinkat(it->dir, it->backup.c_str(), 0);
      }
    }
    for (auto it = created_dirs_.rbegin(); it != created_dirs_.rend(); ++it)
      ::unlinkat(it->first, it->second.c_str(), AT_REMOVEDIR);
  }

  std::map<fs::path, Descriptor> dirs_; // by absolute path
  std::vector<Pending> pending_;
  // Each directory this call made: its parent's descriptor (AT_FDCWD for
  // the root's, named by absolute path) and its name.
  std::vector<std::pair<int, fs::path>> created_dirs_;
  std::vector<Descriptor> locks_;
  bool committed_ = false;
};

} // namespace

std::string unwritable_reason(const fs::path& dir, std::uintmax_t bytes) {
  if (::access(dir.c_str(), W_OK) != 0)
    return system_error(errno);
  rlimit size{};
  if (::getrlimit(RLIMIT_FSIZE, &size) == 0 && size.rlim_cur != RLIM_INFINITY &&
      size.rlim_cur < bytes)
    return system_error(EFBIG) + " (the file size limit, ulimit -f, is " +
           std::to_string(size.rlim_cur) + " bytes)";
  struct statvfs space {};
  if (::statvfs(dir.c_str(), &space) == 0 &&
      static_cast<std::uintmax_t>(space.f_bavail) * space.f_frsize < bytes)
    return system_error(ENOSPC);
  return {};
}

std::string unreadable_reason(const fs::path& path, std::uintmax_t max_bytes, Links links) {
  struct stat st;
  if ((links == Links::follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0)
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
                                        std::uintmax_t max_bytes, std::uintmax_t head,
                                        Links links) {
  // Checked before opening (opening a device can act on it), and again on
  // the open file, which nothing can swap. O_NONBLOCK: a FIFO swapped in
  // between must not wait for a writer.
  if (std::string why = unreadable_reason(path, max_bytes, links); !why.empty()) {
    if (error)
      *error = std::move(why);
    return std::nullopt;
  }
  Descriptor fd(::open(path.c_str(),
                       O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
                                          (links == Links::follow ? 0 : O_NOFOLLOW)));
  return read_descriptor(fd.get(), error, max_bytes, head);
}

} // namespace

std::optional<std::string> read_file(const fs::path& path, std::string* error,
                                     std::uintmax_t max_bytes, Links links) {
  return read_regular(path, error, max_bytes, max_bytes, links);
}

std::optional<std::string> read_file_head(const fs::path& path, std::uintmax_t head,
                                          std::string* error) {
  return read_regular(path, error, std::numeric_limits<std::uintmax_t>::max(), head,
                      Links::follow);
}

WriteFilesResult write_files(const std::vector<FileWrite>& files, const WriteHooks& hooks) {
  WriteFilesResult result;
  result.outcomes.assign(files.size(), WriteOutcome::failed);
  // Held until the transaction has committed or undone everything (it is
  // destroyed first): an interrupting signal then finds a whole set.
  CriticalSection section;
  Transaction transaction;
  auto failed = [&] {
    result.failed_path = transaction.failed_path;
    result.error = transaction.error;
    return result;
  };

  // Where each file goes: a directory (`below` under a root) and a name.
  struct Place {
    fs::path root, shown_root, below;
    std::string name;
    fs::path directory() const { return below.empty() ? root : root / below; }
  };
  std::vector<Place> places;
  std::set<fs::path> destinations;
  for (const FileWrite& file : files) {
    const fs::path absolute = fs::absolute(file.path).lexically_normal();
    if (!destinations.insert(absolute).second) {
      transaction.fail(file.path, "named twice as an output");
      return failed();
    }
    Place place{absolute.parent_path(), file.path.parent_path(), {}, absolute.filename()};
    if (!file.root.empty()) {
      const fs::path absolute_root = fs::absolute(file.root).lexically_normal();
      const fs::path relative = absolute.lexically_relative(absolute_root);
      if (relative.empty() || *relative.begin() == ".." || relative == ".") {
        transaction.fail(file.path, "not below the output directory " + file.root.string());
        return failed();
      }
      place = {absolute_root, file.root, relative.parent_path(), absolute.filename()};
    }
    if (place.name.empty()) {
      transaction.fail(file.path, system_error(EISDIR));
      return failed();
    }
    places.push_back(std::move(place));
  }

  // Directories first, each locked once, in one order (no deadlock between
  // two writers).
  std::map<fs::path, const Place*> directories;
  for (const Place& place : places)
    directories.emplace(place.directory(), &place);
  std::map<fs::path, int> opened;
  for (const auto& [path, place] : directories) {
    const int fd = transaction.open_directory(place->root, place->shown_root, place->below);
    if (fd < 0)
      return failed();
    transaction.lock(fd);
    opened[path] = fd;
  }

  // Every destination is judged before anything is written.
  std::vector<size_t> changed;
  std::vector<std::optional<mode_t>> keep(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const FileWrite& file = files[i];
    const int dir = opened[places[i].directory()];
    struct stat st;
    if (::fstatat(dir, places[i].name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
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
    keep[i] = st.st_mode & 07777;
    if (static_cast<std::uintmax_t>(st.st_size) == file.content.size()) {
      if (auto current = read_at(dir, places[i].name, nullptr, file.content.size());
          current && *current == file.content) {
        result.outcomes[i] = WriteOutcome::unchanged;
        continue;
      }
    }
    changed.push_back(i);
  }

  for (size_t i : changed) {
    if (!transaction.write_temporary(opened[places[i].directory()], places[i].name, files[i].path,
                                     files[i].content, keep[i]))
      return failed();
  }
  for (size_t k = 0; k < changed.size(); ++k) {
    if (keep[changed[k]] && !transaction.keep_original(k))
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
  // A symbolic link is refused as every output's is: touching its target
  // would mark some other file up to date.
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return fail(not_regular(st.st_mode));
  // No O_TRUNC: an existing stamp keeps its content, only its time changes.
  // O_NONBLOCK: a FIFO swapped in after the check must not block;
  // O_NOFOLLOW: nor may a link.
  Descriptor fd(::open(path.c_str(),
                       O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0666));
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
