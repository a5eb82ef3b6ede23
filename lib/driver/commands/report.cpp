// `opscan report` (report.h).
#include "driver/commands/report.h"

#include "audit/report.h"
#include "driver/commands/audit_inputs.h"
#include "emit/registry.h"

#include <fmt/format.h>

namespace opscan::driver::report_command {

Status run(const Args& args, Session& session) {
  session.show_lines_of({});
  if (args.fail_on_missing && args.against.empty())
    return session.usage("--fail-on-missing needs --against (the list of operators)");
  Status status = Status::ok;
  std::optional<audit::OperatorList> list;
  std::vector<RoleFile> inputs;
  if (!args.against.empty()) {
    inputs.push_back({"--against", args.against});
    if (auto text = read_option_file(args.against, "the operator list", session, status)) {
      audit::ListRead read = audit::parse_operator_list(*text, args.against);
      status = session.report(read.diagnostics);
      list = std::move(read.list);
    }
  }
  std::vector<ir::File> irs;
  for (const std::string& path : args.inputs)
    status = worst(status, read_ir_inputs(path, irs, session));
  if (status != Status::ok)
    return status;
  const ir::Fields& fields = emit::builtin_targets().fields();
  audit::Libraries libraries = audit::group_libraries(irs, fields);
  if (status = session.report(libraries.diagnostics); status != Status::ok)
    return status;
  std::optional<audit::Coverage> coverage;
  if (list)
    coverage = audit::coverage_of(libraries.libraries, *list, args.against);
  const std::string report =
      args.format == "json" ? audit::render_report_json(libraries.libraries, coverage, fields)
                            : audit::render_report_markdown(libraries.libraries, coverage, fields);
  if (args.output.empty()) {
    session.out(report);
  } else {
    for (const ir::File& ir : irs)
      inputs.push_back({"an IR input", ir.path});
    Outcome written = write_files({{args.output, report}}, "-o", inputs);
    if (status = session.report(written.diagnostics, written.status); status != Status::ok)
      return status;
  }
  if (args.fail_on_missing && coverage && !coverage->missing.empty()) {
    status = session.report({diag::make_error(
        "opscan-report-missing", {args.against, 0, 0, 0},
        fmt::format("{} of the {} operator{} listed {} served by no library (--fail-on-missing)",
                    coverage->missing.size(), coverage->total(), coverage->total() == 1 ? "" : "s",
                    coverage->missing.size() == 1 ? "is" : "are"))});
  }
  return status;
}

} // namespace opscan::driver::report_command
