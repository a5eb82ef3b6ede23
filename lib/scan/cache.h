// A cache of per-file IR fragments, so that a re-scan of unchanged sources
// costs hashing and a few stats, not parsing.
//
// What the cache trusts. An entry is used only when all of this holds:
// - its key matches: opscan's and libclang's versions, the working
//   directory, the file, its full argument list (which holds -resource-dir,
//   --sysroot / -isysroot and every include directory), each known-schemas
//   file's hash, and the environment variables that add include directories
//   (CPATH, C_INCLUDE_PATH, CPLUS_INCLUDE_PATH, OBJC_INCLUDE_PATH,
//   OBJCPLUS_INCLUDE_PATH);
// - it records that key and the file it was made for (an entry copied or
//   linked from another key is a miss);
// - every file the translation unit read still hashes the same, or still
//   has the size, modification and change times (nanoseconds) the entry
//   recorded, when it recorded them ("direct mode", as ccache's): a file is
//   then trusted unread. The change time (st_ctim) is set by the kernel on
//   every change and no user can set it back, so an edit that keeps the
//   size and restores the modification time (touch -d) is still hashed.
//   Times are recorded only for a file whose last change is at least 2 s
//   (the coarsest file system timestamps, FAT's) older than when it was
//   looked at: a file changed again within one timestamp tick of being
//   looked at could keep its times; such a file is hashed until a later
//   run records its times (the entry is then rewritten, atomically);
// - every place where one of its `#include`s or `__has_include`s could have
//   found a file, and found none, still has none. The places are each name
//   joined to every directory that may be on the search path: those the
//   arguments and environment name, the includer's own (quoted names), those
//   the translation unit found headers in, and the default system ones.
//   This is conservative: a new file later on the path than the one found
//   invalidates too. A translation unit with an include whose name is
//   computed (`#include MACRO`) is not cached.
// - the entry is a regular file of at most 64 MiB, well formed, and its IR
//   reads and validates like any IR file, for the file it names;
// - the block file it names (the inputs other than the file, and the
//   absent places: entries of files with the same headers share one, read
//   and checked once per run) is well formed and has the SHA-256 its name
//   says.
// libclang's version is remembered in the cache for the library file (its
// path, size and times), so that a scan that parses nothing does not load
// libclang.
// Trusted without checking: the toolchain beyond libclang's version (the
// GCC installation its driver takes libstdc++ from, header maps,
// frameworks), include directories given other than by the usual options,
// and that nobody writes an entry that is valid but false (entries are
// checked, not signed). Only scans without diagnostics are cached.
// Entries are written atomically; concurrent runs may share a directory.
#pragma once

#include "ir/fields.h"
#include "ir/ir.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace opscan::scan {

// A file a translation unit read, with the SHA-256 of the bytes parsed.
struct CachedInput {
  std::string path;
  std::string hash;
};

// What a translation unit's result depends on besides its key.
struct Dependencies {
  std::vector<CachedInput> inputs; // sorted by path, each once
  std::vector<std::string> absent; // where an include could have found a file, and found none
  bool cacheable = true;           // false for a computed include
};

// Whether an entry can record `path`: one line, no control character.
bool is_recordable_path(std::string_view path);

class FragmentCache {
public:
  // Its entries' kernels carry `fields` (a scan's).
  FragmentCache(std::filesystem::path dir, ir::Fields fields)
      : dir_(std::move(dir)), fields_(std::move(fields)) {}

  // The key of one file's scan; `extra` is what else it depends on
  // (the scan's fields, the known-schemas files' hashes).
  std::string key(const std::string& file, const std::vector<std::string>& args,
                  const std::string& extra);

  // libclang's version (scan::libclang_version()), read from the cache when
  // it recorded it for the same library file, else from libclang (loading
  // it) and recorded. Empty when libclang cannot be loaded.
  std::string libclang_version();

  struct Entry {
    ir::Module fragment;
    std::vector<std::string> inputs; // the files it was made from
    std::vector<std::string> absent; // where includes found nothing, when asked for
  };

