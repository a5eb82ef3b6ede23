// opscan's stdout is one document, and a write there that fails is an error:
//  - every command that prints on stdout exits 3 naming stdout when it
//    cannot write there (a full device, a closed stdout, a pipe whose
//    reader has gone), whatever its own result;
//  - what libclang prints (options in a command line or a compilation
//    database that make it print) goes to stderr, never into a JSON or
//    SARIF document or the language server's stream;
//  - tool/stdout.cpp's keep_stdout_private itself, in a child process:
//    whatever else writes to descriptor 1 reaches stderr, and a closed
//    stdout leaves no descriptor 1 for a later open to take.
#include "../../tool/stdout.h"
#include "files.h"
#include "run.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

using opscan::testing::read_file;
using opscan::testing::TempDir;
using opscan::testing::write_file;

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const std::string kSource = (kRepo / "examples/kernels/elementwise.cpp").string();
const std::string kFlags = " -- -std=c++17 -I'" + (kRepo / "include").string() + "' -I'" +
                           (kRepo / "examples/include").string() + "'";

// Where the command's stdout goes.
enum class Stdout {
  file,      // a regular file: the command works
  full,      // /dev/full: every write fails with ENOSPC
  closed,    // no descriptor 1 at all
  no_reader, // a pipe whose read end is closed: EPIPE (or SIGPIPE)
};

struct Ran {
  int exit_code = -1; // 128 + N: killed by signal N
  std::string out;
  std::string err;
};

