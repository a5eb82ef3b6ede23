// `opscan scan --cache`, run twice as a build would run it: what a second
// run takes from the cache, and what it must not. A hit is seen where an
// entry was edited in a valid but false way; a miss, where the IR follows a
// change the cache must notice.
#include "files.h"
#include "run.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRepo = OPSCAN_SOURCE_DIR;

using opscan::testing::read_file;
using opscan::testing::TempDir;
using opscan::testing::write_file;

// A project in a temporary directory: sources in src/, headers in old/ and
// new/ (on the path in that order after the repository's own), scanned
// with a cache in cache/.
class CacheCli : public ::testing::Test {
protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "new");
    dir_.write("old/k.h", kernel("old_k"));
    dir_.write("src/k.cpp", "#include \"k.h\"\n" + kernel("k"));
  }

  // A file declaring the kernel t::NAME.out.
  static std::string kernel(const std::string& name) {
    return "#pragma once\n#include <opscan/annotations.h>\n"
           "#include <opscan_examples/executorch_types.h>\n"
           "OPSCAN_KERNEL(\"t::" +
           name + ".out\")\nexecutorch::aten::Tensor& " + name +
           "_out(executorch::runtime::KernelRuntimeContext& ctx, const "
           "executorch::aten::Tensor& self, executorch::aten::Tensor& out);\n";
  }

  // Runs `[environment] opscan scan --cache cache -o ir.json FILES -- ...`
  // in the project; returns the IR written, "" with a test failure if the
  // run failed.
  std::string scan(const std::string& files, const std::string& environment = "") {
    const std::string command = "cd '" + dir_.path().string() + "' && " + environment +
                                " '" OPSCAN_BINARY "' scan --cache cache -o ir.json " + files +
                                " -- -std=c++17 -I'" + (kRepo / "include").string() + "' -I'" +
                                (kRepo / "examples/include").string() +
                                "' -Inew -Iold >out.txt 2>&1";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << command << "\n"
        << read_file(dir_.path() / "out.txt");
    return read_file(dir_.path() / "ir.json");
  }

  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir_.path() / "cache"))
      out.push_back(e.path());
    return out;
  }
  // The cache entry that holds `text`.
  fs::path entry_with(const std::string& text) const {
    for (const fs::path& entry : entries()) {
      if (read_file(entry).find(text) != std::string::npos)
        return entry;
    }
    ADD_FAILURE() << "no cache entry holds " << text;
    return {};
  }
  // Edits the entry that holds `from`, valid but false: a hit shows `to`.
  void falsify(const std::string& from, const std::string& to) {
    const fs::path entry = entry_with(from);
    std::string text = read_file(entry);
    text.replace(text.find(from), from.size(), to);
    write_file(entry, text);
  }

  TempDir dir_;
};

TEST_F(CacheCli, ASecondRunIsServedFromTheCache) {
  EXPECT_NE(scan("src/k.cpp").find("\"old_k_out\""), std::string::npos);
  falsify("\"k_out\"", "\"cached_k_out\"");
  EXPECT_NE(scan("src/k.cpp").find("\"cached_k_out\""), std::string::npos);
}

