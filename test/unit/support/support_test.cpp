#include <gtest/gtest.h>

// Tests for lib/support: SHA-256, reading and writing files, display paths.

#include "files.h"
#include "support/depfile.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/sha256.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <set>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace opscan::support;

// ===== sha256_hex ===========================================================

// FIPS 180-2 appendix B / NIST CSRC example vectors.
TEST(Sha256, EmptyString) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, Abc) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, TwoBlockMessage448Bits) {
  // 56 bytes: the padding no longer fits in the first block.
  std::string message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  ASSERT_EQ(message.size() * 8, 448u);
  EXPECT_EQ(sha256_hex(message),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, Message896Bits) {
  std::string message = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                        "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
  ASSERT_EQ(message.size() * 8, 896u);
  EXPECT_EQ(sha256_hex(message),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionA) {
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Lengths around the block and padding boundaries: 55 bytes is the longest
// message whose padding fits one block, 56 the shortest that needs two.
// Digests from Python's hashlib.sha256(b"a" * n).
TEST(Sha256, PaddingBoundaries) {
  struct Case {
    size_t length;
    const char* digest;
  };
  for (const Case& c : {
           Case{55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
           Case{56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
           Case{63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
           Case{64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
           Case{65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
           Case{119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
           Case{120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
           Case{128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
       }) {
    EXPECT_EQ(sha256_hex(std::string(c.length, 'a')), c.digest) << "length " << c.length;
  }
}

TEST(Sha256, EveryByteValue) {
  // NUL and high bytes are data like any other (hashlib.sha256(bytes(range(256)))).
  std::string bytes;
  for (int i = 0; i < 256; ++i)
    bytes += static_cast<char>(i);
  EXPECT_EQ(sha256_hex(bytes), "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880");
}

TEST(Sha256, HashesOnlyTheViewedBytes) {
  std::string text = "xxabcyy";
  EXPECT_EQ(sha256_hex(std::string_view(text).substr(2, 3)), sha256_hex("abc"));
}

TEST(Sha256, DistinctInputsGiveDistinctLowercaseDigests) {
  std::set<std::string> digests;
  size_t inputs = 0;
  auto add = [&](const std::string& input) {
    std::string digest = sha256_hex(input);
    ASSERT_EQ(digest.size(), 64u) << "input length " << input.size();
    EXPECT_TRUE(std::all_of(digest.begin(), digest.end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    })) << digest;
    EXPECT_EQ(sha256_hex(input), digest) << "not deterministic";
    digests.insert(digest);
    ++inputs;
  };
  // Every length from 0 to 200, and every single-bit change of a 130-byte
  // message (which spans three blocks once padded).
  for (size_t n = 0; n <= 200; ++n)
    add(std::string(n, 'a'));
  std::string base(130, '\0');
  for (size_t bit = 0; bit < base.size() * 8; ++bit) {
    std::string flipped = base;
    flipped[bit / 8] = static_cast<char>(flipped[bit / 8] ^ (1 << (bit % 8)));
    add(flipped);
  }
  EXPECT_EQ(digests.size(), inputs);
}

// Fed in parts, at every split of inputs around the 55/56/64-byte block
// edges, the hash is the one-shot hash; a copy finishes independently.
TEST(Sha256, InPartsIsTheSameAsAtOnce) {
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += static_cast<char>('a' + i % 26);
  for (size_t size : {0, 1, 55, 56, 63, 64, 65, 119, 128, 200}) {
    const std::string data = text.substr(0, size);
    for (size_t cut = 0; cut <= size; ++cut) {
      for (size_t second = cut; second <= size; second += 7) {
        Sha256 parts;
        parts.update(data.substr(0, cut)).update(data.substr(cut, second - cut));
        const Sha256 prefix = parts;
        parts.update(data.substr(second));
        ASSERT_EQ(parts.hex(), sha256_hex(data)) << size << " " << cut << " " << second;
        ASSERT_EQ(Sha256(prefix).update(data.substr(second)).hex(), sha256_hex(data));
      }
    }
  }
}

// ===== Files: a fresh directory per test ====================================

// The tests set files up and read them back with opscan::testing's helpers,
// not with the functions under test.
class Files : public ::testing::Test {
protected:
  void SetUp() override { cwd_ = fs::current_path(); }
  void TearDown() override { fs::current_path(cwd_); }

  // Every file and directory under dir_, relative to it.
  std::vector<std::string> tree() const {
    std::vector<std::string> entries;
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
      entries.push_back(entry.path().lexically_relative(dir_).generic_string());
    }
    std::sort(entries.begin(), entries.end());
    return entries;
  }

  opscan::testing::TempDir tmp_;
  const fs::path dir_ = fs::canonical(tmp_.path());
  fs::path cwd_;
};

using Strings = std::vector<std::string>;

// ----- read_file -------------------------------------------------------------

TEST_F(Files, ReadFileReturnsTheBytes) {
  std::string content("line 1\r\nline 2\n\0binary\xff", 23);
  opscan::testing::write_file(dir_ / "f.bin", content);
  std::string error;
  auto read = read_file(dir_ / "f.bin", &error);
  ASSERT_TRUE(read.has_value()) << error;
  EXPECT_EQ(*read, content);
  opscan::testing::write_file(dir_ / "empty", "");
  EXPECT_EQ(read_file(dir_ / "empty"), std::optional<std::string>(""));
}

// Files are read in blocks: one of several blocks and a partial last one
// comes back whole and in order.
TEST_F(Files, ReadFileReturnsAFileOfManyBlocks) {
  std::string content;
  for (int i = 0; content.size() < 300'000; ++i)
    content += std::to_string(i) + (i % 7 == 0 ? '\0' : '\n');
  opscan::testing::write_file(dir_ / "big.bin", content);
  EXPECT_EQ(read_file(dir_ / "big.bin"), std::optional<std::string>(content));
}

TEST_F(Files, ReadFileOfMissingFileSaysWhy) {
  std::string error;
  EXPECT_EQ(read_file(dir_ / "missing", &error), std::nullopt);
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  EXPECT_EQ(read_file(dir_ / "missing"), std::nullopt); // no error out-parameter
}

TEST_F(Files, ReadFileOfDirectoryFails) {
  std::string error;
  EXPECT_EQ(read_file(dir_, &error), std::nullopt);
  EXPECT_NE(error.find("directory"), std::string::npos) << error;
}

// ----- write_if_changed -----------------------------------------------------

TEST_F(Files, WritesANewFile) {
  std::string error;
  EXPECT_EQ(write_if_changed(dir_ / "out.txt", "hello\n", &error), WriteOutcome::written) << error;
  EXPECT_EQ(opscan::testing::read_file(dir_ / "out.txt"), "hello\n");
  EXPECT_EQ(tree(), Strings{"out.txt"});
}

TEST_F(Files, WritesAnEmptyFile) {
  EXPECT_EQ(write_if_changed(dir_ / "empty", ""), WriteOutcome::written);
  EXPECT_TRUE(fs::is_regular_file(dir_ / "empty"));
  EXPECT_EQ(fs::file_size(dir_ / "empty"), 0u);
  EXPECT_EQ(write_if_changed(dir_ / "empty", ""), WriteOutcome::unchanged);
}

TEST_F(Files, CreatesParentDirectories) {
  fs::path path = dir_ / "a" / "b" / "c" / "out.h";
  EXPECT_EQ(write_if_changed(path, "#pragma once\n"), WriteOutcome::written);
  EXPECT_EQ(opscan::testing::read_file(path), "#pragma once\n");
  EXPECT_EQ(tree(), (Strings{"a", "a/b", "a/b/c", "a/b/c/out.h"}));
}

TEST_F(Files, RelativePathInTheCurrentDirectory) {
  fs::current_path(dir_);
  EXPECT_EQ(write_if_changed("plain.txt", "x"), WriteOutcome::written);
  EXPECT_EQ(opscan::testing::read_file(dir_ / "plain.txt"), "x");
  EXPECT_EQ(write_if_changed("plain.txt", "x"), WriteOutcome::unchanged);
  EXPECT_EQ(tree(), Strings{"plain.txt"});
}

TEST_F(Files, SameContentIsLeftAlone) {
  fs::path path = dir_ / "out.txt";
  opscan::testing::write_file(path, "same\n");
  auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(path, old_time);
  fs::create_hard_link(path, dir_ / "link"); // the file is not replaced either

  std::string error = "untouched";
  EXPECT_EQ(write_if_changed(path, "same\n", &error), WriteOutcome::unchanged);
  EXPECT_EQ(fs::last_write_time(path), old_time);
  EXPECT_EQ(fs::hard_link_count(path), 2u);
  EXPECT_EQ(error, "untouched");
  EXPECT_EQ(tree(), (Strings{"link", "out.txt"}));
}

TEST_F(Files, NewContentReplacesTheFileAtomically) {
  fs::path path = dir_ / "out.txt";
  opscan::testing::write_file(path, "old content, longer than the new one\n");
  // A hard link keeps the old inode: a rename leaves it as it was, where
  // rewriting in place would change it (and expose a half-written file).
  fs::create_hard_link(path, dir_ / "old");

  EXPECT_EQ(write_if_changed(path, "new\n"), WriteOutcome::written);
  EXPECT_EQ(opscan::testing::read_file(path), "new\n");
  EXPECT_EQ(opscan::testing::read_file(dir_ / "old"), "old content, longer than the new one\n");
  EXPECT_EQ(fs::hard_link_count(path), 1u);
  EXPECT_EQ(tree(), (Strings{"old", "out.txt"})); // no temporary files left

  EXPECT_EQ(write_if_changed(path, "new\n"), WriteOutcome::unchanged);
  EXPECT_EQ(write_if_changed(path, "newer\n"), WriteOutcome::written);
  EXPECT_EQ(opscan::testing::read_file(path), "newer\n");
  EXPECT_EQ(tree(), (Strings{"old", "out.txt"}));
}

TEST_F(Files, FailsWhenTheParentIsAFile) {
  opscan::testing::write_file(dir_ / "file.txt", "precious\n");
  std::string error;
  EXPECT_EQ(write_if_changed(dir_ / "file.txt" / "out.txt", "x", &error), WriteOutcome::failed);
  EXPECT_NE(error.find("Not a directory"), std::string::npos) << error;
  EXPECT_EQ(opscan::testing::read_file(dir_ / "file.txt"), "precious\n");
  EXPECT_EQ(tree(), Strings{"file.txt"});

  error.clear();
  EXPECT_EQ(write_if_changed(dir_ / "file.txt" / "sub" / "out.txt", "x", &error),
            WriteOutcome::failed);
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(tree(), Strings{"file.txt"});
  // No error out-parameter: still fails cleanly.
  EXPECT_EQ(write_if_changed(dir_ / "file.txt" / "out.txt", "x"), WriteOutcome::failed);
}

TEST_F(Files, FailsWhenThePathIsADirectory) {
  fs::create_directories(dir_ / "out" / "inner");
  for (const std::string content : {"x", ""}) {
    SCOPED_TRACE("content '" + content + "'");
    std::string error;
    EXPECT_EQ(write_if_changed(dir_ / "out", content, &error), WriteOutcome::failed);
    EXPECT_NE(error.find("Is a directory"), std::string::npos) << error;
    EXPECT_TRUE(fs::is_directory(dir_ / "out" / "inner"));
    EXPECT_EQ(tree(), (Strings{"out", "out/inner"}));
  }
}

// Makes writes beyond `bytes` fail with EFBIG (even for root) while alive.
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }

private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

TEST_F(Files, LeavesTheOriginalIntactWhenWritingFails) {
  fs::path path = dir_ / "out.txt";
  opscan::testing::write_file(path, "original\n");
  auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(path, old_time);
  std::string error;
  WriteOutcome outcome;
  {
    FileSizeLimit limit(16);
    outcome = write_if_changed(path, std::string(100000, 'x'), &error);
  }
  EXPECT_EQ(outcome, WriteOutcome::failed);
  EXPECT_NE(error.find("too large"), std::string::npos) << error;
  EXPECT_EQ(opscan::testing::read_file(path), "original\n");
  EXPECT_EQ(fs::last_write_time(path), old_time);
  EXPECT_EQ(tree(), Strings{"out.txt"}); // the temporary file is gone
}

TEST_F(Files, FailsToCreateANewFileCleanly) {
  std::string error;
  WriteOutcome outcome;
  {
    FileSizeLimit limit(16);
    outcome = write_if_changed(dir_ / "sub" / "out.txt", std::string(100000, 'x'), &error);
  }
  EXPECT_EQ(outcome, WriteOutcome::failed);
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(fs::exists(dir_ / "sub" / "out.txt"));
  EXPECT_EQ(tree(), Strings{}); // the directory it made for the file is gone too
}

// ----- write_files: all or nothing -----------------------------------------

// Three outputs, two of them existing with old content.
class WriteFiles : public Files {
protected:
  void SetUp() override {
    Files::SetUp();
    fs::create_directories(dir_ / "lib");
    opscan::testing::write_file(dir_ / "lib" / "a.h", "old a\n");
    opscan::testing::write_file(dir_ / "lib" / "b.cpp", "old b\n");
    before_ = opscan::testing::snapshot(dir_);
  }
  std::vector<FileWrite> outputs() const {
    return {{dir_ / "lib" / "a.h", "new a\n"},
            {dir_ / "lib" / "b.cpp", "new b\n"},
            {dir_ / "lib" / "gen" / "c.yaml", "new c\n"}};
  }
  void expect_untouched(const WriteFilesResult& result) {
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(opscan::testing::snapshot(dir_), before_);
    EXPECT_EQ(tree(), (Strings{"lib", "lib/a.h", "lib/b.cpp"}))
        << "no temporary, backup or new directory may be left";
  }
  opscan::testing::Snapshot before_;
};

TEST_F(WriteFiles, WritesEveryChangedFile) {
  opscan::testing::write_file(dir_ / "lib" / "b.cpp", "new b\n");
  WriteFilesResult result = write_files(outputs());
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.outcomes,
            (std::vector{WriteOutcome::written, WriteOutcome::unchanged, WriteOutcome::written}));
  EXPECT_EQ(opscan::testing::read_file(dir_ / "lib" / "gen" / "c.yaml"), "new c\n");
  EXPECT_EQ(tree(), (Strings{"lib", "lib/a.h", "lib/b.cpp", "lib/gen", "lib/gen/c.yaml"}));
}

TEST_F(WriteFiles, ADirectoryInTheWayChangesNothing) {
  fs::create_directories(dir_ / "lib" / "gen" / "c.yaml");
  before_ = opscan::testing::snapshot(dir_);
  WriteFilesResult result = write_files(outputs());
  EXPECT_EQ(result.failed_path, dir_ / "lib" / "gen" / "c.yaml");
  EXPECT_NE(result.error.find("Is a directory"), std::string::npos) << result.error;
  EXPECT_EQ(opscan::testing::snapshot(dir_), before_);
  EXPECT_EQ(tree(), (Strings{"lib", "lib/a.h", "lib/b.cpp", "lib/gen", "lib/gen/c.yaml"}));
}

TEST_F(WriteFiles, AFileWhereADirectoryShouldBeChangesNothing) {
  opscan::testing::write_file(dir_ / "lib" / "gen", "a file\n");
  before_ = opscan::testing::snapshot(dir_);
  WriteFilesResult result = write_files(outputs());
  EXPECT_EQ(result.failed_path, dir_ / "lib" / "gen");
  EXPECT_NE(result.error.find("Not a directory"), std::string::npos) << result.error;
  EXPECT_EQ(opscan::testing::snapshot(dir_), before_);
}

TEST_F(WriteFiles, AReadOnlyDestinationChangesNothing) {
  fs::permissions(dir_ / "lib" / "b.cpp", fs::perms::owner_read | fs::perms::group_read);
  before_ = opscan::testing::snapshot(dir_);
  WriteFilesResult result = write_files(outputs());
  EXPECT_EQ(result.failed_path, dir_ / "lib" / "b.cpp");
  EXPECT_NE(result.error.find("Read-only"), std::string::npos) << result.error;
  expect_untouched(result);
}

// The last rename fails for real (a directory appears at its destination
// after every check passed): the files already renamed are put back.
TEST_F(WriteFiles, ARenameThatFailsPutsEveryFileBack) {
  const fs::path last = dir_ / "lib" / "gen" / "c.yaml";
  WriteHooks hooks;
  hooks.before_rename = [&](const fs::path& destination) {
    if (destination == last)
      fs::create_directories(last / "in-the-way");
  };
  WriteFilesResult result = write_files(outputs(), hooks);
  EXPECT_EQ(result.failed_path, last);
  EXPECT_FALSE(result.error.empty());
  fs::remove_all(dir_ / "lib" / "gen"); // what the hook made
  expect_untouched(result);
}

TEST_F(WriteFiles, AFailedRenameOfANewFileRemovesTheOthersItWrote) {
  const std::vector<FileWrite> files = {{dir_ / "new" / "x.h", "x\n"},
                                        {dir_ / "new" / "y.h", "y\n"}};
  WriteHooks hooks;
  hooks.before_rename = [&](const fs::path& destination) {
    if (destination == files[1].path)
      fs::create_directories(destination / "in-the-way");
  };
  WriteFilesResult result = write_files(files, hooks);
  EXPECT_EQ(result.failed_path, files[1].path);
  EXPECT_FALSE(fs::exists(files[0].path));
  EXPECT_EQ(tree(),
            (Strings{"lib", "lib/a.h", "lib/b.cpp", "new", "new/y.h", "new/y.h/in-the-way"}));
}

TEST_F(WriteFiles, SpecialFilesAndLinksAreNeverReplaced) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0666), 0);
  fs::create_symlink("/dev/null", dir_ / "null-link");
  fs::create_symlink(dir_ / "lib" / "a.h", dir_ / "file-link");
  for (const char* name : {"fifo", "null-link", "file-link"}) {
    SCOPED_TRACE(name);
    before_ = opscan::testing::snapshot(dir_);
    WriteFilesResult result = write_files({{dir_ / "lib" / "a.h", "new a\n"}, {dir_ / name, "x"}});
    EXPECT_EQ(result.failed_path, dir_ / name);
    EXPECT_NE(result.error.find("Not a regular file"), std::string::npos) << result.error;
    EXPECT_EQ(opscan::testing::snapshot(dir_), before_);
  }
  EXPECT_EQ(fs::status(dir_ / "fifo").type(), fs::file_type::fifo);
  EXPECT_EQ(fs::symlink_status(dir_ / "null-link").type(), fs::file_type::symlink);
}

TEST_F(WriteFiles, OneDestinationNamedTwiceIsRefused) {
  WriteFilesResult result =
      write_files({{dir_ / "lib" / "a.h", "1"}, {dir_ / "lib" / "." / "a.h", "2"}});
  EXPECT_NE(result.error.find("named twice"), std::string::npos) << result.error;
  expect_untouched(result);
}

TEST_F(WriteFiles, AReplacedFileKeepsItsMode) {
  fs::permissions(dir_ / "lib" / "a.h",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec);
  ASSERT_TRUE(write_files(outputs()).ok());
  EXPECT_EQ(fs::status(dir_ / "lib" / "a.h").permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec);
}

// ----- write_files: modes (finding 1 of issue 23: new files were 0666) -----

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// The process's umask for a scope.
class Umask {
public:
  explicit Umask(mode_t mask) : saved_(::umask(mask)) {}
  ~Umask() { ::umask(saved_); }

private:
  mode_t saved_;
};

TEST_F(WriteFiles, NewFilesAndDirectoriesGetTheModeTheUmaskGives) {
  for (mode_t mask : {mode_t{077}, mode_t{022}, mode_t{027}, mode_t{0}}) {
    SCOPED_TRACE(mask);
    fs::remove_all(dir_ / "new");
    {
      Umask umask(mask);
      ASSERT_TRUE(write_files({{dir_ / "new" / "sub" / "x.h", "x\n"}}).ok());
      ASSERT_TRUE(write_if_changed(dir_ / "new" / "y.h", "y\n") == WriteOutcome::written);
    }
    EXPECT_EQ(mode_of(dir_ / "new" / "sub" / "x.h"), 0666 & ~mask);
    EXPECT_EQ(mode_of(dir_ / "new" / "y.h"), 0666 & ~mask);
    EXPECT_EQ(mode_of(dir_ / "new" / "sub"), 0777 & ~mask);
  }
}

TEST_F(WriteFiles, AReplacedFileKeepsItsModeWhateverTheUmask) {
  for (mode_t mask : {mode_t{077}, mode_t{022}, mode_t{0}}) {
    for (mode_t mode : {mode_t{0640}, mode_t{0600}, mode_t{0664}, mode_t{0755}}) {
      SCOPED_TRACE(std::to_string(mask) + " " + std::to_string(mode));
      opscan::testing::write_file(dir_ / "lib" / "a.h", "old a\n");
      ASSERT_EQ(::chmod((dir_ / "lib" / "a.h").c_str(), mode), 0);
      Umask umask(mask);
      ASSERT_TRUE(write_files(outputs()).ok());
      EXPECT_EQ(opscan::testing::read_file(dir_ / "lib" / "a.h"), "new a\n");
      EXPECT_EQ(mode_of(dir_ / "lib" / "a.h"), mode);
    }
  }
}

// ----- write_files: links below the output directory (finding 18) ----------

// A directory `elsewhere` that a link planted in the output tree points to.
class LinkedOutput : public WriteFiles {
protected:
  void SetUp() override {
    WriteFiles::SetUp();
    fs::create_directories(dir_ / "elsewhere");
    opscan::testing::write_file(dir_ / "elsewhere" / "a.h", "precious\n");
    fs::create_directories(dir_ / "out" / "t");
  }
  // `files`, each to be written below `root`.
  static std::vector<FileWrite> below(std::vector<FileWrite> files, const fs::path& root) {
    for (FileWrite& file : files)
      file.root = root;
    return files;
  }
  // Writes files under out/ (the root), and expects it refused naming
  // `link`, with nothing written anywhere.
  void expect_refused(const fs::path& link, const std::vector<FileWrite>& files) {
    before_ = opscan::testing::snapshot(dir_);
    const std::vector<std::string> entries = tree();
    const WriteFilesResult result = write_files(below(files, dir_ / "out"));
    EXPECT_EQ(result.failed_path, link);
    EXPECT_EQ(result.error, "a symbolic link; opscan writes only below the output directory, "
                            "through real directories");
    EXPECT_EQ(opscan::testing::snapshot(dir_), before_);
    EXPECT_EQ(tree(), entries) << "nothing may appear, outside out/ or in it";
  }
};

TEST_F(LinkedOutput, ALinkInPlaceOfALibraryDirectoryIsRefused) {
  fs::remove_all(dir_ / "out" / "t");
  fs::create_symlink(dir_ / "elsewhere", dir_ / "out" / "t");
  expect_refused(dir_ / "out" / "t", {{dir_ / "out" / "u.h", "u\n"},
                                      {dir_ / "out" / "t" / "a.h", "new a\n"},
                                      {dir_ / "out" / "t" / "b.h", "new b\n"}});
}

TEST_F(LinkedOutput, ALinkDeeperInTheTreeIsRefused) {
  fs::create_symlink("../../elsewhere", dir_ / "out" / "t" / "kernel_count");
  expect_refused(dir_ / "out" / "t" / "kernel_count",
                 {{dir_ / "out" / "t" / "a.h", "new a\n"},
                  {dir_ / "out" / "t" / "kernel_count" / "deep" / "x.h", "x\n"}});
  // A relative link, or one to a directory the call would create, alike.
  fs::create_symlink("../../elsewhere/made", dir_ / "out" / "t" / "made");
  expect_refused(dir_ / "out" / "t" / "made", {{dir_ / "out" / "t" / "made" / "x.h", "x\n"}});
}

TEST_F(LinkedOutput, ALinkInPlaceOfAFileIsRefused) {
  fs::create_symlink(dir_ / "elsewhere" / "a.h", dir_ / "out" / "t" / "a.h");
  before_ = opscan::testing::snapshot(dir_);
  const WriteFilesResult result = write_files({{dir_ / "out" / "t" / "a.h", "new a\n", dir_ / "out"}});
  EXPECT_EQ(result.failed_path, dir_ / "out" / "t" / "a.h");
  EXPECT_EQ(result.error, "Not a regular file (a symbolic link); opscan replaces only regular files");
  EXPECT_EQ(opscan::testing::snapshot(dir_), before_);
}

// The output directory itself is the caller's to choose, a link included;
// without a root, so is each file's own directory.
TEST_F(LinkedOutput, TheRootItselfMayBeALink) {
  fs::create_symlink(dir_ / "elsewhere", dir_ / "linked-out");
  ASSERT_TRUE(write_files({{dir_ / "linked-out" / "t" / "x.h", "x\n", dir_ / "linked-out"}}).ok());
  EXPECT_EQ(opscan::testing::read_file(dir_ / "elsewhere" / "t" / "x.h"), "x\n");
  ASSERT_TRUE(write_files({{dir_ / "linked-out" / "y.h", "y\n"}}).ok());
  EXPECT_EQ(opscan::testing::read_file(dir_ / "elsewhere" / "y.h"), "y\n");
}

TEST_F(LinkedOutput, AFileOutsideTheRootIsRefused) {
  before_ = opscan::testing::snapshot(dir_);
  const WriteFilesResult result =
      write_files({{dir_ / "out" / "t" / ".." / ".." / "escaped.h", "x\n", dir_ / "out"}});
  EXPECT_EQ(result.error, "not below the output directory " + (dir_ / "out").string());
  EXPECT_EQ(opscan::testing::snapshot(dir_), before_);
}

// ----- write_files: what a killed writer left (finding 7) ------------------

// The id of a process that has ended (and been waited for).
pid_t ended_process() {
  const pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST_F(WriteFiles, TemporariesAndBackupsOfAKilledWriterAreRemoved) {
  const std::string dead = std::to_string(ended_process());
  const std::string live = std::to_string(::getppid());
  const std::string self = std::to_string(::getpid());
  const std::vector<std::string> removed = {
      ".a.h.opscan-" + dead + "-3.tmp", ".a.h.opscan-" + dead + "-3.old",
      ".gone.cpp.opscan-" + dead + "-0.tmp", // of a file this call does not write
  };
  const std::vector<std::string> kept = {
      ".a.h.opscan-" + live + "-1.tmp", // its process is alive
      ".a.h.opscan-" + self + "-9.tmp", // this process's own
      "a.h.opscan-" + dead + "-1.tmp",  // other names
      ".a.h.opscan-" + dead + "-1.tmp.bak",
      ".a.h.opscan-" + dead + ".tmp",
      ".a.h.opscan-0-1.tmp",
      ".opscan-" + dead + "-1.tmp",
      "notes.old",
  };
  for (const std::string& name : removed)
    opscan::testing::write_file(dir_ / "lib" / name, "left\n");
  for (const std::string& name : kept)
    opscan::testing::write_file(dir_ / "lib" / name, "kept\n");
  // Not regular files, or not in a directory this call writes to.
  fs::create_directories(dir_ / "lib" / (".d.opscan-" + dead + "-2.tmp"));
  fs::create_symlink("a.h", dir_ / "lib" / (".l.opscan-" + dead + "-2.old"));
  fs::create_directories(dir_ / "other");
  opscan::testing::write_file(dir_ / "other" / (".a.h.opscan-" + dead + "-4.tmp"), "left\n");

  ASSERT_TRUE(write_files(outputs()).ok());
  Strings expected = {"lib",
                      "lib/a.h",
                      "lib/b.cpp",
                      "lib/gen",
                      "lib/gen/c.yaml",
                      "lib/.d.opscan-" + dead + "-2.tmp",
                      "lib/.l.opscan-" + dead + "-2.old",
                      "other",
                      "other/.a.h.opscan-" + dead + "-4.tmp"};
  for (const std::string& name : kept)
    expected.push_back("lib/" + name);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(tree(), expected);
  for (const std::string& name : kept)
    EXPECT_EQ(opscan::testing::read_file(dir_ / "lib" / name), "kept\n") << name;
}

// ----- write_files under a signal (finding 7) -------------------------------

// Each runs in a child process (a death test) that holds interrupts as the
// tool does; the parent then reads what it left.
using WriteFilesDeathTest = WriteFiles;

TEST_F(WriteFilesDeathTest, ASignalBetweenTheRenamesWaitsForTheWholeSet) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    SCOPED_TRACE(sig);
    opscan::testing::write_file(dir_ / "lib" / "a.h", "old a\n");
    opscan::testing::write_file(dir_ / "lib" / "b.cpp", "old b\n");
    fs::remove_all(dir_ / "lib" / "gen");
    EXPECT_EXIT(
        {
          hold_interrupts_during_commits();
          WriteHooks hooks;
          hooks.before_rename = [&](const fs::path& destination) {
            if (destination == dir_ / "lib" / "b.cpp")
              ::raise(sig);
          };
          write_files(outputs(), hooks);
          std::exit(0); // not reached: the signal ends the process when the set is whole
        },
        ::testing::KilledBySignal(sig), "");
    EXPECT_EQ(tree(), (Strings{"lib", "lib/a.h", "lib/b.cpp", "lib/gen", "lib/gen/c.yaml"}));
    EXPECT_EQ(opscan::testing::read_file(dir_ / "lib" / "a.h"), "new a\n");
    EXPECT_EQ(opscan::testing::read_file(dir_ / "lib" / "b.cpp"), "new b\n");
    EXPECT_EQ(opscan::testing::read_file(dir_ / "lib" / "gen" / "c.yaml"), "new c\n");
  }
}

// The signal arrives, then the last rename fails: the set is put back
// first, and only then does the process die.
TEST_F(WriteFilesDeathTest, ASignalDuringAFailingCommitWaitsForTheUndo) {
  const fs::path last = dir_ / "lib" / "gen" / "c.yaml";
  EXPECT_EXIT(
      {
        hold_interrupts_during_commits();
        WriteHooks hooks;
        hooks.before_rename = [&](const fs::path& destination) {
          ::raise(SIGTERM);
          if (destination == last)
            fs::create_directories(last / "in-the-way");
        };
        write_files(outputs(), hooks);
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "");
  fs::remove_all(dir_ / "lib" / "gen"); // what the hook made
  EXPECT_EQ(opscan::testing::snapshot(dir_), before_);
  EXPECT_EQ(tree(), (Strings{"lib", "lib/a.h", "lib/b.cpp"}));
}

// ----- reading only regular files, of bounded size ---------------------------

TEST_F(Files, ReadFileRefusesSpecialFilesWithoutOpeningThem) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0666), 0); // opening it would block
  for (const auto& [path, reason] :
       {std::pair{dir_ / "fifo", "Not a regular file (a FIFO)"},
        std::pair{fs::path("/dev/zero"), "Not a regular file (a character device)"},
        std::pair{dir_, "Is a directory"}}) {
    std::string error;
    EXPECT_EQ(read_file(path, &error), std::nullopt) << path;
    EXPECT_EQ(error, reason);
    EXPECT_EQ(unreadable_reason(path), reason);
  }
  EXPECT_EQ(unreadable_reason("/dev/null/x"), "Not a directory");
}

TEST_F(Files, ReadFileRefusesAFileLargerThanTheLimit) {
  opscan::testing::write_file(dir_ / "f", std::string(1000, 'x'));
  std::string error;
  EXPECT_EQ(read_file(dir_ / "f", &error, 999), std::nullopt);
  EXPECT_EQ(error, "File too large (opscan reads at most 999 bytes)");
  EXPECT_EQ(unreadable_reason(dir_ / "f", 999), error);
  EXPECT_EQ(unreadable_reason(dir_ / "f", 1000), "");
  EXPECT_EQ(read_file(dir_ / "f", &error, 1000), std::string(1000, 'x'));
}

TEST_F(Files, SameFileSeesLinksAndSpellings) {
  opscan::testing::write_file(dir_ / "a", "a");
  opscan::testing::write_file(dir_ / "b", "a");
  fs::create_hard_link(dir_ / "a", dir_ / "hard");
  fs::create_symlink(dir_ / "a", dir_ / "soft");
  ASSERT_TRUE(file_id(dir_ / "a"));
  EXPECT_EQ(file_id(dir_ / "a"), file_id(dir_ / "hard"));
  EXPECT_EQ(file_id(dir_ / "soft"), file_id(dir_ / "a"));
  EXPECT_EQ(file_id(dir_ / "." / "a"), file_id(dir_ / "a"));
  EXPECT_NE(file_id(dir_ / "a"), file_id(dir_ / "b"));
  EXPECT_EQ(file_id(dir_ / "missing"), std::nullopt);
}

TEST_F(Files, TouchRefusesAFifo) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0666), 0);
  std::string error;
  EXPECT_FALSE(touch(dir_ / "fifo", &error)); // and does not block
  EXPECT_EQ(error, "Not a regular file (a FIFO)");
}

