// `opscan check` (check.h).
#include "driver/commands/check.h"

#include "driver/commands/model.h"
#include "emit/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace opscan::driver::check_command {
namespace {

Status check_model(const Args& args, Session& session) {
  const GenerateArgs& generate = args.generate;
  if (generate.lib || generate.operators || !generate.operators_from.empty())
    return session.usage("--model checks a model against library IRs as they are: it takes no "
                         "--lib, --operators or --operators-from");
  session.show_lines_of(args.ir_files);
  ModelOutcome outcome = check_model_against(args.model, args.ir_files);
  session.say(outcome.table);
  if (Status status = session.report(outcome.diagnostics, outcome.status); status != Status::ok)
    return status;
  if (args.stamp.empty())
    return Status::ok;
  std::vector<RoleFile> inputs = generation_inputs(args.ir_files, generate);
  inputs.push_back({"--model", args.model});
  Outcome touched = touch_stamp(args.stamp, inputs);
  return session.report(touched.diagnostics, touched.status);
}

} // namespace

Status run(const Args& args, Session& session) {
  std::vector<RoleFile> model;
  if (!args.model.empty())
    model.push_back({"--model", args.model});
  if (Status status = start_generation(args.ir_files, args.generate, args.stamp, session, model);
      status != Status::ok)
    return status;
  if (!args.model.empty())
    return check_model(args, session);
  std::vector<IrFile> inputs;
  if (Status status = read_inputs(args.ir_files, session, inputs); status != Status::ok)
    return status;
  Request request = request_of(args.generate);
  if (Status status = read_operators_from(args.generate, request, session); status != Status::ok)
    return status;
  Plan made = plan(std::move(inputs), request, emit::builtin_targets());
  if (Status status = session.report(made.diagnostics, made.status); status != Status::ok)
    return status;
  std::vector<std::string> names;
  for (const emit::Output& library : made.libraries)
    names.push_back(library.library.name);
  if (!args.stamp.empty()) {
    Outcome touched = touch_stamp(args.stamp, generation_inputs(args.ir_files, args.generate));
    if (Status status = session.report(touched.diagnostics, touched.status); status != Status::ok)
      return status;
  }
  session.say(fmt::format("opscan: {} librar{} ({}) can live in one program\n", names.size(),
                          names.size() == 1 ? "y" : "ies", fmt::join(names, ", ")));
  return Status::ok;
}

} // namespace opscan::driver::check_command
