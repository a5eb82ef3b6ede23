// The command line of `opscan report`.
#include "report_command.h"

#include "audit/report.h"
#include "audit_inputs.h"
#include "stdout.h"

#include <fmt/format.h>

namespace opscan::tool {

using driver::Status;

driver::Status run_report(const ReportArgs& args) {
  DiagnosticPrinter printer;
  if (args.fail_on_missing && args.against.empty())
    return printer.usage("--fail-on-missing needs --against (the list of operators)");
  Status status = Status::ok;
  std::optional<audit::OperatorList> list;
  std::vector<driver::RoleFile> inputs;
  if (!args.against.empty()) {
    inputs.push_back({"--against", args.against});
    if (auto text = read_option_file(args.against, "the operator list", printer, status)) {
      audit::ListRead read = audit::parse_operator_list(*text, args.against);
      status = printer.print(read.diagnostics);
      list = std::move(read.list);
    }
  }
  std::vector<audit::Input> irs;
  for (const std::string& path : args.inputs)
    status = driver::worst(status, read_ir_inputs(path, irs, printer));
  if (status != Status::ok)
    return status;
  audit::Libraries libraries = audit::group_libraries(irs);
  if (status = printer.print(libraries.diagnostics); status != Status::ok)
    return status;
  std::optional<audit::Coverage> coverage;
  if (list)
    coverage = audit::coverage_of(libraries.libraries, *list, args.against);
  const std::string report = args.format == "json"
                                 ? audit::render_report_json(libraries.libraries, coverage)
                                 : audit::render_report_markdown(libraries.libraries, coverage);
  if (args.output.empty()) {
    write_stdout(report);
  } else {
    for (const audit::Input& ir : irs)
      inputs.push_back({"an IR input", ir.path});
    driver::Outcome written = driver::write_files({{args.output, report}}, "-o", inputs);
    if (status = printer.print(written.diagnostics, written.status); status != Status::ok)
      return status;
  }
  if (args.fail_on_missing && coverage && !coverage->missing.empty()) {
    status = printer.print({diag::make_error(
        "opscan-report-missing", {args.against, 0, 0, 0},
        fmt::format("{} of the {} operator{} listed {} served by no library (--fail-on-missing)",
                    coverage->missing.size(), coverage->total(), coverage->total() == 1 ? "" : "s",
                    coverage->missing.size() == 1 ? "is" : "are"))});
  }
  return status;
}

} // namespace opscan::tool