// ----- touch ----------------------------------------------------------------

TEST_F(Files, TouchCreatesAnEmptyFileAndItsParents) {
  std::string error;
  EXPECT_TRUE(touch(dir_ / "a" / "b" / "done.stamp", &error)) << error;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "a" / "b" / "done.stamp"));
  EXPECT_EQ(fs::file_size(dir_ / "a" / "b" / "done.stamp"), 0u);
  EXPECT_EQ(tree(), (Strings{"a", "a/b", "a/b/done.stamp"}));
}

TEST_F(Files, TouchUpdatesTheTimeAndKeepsTheContent) {
  fs::path path = dir_ / "done.stamp";
  opscan::testing::write_file(path, "kept\n");
  auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(path, old_time);
  fs::create_hard_link(path, dir_ / "link"); // updated in place, not replaced

  auto before = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  std::string error;
  EXPECT_TRUE(touch(path, &error)) << error;
  EXPECT_GE(fs::last_write_time(path), before);
  EXPECT_EQ(opscan::testing::read_file(path), "kept\n");
  EXPECT_EQ(fs::hard_link_count(path), 2u);
  EXPECT_EQ(tree(), (Strings{"done.stamp", "link"}));
}

TEST_F(Files, TouchFailsOnADirectoryOrUnderAFile) {
  fs::create_directories(dir_ / "out");
  std::string error;
  EXPECT_FALSE(touch(dir_ / "out", &error));
  EXPECT_NE(error.find("Is a directory"), std::string::npos) << error;

  opscan::testing::write_file(dir_ / "file.txt", "precious\n");
  error.clear();
  EXPECT_FALSE(touch(dir_ / "file.txt" / "done.stamp", &error));
  EXPECT_NE(error.find("Not a directory"), std::string::npos) << error;
  EXPECT_FALSE(touch(dir_ / "file.txt" / "sub" / "done.stamp")); // no error out-parameter
  EXPECT_EQ(opscan::testing::read_file(dir_ / "file.txt"), "precious\n");
  EXPECT_EQ(tree(), (Strings{"file.txt", "out"}));
}

