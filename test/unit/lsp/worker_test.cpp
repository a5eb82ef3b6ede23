// ===== the analysis worker process (lib/lsp/worker.h) =======================
// The real opscan binary as the worker (`opscan lsp --worker`), real
// libclang, and real inputs that crash or hang it: a chain of 100,000 `!`
// overflows libclang's parser stack (SIGSEGV; no compiler option prevents
// it), and an #include of a named pipe nobody writes never ends. Each test
// runs with TMPDIR set to a directory of its own, to see what is left there.

#include "files.h"
#include "lsp/analysis.h"
#include "lsp/worker.h"
#include "server_options.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace opscan::lsp {
namespace {

namespace fs = std::filesystem;
using opscan::testing::TempDir;
using Kind = WorkerOutcome::Kind;
using namespace std::chrono_literals;

// TMPDIR, for a test's lifetime.
class TemporaryDirectory {
public:
  TemporaryDirectory() {
    if (const char* old = std::getenv("TMPDIR"))
      old_ = old;
    ::setenv("TMPDIR", dir_.path().c_str(), 1);
  }
  ~TemporaryDirectory() {
    if (old_)
      ::setenv("TMPDIR", old_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  const fs::path& path() const { return dir_.path(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_.path()))
      names.push_back(entry.path().filename().string());
    return names;
  }

private:
  TempDir dir_; // made before TMPDIR changes, so not inside itself
  std::optional<std::string> old_;
};

Worker make_worker() {
  return Worker(testing::server_options().worker, Json{{"options", to_json(AnalyzerOptions{})}});
}

Json request_for(const std::string& path, const std::string& text) {
  return {{"uri", uri_of_path(path)}, {"version", 1}, {"text", text}};
}

// A document whose parse never ends: it includes a named pipe nobody writes.
const char* kHungSource = "#include \"never.fifo\"\nint x;\n";
std::string hung_document(const TempDir& dir) {
  if (::mkfifo(dir.file("never.fifo").c_str(), 0600) != 0)
    ADD_FAILURE() << "mkfifo: " << std::strerror(errno);
  return dir.write("hung.cpp", kHungSource);
}

std::string crashing_source() {
  return "int v = " + std::string(100000, '!') + "1;\n";
}

// The codes of an answer's diagnostics.
std::vector<std::string> codes(const WorkerOutcome& outcome) {
  std::vector<std::string> out;
  for (const Json& d : outcome.answer["snapshot"]["diagnostics"])
    out.push_back(d.value("code", ""));
  return out;
}

TEST(Worker, AnswersAndKeepsItsFilesInAPrivateDirectoryItRemoves) {
  TempDir dir;
  TemporaryDirectory tmp;
  const std::string file = dir.write("k.cpp", "#include <vector>\nint x = y;\n");
  {
    Worker worker = make_worker();
    WorkerOutcome first = worker.call(request_for(file, opscan::testing::read_file(file)), 60s);
    ASSERT_EQ(first.kind, Kind::answered) << first.why;
    EXPECT_EQ(codes(first), std::vector<std::string>{"opscan-clang-error"});
    // libclang's preamble (of the #include) is in the worker's own
    // directory, mode 0700, not loose in TMPDIR.
    const std::vector<std::string> entries = tmp.entries();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_TRUE(entries[0].starts_with("opscan-lsp-" + std::to_string(::getpid()) + "-"))
        << entries[0];
    struct stat st {};
    ASSERT_EQ(::stat((tmp.path() / entries[0]).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_FALSE(fs::is_empty(tmp.path() / entries[0])) << "the preamble is there";
    // An edit is answered by the same worker from its warm unit.
    WorkerOutcome second =
        worker.call(request_for(file, "#include <vector>\nint y;\nint x = y;\n"), 60s);
    ASSERT_EQ(second.kind, Kind::answered) << second.why;
    EXPECT_TRUE(codes(second).empty());
  }
  EXPECT_TRUE(tmp.entries().empty()) << "the worker's directory is removed with it";
}

TEST(Worker, ACrashIsReportedWithItsSignalAndTheNextCallStartsAFreshWorker) {
  TempDir dir;
  TemporaryDirectory tmp;
  const std::string bad = dir.write("bad.cpp", crashing_source());
  const std::string good = dir.write("good.cpp", "int x = y;\n");
  Worker worker = make_worker();
  WorkerOutcome crashed = worker.call(request_for(bad, opscan::testing::read_file(bad)), 120s);
  ASSERT_EQ(crashed.kind, Kind::crashed);
  // (An AddressSanitizer build reports the overflow and exits instead.)
  EXPECT_TRUE(crashed.why.find("SIGSEGV") != std::string::npos ||
              crashed.why.find("exited with code") != std::string::npos)
      << crashed.why;
  EXPECT_TRUE(tmp.entries().empty()) << "the crashed worker's directory is removed";
  WorkerOutcome next = worker.call(request_for(good, "int x = y;\n"), 60s);
  ASSERT_EQ(next.kind, Kind::answered) << next.why;
  EXPECT_EQ(codes(next), std::vector<std::string>{"opscan-clang-error"});
}

TEST(Worker, AnAnalysisPastItsTimeLimitIsKilledAndItsDirectoryRemoved) {
  TempDir dir;
  TemporaryDirectory tmp;
  const std::string hung = hung_document(dir);
  Worker worker = make_worker();
  WorkerOutcome outcome = worker.call(request_for(hung, kHungSource), 1s);
  EXPECT_EQ(outcome.kind, Kind::timed_out) << outcome.why;
  EXPECT_TRUE(tmp.entries().empty());
  // The next call has a new worker.
  WorkerOutcome next = worker.call(request_for(dir.file("ok.cpp"), "int ok;\n"), 60s);
  ASSERT_EQ(next.kind, Kind::answered) << next.why;
  EXPECT_TRUE(codes(next).empty());
}

TEST(Worker, InterruptEndsAWaitingCallAtOnce) {
  TempDir dir;
  TemporaryDirectory tmp;
  const std::string hung = hung_document(dir);
  Worker worker = make_worker();
  std::thread interrupter([&] {
    std::this_thread::sleep_for(200ms);
    worker.interrupt();
  });
  // Far longer than the test may take: only the interrupt can end it.
  WorkerOutcome outcome = worker.call(request_for(hung, kHungSource), 3600s);
  interrupter.join();
  EXPECT_EQ(outcome.kind, Kind::interrupted) << outcome.why;
  EXPECT_TRUE(tmp.entries().empty());
  // And every later call, without starting a worker.
  EXPECT_EQ(worker.call(request_for(dir.file("ok.cpp"), "int ok;\n"), 60s).kind, Kind::interrupted);
}

// The pids of this process's children.
std::vector<pid_t> children() {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const std::string stat = opscan::testing::read_file(entry.path() / "stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos)
      continue;
    // ") <state> <ppid> ..."
    if (std::stoi(stat.substr(close + 4)) == ::getpid())
      pids.push_back(std::stoi(name));
  }
  return pids;
}

TEST(Worker, AWorkerKilledWhileIdleIsReplacedWithoutBlamingTheNextDocument) {
  TempDir dir;
  TemporaryDirectory tmp;
  Worker worker = make_worker();
  ASSERT_EQ(worker.call(request_for(dir.file("a.cpp"), "int a;\n"), 60s).kind, Kind::answered);
  const std::vector<pid_t> pids = children();
  ASSERT_EQ(pids.size(), 1u);
  ASSERT_EQ(::kill(pids[0], SIGKILL), 0);
  // Dead: a zombie until the Worker reaps it.
  const std::string stat = "/proc/" + std::to_string(pids[0]) + "/stat";
  while (opscan::testing::read_file(stat).find(") Z") == std::string::npos)
    std::this_thread::sleep_for(10ms);
  WorkerOutcome next = worker.call(request_for(dir.file("b.cpp"), "int b = c;\n"), 60s);
  ASSERT_EQ(next.kind, Kind::answered) << next.why;
  EXPECT_EQ(codes(next), std::vector<std::string>{"opscan-clang-error"});
}

} // namespace
} // namespace opscan::lsp
