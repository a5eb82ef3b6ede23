// Temporary files and directories, named so that what a killed process
// left (SIGKILL, a crash, a lost machine) is removed by a later run, and
// never what a live process still uses.
//
// Every temporary's name carries "opscan-<pid>-" (in a private directory's
// name, "opscan-<kind>-<pid>-"): a name whose process no longer exists is an
// orphan. A pid reused by another process keeps its orphans until that one
// ends too; that only delays the clean-up.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace opscan::support {

// A fresh name for a temporary beside a file: "<stem>.opscan-<pid>-<n>"
// (n counts within the process, so threads never share one).
std::string temporary_name(std::string_view stem);

// The process that made a temporary named as above or a private directory,
// read from `name`; 0 when `name` carries no such mark.
pid_t temporary_owner(std::string_view name);

// What a kind of temporary is: opscan never makes a file and a directory
// of the same name.
enum class Orphan { file, directory };

// Removes from `dir` the orphans of `kind` that `ours` accepts: regular
// files, or directories with their content, of this user whose owner
// process is gone. Symbolic links and other users' files are left alone.
// Best effort: what cannot be listed or removed stays.
void remove_orphans(int dir, Orphan kind, const std::function<bool(std::string_view name)>& ours);
void remove_orphans(const std::filesystem::path& dir, Orphan kind,
                    const std::function<bool(std::string_view name)>& ours);

// A directory of this process's own in TMPDIR ("opscan-<kind>-<pid>-XXXXXX",
// mode 0700), removed with its content when the object ends. Making the
// first one in a process removes the orphaned private directories in TMPDIR
// (remove_orphaned_private_directories).
class PrivateDirectory {
public:
  // Nullopt, with `error` set, when TMPDIR cannot hold one (missing, not a
  // directory, not writable). `root`, when given, is used instead of TMPDIR.
  static std::optional<PrivateDirectory> make(std::string_view kind, std::string* error = nullptr,
                                              const std::filesystem::path& root = {});

  PrivateDirectory(PrivateDirectory&& other) noexcept;
  PrivateDirectory& operator=(PrivateDirectory&& other) noexcept;
  PrivateDirectory(const PrivateDirectory&) = delete;
  PrivateDirectory& operator=(const PrivateDirectory&) = delete;
  ~PrivateDirectory();

  const std::filesystem::path& path() const { return path_; }

private:
  explicit PrivateDirectory(std::filesystem::path path) : path_(std::move(path)) {}
  void remove();
  std::filesystem::path path_;
};

// Removes, once per process, the private directories in TMPDIR of opscan
// processes that are gone (killed, or ended by a signal before they could
// remove them). Making the first PrivateDirectory does it too; commands
// that may make none call it so that any run cleans up.
void remove_orphaned_private_directories();

// Removes the private directories this process still has: for a program
// that ends without unwinding (std::_Exit while a thread still runs).
void remove_private_directories();

} // namespace opscan::support
