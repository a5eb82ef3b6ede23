// The cache of per-file IR fragments, and the checks that decide when an entry may be used.
#include "scan/cache.h"

#include "ir/json.h"
#include "ir/validate.h"
#include "scan/includes.h"
#include "scan/libclang_loader.h"
#include "scan/scan.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/version.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace opscan::scan {
namespace {
namespace fs = std::filesystem;

// 3: scans read the preprocessor's record of OPSCAN_KERNEL expansions (an
// annotation in a function body is an error); a version 2 entry may hide one.
// 4: inputs record their stamps (size, modification and change times).
// 5: the file's own input in the entry, the other inputs and absent paths
// in a block file that the entries of files with the same headers share.
// 6: fragments record what the headers make of runtime names (aliases); a
// version 5 entry has none.
constexpr std::string_view kHeader = "opscan-fragment-cache 6";
// The file remembering libclang's version, and its first line.
constexpr std::string_view kVersionFile = "libclang-version";
constexpr std::string_view kVersionHeader = "opscan-libclang-version 1";
// The coarsest file timestamps expected (FAT's): a file changed less than
// this before its stat may change again and keep the same times.
constexpr int64_t kTimestampGranularityNs = 2'000'000'000;
// An entry or block is at most a few hundred kilobytes; anything near this
// is not one.
constexpr size_t kMaxEntryBytes = size_t{64} << 20;
// Larger inputs (headers, precompiled headers) are not cached, nor read.
constexpr size_t kMaxInputBytes = size_t{1} << 30;

bool is_sha256(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Whether `text` holds a control character other than a newline. In
// chunks of a fixed size without an early exit, which the compiler checks
// many bytes at a time: a cache lookup checks megabytes.
bool has_control_character(std::string_view text) {
  const auto is_control = [](unsigned char c) {
    return static_cast<unsigned char>((c < 0x20) & (c != '\n')) | (c == 0x7f);
  };
  constexpr size_t kChunk = 64;
  size_t at = 0;
  for (; at + kChunk <= text.size(); at += kChunk) {
    unsigned char control = 0;
    for (size_t i = 0; i < kChunk; ++i)
      control |= is_control(static_cast<unsigned char>(text[at + i]));
    if (control)
      return true;
  }
  for (; at < text.size(); ++at) {
    if (is_control(static_cast<unsigned char>(text[at])))
      return true;
  }
  return false;
}

int64_t nanoseconds(const timespec& time) {
  return int64_t{time.tv_sec} * 1'000'000'000 + time.tv_nsec;
}

// A stamp as an entry records it: "SIZE:MTIME:CTIME", or "-" for none.
std::string stamp_text(const std::optional<FragmentCache::Stamp>& stamp) {
  if (!stamp)
    return "-";
  return std::to_string(stamp->size) + ':' + std::to_string(stamp->mtime_ns) + ':' +
         std::to_string(stamp->ctime_ns);
}

// The stamp `text` records; nullopt for "-"; false when it is neither.
bool parse_stamp(std::string_view text, std::optional<FragmentCache::Stamp>& stamp) {
  stamp.reset();
  if (text == "-")
    return true;
  int64_t fields[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    const size_t end = i < 2 ? text.find(':') : text.size();
    if (end == std::string_view::npos || end == 0 ||
        !std::all_of(text.begin(), text.begin() + end, [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    const auto [last, error] = std::from_chars(text.data(), text.data() + end, fields[i]);
    if (error != std::errc() || last != text.data() + end)
      return false;
    text.remove_prefix(i < 2 ? end + 1 : end);
  }
  stamp = FragmentCache::Stamp{fields[0], fields[1], fields[2]};
  return true;
}

} // namespace

bool is_recordable_path(std::string_view path) {
  return !path.empty() && path.find('\n') == std::string_view::npos && !has_control_character(path);
}

std::string FragmentCache::key(const std::string& file, const std::vector<std::string>& args,
                               const std::string& extra) {
  std::string material = std::string(kHeader) + '\0' + std::string(support::opscan_version()) +
                         '\0' + libclang_version() + '\0';
  std::error_code ec;
  material += std::filesystem::current_path(ec).string() + '\0' + file + '\0' + extra;
  for (const char* variable : kIncludePathVariables) {
    // Set-but-empty and unset are told apart.
    const char* value = std::getenv(variable);
    material += std::string(1, '\0') + variable + (value ? std::string("=") + value : "");
  }
  material += '\0';
  for (const std::string& arg : args)
    material += '\0' + arg;
  return support::sha256_hex(material);
}

std::string FragmentCache::libclang_version() {
  {
    std::lock_guard lock(mutex_);
    if (!version_.empty())
      return version_;
  }
  // Format: the header line, "library <path>", "stamp <stamp>", "version <text>".
  const std::string library = libclang_path();
  const Stat stat = stat_of(library);
  const std::string prefix = std::string(kVersionHeader) + "\nlibrary " + library + "\nstamp " +
                             stamp_text(stat.stamp) + "\nversion ";
  std::string version;
  if (stat.stamp && !libclang_loaded()) {
    auto text = support::read_file((dir_ / kVersionFile).string(), nullptr, 4096, support::Links::refuse);
    if (text && text->starts_with(prefix) && text->ends_with('\n')) {
      version = text->substr(prefix.size(), text->size() - prefix.size() - 1);
      if (!is_recordable_path(version))
        version.clear();
    }
  }
  if (version.empty()) {
    version = scan::libclang_version();
    if (version.empty())
      return {};
    if (stat.settled && is_recordable_path(version)) {
      const fs::path path = dir_ / kVersionFile;
      struct stat status {};
      if (::lstat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode))
        ::unlink(path.c_str());
      // Only a faster next scan depends on it: a failure is the entries' to report.
      support::write_if_changed(path, prefix + version + "\n");
    }
  }
  std::lock_guard lock(mutex_);
  version_ = version;
  return version_;
}

FragmentCache::Stat FragmentCache::stat_of(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = stats_.find(path); it != stats_.end())
      return it->second;
  }
  Stat out;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode)) {
    out.stamp = Stamp{status.st_size, nanoseconds(status.st_mtim), nanoseconds(status.st_ctim)};
    // Any later change sets the change time to at least now, truncated to
    // the file system's tick: past this one only if this is one tick old.
    out.settled = std::max(out.stamp->mtime_ns, out.stamp->ctime_ns) + kTimestampGranularityNs <=
                  nanoseconds(now);
  }
  std::lock_guard lock(mutex_);
  return stats_.emplace(path, out).first->second;
}