  // The entry of `key`, made for `file`, when it is valid and still true;
  // with its absent paths when `with_absent` (thousands: a scan's entries
  // do not need them).
  std::optional<Entry> lookup(const std::string& key, const std::string& file,
                              bool with_absent = false);

  // Records `fragment`, made from `file` with `dependencies`, unless they
  // are not cacheable.
  void store(const std::string& key, const std::string& file, const Dependencies& dependencies,
             const ir::Module& fragment);

  // The content hash of the regular file `path` (empty when it is not one or
  // cannot be read), computed once per run.
  std::string hash_of(const std::string& path);

  // Whether nothing (or a directory) is at `path`, asked once per run: the
  // files of a library look the same names up, thousands of times each. A
  // file that appears during the run is seen by the next one, which checks
  // an entry's absent paths before using it.
  bool names_nothing(const std::string& path);

  // The SHA-256 of `text`, the bytes of `path` a parse read, computed once
  // per run for the same bytes (a library's files share their headers).
  std::string hash_of_text(const std::string& path, std::string_view text);

  // How many files this cache read to hash them: what trusting stamps saves.
  size_t files_read();

  // Why an entry could not be stored (the directory is not one, or cannot
  // be written), the first time it happened; empty while all were.
  std::string failure();

  // What a stat of a regular file says, to trust it unread.
  struct Stamp {
    int64_t size = 0, mtime_ns = 0, ctime_ns = 0;
    bool operator==(const Stamp&) const = default;
  };

private:
  struct Stat {
    std::optional<Stamp> stamp; // none when not a regular file
    bool settled = false;       // changed long enough before it was taken to record
  };
  // `path`'s stat (following links), taken once per run, before any read of it.
  Stat stat_of(const std::string& path);
  // The stamp to record for an input that hashes to `hash`, if any.
  std::optional<Stamp> recordable_stamp(const std::string& path, const std::string& hash);
  // A block file: the lines that entries of files with the same headers
  // share (the inputs other than the file, then where includes found
  // nothing), named by the SHA-256 of its text.
  struct CheckedBlock {
    std::string text;
    bool valid = false;              // well formed, named by its hash, still true
    std::vector<CachedInput> inputs; // when valid
    std::string restamped;           // when valid: the block with stamps to record, if any
  };
  // The block `name`, read and checked once per run.
  std::shared_ptr<const CheckedBlock> check_block(const std::string& name);
  // Writes a block (once per run), returning its name; empty when it could not be.
  std::string write_block(const std::string& text);
  static std::string entry_text(const std::string& key, const std::string& file,
                                std::string_view source_line, std::string_view block,
                                std::string_view ir);
  // Whether an input an entry records (with `stamp`) still has its hash;
  // sets `stamp` and `restamp` when its stamp is to be recorded.
  bool still_true(const CachedInput& input, std::optional<Stamp>& stamp, bool& restamp);
  // Whether each of `paths` names no file (a directory counts as none),
  // each asked once per run.
  bool all_absent(const std::vector<std::string_view>& paths);
  // Writes an entry's text atomically, noting the first failure.
  void write_entry(const std::string& key, const std::string& text);
  // Writes a file of the cache atomically; false (the failure noted) when it could not.
  bool write_file(const std::string& name, const std::string& text);

  std::filesystem::path dir_;
  ir::Fields fields_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::string> hashes_;
  // Looked up by string_view: an entry names thousands of absent paths.
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view path) const { return std::hash<std::string_view>()(path); }
  };
  std::unordered_map<std::string, bool, PathHash, std::equal_to<>> absent_;
  std::unordered_map<std::string, std::shared_ptr<const CheckedBlock>> blocks_; // by name
  std::unordered_set<std::string> written_blocks_;
  std::unordered_map<std::string, Stat> stats_;
  std::unordered_map<std::string, std::pair<std::string, std::string>> texts_; // text, hash
  std::string version_;
  size_t files_read_ = 0;
  std::string failure_;
};

} // namespace opscan::scan