// ----- display_path ---------------------------------------------------------

TEST_F(Files, DisplayPathInsideTheCurrentDirectoryIsRelative) {
  fs::current_path(dir_);
  EXPECT_EQ(display_path("src/a.cpp"), "src/a.cpp");
  EXPECT_EQ(display_path(dir_ / "src" / "a.cpp"), "src/a.cpp");
  EXPECT_EQ(display_path("./src/a.cpp"), "src/a.cpp");
  EXPECT_EQ(display_path("a.cpp"), "a.cpp");
  // Need not exist.
  EXPECT_FALSE(fs::exists("src"));
}

TEST_F(Files, DisplayPathNormalises) {
  fs::current_path(dir_);
  EXPECT_EQ(display_path("a/./b/../c"), "a/c");
  EXPECT_EQ(display_path("a//b///c.h"), "a/b/c.h");
  EXPECT_EQ(display_path("a/b/../../c.h"), "c.h");
  EXPECT_EQ(display_path(dir_ / "x" / ".." / "y" / "." / "z.h"), "y/z.h");
  // Leaving the directory and coming back in is still inside.
  EXPECT_EQ(display_path("../" + dir_.filename().string() + "/k.cpp"), "k.cpp");
}

TEST_F(Files, DisplayPathOutsideTheCurrentDirectoryIsAbsolute) {
  fs::create_directories(dir_ / "project");
  fs::current_path(dir_ / "project");
  EXPECT_EQ(display_path("/usr/include/stdio.h"), "/usr/include/stdio.h");
  EXPECT_EQ(display_path("/usr/./include/../include/stdio.h"), "/usr/include/stdio.h");
  EXPECT_EQ(display_path("../other/a.h"), (dir_ / "other" / "a.h").generic_string());
  EXPECT_EQ(display_path("x/../../b.h"), (dir_ / "b.h").generic_string());
  // A sibling whose name merely starts with the current directory's name.
  EXPECT_EQ(display_path(dir_ / "project2" / "a.h"), (dir_ / "project2" / "a.h").generic_string());
  EXPECT_EQ(display_path(dir_), dir_.generic_string());
}