std::string FragmentCache::hash_of(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = hashes_.find(path); it != hashes_.end())
      return it->second;
  }
  // Its stamp first: a change after the stat, while reading it, shows in
  // the stamp of the next stat.
  stat_of(path);
  auto text = support::read_file(path, nullptr, kMaxInputBytes);
  std::string hash = text ? support::sha256_hex(*text) : std::string();
  std::lock_guard lock(mutex_);
  ++files_read_;
  return hashes_.emplace(path, hash).first->second;
}

std::optional<FragmentCache::Stamp> FragmentCache::recordable_stamp(const std::string& path,
                                                                    const std::string& hash) {
  // The stat was taken before this run read the file; the bytes read are
  // those the entry records.
  if (hash_of(path) != hash)
    return std::nullopt;
  const Stat stat = stat_of(path);
  return stat.settled ? stat.stamp : std::nullopt;
}

bool FragmentCache::names_nothing(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = absent_.find(path); it != absent_.end())
      return it->second;
  }
  const bool absent = names_no_file(path);
  std::lock_guard lock(mutex_);
  absent_.emplace(path, absent);
  return absent;
}

std::string FragmentCache::hash_of_text(const std::string& path, std::string_view text) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = texts_.find(path); it != texts_.end() && it->second.first == text)
      return it->second.second;
  }
  std::string hash = support::sha256_hex(text);
  std::lock_guard lock(mutex_);
  texts_[path] = {std::string(text), hash};
  return hash;
}

bool FragmentCache::all_absent(const std::vector<std::string_view>& paths) {
  // Most were asked already (entries share their headers' search path): one
  // lock for all of them, and a stat for the others.
  std::vector<std::string_view> unknown;
  {
    std::lock_guard lock(mutex_);
    for (std::string_view path : paths) {
      if (auto it = absent_.find(path); it == absent_.end())
        unknown.push_back(path);
      else if (!it->second)
        return false;
    }
  }
  for (std::string_view path : unknown) {
    std::string name(path);
    const bool absent = names_no_file(name);
    {
      std::lock_guard lock(mutex_);
      absent_.emplace(std::move(name), absent);
    }
    if (!absent)
      return false;
  }
  return true;
}

namespace {

// An input as an entry records it.
struct RecordedInput {
  CachedInput input;
  std::optional<FragmentCache::Stamp> stamp;
};

// "input <sha256> <stamp> <path>", parsed; nullopt when it is not that.
std::optional<RecordedInput> parse_input_line(std::string_view line) {
  if (!line.starts_with("input ") || line.size() <= 6 + 64 + 1 || line[6 + 64] != ' ' ||
      !is_sha256(line.substr(6, 64)))
    return std::nullopt;
  const std::string_view rest = line.substr(6 + 64 + 1);
  const size_t space = rest.find(' ');
  RecordedInput input;
  if (space == std::string_view::npos || !parse_stamp(rest.substr(0, space), input.stamp) ||
      !is_recordable_path(rest.substr(space + 1)))
    return std::nullopt;
  input.input = {std::string(rest.substr(space + 1)), std::string(line.substr(6, 64))};
  return input;
}

std::string input_line(const CachedInput& input,
                       const std::optional<FragmentCache::Stamp>& stamp) {
  return "input " + input.hash + " " + stamp_text(stamp) + " " + input.path + "\n";
}

// The paths of a block's "absent <path>" lines, which follow its input lines.
std::vector<std::string_view> absent_paths(std::string_view block) {
  std::vector<std::string_view> paths;
  for (size_t from = 0; from < block.size();) {
    const size_t end = block.find('\n', from);
    if (block.substr(from).starts_with("absent "))
      paths.push_back(block.substr(from + 7, end - from - 7));
    from = end + 1;
  }
  return paths;
}

} // namespace