// libclang is loaded when a file must be parsed, and only then (the dynamic
// loader's own record of the libraries it loads, LD_DEBUG=files): not by a
// no-change scan, which takes libclang's version from the cache too, nor by
// check or generate.
TEST_F(CacheCli, LibclangIsLoadedOnlyToParse) {
  auto loaded_libclang = [&] {
    return read_file(dir_.path() / "out.txt").find("libclang") != std::string::npos;
  };
  const std::string cold = scan("src/k.cpp", "LD_DEBUG=files");
  EXPECT_TRUE(loaded_libclang()) << "the loader's record of the cold scan names no libclang";
  EXPECT_EQ(scan("src/k.cpp", "LD_DEBUG=files"), cold);
  EXPECT_FALSE(loaded_libclang()) << read_file(dir_.path() / "out.txt");
  for (const char* command : {"check --lib k --registration named ir.json",
                              "generate --lib k --registration named ir.json -o gen"}) {
    SCOPED_TRACE(command);
    const std::string line = "cd '" + dir_.path().string() +
                             "' && LD_DEBUG=files '" OPSCAN_BINARY "' " + command +
                             " >out.txt 2>&1";
    const int status = std::system(line.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << read_file(dir_.path() / "out.txt");
    EXPECT_FALSE(loaded_libclang()) << read_file(dir_.path() / "out.txt");
  }
}

TEST_F(CacheCli, AHeaderThatNowShadowsTheOneIncludedIsAMiss) {
  EXPECT_NE(scan("src/k.cpp").find("\"old_k_out\""), std::string::npos);
  dir_.write("new/k.h", kernel("new_k"));
  const std::string ir = scan("src/k.cpp");
  EXPECT_NE(ir.find("\"new_k_out\""), std::string::npos) << ir;
  EXPECT_EQ(ir.find("\"old_k_out\""), std::string::npos) << ir;
}

TEST_F(CacheCli, AChangedIncludePathVariableIsAMiss) {
  // The kernel's argument type comes from kk.h, found through the variable.
  dir_.write("env_old/kk.h", "#pragma once\nusing KArg = const executorch::aten::Tensor&;\n");
  dir_.write("env_new/kk.h", "#pragma once\nusing KArg = double;\n");
  dir_.write("src/k.cpp", kernel("unused").substr(0, kernel("unused").find("OPSCAN_KERNEL")) +
                              "#include <kk.h>\nOPSCAN_KERNEL(\"t::k.out\")\n"
                              "executorch::aten::Tensor& k_out(executorch::runtime::"
                              "KernelRuntimeContext& ctx, KArg self, executorch::aten::Tensor& "
                              "out);\n");
  for (const char* variable : {"CPATH", "CPLUS_INCLUDE_PATH"}) {
    SCOPED_TRACE(variable);
    fs::remove_all(dir_.path() / "cache");
    const std::string before = scan("src/k.cpp", std::string(variable) + "=env_old");
    EXPECT_NE(before.find("t::k.out(Tensor self"), std::string::npos) << before;
    const std::string after = scan("src/k.cpp", std::string(variable) + "=env_new");
    EXPECT_NE(after.find("t::k.out(float self"), std::string::npos) << after;
  }
}

TEST_F(CacheCli, AnotherFilesEntryCopiedOrLinkedIsAMiss) {
  dir_.write("src/a.cpp", kernel("a"));
  dir_.write("src/b.cpp", kernel("b"));
  const std::string cold = scan("src/a.cpp src/b.cpp");
  const fs::path a = entry_with("\"a_out\"");
  const fs::path b = entry_with("\"b_out\"");
  fs::copy_file(a, b, fs::copy_options::overwrite_existing);
  EXPECT_EQ(scan("src/a.cpp src/b.cpp"), cold);
  fs::remove(b);
  fs::create_hard_link(a, b);
  EXPECT_EQ(scan("src/a.cpp src/b.cpp"), cold);
  fs::remove(b);
  fs::create_symlink(a, b);
  EXPECT_EQ(scan("src/a.cpp src/b.cpp"), cold);
}

TEST_F(CacheCli, AnEntryEditedToListNoInputsIsAMiss) {
  const std::string cold = scan("src/k.cpp");
  falsify("\"k_out\"", "\"cached_k_out\"");
  // Without the lines naming the files it was made from (each ends in the
  // path of one), nothing could show it stale.
  const fs::path entry = entry_with("\"cached_k_out\"");
  std::istringstream lines(read_file(entry));
  std::string edited;
  bool in_ir = false;
  for (std::string line; std::getline(lines, line);) {
    in_ir |= line == "---";
    const fs::path last = line.substr(line.rfind(' ') + 1);
    if (in_ir || !fs::is_regular_file(dir_.path() / last))
      edited += line + "\n";
  }
  write_file(entry, edited);
  EXPECT_EQ(scan("src/k.cpp"), cold);
}

} // namespace

namespace {

// Seven sources k0.cpp..k6.cpp in `dir`/`subdir` starting with the same
// #include lines (enough for an automatic precompiled header), each with
// one kernel; their paths, each after a space.
std::string write_sharing_sources(const TempDir& dir, const std::string& subdir) {
  std::string files;
  for (int i = 0; i < 7; ++i) {
    const std::string name = "k" + std::to_string(i);
    dir.write(subdir + name + ".cpp",
              "#include <map>\n#include <vector>\n#include <functional>\n"
              "#include <opscan/annotations.h>\n#include <opscan_examples/executorch_types.h>\n"
              "OPSCAN_KERNEL(\"t::" +
                  name + ".out\")\nexecutorch::aten::Tensor& " + name +
                  "_out(executorch::runtime::KernelRuntimeContext& ctx, const "
                  "executorch::aten::Tensor& self, executorch::aten::Tensor& out);\n");
    files += " " + subdir + name + ".cpp";
  }
  return files;
}

} // namespace