// ".." after a symbolic link leads to the link target's parent.
TEST_F(Files, DisplayPathFollowsSymbolicLinksBeforeParentSteps) {
  fs::create_directories(dir_ / "real" / "sub");
  fs::create_directory_symlink(dir_ / "real" / "sub", dir_ / "link");
  fs::current_path(dir_);
  EXPECT_EQ(display_path("link/../x.h"), "real/x.h");
  EXPECT_EQ(display_path(dir_ / "link" / ".." / "x.h"), "real/x.h");
  EXPECT_EQ(display_path("real/./sub/y.h"), "real/sub/y.h");
}

TEST_F(Files, DisplayPathOfTheCurrentDirectory) {
  fs::current_path(dir_);
  EXPECT_EQ(display_path("."), ".");
  EXPECT_EQ(display_path(dir_), ".");
  EXPECT_EQ(display_path("a/.."), ".");
}

// ===== make_depfile =========================================================

TEST(Depfile, ListsEveryPrerequisiteOnItsOwnLine) {
  EXPECT_EQ(make_depfile("/b/k.stamp", {"/s/k.cpp", "/s/k.h"}),
            "/b/k.stamp: \\\n  /s/k.cpp \\\n  /s/k.h\n");
}

TEST(Depfile, NoPrerequisites) {
  EXPECT_EQ(make_depfile("out", {}), "out:\n");
}

