// `opscan run` (run.h).
#include "driver/commands/run.h"

#include "emit/registry.h"

namespace opscan::driver::run_command {

Status run(const Args& args, Session& session) {
  add_scan_inputs(args.scan, session);
  session.add_inputs(generation_inputs({}, args.generate));
  if (Status status = check_ledger(session); status != Status::ok)
    return status;
  if (Status status = check_choices(args.generate, session); status != Status::ok)
    return status;
  Request request = request_of(args.generate);
  if (Status status = read_operators_from(args.generate, request, session); status != Status::ok)
    return status;
  ir::Module module;
  std::vector<std::string> scanned;
  if (Status status = scan_into(args.scan, session, module, scanned); status != Status::ok)
    return status;
  Plan made = plan_scanned(std::move(module), request, emit::builtin_targets());
  if (Status status = session.report(made.diagnostics, made.status); status != Status::ok)
    return status;
  std::vector<RoleFile> inputs = option_inputs(args.scan, session);
  for (const std::string& file : scanned)
    inputs.push_back({"an input of the scan", file});
  std::vector<RoleFile> templates = generation_inputs({}, args.generate);
  inputs.insert(inputs.end(), templates.begin(), templates.end());
  return write_plan(made, args.generate.out_dir, inputs, session);
}

} // namespace opscan::driver::run_command
