#include "scan/cache.h"

#include "ir/json.h"
#include "ir/validate.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/version.h"

#include <clang-c/Index.h>
#include <sstream>

namespace opscan::scan {
namespace {

constexpr std::string_view kHeader = "opscan-fragment-cache 1";

} // namespace

std::string FragmentCache::key(const std::string& file, const std::vector<std::string>& args,
                               const std::string& known_schemas_hash) {
  CXString version = clang_getClangVersion();
  std::string material = std::string(kHeader) + '\0' + std::string(support::opscan_version()) +
                         '\0' + clang_getCString(version) + '\0';
  clang_disposeString(version);
  std::error_code ec;
  material += std::filesystem::current_path(ec).string() + '\0' + file + '\0' + known_schemas_hash;
  for (const std::string& arg : args)
    material += '\0' + arg;
  return support::sha256_hex(material);
}

std::string FragmentCache::hash_of(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = hashes_.find(path); it != hashes_.end())
      return it->second;
  }
  auto text = support::read_file(path);
  std::string hash = text ? support::sha256_hex(*text) : std::string();
  std::lock_guard lock(mutex_);
  return hashes_.emplace(path, hash).first->second;
}

std::optional<FragmentCache::Entry> FragmentCache::lookup(const std::string& key) {
  auto text = support::read_file(dir_ / (key + ".entry"));
  if (!text)
    return std::nullopt;
  // Format: the header line, "<sha256> <path>" per input, "---", the IR.
  std::istringstream in(*text);
  std::string line;
  if (!std::getline(in, line) || line != kHeader)
    return std::nullopt;
  size_t consumed = line.size() + 1;
  std::vector<std::string> inputs;
  while (std::getline(in, line)) {
    consumed += line.size() + 1;
    if (line == "---") {
      auto read = ir::from_json(text->substr(consumed), "cache");
      // A damaged or hand-made entry is a miss, like any other.
      if (!read.module || !ir::validate(*read.module, ir::Locator()).empty())
        return std::nullopt;
      return Entry{std::move(*read.module), std::move(inputs)};
    }
    if (line.size() < 66 || line[64] != ' ')
      return std::nullopt;
    if (hash_of(line.substr(65)) != line.substr(0, 64))
      return std::nullopt;
    inputs.push_back(line.substr(65));
  }
  return std::nullopt; // truncated
}

void FragmentCache::store(const std::string& key, const std::vector<std::string>& inputs,
                          const ir::Module& fragment) {
  std::string entry = std::string(kHeader) + "\n";
  for (const std::string& input : inputs) {
    std::string hash = hash_of(input);
    if (hash.empty())
      return; // an input that cannot be read cannot be checked later
    entry += hash + " " + input + "\n";
  }
  entry += "---\n" + ir::to_json(fragment);
  // Atomic: concurrent runs sharing the cache each write a whole entry.
  support::write_if_changed(dir_ / (key + ".entry"), entry);
}

} // namespace opscan::scan
