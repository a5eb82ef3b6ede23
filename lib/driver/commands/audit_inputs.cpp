// The inputs of diff and report (audit_inputs.h).
#include "driver/commands/audit_inputs.h"

#include "support/files.h"

namespace opscan::driver {

std::optional<std::string> read_option_file(const std::string& path, const std::string& what,
                                            Session& session, Status& status) {
  session.show_lines_of({path});
  std::string error;
  std::optional<std::string> text = support::read_file(path, &error);
  if (!text) {
    status = worst(status, session.report({diag::make_error(
                               "opscan-io", {path, 0, 0, 0},
                               "cannot read " + what + " " + path + ": " + error)}));
  }
  return text;
}

Status read_ir_inputs(const std::string& path, std::vector<audit::Input>& inputs,
                      Session& session) {
  audit::Expanded expanded = audit::ir_files_of(path);
  if (!expanded.diagnostics.empty())
    return session.report(expanded.diagnostics);
  session.show_lines_of(expanded.files);
  ReadIrs read = read_irs(expanded.files);
  for (IrFile& file : read.files)
    inputs.push_back({file.path, std::move(file.module), std::move(file.positions)});
  return session.report(read.diagnostics, read.status);
}

} // namespace opscan::driver
