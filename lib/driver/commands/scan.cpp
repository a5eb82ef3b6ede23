// `opscan scan` (scan.h).
#include "driver/commands/scan.h"

#include "emit/registry.h"
#include "ir/json.h"

namespace opscan::driver::scan_command {

Status run(const Args& args, Session& session) {
  add_scan_inputs(args.scan, session);
  add_step_outputs(args.output, args.depfile, args.stamp, session);
  if (Status status = check_ledger(session); status != Status::ok)
    return status;
  ir::Module module;
  std::vector<std::string> inputs;
  if (Status status = scan_into(args.scan, session, module, inputs); status != Status::ok)
    return status;
  if (Status status = session.check_fixes_file(); status != Status::ok)
    return status;
  Outcome written =
      write_step({args.output, ir::to_json(module, emit::builtin_targets().fields()), args.depfile,
                  args.stamp},
                 inputs, option_inputs(args.scan, session), session.fixes_with_outputs());
  return session.report(written.diagnostics, written.status);
}

} // namespace opscan::driver::scan_command
