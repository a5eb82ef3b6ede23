// Reading `diff` and `report` inputs for the command line, and printing their diagnostics as text.
#include "audit_inputs.h"

#include "diag/text.h"
#include "support/files.h"

#include <cstdio>
#include <unistd.h>

namespace opscan::tool {

driver::Status DiagnosticPrinter::print(const diag::Diagnostics& diags,
                                        driver::Status status) const {
  diag::TextOptions options;
  options.color = ::isatty(STDERR_FILENO) != 0;
  options.source_files = sources_;
  std::fputs(diag::render_text(diags, options).c_str(), stderr);
  return driver::worst(status, driver::status_of(diags));
}

driver::Status DiagnosticPrinter::usage(std::string message) const {
  print({diag::make_error("opscan-usage", {}, std::move(message))});
  return driver::Status::usage;
}

std::optional<std::string> read_option_file(const std::string& path, const std::string& what,
                                            DiagnosticPrinter& printer, driver::Status& status) {
  printer.add_source(path);
  std::string error;
  std::optional<std::string> text = support::read_file(path, &error);
  if (!text) {
    status = driver::worst(status, printer.print({diag::make_error("opscan-io", {path, 0, 0, 0},
                                                                   "cannot read " + what + " " +
                                                                       path + ": " + error)}));
  }
  return text;
}

driver::Status read_ir_inputs(const std::string& path, std::vector<audit::Input>& inputs,
                              DiagnosticPrinter& printer) {
  audit::Expanded expanded = audit::ir_files_of(path);
  if (!expanded.diagnostics.empty())
    return printer.print(expanded.diagnostics);
  for (const std::string& file : expanded.files)
    printer.add_source(file);
  driver::ReadIrs read = driver::read_irs(expanded.files);
  for (driver::IrFile& file : read.files)
    inputs.push_back({file.path, std::move(file.module), std::move(file.positions)});
  return printer.print(read.diagnostics, read.status);
}

} // namespace opscan::tool
