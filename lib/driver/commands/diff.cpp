// `opscan diff` (diff.h).
#include "driver/commands/diff.h"

#include "audit/allow.h"
#include "audit/diff.h"
#include "audit/render.h"
#include "driver/commands/audit_inputs.h"
#include "emit/registry.h"

#include <fmt/format.h>

namespace opscan::driver::diff_command {

Status run(const Args& args, Session& session) {
  session.show_lines_of({});
  audit::Date today = audit::today_utc();
  if (!args.today.empty()) {
    std::optional<audit::Date> date = audit::parse_date(args.today);
    if (!date)
      return session.usage("--today '" + args.today + "' is not a date (YYYY-MM-DD)");
    today = *date;
  }
  Status status = Status::ok;
  std::optional<audit::AllowList> allow;
  if (!args.allow_file.empty()) {
    if (auto text = read_option_file(args.allow_file, "the allow-list", session, status)) {
      audit::AllowRead read = audit::parse_allow_list(*text, args.allow_file);
      status = session.report(read.diagnostics);
      allow = std::move(read.list);
    }
  }
  std::vector<ir::File> olds, news;
  status = worst(status, read_ir_inputs(args.old_path, olds, session));
  status = worst(status, read_ir_inputs(args.new_path, news, session));
  if (status != Status::ok)
    return status;

  audit::DiffResult result = audit::diff(olds, news, emit::builtin_targets().fields());
  if (status = session.report(result.diagnostics); status != Status::ok)
    return status;
  if (allow)
    status = session.report(audit::apply(*allow, today, result));
  const std::string report = args.format == "json"       ? audit::render_json(result)
                             : args.format == "markdown" ? audit::render_markdown(result)
                                                         : audit::render_text(result);
  session.out(report);
  if (const size_t failing = result.not_allowed(); failing > 0) {
    status = session.report({diag::make_error(
        "opscan-diff-breaking", {},
        fmt::format("{} breaking change{} that no allow-list entry allows (see the report)",
                    failing, failing == 1 ? "" : "s"))});
  }
  return status;
}

} // namespace opscan::driver::diff_command
