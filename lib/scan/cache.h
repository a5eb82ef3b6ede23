// A cache of per-file IR fragments, so that a re-scan of unchanged sources
// costs hashing, not parsing. An entry is keyed by everything a scan's result
// depends on besides file contents (opscan and libclang versions, working
// directory, file, full argument list, known schemas) and records the content
// hash of every file the translation unit read; it is used only while all of
// them still hash the same. Entries are written atomically; a damaged entry
// is a miss and is rewritten.
#pragma once

#include "ir/ir.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace opscan::scan {

class FragmentCache {
public:
  explicit FragmentCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // The key of one file's scan.
  static std::string key(const std::string& file, const std::vector<std::string>& args,
                         const std::string& known_schemas_hash);

  struct Entry {
    ir::Module fragment;
    std::vector<std::string> inputs; // the files it was made from
  };

  // The cached entry, when every input it was made from is unchanged.
  std::optional<Entry> lookup(const std::string& key);

  // Records `fragment`, made from `inputs` (the file and everything it included).
  void store(const std::string& key, const std::vector<std::string>& inputs,
             const ir::Module& fragment);

  // The content hash of `path` (empty when unreadable), computed once per run.
  std::string hash_of(const std::string& path);

private:
  std::filesystem::path dir_;
  std::mutex mutex_;
  std::map<std::string, std::string> hashes_;
};

} // namespace opscan::scan