// Seven sources starting with the same #include lines: with --cache, those
// lines are precompiled once into cache/pch/; --no-auto-pch makes none. The
// IR and depfile are the same either way.
TEST(AutoPchCli, SharedIncludesChangeNothingAndCanBeTurnedOff) {
  TempDir dir;
  const std::string files = write_sharing_sources(dir, "src/");
  auto scan = [&](const std::string& options, const std::string& out) {
    const std::string command = "cd '" + dir.path().string() + "' && '" OPSCAN_BINARY "' scan " +
                                options + " -o " + out + ".json --depfile " + out + ".d" + files +
                                " -- -std=c++17 -I'" + (kRepo / "include").string() + "' -I'" +
                                (kRepo / "examples/include").string() + "' >out.txt 2>&1";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n"
                                                               << read_file(dir.path() / "out.txt");
  };
  scan("--cache on", "on");
  scan("--cache off --no-auto-pch", "off");
  scan("", "none");
  // The shared lines are kept in memory: a scan stores no header.
  EXPECT_FALSE(fs::exists(dir.path() / "on/pch"));
  EXPECT_FALSE(fs::exists(dir.path() / "off/pch"));
  EXPECT_EQ(read_file(dir.path() / "on.json"), read_file(dir.path() / "off.json"));
  EXPECT_EQ(read_file(dir.path() / "on.json"), read_file(dir.path() / "none.json"));
  auto depfile = [&](const std::string& name) {
    std::string text = read_file(dir.path() / (name + ".d"));
    return text.substr(text.find(':'));
  };
  EXPECT_EQ(depfile("on"), depfile("off"));
  EXPECT_EQ(read_file(dir.path() / "on.d").find("/pch/"), std::string::npos);
}

// opscan pch --shared: what it needs, and what it refuses.
TEST(SharedPchCli, BadCommandLinesAreUsageErrorsAndBadPathsAreReported) {
  using opscan::testing::run_command;
  TempDir dir;
  dir.write("a.cpp", "#include <vector>\n");
  dir.write("b.cpp", "#include <vector>\n");
  dir.write("not-a-dir", "");
  const std::string opscan = "'" OPSCAN_BINARY "'";
  auto run = [&](const std::string& arguments) {
    return run_command(dir.path(), opscan + arguments);
  };

  auto no_cache = run(" pch --shared a.cpp b.cpp -o list.txt");
  EXPECT_EQ(no_cache.exit_code, 2) << no_cache.err;
  EXPECT_NE(no_cache.err.find("pch --shared needs --cache"), std::string::npos) << no_cache.err;
  auto two_headers = run(" pch a.cpp b.cpp -o out.pch");
  EXPECT_EQ(two_headers.exit_code, 2) << two_headers.err;
  EXPECT_NE(two_headers.err.find("pch takes one header"), std::string::npos) << two_headers.err;
  auto cache_alone = run(" pch a.cpp -o out.pch --cache c");
  EXPECT_EQ(cache_alone.exit_code, 2) << cache_alone.err;
  auto missing = run(" pch --shared a.cpp missing.cpp --cache c -o list.txt");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("missing.cpp"), std::string::npos) << missing.err;
  // The list must not overwrite a source.
  auto overwrite = run(" pch --shared a.cpp b.cpp --cache c -o a.cpp");
  EXPECT_NE(overwrite.exit_code, 0);
  EXPECT_EQ(read_file(dir.path() / "a.cpp"), "#include <vector>\n");
  // A cache that cannot be a directory: no header, the list still written.
  auto file_cache = run(" pch --shared a.cpp b.cpp --cache not-a-dir -o list.txt");
  EXPECT_EQ(file_cache.exit_code, 0) << file_cache.err;
  EXPECT_EQ(read_file(dir.path() / "not-a-dir"), "");
  for (const char* name : {"out.pch", "c"})
    EXPECT_FALSE(fs::exists(dir.path() / name)) << name;
}

// A cache that cannot be written costs a scan its speed, not its result,
// and says so once; `pch --shared`, whose job is to store headers there,
// fails. A link planted where opscan makes cache/pch is never followed.
namespace {

class CacheFaults : public ::testing::Test {
protected:
  void SetUp() override {
    files_ = write_sharing_sources(dir_, "");
    fs::create_directories(dir_.path() / "elsewhere");
  }

  opscan::testing::RunResult opscan(const std::string& arguments,
                                    const std::string& before = "") const {
    return opscan::testing::run_command(dir_.path(),
                                        before + "'" OPSCAN_BINARY "' " + arguments +
                                            " -- -std=c++17 -I'" + (kRepo / "include").string() +
                                            "' -I'" + (kRepo / "examples/include").string() + "'");
  }

