// The automatic precompiled header of a scan: the leading #include lines
// that several scanned files share, precompiled once with exactly their
// compiler arguments and kept in the cache directory, so that each of those
// files loads them instead of parsing them again. Private to lib/scan.
//
// Why the IR stays the same: a file uses a precompiled header only when its
// own first lines are the header's #include lines, its arguments are those
// the header was compiled with, and every header those lines name is
// guarded against a second inclusion (so the file's own #include lines then
// add nothing). Headers holding an OPSCAN_KERNEL, or that libclang reports
// anything about, are never precompiled; a file whose scan with the
// precompiled header reports anything is scanned again without it.
#pragma once

#include "scan/cache.h"
#include "scan/includes.h"

#include <clang-c/Index.h>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::scan {

// Sources larger than this are not read for their leading includes.
inline constexpr size_t kMaxSourceBytes = size_t{64} << 20;

// The #include lines a source starts with: after blank lines and comments,
// each `#include <name>` or `#include "name"` alone on its line (comments
// aside), up to the first line that is anything else. A start the rules do
// not cover (a line continuation, a byte-order mark, a computed include)
// ends the list there.
std::vector<HeaderName> leading_includes(std::string_view source);

// The leading includes of `file` that an automatic header may hold when it
// is compiled with `args`: none when the arguments add text before the
// file's first line; up to a quoted name the file's own directory has,
// unless `beside` (the header is made in that directory).
std::vector<HeaderName> shareable_prefix(const std::string& file,
                                         const std::vector<std::string>& args, bool beside = false);

// A file to be parsed, as the planner sees it.
struct PchCandidate {
  std::string file;
  std::vector<std::string> args; // its compiler arguments
};

// A precompiled header the plan asks for: `includes`, compiled with `args`.
struct PlannedPch {
  std::vector<std::string> args;
  std::vector<HeaderName> includes;
  std::string dir; // with PrefixCosts::beside: the files' directory
};

struct PchPlan {
  std::vector<PlannedPch> pchs;
  std::vector<int> pch_of; // per candidate: its index in pchs, or -1 for none
  std::vector<std::string> read; // the headers read to estimate their cost
};

// What sharing a prefix costs, in parses of the bytes its headers reach.
struct PrefixCosts {
  double make; // once
  double load; // in each file that uses it
  // Whether the prefix may hold quoted names found beside the files, which
  // it then shares only among the files of one directory.
  bool beside;
};
// A precompiled header in the store: making one costs about 3.5 parses of
// its headers (libclang writes every declaration out), loading one about
// 0.3 of a parse of them (measured with ExecuTorch's runtime headers).
inline constexpr PrefixCosts kStoredPchCosts{3.5, 0.3, false};
// A preamble kept in memory (preamble_unit.h): made with the first file's
// parse, about 1.5 parses of its headers, and reused in each further file
// in about a fiftieth.
inline constexpr PrefixCosts kPreambleUnitCosts{1.5, 0.02, true};

// Chooses the shared prefixes worth precompiling: each file gets the longest
// chosen prefix of its leading includes, and a prefix is chosen when parsing
// it once, instead of in each file that starts with it, saves more than it
// costs (estimated by the bytes of the headers it reaches).
PchPlan plan_pchs(const std::vector<PchCandidate>& files,
                  const PrefixCosts& costs = kStoredPchCosts);

// A precompiled header of the standard library's common headers is 5 to 30
// MiB: less room than this is a likely reason libclang could not save one.
inline constexpr size_t kLargePchBytes = size_t{64} << 20;

// A precompiled header ready to load, and the files it was made from.
struct AutoPch {
  std::string path; // the .pch, in the store
  // The headers it holds, with their hashes, and where their includes found
  // nothing: what a scan that loads it depends on (the store's own files
  // are not listed).
  Dependencies dependencies;
};

// The automatic precompiled headers kept in a directory, each used while
// every file it was made from hashes the same and none is newer than it
// (libclang refuses a precompiled header whose inputs changed times).
class PchStore {
public:
  PchStore(std::filesystem::path dir, FragmentCache& cache);

  // The precompiled header of `planned`: the stored one while valid, else
  // made (with `index`, which must include declarations from precompiled
  // headers) and stored. Nullopt when it cannot be used.
  std::optional<AutoPch> get(CXIndex index, const PlannedPch& planned);

  // The stored header of the longest part of `prefix` that has a valid one,
  // for a file compiled with `args` (none is made).
  std::optional<AutoPch> find(const std::vector<std::string>& args,
                              const std::vector<HeaderName>& prefix);

  // Whether `path` is one of the store's own files.
  bool holds(const std::string& path) const;

  // Why a header could not be stored (the directory is a symbolic link, a
  // full disk, a file size limit), the first time it happened; empty while
  // every header that was worth making was stored.
  std::string failure() const;

private:
  struct Names {
    std::string text, header, pch, key; // the header's text, its files, its cache key
  };
  Names names_of(const PlannedPch& planned) const;
  std::optional<AutoPch> stored(const PlannedPch& planned);
  AutoPch loadable(const std::string& pch, Dependencies dependencies) const;

  // Whether dir_ is a real directory (never a link planted in a shared
  // cache: the headers would be written elsewhere); records why not.
  bool usable();
  void fail(std::string why);

  std::filesystem::path dir_;
  FragmentCache& cache_;
  mutable std::mutex failure_mutex_;
  std::string failure_;
};

} // namespace opscan::scan
