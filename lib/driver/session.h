// What one run of a command shares, as clang tools share a DiagnosticsEngine
// and a FileManager: where its diagnostics and messages go (--format, the
// files whose lines diagnostics show, --export-fixes), and the ledger of the
// files it reads and writes, by role, against which every write is checked.
// Nothing here prints: a Console (the tool's stderr and stdout) does.
#pragma once

#include "diag/diag.h"
#include "driver/driver.h"
#include "driver/report.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::driver {

// Where a command's text goes.
class Console {
public:
  virtual ~Console() = default;
  virtual void error(std::string_view text) = 0; // diagnostics as text (stderr)
  virtual void out(std::string_view text) = 0;   // documents and messages (stdout)
  virtual bool color() const { return false; }   // whether error() shows colors
};

class Session {
public:
  Session(Console& console, ReportOptions report) : console_(console), report_(std::move(report)) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Diagnostics: printed as text now (in the text format) and kept for the
  // document and the fixes file made at the end. The status they make
  // with `status`.
  Status report(const diag::Diagnostics& diags, Status status = Status::ok);
  // A usage error (opscan-usage).
  Status usage(std::string message);
  // Diagnostics show lines of these files only (commands that read IR
  // files: an IR names source locations of any path). By default, of any.
  void show_lines_of(const std::vector<std::string>& files);

  // A message that is not a diagnostic (a summary, a listing): on stdout,
  // unless stdout holds the JSON or SARIF document.
  void say(std::string_view text);
  // A command's own document on stdout (diff's and report's reports).
  void out(std::string_view text) { console_.out(text); }
  const ReportOptions& report_options() const { return report_; }

  // The ledger. Inputs and outputs as far as known: a command adds what
  // it learns (the files a scan read) before it writes.
  void add_input(std::string role, std::string path);
  void add_inputs(const std::vector<RoleFile>& files);
  void add_output(std::string role, std::string path);
  const std::vector<RoleFile>& inputs() const { return inputs_; }
  const std::vector<RoleFile>& outputs() const { return outputs_; }
  // The source the fixes file names as its MainSourceFile.
  void set_main_source(std::string path) { main_source_ = std::move(path); }

  // Refuses outputs that would replace an input or each other, and a
  // --export-fixes file that would (or whose directory is missing):
  // checked before the command reads anything, and again before each write.
  Status check_outputs();
  Status check_fixes_file();
  // The fixes file as the diagnostics so far make it, to be written with
  // the command's outputs, all or nothing. None when not asked for.
  std::optional<Companion> fixes_with_outputs();

  // compiler_args, keeping the response files it read as inputs.
  std::optional<std::vector<std::string>> compiler_args(const std::string& flags_file,
                                                        const std::vector<std::string>& extra,
                                                        diag::Diagnostics& diags);
  const std::vector<RoleFile>& response_files() const { return response_files_; }

  // The end of every command: the fixes file, unless written with the
  // outputs (when the command judged its input: ok or errors), then the
  // JSON or SARIF document on stdout. The command's final status.
  Status finish(Status status);

private:
  Console& console_;
  ReportOptions report_;
  std::optional<std::set<std::string>> source_files_;
  diag::Diagnostics reported_;
  std::vector<RoleFile> inputs_, outputs_, response_files_;
  std::string main_source_;
  bool fixes_with_outputs_ = false;
};

} // namespace opscan::driver
