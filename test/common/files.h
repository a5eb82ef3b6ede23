// The tests' file helpers, in one place rather than a copy per test file: a
// temporary directory that removes itself, and whole-file reads and writes.
// Every test target that needs them links opscan_test_common (test/CMakeLists.txt).
// (Inside namespace opscan, `testing::` now names this namespace: spell
// gtest's as `::testing::`.)
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace opscan::testing {

// The bytes of `path`; "" if it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The 1-based number of the first line of `path` that contains `text`; 0 if
// none does (a test then fails on a line that no generated message names).
inline int line_of(const std::filesystem::path& path, const std::string& text) {
  std::ifstream in(path);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find(text) != std::string::npos)
      return number;
  }
  return 0;
}

// Writes `content` to `path` byte for byte, replacing what was there.
// The files tests wrote themselves (write_file), as they were written: an
// IR among them may be damaged on purpose, and is not opscan's.
inline std::map<std::filesystem::path, std::string>& files_tests_wrote() {
  static std::map<std::filesystem::path, std::string> files;
  return files;
}

// Throws if it cannot, so that a test fails where its setup did.
inline void write_file(const std::filesystem::path& path, const std::string& content) {
  {
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    files_tests_wrote()[std::filesystem::absolute(path).lexically_normal()] = content;
  }
  std::ofstream out(path, std::ios::binary);
  out << content;
  out.close();
  if (!out)
    throw std::runtime_error("cannot write " + path.string());
}

// Every regular file under `dir` (by path relative to it) with its content
// and modification time: equal snapshots mean nothing was written.
using Snapshot = std::map<std::string, std::pair<std::string, std::filesystem::file_time_type>>;
inline Snapshot snapshot(const std::filesystem::path& dir) {
  Snapshot files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[std::filesystem::relative(entry.path(), dir).string()] = {read_file(entry.path()),
                                                                      entry.last_write_time()};
    }
  }
  return files;
}

// Copies every IR file opscan wrote under `dir` (a file starting as opscan
// writes IR, other than one a test wrote with that content) into `archive`,
// named by its content's hash: the suite's last test (ir_schema) checks them
// all against the IR's JSON Schema with a real validator.
inline void archive_irs(const std::filesystem::path& dir, const std::filesystem::path& archive) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".json")
      continue;
    const std::string text = read_file(it->path());
    // (No starts_with: the torch tests include this header as C++17.)
    if (text.rfind("{\n  \"format\": \"opscan-ir\"", 0) != 0)
      continue;
    auto written = files_tests_wrote().find(fs::absolute(it->path()).lexically_normal());
    if (written != files_tests_wrote().end() && written->second == text)
      continue;
    fs::create_directories(archive, ec);
    char name[32];
    std::snprintf(name, sizeof name, "%016zx.json", std::hash<std::string>{}(text));
    std::ofstream(archive / name, std::ios::binary) << text;
  }
}

// A fresh directory under the system's temporary directory, made by mkdtemp
// (so unique under parallel ctest) and removed with everything in it when
// the TempDir goes. Throws if it cannot be made.
class TempDir {
public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "opscan-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(),
                              "cannot make a temporary directory " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
#ifdef OPSCAN_TEST_IR_ARCHIVE
    archive_irs(path_, OPSCAN_TEST_IR_ARCHIVE);
#endif
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const {
    return path_;
  }

  // path()/name, as a string.
  std::string file(const std::string& name) const {
    return (path_ / name).string();
  }

  // Writes `content` to path()/relative, creating its directories; returns
  // that path.
  std::string write(const std::string& relative, const std::string& content) const {
    const std::filesystem::path file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    write_file(file, content);
    return file.string();
  }

private:
  std::filesystem::path path_;
};

} // namespace opscan::testing
