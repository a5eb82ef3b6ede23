// What `opscan diff` and `opscan report` share: reading their IR inputs
// (files, or directories of generated libraries) and printing diagnostics.
// Their --format is their report's, so diagnostics are always text, on
// stderr.
#pragma once

#include "audit/inputs.h"
#include "diag/diag.h"
#include "driver/driver.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opscan::tool {

// Prints diagnostics on stderr as text, with source lines from the input
// files only (an IR names source locations of any path); the status they
// make with `status`.
class DiagnosticPrinter {
public:
  void add_source(const std::string& path) { sources_.insert(path); }
  driver::Status print(const diag::Diagnostics& diags,
                       driver::Status status = driver::Status::ok) const;
  driver::Status usage(std::string message) const;

private:
  std::set<std::string> sources_;
};

// Reads the file an option names (`what`: "the allow-list"), for its
// source lines too; nullopt after printing why it cannot be read (an
// opscan-io failure in `status`).
std::optional<std::string> read_option_file(const std::string& path, const std::string& what,
                                            DiagnosticPrinter& printer, driver::Status& status);

// Reads the IR files `path` names (audit::ir_files_of), each validated,
// into `inputs`; prints what is wrong with them.
driver::Status read_ir_inputs(const std::string& path, std::vector<audit::Input>& inputs,
                              DiagnosticPrinter& printer);

} // namespace opscan::tool