// Ninja and GNU Make both read "\ " as a space, "\#" as '#' and "$$" as '$'.
TEST(Depfile, EscapesSpacesHashesAndDollars) {
  EXPECT_EQ(make_depfile("a b", {"/p/x y#z$w.h"}), "a\\ b: \\\n  /p/x\\ y\\#z$$w.h\n");
}

// A backslash before an escaped character is doubled, so it stays a backslash.
TEST(Depfile, DoublesBackslashesBeforeEscapedCharacters) {
  EXPECT_EQ(make_depfile("t", {"a\\ b", "c\\d"}), "t: \\\n  a\\\\\\ b \\\n  c\\d\n");
}

// A line break ends a rule in Make and Ninja: no escape keeps it in a path.
TEST(Depfile, APathWithALineBreakCannotBeWritten) {
  std::string unwritable;
  EXPECT_EQ(make_depfile("t", {"/a.h", "/evil\n.h", "/b.h"}, &unwritable), std::nullopt);
  EXPECT_EQ(unwritable, "/evil\n.h");
  EXPECT_EQ(make_depfile("t\r", {}, &unwritable), std::nullopt);
  EXPECT_EQ(unwritable, "t\r");
  EXPECT_EQ(make_depfile("t", {"/evil\n.h"}), std::nullopt); // no out-parameter
}

} // namespace
