// libFuzzer target for the compiler-argument filter (lib/scan/flags.h) and
// response files (lib/scan/response_files.h), with the real libclang. The
// input is the arguments after `--`, one a line. Each input scans a small
// source in a fresh sandbox directory, the working directory, TMPDIR, HOME
// and XDG_CACHE_HOME of the scan, which also holds the files hostile
// arguments name (a clang configuration file and a response file, each
// asking for a dependency file, and an empty directory to move to). Whatever
// the arguments: the scan ends; no file appears, changes or goes in the
// sandbox; the process stays in its directory; and nothing reaches standard
// output (a terminal here, so that LLVM's own streams write at once).
// Arguments naming /dev, /proc or /sys are skipped: reading a device is
// what they ask for, and not a promise of opscan's.
#include "diag/diag.h"
#include "fuzz_check.h"
#include "scan/flags.h"
#include "scan/response_files.h"
#include "scan/scan.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <termios.h>
#include <thread>
#include <unistd.h>
#include <vector>

#define FUZZ_TARGET "flags_fuzzer"

namespace {

namespace fs = std::filesystem;
using namespace opscan;

constexpr size_t kMaxArgs = 64;

// Standard output, made a pseudo-terminal's end for the whole run: LLVM
// writes to a terminal unbuffered, so whatever libclang prints arrives
// during the scan. A thread drains it, so that a large print never blocks.
class Terminal {
public:
  Terminal() {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master_ < 0 || ::grantpt(master_) != 0 || ::unlockpt(master_) != 0)
      opscan::fuzz::fail(FUZZ_TARGET, "no pseudo-terminal for standard output", "");
    const int slave = ::open(::ptsname(master_), O_RDWR | O_NOCTTY);
    termios raw{};
    if (slave < 0 || ::tcgetattr(slave, &raw) != 0)
      opscan::fuzz::fail(FUZZ_TARGET, "no pseudo-terminal for standard output", "");
    ::cfmakeraw(&raw);
    ::tcsetattr(slave, TCSANOW, &raw);
    ::fflush(stdout);
    ::dup2(slave, STDOUT_FILENO);
    ::close(slave);
    ::fcntl(master_, F_SETFL, ::fcntl(master_, F_GETFL) | O_NONBLOCK);
    std::thread([this] {
      for (;;) {
        pollfd ready{master_, POLLIN, 0};
        ::poll(&ready, 1, -1);
        drain();
      }
    }).detach();
  }

  // What arrived since the last call.
  std::string take() {
    ::fflush(stdout);
    drain();
    std::lock_guard lock(mutex_);
    return std::exchange(received_, {});
  }

private:
  void drain() {
    std::lock_guard lock(mutex_);
    char buffer[4096];
    for (ssize_t n; (n = ::read(master_, buffer, sizeof buffer)) > 0;)
      received_.append(buffer, static_cast<size_t>(n));
  }

  int master_ = -1;
  std::mutex mutex_;
  std::string received_;
};

// Every path under `dir` with its size, type and modification time.
std::map<std::string, std::string> listing(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    struct stat st {};
    ::lstat(entry.path().c_str(), &st);
    out[fs::relative(entry.path(), dir).string()] =
        std::to_string(st.st_mode) + " " + std::to_string(st.st_size) + " " +
        std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  }
  return out;
}

void write(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh sandbox holding the source and the bait.
fs::path make_sandbox(const fs::path& root) {
  std::string pattern = (root / "sandbox-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    opscan::fuzz::fail(FUZZ_TARGET, "cannot make a sandbox", "");
  const fs::path dir = pattern;
  for (const char* sub : {"home", "cache", "tmp", "elsewhere"})
    fs::create_directories(dir / sub);
  write(dir / "inc/local.h", "struct Local { int a; double b; };\n");
  write(dir / "k.cpp", "#include \"inc/local.h\"\n#include <stddef.h>\n"
                       "struct Layout { Local local; virtual void f(); };\n"
                       "int size = sizeof(Layout);\nvoid g() { int unused; }\n");
  write(dir / "planted.cfg", "-MD -MF planted.d\n");
  write(dir / "planted.rsp", "-MD -MF planted.d\n-Xclang --show-includes\n");
  return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Terminal terminal;
  // The sandboxes' parent, removed at exit (registered after it is made, so
  // that the removal runs before its destructor).
  static const fs::path root = [] {
    std::string pattern = (fs::temp_directory_path() / "opscan-flags-fuzz-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      opscan::fuzz::fail(FUZZ_TARGET, "cannot make a temporary directory", "");
    return fs::path(pattern);
  }();
  [[maybe_unused]] static const int removed_at_exit = std::atexit([] {
    std::error_code ec;
    fs::remove_all(root, ec);
  });
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.size() > 4096 || input.find("/dev") != std::string_view::npos ||
      input.find("/proc") != std::string_view::npos || input.find("/sys") != std::string_view::npos)
    return 0;
  std::vector<std::string> args;
  for (size_t begin = 0; begin <= input.size() && args.size() < kMaxArgs;) {
    const size_t end = std::min(input.find('\n', begin), input.size());
    args.emplace_back(input.substr(begin, end - begin));
    begin = end + 1;
  }

  const fs::path sandbox = make_sandbox(root);
  const fs::path before_cwd = fs::current_path();
  fs::current_path(sandbox);
  for (const auto& [variable, sub] :
       {std::pair{"HOME", "home"}, std::pair{"XDG_CACHE_HOME", "cache"},
        std::pair{"TMPDIR", "tmp"}})
    ::setenv(variable, (sandbox / sub).c_str(), 1);
  const auto before = listing(sandbox);
  terminal.take();

  // As the command line reads them (driver::compiler_args), then the scan
  // (whose parse_arguments calls filter_arguments).
  diag::Diagnostics diags;
  if (auto expanded = scan::expand_response_files(args, ".", diags)) {
    // The filter alone: what it keeps, filtered again, passes whole.
    const scan::FilteredArguments filtered = scan::filter_arguments(*expanded);
    FUZZ_CHECK(scan::filter_arguments(filtered.kept).dropped.empty(), input);
    scan::Options options;
    options.files = {"k.cpp"};
    options.extra_args = std::move(*expanded);
    options.jobs = 1;
    scan::scan(options);
  }

  const std::string printed = terminal.take();
  FUZZ_CHECK(fs::current_path() == sandbox, input);
  FUZZ_CHECK(printed.empty(), input);
  FUZZ_CHECK(listing(sandbox) == before, input);
  fs::current_path(before_cwd);
  fs::remove_all(sandbox);
  return 0;
}
