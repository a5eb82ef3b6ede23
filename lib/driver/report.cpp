// A command's diagnostics in the form asked for (--format), and its --export-fixes file.
#include "driver/report.h"

#include "diag/fixes.h"
#include "diag/json.h"
#include "diag/sarif.h"

#include <filesystem>
#include <fmt/format.h>

namespace opscan::driver {

std::string render_report(const diag::Diagnostics& diags, const ReportOptions& options,
                          const std::optional<std::set<std::string>>& source_files) {
  switch (options.format) {
  case Format::text:
    return {};
  case Format::json:
    return diag::render_json(diags);
  case Format::sarif: {
    diag::SarifOptions sarif;
    sarif.source_root = options.source_root.empty() ? "." : options.source_root;
    sarif.source_files = source_files;
    return diag::render_sarif(diags, sarif);
  }
  }
  return {};
}

Outcome check_fixes_file(const std::string& path, const std::vector<RoleFile>& outputs,
                         const std::vector<RoleFile>& inputs) {
  // Last, so that two outputs naming one file are blamed on this one.
  std::vector<RoleFile> all_outputs = outputs;
  all_outputs.push_back({"--export-fixes", path});
  Outcome checked = check_outputs(all_outputs, inputs);
  Outcome outcome;
  for (diag::Diagnostic& d : checked.diagnostics) {
    if (d.location.file == path)
      outcome.diagnostics.push_back(std::move(d));
  }
  if (!outcome.diagnostics.empty()) {
    outcome.status = Status::usage;
    return outcome;
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(parent.empty() ? "." : parent, ec)) {
    outcome.diagnostics.push_back(
        diag::make_error("opscan-io", {path, 0, 0, 0},
                         fmt::format("cannot write {} (--export-fixes): {} is not a directory",
                                     path, parent.string())));
    outcome.status = Status::failure;
  }
  return outcome;
}

Companion fixes_file(const diag::Diagnostics& diags, const std::string& path,
                     const std::string& main_source) {
  diag::FixesOptions options;
  options.main_source_file = main_source;
  return {"--export-fixes", {path, diag::render_fixes(diags, options)}};
}

Outcome write_fixes_file(const diag::Diagnostics& diags, const std::string& path,
                         const std::string& main_source, const std::vector<RoleFile>& outputs,
                         const std::vector<RoleFile>& inputs) {
  Outcome outcome = check_fixes_file(path, outputs, inputs);
  if (outcome.status != Status::ok)
    return outcome;
  return write_files({}, "--export-fixes", inputs, fixes_file(diags, path, main_source));
}

} // namespace opscan::driver