  TempDir dir_;
  std::string files_;
};

TEST_F(CacheFaults, APlantedPchLinkIsNotFollowed) {
  fs::create_directories(dir_.path() / "cache");
  fs::create_directory_symlink(dir_.path() / "elsewhere", dir_.path() / "cache/pch");
  const auto plain = opscan("scan -o plain.json" + files_);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // A scan writes no header (it keeps the shared lines in memory).
  const auto scan = opscan("scan --cache cache -o ir.json" + files_);
  EXPECT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_EQ(scan.err, "");
  EXPECT_EQ(read_file(dir_.path() / "ir.json"), read_file(dir_.path() / "plain.json"));
  EXPECT_TRUE(fs::is_empty(dir_.path() / "elsewhere"));

  const auto shared = opscan("pch --shared --cache cache -o list.txt" + files_);
  EXPECT_EQ(shared.exit_code, 3) << shared.err;
  EXPECT_NE(shared.err.find("error: cannot store the precompiled headers in cache: "),
            std::string::npos)
      << shared.err;
  EXPECT_TRUE(fs::is_empty(dir_.path() / "elsewhere"));
  EXPECT_FALSE(fs::exists(dir_.path() / "list.txt"));
}

TEST_F(CacheFaults, ACacheThatIsAFileIsSaidOnce) {
  dir_.write("cache", "not a directory\n");
  const auto scan = opscan("scan --cache cache -o ir.json" + files_);
  EXPECT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_EQ(std::count(scan.err.begin(), scan.err.end(), '\n'), 1) << scan.err;
  EXPECT_NE(scan.err.find("Not a directory (the IR is the same; the next scan is not faster) "
                          "[opscan-cache-unusable]"),
            std::string::npos)
      << scan.err;
  EXPECT_EQ(read_file(dir_.path() / "cache"), "not a directory\n");
}

// libclang says nothing of why it could not save: opscan finds the likely
// reason (here the file size limit) and fails as an I/O error.
TEST_F(CacheFaults, AHeaderThatCannotBeSavedIsAnIoError) {
  // 400 blocks: 200 KiB (dash) or 400 KiB (bash); a header of <map> and
  // <vector> is megabytes.
  const std::string limited = "sh -c 'ulimit -f 400 && exec \"$@\"' sh ";
  const auto shared = opscan("pch --shared --cache cache -o list.txt" + files_, limited);
  EXPECT_EQ(shared.exit_code, 3) << shared.err;
  EXPECT_NE(shared.err.find("File too large (the file size limit, ulimit -f, is "),
            std::string::npos)
      << shared.err;
  EXPECT_FALSE(fs::exists(dir_.path() / "list.txt"));

  const auto pch = opscan("pch k0.cpp -o k0.pch", limited);
  EXPECT_EQ(pch.exit_code, 3) << pch.err;
  EXPECT_NE(pch.err.find("error: cannot save the precompiled header: libclang could not write it "
                         "into "),
            std::string::npos)
      << pch.err;
  EXPECT_FALSE(fs::exists(dir_.path() / "k0.pch"));
}

} // namespace

namespace {

// The list pch --shared writes depends on the headers read to plan it,
// whether or not a header is made: none may be replaced by an output, and
// the depfile names each input once.
TEST(SharedPchCli, TheHeadersItReadsAreInputs) {
  using opscan::testing::run_command;
  TempDir dir;
  dir.write("inc/common.h", "#pragma once\nint shared_thing;\n");
  dir.write("a.cpp", "#include <common.h>\n#include <vector>\nint a;\n");
  dir.write("b.cpp", "#include <common.h>\n#include <vector>\nint b;\n");
  const std::string shared = "'" OPSCAN_BINARY "' pch --shared a.cpp b.cpp --cache c -o list.txt";
  for (const char* option : {" --depfile", " --export-fixes"}) {
    SCOPED_TRACE(option);
    const auto over = run_command(dir.path(), shared + option + " inc/common.h -- -Iinc");
    EXPECT_EQ(over.exit_code, 2) << over.err;
    EXPECT_NE(over.err.find("[opscan-output-is-input]"), std::string::npos) << over.err;
    EXPECT_EQ(read_file(dir.path() / "inc/common.h"), "#pragma once\nint shared_thing;\n");
  }

  const auto run = run_command(dir.path(), shared + " --depfile list.d -- -Iinc");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream lines(read_file(dir.path() / "list.d"));
  std::vector<std::string> prerequisites;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("  "))
      prerequisites.push_back(line.substr(2, line.find_last_not_of(" \\") - 1));
  }
  for (const fs::path& file : {dir.path() / "a.cpp", dir.path() / "inc/common.h"})
    EXPECT_EQ(std::count(prerequisites.begin(), prerequisites.end(), file.string()), 1) << file;
}

} // namespace
