// The command line of `opscan diff`.
#include "diff_command.h"

#include "audit/allow.h"
#include "audit/diff.h"
#include "audit/render.h"
#include "audit_inputs.h"
#include "stdout.h"

#include <fmt/format.h>

namespace opscan::tool {

using driver::Status;

driver::Status run_diff(const DiffArgs& args) {
  DiagnosticPrinter printer;
  audit::Date today = audit::today_utc();
  if (!args.today.empty()) {
    std::optional<audit::Date> date = audit::parse_date(args.today);
    if (!date)
      return printer.usage("--today '" + args.today + "' is not a date (YYYY-MM-DD)");
    today = *date;
  }
  Status status = Status::ok;
  std::optional<audit::AllowList> allow;
  if (!args.allow_file.empty()) {
    if (auto text = read_option_file(args.allow_file, "the allow-list", printer, status)) {
      audit::AllowRead read = audit::parse_allow_list(*text, args.allow_file);
      status = printer.print(read.diagnostics);
      allow = std::move(read.list);
    }
  }
  std::vector<audit::Input> olds, news;
  status = driver::worst(status, read_ir_inputs(args.old_path, olds, printer));
  status = driver::worst(status, read_ir_inputs(args.new_path, news, printer));
  if (status != Status::ok)
    return status;

  audit::DiffResult result = audit::diff(olds, news);
  if (status = printer.print(result.diagnostics); status != Status::ok)
    return status;
  if (allow)
    status = printer.print(audit::apply(*allow, today, result));
  const std::string report = args.format == "json"       ? audit::render_json(result)
                             : args.format == "markdown" ? audit::render_markdown(result)
                                                         : audit::render_text(result);
  write_stdout(report);
  if (const size_t failing = result.not_allowed(); failing > 0) {
    status = printer.print({diag::make_error(
        "opscan-diff-breaking", {},
        fmt::format("{} breaking change{} that no allow-list entry allows (see the report)",
                    failing, failing == 1 ? "" : "s"))});
  }
  return status;
}

} // namespace opscan::tool
