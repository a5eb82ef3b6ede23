// The tests' file helpers, in one place rather than a copy per test file: a
// temporary directory that removes itself, and whole-file reads and writes.
// Every test target that needs them links opscan_test_common (test/CMakeLists.txt).
// (Inside namespace opscan, `testing::` now names this namespace: spell
// gtest's as `::testing::`.)
#pragma once

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
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

// Writes `content` to `path` byte for byte, replacing what was there.
// Throws if it cannot, so that a test fails where its setup did.
inline void write_file(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  out.close();
  if (!out)
    throw std::runtime_error("cannot write " + path.string());
}

// Every regular file under `dir` (by path relative to it) with its content
// and modification time: equal snapshots mean nothing was written.
using Snapshot =
    std::map<std::string, std::pair<std::string, std::filesystem::file_time_type>>;
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
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // path()/name, as a string.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

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