// Runs `opscan <args>` (shell syntax) in `dir` with its stdout `where`.
Ran opscan(const fs::path& dir, const std::string& args, Stdout where = Stdout::file) {
  TempDir io;
  int out = -1;
  if (where == Stdout::file)
    out = ::open(io.file("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (where == Stdout::full)
    out = ::open("/dev/full", O_WRONLY);
  if (where == Stdout::no_reader) {
    int ends[2];
    EXPECT_EQ(::pipe(ends), 0);
    ::close(ends[0]);
    out = ends[1];
  }
  EXPECT_TRUE(where == Stdout::closed || out >= 0) << std::strerror(errno);
  // timeout(1) ends a hung run; it passes on the exit code (128 + N for a
  // signal N).
  const std::string command =
      "cd '" + dir.string() + "' && exec timeout -k 5 60 '" OPSCAN_BINARY "' " + args;
  const std::string err_file = io.file("err");
  const pid_t child = ::fork();
  if (child == 0) {
    const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = ::open("/dev/null", O_RDONLY);
    ::dup2(err, STDERR_FILENO);
    ::dup2(in, STDIN_FILENO);
    if (out >= 0)
      ::dup2(out, STDOUT_FILENO);
    else
      ::close(STDOUT_FILENO);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (out >= 0)
    ::close(out);
  int status = 0;
  ::waitpid(child, &status, 0);
  Ran ran;
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (where == Stdout::file)
    ran.out = read_file(io.path() / "out");
  ran.err = read_file(io.path() / "err");
  return ran;
}

// A scan of the examples, a library generated from it and files commands
// read, made once: `opscan` runs in this directory.
class StdoutFaults : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    const Ran scan = opscan(dir(), "scan '" + kSource + "' -o ir.json" + kFlags);
    ASSERT_EQ(scan.exit_code, 0) << scan.err;
    const Ran gen = opscan(dir(), "generate ir.json --registration named --lib l -o gen");
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
    write_file(dir() / "bad.json", "this is not JSON\n");
    write_file(dir() / "bad.pte", "this is not an ExecuTorch program\n");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static const fs::path& dir() { return dir_->path(); }
  static TempDir* dir_;
};
TempDir* StdoutFaults::dir_ = nullptr;

struct Printing {
  const char* name;
  std::string args;
  int exit_code; // with a stdout that works
};

// Every kind of thing opscan prints on stdout; the exit code each command
// has when its stdout works (1: the input has errors, which a failed write
// to stdout still turns into 3).
const std::vector<Printing> kPrinting = {
    {"report_markdown", "report ir.json", 0},
    {"report_json", "report gen --format json", 0},
    {"check_sarif", "check ir.json --registration named --lib l --format sarif", 0},
    {"check_json_of_errors", "check bad.json --format json", 1},
    {"check_summary", "check gen/l/ir.json", 0},
    {"check_model_json", "check --model bad.pte gen/l/ir.json --format json", 1},
    {"scan_json", "scan '" + kSource + "' -o again.json --format json" + kFlags, 0},
    {"diff_json", "diff ir.json ir.json --format json", 0},
    {"diff_text", "diff ir.json ir.json", 0},
    {"list_outputs", "generate --list-outputs --target executorch --registration named --lib ops",
     0},
    {"run_summaries", "run '" + kSource + "' --registration named --lib l -o out" + kFlags, 0},
    {"import_yaml_summary",
     "import-yaml '" + (kRepo / "test/cli/inputs/import/functions.yaml").string() + "' '" +
         (kRepo / "test/cli/inputs/import/kernels.cpp").string() + "' --dry-run" + kFlags,
     0},
    {"help", "--help", 0},
};

TEST_F(StdoutFaults, EachCommandPrintsOnAWorkingStdout) {
  for (const Printing& p : kPrinting) {
    SCOPED_TRACE(p.name);
    const Ran ran = opscan(dir(), p.args);
    EXPECT_EQ(ran.exit_code, p.exit_code) << ran.err;
    EXPECT_NE(ran.out, "") << "the command prints nothing on stdout: the fault tests test nothing";
    EXPECT_EQ(ran.err.find("cannot write to stdout"), std::string::npos) << ran.err;
  }
}

// The message for each fault: the I/O error form (docs/command-line.md, "Exit codes").
void expect_stdout_error(const Ran& ran, const std::string& why) {
  EXPECT_EQ(ran.exit_code, 3) << ran.err;
  EXPECT_NE(ran.err.find("opscan: error: cannot write to stdout: " + why + " [opscan-io]\n"),
            std::string::npos)
      << ran.err;
}

TEST_F(StdoutFaults, AFullDeviceIsAnIoErrorNamingStdout) {
  for (const Printing& p : kPrinting) {
    SCOPED_TRACE(p.name);
    expect_stdout_error(opscan(dir(), p.args, Stdout::full), "No space left on device");
  }
}

TEST_F(StdoutFaults, AClosedStdoutIsAnIoErrorNamingStdout) {
  for (const Printing& p : kPrinting) {
    SCOPED_TRACE(p.name);
    expect_stdout_error(opscan(dir(), p.args, Stdout::closed), "Bad file descriptor");
  }
}

// SIGPIPE is ignored: a reader that has gone is a write error opscan
// reports (exit 3), not a death by signal that a build tool would show as
// a crash.
TEST_F(StdoutFaults, APipeWithoutAReaderIsAnIoErrorNamingStdout) {
  for (const Printing& p : kPrinting) {
    SCOPED_TRACE(p.name);
    expect_stdout_error(opscan(dir(), p.args, Stdout::no_reader), "Broken pipe");
  }
}

// A command that prints nothing on stdout has nothing to fail there.
TEST_F(StdoutFaults, ACommandThatPrintsNothingThereIsUnaffected) {
  for (Stdout where : {Stdout::full, Stdout::closed, Stdout::no_reader}) {
    const Ran scan = opscan(dir(), "scan '" + kSource + "' -o quiet.json" + kFlags, where);
    EXPECT_EQ(scan.exit_code, 0) << scan.err;
    EXPECT_EQ(scan.err, "");
  }
}

// With stdout closed, nothing opscan opens becomes descriptor 1 (where what
// libclang prints would land in it): the generated files hold exactly what
// a run with a working stdout writes.
TEST_F(StdoutFaults, AClosedStdoutLeavesTheOutputsWhole) {
  const std::string run = "run '" + kSource + "' --registration named --lib l -o ";
  ASSERT_EQ(opscan(dir(), run + "open" + kFlags).exit_code, 0);
  EXPECT_EQ(
      opscan(dir(), run + "shut" + kFlags + " -Xclang --show-includes", Stdout::closed).exit_code,
      3);
  for (const auto& entry : fs::recursive_directory_iterator(dir() / "open")) {
    if (!entry.is_regular_file())
      continue;
    const fs::path name = entry.path().lexically_relative(dir() / "open");
    SCOPED_TRACE(name.string());
    EXPECT_EQ(read_file(dir() / "shut" / name), read_file(entry.path()));
  }
}

// ---------------------------------------------------------------------------
// What libclang prints reaches stderr, never stdout.

// Compiler arguments that make libclang print on stdout: the files it
// includes, the layouts of records. (Whether the flag filter drops them or
// not, stdout holds only opscan's document.)
const std::string kPrintingArgs = " -Xclang --show-includes -Xclang -fdump-record-layouts";

TEST(StdoutDocument, AScanDocumentIsAllThereIsOnStdout) {
  TempDir dir;
  for (const char* format : {"json", "sarif"}) {
    SCOPED_TRACE(format);
    const Ran scan = opscan(dir.path(), "scan '" + kSource + "' -o ir.json --format " + format +
                                            kFlags + kPrintingArgs);
    ASSERT_EQ(scan.exit_code, 0) << scan.err;
    EXPECT_TRUE(nlohmann::json::accept(scan.out)) << scan.out.substr(0, 400);
  }
}

// The language server's stream holds only its messages, with flags from a
// compilation database that make libclang print: a hover request makes the
// server analyse the file before it answers (the session waits for that
// answer before it ends the server).
std::string frame(const nlohmann::json& message) {
  const std::string body = message.dump();
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n <= 0)
      return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads from `fd` into `out` until `until` is in it or the stream ends.
void read_until(int fd, std::string& out, const std::string& until) {
  char buffer[65536];
  while (out.find(until) == std::string::npos) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0)
      return;
    out.append(buffer, static_cast<size_t>(n));
  }
}

