// Reading files, and writing them all-or-nothing and only when their content
// changes (so timestamps stay put and builds do not redo work).
//
// opscan runs inside other people's builds, often as root: it reads only
// regular files, of bounded size, without ever blocking on a FIFO or a
// device; and it replaces only regular files (or creates absent ones), never
// a directory, a device, a symbolic link or a read-only file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opscan::support {

// The largest input opscan reads (IR, schemas, flags, YAML, cache entries):
// far above any real one, and small enough that /dev/zero-like input cannot
// exhaust memory.
inline constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{256} << 20;

// Whether a file's reader follows a symbolic link at the path itself:
// `refuse` for files only opscan writes (cache entries), never links.
enum class Links { follow, refuse };

// Why `path` cannot be read as an input ("Is a directory", "Not a regular
// file (a FIFO)", "No such file or directory", "File too large (...)"), or
// empty when it is a regular file of at most `max_bytes`. Never opens the
// file.
std::string unreadable_reason(const std::filesystem::path& path,
                              std::uintmax_t max_bytes = kMaxInputBytes,
                              Links links = Links::follow);

// Why a file of `bytes` bytes probably cannot be written into `dir`, for a
// writer that reports no reason of its own (libclang saving a precompiled
// header): the directory cannot be written, the file size limit
// (ulimit -f) or the free space is below `bytes`. Empty when none of these
// is known to fail.
std::string unwritable_reason(const std::filesystem::path& dir, std::uintmax_t bytes);

// The whole file, or nullopt when it cannot be read; `error` then says why
// (the path is not repeated). Only a regular file of at most `max_bytes`
// bytes is read; never blocks on a FIFO nor opens a device (the type is
// checked before opening, and on the opened file).
std::optional<std::string> read_file(const std::filesystem::path& path,
                                     std::string* error = nullptr,
                                     std::uintmax_t max_bytes = kMaxInputBytes,
                                     Links links = Links::follow);

// The first `head` bytes of a regular file of any size (all of it when it
// is shorter), read as read_file reads: for formats whose header says how
// much of a large file is to be read (an ExecuTorch program before its
// data segments).
std::optional<std::string> read_file_head(const std::filesystem::path& path, std::uintmax_t head,
                                          std::string* error = nullptr);

enum class WriteOutcome { unchanged, written, failed };

struct FileWrite {
  std::filesystem::path path;
  std::string content;
  // The output directory the file is written below (see write_files), or
  // empty: the file's own directory is the caller's.
  std::filesystem::path root = {};
};

struct WriteFilesResult {
  // One per file, in order; all `failed` when the transaction failed.
  std::vector<WriteOutcome> outcomes;
  // Set on failure: the path that failed (a destination or a directory on
  // the way to one) and why.
  std::optional<std::filesystem::path> failed_path;
  std::string error;
  bool ok() const { return !failed_path; }
};

// Test hook: runs before each rename of a temporary over its destination,
// so that tests can make that rename fail for real.
struct WriteHooks {
  std::function<void(const std::filesystem::path& destination)> before_rename;
};

// Writes every file whose content differs, all or nothing:
//  - every destination must be absent or a regular, writable file (a
//    symbolic link, directory, FIFO, device or read-only file is refused
//    before anything is written);
//  - missing parent directories are created;
//  - each changed file is written to a temporary beside it, and only when
//    all are written are they renamed over their destinations;
//  - if any step fails, every destination is restored (an existing one
//    from a hard link kept until the end), directories this call created
//    are removed, and no temporary is left.
// A new file gets the mode open(2) gives it (0666 less the umask); a
// replaced file keeps its own mode.
// A file with a `root` (an output directory) must lie below it, and each
// directory below it on the way to the file must be a real directory: a
// symbolic link planted there is refused before anything is written, so
// nothing outside `root` is written. `root` itself, and without one the
// file's own directory, may be a link: the caller named it.
// Concurrent calls (across processes) that write into the same directories
// are serialised by a lock on each directory, so each sees and leaves a
// whole set of files; holding it, a call removes the temporaries and
// backups a killed writer left there. A signal held by
// hold_interrupts_during_commits (support/interrupt.h) waits until the set
// is whole.
WriteFilesResult write_files(const std::vector<FileWrite>& files, const WriteHooks& hooks = {});

// write_files of one file; `error` says why it failed (the path is not
// repeated when it is `path` itself).
WriteOutcome write_if_changed(const std::filesystem::path& path, const std::string& content,
                              std::string* error = nullptr);

// Creates `path` (and its parent directories) if it does not exist, else
// leaves its content alone; either way sets its modification time to now.
// For stamp files: build tools compare their time with the inputs'. An
// existing path must be a regular file. On failure returns false with
// `error` set.
bool touch(const std::filesystem::path& path, std::string* error = nullptr);

// What makes an existing file itself: two paths with equal ids name one
// file, through hard links, symbolic links and different spellings.
struct FileId {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  auto operator<=>(const FileId&) const = default;
};
std::optional<FileId> file_id(const std::filesystem::path& path);

// `path` relative to the current directory when it lies inside it, else
// absolute; lexically normalised. Keeps outputs independent of where a
// checkout lives.
std::string display_path(const std::filesystem::path& path);

} // namespace opscan::support