bool FragmentCache::still_true(const CachedInput& input, std::optional<Stamp>& stamp,
                               bool& restamp) {
  // An unchanged stamp is trusted; any other input is hashed, and its stamp
  // recorded (the entry rewritten) when it hashes the same.
  if (stamp && stat_of(input.path).stamp == stamp)
    return true;
  if (hash_of(input.path) != input.hash)
    return false;
  if (auto recordable = recordable_stamp(input.path, input.hash)) {
    stamp = recordable;
    restamp = true;
  }
  return true;
}

std::shared_ptr<const FragmentCache::CheckedBlock>
FragmentCache::check_block(const std::string& name) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = blocks_.find(name); it != blocks_.end())
      return it->second;
  }
  auto checked = std::make_shared<CheckedBlock>();
  checked->valid = [&] {
    // Named by its hash, which it must have: a damaged block is a miss.
    auto text = is_sha256(name) ? support::read_file(dir_ / (name + ".block"), nullptr,
                                                     kMaxEntryBytes, support::Links::refuse)
                                : std::nullopt;
    if (!text || support::sha256_hex(*text) != name)
      return false;
    checked->text = std::move(*text);
    const std::string_view block = checked->text;
    // Everything is checked before any path it names is looked at: no line
    // holds a control character, each is an input or absent line.
    if (!block.empty() && (block.back() != '\n' || has_control_character(block)))
      return false;
    std::vector<RecordedInput> inputs;
    size_t from = 0;
    for (; from < block.size() && block.substr(from).starts_with("input ");) {
      const size_t end = block.find('\n', from);
      auto input = parse_input_line(block.substr(from, end - from));
      if (!input)
        return false;
      inputs.push_back(std::move(*input));
      from = end + 1;
    }
    const size_t absent_from = from;
    for (; from < block.size();) {
      const size_t end = block.find('\n', from);
      const std::string_view line = block.substr(from, end - from);
      if (!line.starts_with("absent ") || line.size() == 7)
        return false;
      from = end + 1;
    }
    bool restamp = false;
    for (RecordedInput& input : inputs) {
      if (!still_true(input.input, input.stamp, restamp))
        return false;
    }
    if (!all_absent(absent_paths(block.substr(absent_from))))
      return false;
    if (restamp) {
      std::string restamped;
      for (const RecordedInput& input : inputs)
        restamped += input_line(input.input, input.stamp);
      restamped += block.substr(absent_from);
      checked->restamped = write_block(restamped);
    }
    for (RecordedInput& input : inputs)
      checked->inputs.push_back(std::move(input.input));
    return true;
  }();
  std::lock_guard lock(mutex_);
  return blocks_.emplace(name, checked).first->second;
}

