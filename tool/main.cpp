// opscan: the command line. It binds each command's options to its Args
// (lib/driver/commands), runs it in a Session printing to the terminal, and
// turns its status into the exit code; the work is done in lib/.
#include "cli.h"
#include "diag/text.h"
#include "scan/libclang_loader.h"
#include "stdout.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/temporaries.h"
#include "support/text.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <unistd.h>

namespace {

using namespace opscan;
using driver::Session;
using driver::Status;

// Documented in docs/command-line.md ("Exit codes").
int exit_code(Status status) {
  switch (status) {
  case Status::ok:
    return 0;
  case Status::errors:
    return 1;
  case Status::usage:
    return 2;
  case Status::failure:
    return 3;
  }
  return 3;
}

// The terminal: diagnostics on stderr, documents and messages on opscan's
// private stdout (stdout.h).
class Terminal : public driver::Console {
public:
  void error(std::string_view text) override { std::fwrite(text.data(), 1, text.size(), stderr); }
  void out(std::string_view text) override { tool::write_stdout(text); }
  bool color() const override { return ::isatty(STDERR_FILENO) != 0; }
};

// The exit code of a command that ended with `status`, once opscan's stdout
// is closed: 3 when what it printed there could not be written, whatever
// the command's own result. Said as text on stderr whatever the --format:
// the document is what was lost.
int exit_with(Status status) {
  if (std::optional<std::string> error = tool::close_stdout()) {
    diag::TextOptions options;
    options.color = Terminal().color();
    Terminal().error(diag::render_text(
        {diag::make_error("opscan-io", {}, "cannot write to stdout: " + *error)}, options));
    status = Status::failure;
  }
  return exit_code(status);
}

// A command line CLI11 refused, as a diagnostic like opscan's others.
Status usage_error(const CLI::App& app, const std::string& first, std::string message,
                   Session& session) {
  // CLI11 calls an unknown command a missing one.
  if (!first.empty() && first[0] != '-') {
    std::vector<std::string> names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      names.push_back(sub->get_name());
      known = known || sub->get_name() == first;
    }
    if (!known)
      message = fmt::format("unknown command {} (commands: {})", support::quoted(first),
                            fmt::join(names, ", "));
  }
  return session.usage(message + "; see opscan --help");
}

// A current directory that was removed (or cannot be named): relative paths
// then name nothing, and the paths opscan writes into outputs and messages
// (relative to it) cannot be made. Said before any work.
Status check_working_directory(Session& session) {
  std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
  if (cwd)
    return Status::ok;
  const int error = errno;
  return session.report(
      {diag::make_error("opscan-io", {},
                        error == ENOENT ? std::string("the current directory no longer exists")
                                        : std::string("cannot tell the current directory: ") +
                                              std::strerror(error))},
      Status::failure);
}

// A parse that took longer than --parse-timeout: libclang cannot be
// stopped, so the command ends here, as a failed scan of that file (exit
// code 1). Nothing has been written: every write comes after the parses.
void stop_parses_after(unsigned seconds, Session& session) {
  auto once = std::make_shared<std::mutex>();
  scan::limit_parse_time(std::chrono::seconds(seconds), [&session, once,
                                                         seconds](const std::string& file) {
    once->lock(); // never unlocked: a second expiry waits for the exit
    session.report({diag::make_error(
        "opscan-parse-timeout", {file, 0, 0, 0},
        fmt::format("libclang did not finish parsing {} within {} s (--parse-timeout): the "
                    "source or a header it includes never ends (a FIFO or device) or is too "
                    "large to parse",
                    support::display_path(file), seconds))});
    std::fflush(stderr);
    const int code = exit_with(session.finish(Status::errors));
    support::remove_private_directories();
    std::_Exit(code);
  });
}

