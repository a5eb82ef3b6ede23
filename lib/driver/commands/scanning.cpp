// The scan as the commands that parse sources run it (scanning.h).
#include "driver/commands/scanning.h"

#include "emit/registry.h"

#include <filesystem>

namespace opscan::driver {

Status check_sources(const std::vector<std::string>& files, Session& session) {
  std::vector<RoleFile> sources;
  for (const std::string& file : files)
    sources.push_back({"a source", file});
  Outcome checked = check_inputs(sources);
  return session.report(checked.diagnostics, checked.status);
}

std::optional<scan::Options> scan_options(const std::vector<std::string>& files,
                                          const std::string& build_dir,
                                          const std::string& flags_file,
                                          const std::vector<std::string>& clang_args,
                                          Session& session) {
  scan::Options options;
  options.files = files;
  if (!build_dir.empty())
    options.build_dir = build_dir;
  diag::Diagnostics diags;
  auto extra_args = session.compiler_args(flags_file, clang_args, diags);
  if (!extra_args) {
    session.report(diags, Status::failure);
    return std::nullopt;
  }
  options.extra_args = std::move(*extra_args);
  return options;
}

Status scan_into(const ScanArgs& args, Session& session, ir::Module& module,
                 std::vector<std::string>& inputs) {
  if (Status status = check_sources(args.files, session); status != Status::ok)
    return status;
  std::optional<scan::Options> options =
      scan_options(args.files, args.build_dir, args.flags_file, args.clang_args, session);
  if (!options)
    return Status::failure;
  options->jobs = args.jobs;
  options->schemas_files = args.schemas_files;
  if (!args.cache_dir.empty())
    options->cache_dir = args.cache_dir;
  options->auto_pch = !args.no_auto_pch;
  options->fields = emit::builtin_targets().fields();
  options->progress = args.progress;
  scan::Result result = scan::scan(*options);
  result.module.generator = generator_name();
  module = std::move(result.module);
  inputs = std::move(result.inputs);
  for (const std::string& file : inputs)
    session.add_input("an input of the scan", file);
  return session.report(result.diagnostics);
}

std::vector<RoleFile> option_inputs(const ScanArgs& args, const Session& session) {
  std::vector<RoleFile> inputs;
  for (const std::string& schemas : args.schemas_files)
    inputs.push_back({"--schemas", schemas});
  if (!args.flags_file.empty())
    inputs.push_back({"--flags-file", args.flags_file});
  if (!args.build_dir.empty())
    inputs.push_back({"the compilation database",
                      (std::filesystem::path(args.build_dir) / "compile_commands.json").string()});
  inputs.insert(inputs.end(), session.response_files().begin(), session.response_files().end());
  return inputs;
}

void add_scan_inputs(const ScanArgs& args, Session& session) {
  for (const std::string& file : args.files)
    session.add_input("a source", file);
  if (!args.files.empty())
    session.set_main_source(args.files.front());
  session.add_inputs(option_inputs(args, session));
}

void add_step_outputs(const std::string& output, const std::string& depfile,
                      const std::string& stamp, Session& session) {
  session.add_output("-o", output);
  if (!depfile.empty())
    session.add_output("--depfile", depfile);
  if (!stamp.empty())
    session.add_output("--stamp", stamp);
}

Status write_build_step(StepFiles files, const std::vector<std::string>& read,
                        const std::string& role, const diag::Diagnostics& diags,
                        const std::vector<RoleFile>& option_inputs, Session& session) {
  for (const std::string& file : read)
    session.add_input(role, file);
  if (Status status = session.report(diags); status != Status::ok)
    return status;
  if (Status status = session.check_fixes_file(); status != Status::ok)
    return status;
  Outcome written = write_step(files, read, option_inputs, session.fixes_with_outputs());
  return session.report(written.diagnostics, written.status);
}

Status check_ledger(Session& session) {
  if (Status status = session.check_fixes_file(); status != Status::ok)
    return status;
  return session.check_outputs();
}

} // namespace opscan::driver
