// `opscan import-yaml` (import_yaml.h).
#include "driver/commands/import_yaml.h"

#include "driver/commands/scanning.h"
#include "migrate/import_yaml.h"
#include "support/files.h"
#include "yaml/operator_yaml.h"

#include <fmt/format.h>

namespace opscan::driver::import_yaml_command {
namespace {

// The import's entries, or nullopt after reporting why there are none.
std::optional<std::vector<yaml::Entry>> read_yaml(const std::string& path, Session& session,
                                                  Status& status) {
  diag::Diagnostics diags;
  std::string error;
  std::optional<std::string> text = support::read_file(path, &error);
  if (!text) {
    diags.push_back(diag::make_error("opscan-io", {path, 0, 0, 0},
                                     "cannot read the YAML file " + path + ": " + error));
    status = session.report(diags, Status::failure);
    return std::nullopt;
  }
  auto entries = yaml::parse_operator_yaml(*text, path, diags);
  status = session.report(diags);
  return entries;
}

Status write_edits(const Args& args, const migrate::ImportPlan& plan, Session& session) {
  std::vector<support::FileWrite> edits;
  for (const migrate::FileEdit& edit : plan.edits)
    edits.push_back({edit.path, edit.content});
  std::vector<RoleFile> inputs = {{"the YAML file", args.yaml_file}};
  if (!args.flags_file.empty())
    inputs.push_back({"--flags-file", args.flags_file});
  for (const support::FileWrite& edit : edits)
    session.add_output("a source to annotate", edit.path.string());
  if (Status status = session.check_fixes_file(); status != Status::ok)
    return status;
  Outcome written =
      write_files(edits, "a source to annotate", inputs, session.fixes_with_outputs());
  return session.report(written.diagnostics, written.status);
}

} // namespace

Status run(const Args& args, Session& session) {
  for (const std::string& file : args.files)
    session.add_input("a source", file);
  if (!args.files.empty())
    session.set_main_source(args.files.front());
  session.add_input("the YAML file", args.yaml_file);
  if (!args.flags_file.empty())
    session.add_input("--flags-file", args.flags_file);
  if (Status status = check_ledger(session); status != Status::ok)
    return status;
  Status status = Status::ok;
  std::optional<std::vector<yaml::Entry>> entries = read_yaml(args.yaml_file, session, status);
  if (!entries)
    return status;
  if (status = check_sources(args.files, session); status != Status::ok)
    return status;
  std::optional<scan::Options> options =
      scan_options(args.files, args.build_dir, args.flags_file, args.clang_args, session);
  if (!options)
    return Status::failure;
  scan::LocateResult located = scan::locate_functions(*options);
  if (status = session.report(located.diagnostics); status != Status::ok)
    return status;
  migrate::ImportPlan plan = migrate::plan_import(*entries, located.files);
  if (status = session.report(plan.diagnostics); status != Status::ok)
    return status;
  if (!args.dry_run) {
    if (status = write_edits(args, plan, session); status != Status::ok)
      return status;
  }
  for (const migrate::FileEdit& edit : plan.edits) {
    session.say(fmt::format("opscan: {}: {} annotation{}{}\n", support::display_path(edit.path),
                            edit.annotations, edit.annotations == 1 ? "" : "s",
                            args.dry_run ? " (dry run: not written)" : ""));
  }
  // One line that accounts for every kernel the YAML names.
  const size_t kernels = plan.placed + plan.annotated + plan.not_placed;
  session.say(fmt::format("opscan: {} kernel{}: {} annotated{}, {} annotated already, {} not "
                          "placed{}\n",
                          kernels, kernels == 1 ? "" : "s", plan.placed,
                          args.dry_run ? " (dry run: not written)" : "", plan.annotated,
                          plan.not_placed, plan.not_placed > 0 ? " (see the warnings above)" : ""));
  return Status::ok;
}

} // namespace opscan::driver::import_yaml_command