// Runs the command the command line chose.
Status run_command(const CLI::App& app, tool::Commands& c, Session& session) {
  auto chosen = [&app](const char* name) { return app.got_subcommand(name); };
  if (chosen("diff"))
    return driver::diff_command::run(c.diff, session);
  if (chosen("report"))
    return driver::report_command::run(c.report_args, session);
  stop_parses_after(c.parse_timeout, session);
  // What killed or interrupted runs left in TMPDIR goes with any command
  // that parses, whether or not it needs a private directory itself.
  if (chosen("scan") || chosen("run") || chosen("pch") || chosen("import-yaml"))
    support::remove_orphaned_private_directories();
  if (chosen("scan"))
    return driver::scan_command::run(c.scan, session);
  if (chosen("pch"))
    return driver::pch_command::run(c.pch, session);
  if (chosen("import-yaml"))
    return driver::import_yaml_command::run(c.import_yaml, session);
  if (chosen("generate")) {
    c.generate.generate.target_given = app.get_subcommand("generate")->count("--target") > 0;
    return driver::generate_command::run(c.generate, session);
  }
  if (chosen("check")) {
    c.check.generate.target_given = app.get_subcommand("check")->count("--target") > 0;
    return driver::check_command::run(c.check, session);
  }
  c.run.generate.target_given = app.get_subcommand("run")->count("--target") > 0;
  return driver::run_command::run(c.run, session);
}

// Shows each file as it is scanned, on one line, on a terminal only.
void show_progress(driver::ScanArgs& args) {
  if (!::isatty(STDERR_FILENO) || args.files.size() < 2)
    return;
  args.progress = [](size_t done, size_t total, const std::string& file) {
    std::fprintf(stderr, "\r\033[Kopscan: scanned %zu/%zu %s", done, total, file.c_str());
    if (done == total)
      std::fputs("\r\033[K", stderr);
  };
}

// --help and --version: CLI11's text, on opscan's stdout.
int print_and_exit(const CLI::App& app, const CLI::Error& e) {
  std::ostringstream out, err;
  const int code = app.exit(e, out, err);
  tool::write_stdout(out.str());
  std::fputs(err.str().c_str(), stderr);
  return exit_with(code == 0 ? Status::ok : Status::usage);
}

} // namespace

int main(int argc, char** argv) {
  opscan::support::hold_interrupts_during_commits();
  tool::keep_stdout_private();
  CLI::App app{"opscan: operator registration code from annotated C++ kernels", "opscan"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    const std::string version = scan::libclang_version();
    // The resource directory is what a hermetic build declares as an
    // input of every scan (docs/bazel.md).
    return fmt::format("opscan {}\nlibclang: {}\nclang resource directory: {}", driver::version(),
                       version.empty() ? scan::load_libclang() : version,
                       scan::clang_resource_dir());
  });
  app.footer(
      "Exit codes: 0 success, 1 errors in the input, 2 usage error, 3 I/O or internal failure.");
  tool::Commands c;
  CLI::App* lsp = tool::bind_commands(app, c);

  // Everything after the first "--" goes to the compiler untouched.
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> clang_args;
  if (auto dash = std::find(args.begin(), args.end(), "--"); dash != args.end()) {
    clang_args.assign(dash + 1, args.end());
    args.erase(dash, args.end());
  }
  c.scan.scan.clang_args = c.run.scan.clang_args = c.import_yaml.clang_args =
      c.pch.clang_args = clang_args;
  const std::string command_word = args.empty() ? "" : args.front();
  std::reverse(args.begin(), args.end()); // CLI11 takes them last-first
  Terminal terminal;
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return print_and_exit(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return print_and_exit(app, e);
  } catch (const CLI::CallForVersion& e) {
    return print_and_exit(app, e);
  } catch (const CLI::ParseError& e) {
    Session session(terminal, {});
    return exit_with(session.finish(usage_error(app, command_word, e.what(), session)));
  }
  c.report.format = c.format == "json"    ? driver::Format::json
                    : c.format == "sarif" ? driver::Format::sarif
                                          : driver::Format::text;
  Session session(terminal, c.report);
  if (Status status = check_working_directory(session); status != Status::ok)
    return exit_with(session.finish(status));
  // The language server speaks LSP on stdout: it has no --format. Its
  // workers' analyses are bounded by the server (--analysis-timeout).
  if (*lsp)
    return tool::run_lsp(c.lsp);
  for (driver::ScanArgs* scan : {&c.scan.scan, &c.run.scan})
    show_progress(*scan);
  try {
    return exit_with(session.finish(run_command(app, c, session)));
  } catch (const std::exception& e) {
    session.report(
        {diag::make_error("opscan-internal", {}, std::string("internal error: ") + e.what())});
    return exit_with(session.finish(Status::failure));
  }
}