TEST(StdoutDocument, TheLanguageServersStreamHoldsOnlyItsMessages) {
  TempDir dir;
  const fs::path source = dir.path() / "k.cpp";
  write_file(source, read_file(kSource));
  const nlohmann::json database = nlohmann::json::array({{
      {"directory", dir.path().string()},
      {"file", source.string()},
      {"arguments",
       {"c++", "-std=c++17", "-I" + (kRepo / "include").string(),
        "-I" + (kRepo / "examples/include").string(), "-Xclang", "--show-includes", "-Xclang",
        "-fdump-record-layouts", "-c", source.string()}},
  }});
  write_file(dir.path() / "compile_commands.json", database.dump());
  const std::string uri = "file://" + source.string();
  const std::string opening =
      frame({{"jsonrpc", "2.0"},
             {"id", 1},
             {"method", "initialize"},
             {"params",
              {{"processId", nullptr},
               {"rootUri", nullptr},
               {"capabilities", nlohmann::json::object()}}}}) +
      frame({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", nlohmann::json::object()}}) +
      frame({{"jsonrpc", "2.0"},
             {"method", "textDocument/didOpen"},
             {"params",
              {{"textDocument",
                {{"uri", uri},
                 {"languageId", "cpp"},
                 {"version", 1},
                 {"text", read_file(source)}}}}}}) +
      frame({{"jsonrpc", "2.0"},
             {"id", 2},
             {"method", "textDocument/hover"},
             {"params",
              {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 0}, {"character", 0}}}}}});
  const std::string closing = frame({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "shutdown"}}) +
                              frame({{"jsonrpc", "2.0"}, {"method", "exit"}});

  int to_server[2], from_server[2];
  ASSERT_EQ(::pipe(to_server), 0);
  ASSERT_EQ(::pipe(from_server), 0);
  const std::string command = "cd '" + dir.path().string() +
                              "' && exec timeout -k 5 60 '" OPSCAN_BINARY
                              "' lsp --compile-commands-dir . 2>/dev/null";
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(to_server[0], STDIN_FILENO);
    ::dup2(from_server[1], STDOUT_FILENO);
    for (int fd : {to_server[0], to_server[1], from_server[0], from_server[1]})
      ::close(fd);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(to_server[0]);
  ::close(from_server[1]);
  std::string out;
  EXPECT_TRUE(write_all(to_server[1], opening));
  read_until(from_server[0], out, "\"id\":2");
  EXPECT_TRUE(write_all(to_server[1], closing));
  ::close(to_server[1]);
  read_until(from_server[0], out, "the end of the stream");
  ::close(from_server[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  // Frame by frame: each a header and a JSON body, nothing between.
  std::string_view rest = out;
  bool hover_answered = false;
  while (!rest.empty()) {
    ASSERT_TRUE(rest.starts_with("Content-Length: ")) << rest.substr(0, 300);
    const size_t end = rest.find("\r\n\r\n");
    ASSERT_NE(end, std::string_view::npos);
    const size_t length = std::stoul(std::string(rest.substr(16, end - 16)));
    ASSERT_LE(end + 4 + length, rest.size());
    nlohmann::json message;
    ASSERT_NO_THROW(message = nlohmann::json::parse(rest.substr(end + 4, length)));
    EXPECT_FALSE(message.contains("error")) << message.dump();
    hover_answered = hover_answered || (message.contains("id") && message["id"] == 2);
    rest.remove_prefix(end + 4 + length);
  }
  EXPECT_TRUE(hover_answered) << out;
}

// ---------------------------------------------------------------------------
// keep_stdout_private itself, in a child process whose stdout and stderr
// are files.

struct Child {
  std::string out;
  std::string err;
  int exit_code = -1;
};

// Runs `body` in a child with stdout and stderr in files (stdout closed when
// `close_stdout` is set), after keep_stdout_private.
template <typename Body>
Child in_child(Body body, bool close_stdout = false) {
  TempDir io;
  const std::string out = io.file("out"), err = io.file("err");
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, STDOUT_FILENO);
    ::dup2(e, STDERR_FILENO);
    ::close(o);
    ::close(e);
    if (close_stdout)
      ::close(STDOUT_FILENO);
    opscan::tool::keep_stdout_private();
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return {read_file(out), read_file(err), WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

TEST(KeepStdoutPrivate, WhatElseWritesToDescriptorOneGoesToStderr) {
  const Child child = in_child([] {
    std::printf("printf\n");
    std::fflush(stdout);
    std::cout << "cout" << std::endl;
    (void)!::write(STDOUT_FILENO, "fd 1\n", 5);
    const bool written = opscan::tool::write_stdout("the document\n");
    return written && !opscan::tool::close_stdout() ? 0 : 1;
  });
  EXPECT_EQ(child.exit_code, 0);
  EXPECT_EQ(child.out, "the document\n");
  EXPECT_EQ(child.err, "printf\ncout\nfd 1\n");
}

TEST(KeepStdoutPrivate, AClosedStdoutFailsWritesAndNoFileBecomesDescriptorOne) {
  TempDir dir;
  const std::string file = dir.file("opened");
  const Child child = in_child(
      [&file] {
        const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd == STDOUT_FILENO)
          return 2;
        if (opscan::tool::write_stdout("lost\n"))
          return 3;
        const std::optional<std::string> error = opscan::tool::close_stdout();
        return error == std::string(std::strerror(EBADF)) ? 0 : 4;
      },
      /*close_stdout=*/true);
  EXPECT_EQ(child.exit_code, 0);
  EXPECT_EQ(read_file(file), "");
}

TEST(KeepStdoutPrivate, NothingWrittenIsNothingFailed) {
  const Child child = in_child([] { return opscan::tool::close_stdout() ? 1 : 0; },
                               /*close_stdout=*/true);
  EXPECT_EQ(child.exit_code, 0);
}

} // namespace
