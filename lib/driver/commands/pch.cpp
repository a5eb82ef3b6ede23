// `opscan pch` and `opscan pch --shared` (pch.h).
#include "driver/commands/pch.h"

#include "driver/commands/scanning.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace opscan::driver::pch_command {
namespace {

// The option files of the step, for its depfile and the output checks.
std::vector<RoleFile> step_inputs(const Args& args, const char* role, const Session& session) {
  std::vector<RoleFile> roles;
  for (const std::string& file : args.files)
    roles.push_back({role, file});
  if (!args.flags_file.empty())
    roles.push_back({"--flags-file", args.flags_file});
  roles.insert(roles.end(), session.response_files().begin(), session.response_files().end());
  return roles;
}

Status shared(const Args& args, Session& session) {
  if (args.cache.empty())
    return session.usage("pch --shared needs --cache, the directory the scans will use");
  if (Status status = check_sources(args.files, session); status != Status::ok)
    return status;
  std::optional<scan::Options> options =
      scan_options(args.files, {}, args.flags_file, args.clang_args, session);
  if (!options)
    return Status::failure;
  options->cache_dir = args.cache;
  scan::SharedPchResult result = scan::precompile_shared(*options);
  std::string list =
      "# The #include lines these sources share, precompiled by opscan pch --shared:\n"
      "# the header, how many sources start with its lines, the lines.\n";
  for (const scan::SharedPch& pch : result.pchs)
    list += fmt::format("{} {} {}\n", pch.path, pch.files, fmt::join(pch.includes, " "));
  return write_build_step({args.output, list, args.depfile, args.stamp}, result.inputs,
                          "an input of the headers", result.diagnostics,
                          step_inputs(args, "a source", session), session);
}

Status one_header(const Args& args, Session& session) {
  if (args.files.size() != 1 || !args.cache.empty())
    return session.usage(args.files.size() != 1
                             ? "pch takes one header (several files only with --shared)"
                             : "--cache is an option of pch --shared only");
  const std::string& header = args.files[0];
  if (Status status = check_sources({header}, session); status != Status::ok)
    return status;
  diag::Diagnostics diags;
  auto compiler_args = session.compiler_args(args.flags_file, args.clang_args, diags);
  if (!compiler_args)
    return session.report(diags, Status::failure);
  scan::PrecompileResult result = scan::precompile({header, std::move(*compiler_args)});
  return write_build_step({args.output, std::move(result.pch), args.depfile, args.stamp},
                          result.inputs, "an input of the header", result.diagnostics,
                          step_inputs(args, "the header", session), session);
}

} // namespace

Status run(const Args& args, Session& session) {
  for (const std::string& file : args.files)
    session.add_input(args.shared ? "a source" : "the header", file);
  if (!args.flags_file.empty())
    session.add_input("--flags-file", args.flags_file);
  add_step_outputs(args.output, args.depfile, args.stamp, session);
  if (Status status = check_ledger(session); status != Status::ok)
    return status;
  return args.shared ? shared(args, session) : one_header(args, session);
}

} // namespace opscan::driver::pch_command
