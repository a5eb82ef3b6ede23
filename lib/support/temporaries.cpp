// Temporary files and directories named by process id, and removing those a dead process left.
#include "support/temporaries.h"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace opscan::support {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMark = "opscan-";

// The number at the start of `text` when a '-' and something more follow it.
pid_t leading_pid(std::string_view text) {
  pid_t pid = 0;
  const char* end = text.data() + text.size();
  auto [after, error] = std::from_chars(text.data(), end, pid);
  if (error != std::errc() || after == text.data() || pid <= 0 || end - after < 2 || *after != '-')
    return 0;
  return pid;
}

// The private directories that exist, for remove_private_directories.
struct Living {
  std::mutex mutex;
  std::set<fs::path> paths;
};
Living& living() {
  static Living* all = new Living; // outlives every PrivateDirectory
  return *all;
}

bool gone(pid_t pid) {
  return pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

} // namespace

std::string temporary_name(std::string_view stem) {
  static std::atomic<unsigned> counter{0};
  return std::string(stem) + "." + std::string(kMark) + std::to_string(::getpid()) + "-" +
         std::to_string(counter++);
}

pid_t temporary_owner(std::string_view name) {
  const size_t mark = name.rfind(kMark);
  if (mark == std::string_view::npos)
    return 0;
  std::string_view rest = name.substr(mark + kMark.size());
  if (const pid_t pid = leading_pid(rest))
    return pid;
  // A private directory's kind comes first: lower-case letters.
  size_t kind = 0;
  while (kind < rest.size() && rest[kind] >= 'a' && rest[kind] <= 'z')
    ++kind;
  if (kind == 0 || kind == rest.size() || rest[kind] != '-')
    return 0;
  return leading_pid(rest.substr(kind + 1));
}

void remove_orphans(int dir, Orphan kind, const std::function<bool(std::string_view)>& ours) {
  const int listed = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* listing = listed >= 0 ? ::fdopendir(listed) : nullptr;
  if (listing == nullptr) {
    if (listed >= 0)
      ::close(listed);
    return;
  }
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view name = entry->d_name;
    const pid_t owner = temporary_owner(name);
    struct stat st;
    if (owner == 0 || !ours(name) || !gone(owner) ||
        ::fstatat(dir, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != ::geteuid())
      continue;
    if (kind == Orphan::file && S_ISREG(st.st_mode)) {
      ::unlinkat(dir, entry->d_name, 0);
    } else if (kind == Orphan::directory && S_ISDIR(st.st_mode)) {
      // remove_all does not follow links inside; the directory's own path
      // goes through this process's descriptor of `dir`.
      std::error_code ignored;
      fs::remove_all(fs::path("/proc/self/fd") / std::to_string(listed) / entry->d_name, ignored);
    }
  }
  ::closedir(listing);
}

void remove_orphans(const fs::path& dir, Orphan kind,
                    const std::function<bool(std::string_view)>& ours) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  remove_orphans(fd, kind, ours);
  ::close(fd);
}

void remove_orphaned_private_directories() {
  static std::once_flag swept;
  std::call_once(swept, [] {
    std::error_code ec;
    const fs::path root = fs::temp_directory_path(ec);
    if (!ec)
      remove_orphans(root, Orphan::directory,
                     [](std::string_view name) { return name.starts_with(kMark); });
  });
}

std::optional<PrivateDirectory> PrivateDirectory::make(std::string_view kind, std::string* error,
                                                       const fs::path& given_root) {
  std::error_code ec;
  const fs::path root = given_root.empty() ? fs::temp_directory_path(ec) : given_root;
  if (ec) {
    if (error)
      *error = "no temporary directory (TMPDIR: " + ec.message() + ")";
    return std::nullopt;
  }
  if (given_root.empty())
    remove_orphaned_private_directories();
  std::string pattern = (root / (std::string(kMark) + std::string(kind) + "-" +
                                 std::to_string(::getpid()) + "-XXXXXX"))
                            .string();
  if (::mkdtemp(pattern.data()) == nullptr) { // mode 0700
    if (error)
      *error = "cannot make a private directory in " + root.string() + ": " + std::strerror(errno);
    return std::nullopt;
  }
  {
    std::lock_guard lock(living().mutex);
    living().paths.insert(pattern);
  }
  return PrivateDirectory(fs::path(pattern));
}

PrivateDirectory::PrivateDirectory(PrivateDirectory&& other) noexcept
    : path_(std::exchange(other.path_, {})) {}

PrivateDirectory& PrivateDirectory::operator=(PrivateDirectory&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

PrivateDirectory::~PrivateDirectory() {
  remove();
}

void PrivateDirectory::remove() {
  if (path_.empty())
    return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  std::lock_guard lock(living().mutex);
  living().paths.erase(path_);
  path_.clear();
}

void remove_private_directories() {
  std::lock_guard lock(living().mutex);
  for (const fs::path& path : living().paths) {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  living().paths.clear();
}

} // namespace opscan::support
