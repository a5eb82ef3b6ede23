// `opscan generate` (generate.h).
#include "driver/commands/generate.h"

#include "emit/registry.h"

#include <fmt/format.h>

namespace opscan::driver::generate_command {
namespace {

// One line per file and symbol: "<kind> <path or name>".
Status list(const std::vector<IrFile>& inputs, const Request& request, Session& session) {
  if (session.report_options().format != Format::text)
    return session.usage("--list-outputs prints its list on stdout: use it with --format text");
  Listing listing = list_outputs(inputs, request, emit::builtin_targets());
  if (Status status = session.report(listing.diagnostics, listing.status); status != Status::ok)
    return status;
  for (const emit::OutputList& library : listing.libraries) {
    for (const emit::OutputFile& file : library.files)
      session.say(fmt::format("{} {}\n", emit::to_string(file.kind), file.path));
    if (!library.symbols.registration_function.empty())
      session.say(
          fmt::format("registration-function {}\n", library.symbols.registration_function));
    if (!library.symbols.link_anchor.empty())
      session.say(fmt::format("link-anchor {}\n", library.symbols.link_anchor));
  }
  return Status::ok;
}

} // namespace

Status run(const Args& args, Session& session) {
  if (Status status = start_generation(args.ir_files, args.generate, args.stamp, session);
      status != Status::ok)
    return status;
  if (args.ir_files.empty() && !args.list_outputs)
    return session.usage("generate needs IR files (or --list-outputs)");
  std::vector<IrFile> inputs;
  if (Status status = read_inputs(args.ir_files, session, inputs); status != Status::ok)
    return status;
  Request request = request_of(args.generate);
  if (args.list_outputs)
    return list(inputs, request, session);
  if (args.generate.out_dir.empty())
    return session.usage("-o (the output directory) is required");
  if (Status status = read_operators_from(args.generate, request, session); status != Status::ok)
    return status;
  Plan made = plan(std::move(inputs), request, emit::builtin_targets());
  if (Status status = session.report(made.diagnostics, made.status); status != Status::ok)
    return status;
  return write_plan(made, args.generate.out_dir, generation_inputs(args.ir_files, args.generate),
                    session, args.stamp);
}

} // namespace opscan::driver::generate_command