std::optional<FragmentCache::Entry>
FragmentCache::lookup(const std::string& key, const std::string& file, bool with_absent) {
  // Not a link: an entry is only ever a file renamed into place.
  auto text = support::read_file(dir_ / (key + ".entry"), nullptr, kMaxEntryBytes,
                                 support::Links::refuse);
  if (!text)
    return std::nullopt;
  // Format: the header line, "key <key>", "source <file>", the file's own
  // "input <sha256> <stamp> <path>" line, "block <sha256>", "---", the IR.
  // The block file <sha256>.block holds the other inputs' lines and
  // "absent <path>" lines. Entries share blocks (files with the same
  // headers on the same search path): a block is read and checked once
  // per run for all the entries that name it.
  const std::string_view all = *text;
  size_t at = 0;
  auto next_line = [&]() -> std::optional<std::string_view> {
    const size_t end = all.find('\n', at);
    if (end == std::string_view::npos)
      return std::nullopt;
    std::string_view line = all.substr(at, end - at);
    at = end + 1;
    return line;
  };
  if (next_line() != kHeader || next_line() != "key " + key || next_line() != "source " + file)
    return std::nullopt;
  const std::optional<std::string_view> source_line = next_line();
  std::optional<RecordedInput> source =
      source_line ? parse_input_line(*source_line) : std::nullopt;
  const std::optional<std::string_view> block_line = next_line();
  if (!source || source->input.path != file || !block_line ||
      !block_line->starts_with("block ") || next_line() != "---")
    return std::nullopt;
  const std::string block(block_line->substr(6));
  const std::shared_ptr<const CheckedBlock> checked = check_block(block);
  bool restamp = !checked->restamped.empty();
  if (!checked->valid || !still_true(source->input, source->stamp, restamp))
    return std::nullopt;
  // A damaged or hand-made entry is a miss, like any other: its IR must be
  // a valid fragment naming the file, and its sources have the hashes of
  // the inputs they are (one a precompiled header holds is not listed).
  const std::string_view ir_text = all.substr(at);
  auto read = ir::from_json(std::string(ir_text), "cache", fields_);
  if (!read.module || read.module->library || !ir::validate(*read.module, ir::Locator()).empty())
    return std::nullopt;
  bool names_the_file = false;
  for (const ir::SourceFile& recorded : read.module->sources) {
    // Names first: showing a path may resolve it, a system call per part.
    const std::string name = fs::path(recorded.path).filename().string();
    auto is_recorded = [&](const CachedInput& input) {
      return input.path.ends_with(name) && support::display_path(input.path) == recorded.path;
    };
    const CachedInput* input = nullptr;
    if (is_recorded(source->input)) {
      input = &source->input;
      names_the_file = true;
    } else if (auto it = std::find_if(checked->inputs.begin(), checked->inputs.end(), is_recorded);
               it != checked->inputs.end()) {
      input = &*it;
    }
    if (input && input->hash != recorded.sha256)
      return std::nullopt;
  }
  if (!names_the_file)
    return std::nullopt;
  if (restamp) {
    write_entry(key, entry_text(key, file, input_line(source->input, source->stamp),
                                checked->restamped.empty() ? block : checked->restamped,
                                ir_text));
  }
  Entry entry{std::move(*read.module), {source->input.path}, {}};
  for (const CachedInput& input : checked->inputs)
    entry.inputs.push_back(input.path);
  if (with_absent) {
    for (std::string_view path : absent_paths(checked->text))
      entry.absent.emplace_back(path);
  }
  return entry;
}

void FragmentCache::store(const std::string& key, const std::string& file,
                          const Dependencies& dependencies, const ir::Module& fragment) {
  if (!dependencies.cacheable || !is_recordable_path(file))
    return;
  // The file's own input in the entry; the others in the block that the
  // entries of files with the same headers share.
  std::string source, block;
  for (const CachedInput& input : dependencies.inputs) {
    if (!is_sha256(input.hash) || !is_recordable_path(input.path))
      return; // an input that cannot be read cannot be checked later
    (input.path == file ? source : block) +=
        input_line(input, recordable_stamp(input.path, input.hash));
  }
  if (source.empty())
    return; // it could not be checked
  for (const std::string& path : dependencies.absent)
    block += "absent " + path + "\n";
  const std::string name = write_block(block);
  if (!name.empty())
    write_entry(key, entry_text(key, file, source, name, ir::to_json(fragment, fields_)));
}

std::string FragmentCache::entry_text(const std::string& key, const std::string& file,
                                      std::string_view source_line, std::string_view block,
                                      std::string_view ir) {
  return std::string(kHeader) + "\nkey " + key + "\nsource " + file + "\n" +
         std::string(source_line) + "block " + std::string(block) + "\n---\n" + std::string(ir);
}

std::string FragmentCache::write_block(const std::string& text) {
  const std::string name = support::sha256_hex(text);
  {
    std::lock_guard lock(mutex_);
    if (written_blocks_.contains(name))
      return name;
  }
  if (!write_file(name + ".block", text))
    return {};
  std::lock_guard lock(mutex_);
  written_blocks_.insert(name);
  return name;
}

void FragmentCache::write_entry(const std::string& key, const std::string& text) {
  write_file(key + ".entry", text);
}

bool FragmentCache::write_file(const std::string& name, const std::string& text) {
  if (text.size() > kMaxEntryBytes)
    return false; // it would not be read
  const fs::path path = dir_ / name;
  // Whatever is there that is not a regular file (a link, a FIFO) goes
  // first: writing compares with the old content, which must not be read.
  struct stat status {};
  if (::lstat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode))
    ::unlink(path.c_str());
  // Atomic: concurrent runs sharing the cache each write a whole file.
  std::string error;
  if (support::write_if_changed(path, text, &error) == support::WriteOutcome::failed) {
    std::lock_guard lock(mutex_);
    if (failure_.empty())
      failure_ = "cannot write " + path.string() + ": " + error;
    return false;
  }
  return true;
}

size_t FragmentCache::files_read() {
  std::lock_guard lock(mutex_);
  return files_read_;
}

std::string FragmentCache::failure() {
  std::lock_guard lock(mutex_);
  return failure_;
}

} // namespace opscan::scan
