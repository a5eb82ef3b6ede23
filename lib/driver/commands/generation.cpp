// What generate, check and run share (generation.h).
#include "driver/commands/generation.h"

#include "driver/commands/scanning.h"
#include "driver/model.h"
#include "emit/registry.h"
#include "support/files.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace opscan::driver {
namespace {

// What one library holds and where its files went.
std::string summary(const emit::Output& library, const emit::WriteReport& written,
                    const std::string& out_dir) {
  auto count = [&](const std::vector<std::string>& paths) {
    return std::count_if(library.files.begin(), library.files.end(),
                         [&](const emit::OutputFile& f) {
                           return std::find(paths.begin(), paths.end(), f.path) != paths.end();
                         });
  };
  const ir::Module& module = library.module;
  std::map<std::string, int> per_namespace;
  for (const ir::Kernel& k : module.kernels)
    ++per_namespace[k.op.ns];
  std::string namespaces;
  for (const auto& [ns, count] : per_namespace)
    namespaces += fmt::format("{}{} {}", namespaces.empty() ? "" : ", ", count, ns);
  const std::string& function = library.symbols.registration_function;
  std::vector<std::string> names;
  for (const emit::OutputFile& f : library.files)
    names.push_back(std::filesystem::path(f.path).filename());
  return fmt::format("opscan: library '{}': {} operator{} ({}), registration: {}\n",
                     library.library.name, module.kernels.size(),
                     module.kernels.size() == 1 ? "" : "s", namespaces,
                     function.empty() ? "static initializer" : function + "()") +
         fmt::format("opscan: {}: {} ({} written, {} unchanged)\n",
                     support::display_path(std::filesystem::path(out_dir) / library.library.name),
                     fmt::join(names, ", "), count(written.written), count(written.unchanged));
}

} // namespace

Status start_generation(const std::vector<std::string>& ir_files, const GenerateArgs& args,
                        const std::string& stamp, Session& session,
                        const std::vector<RoleFile>& more) {
  session.add_inputs(generation_inputs(ir_files, args));
  session.add_inputs(more);
  if (!stamp.empty())
    session.add_output("--stamp", stamp);
  if (Status status = check_ledger(session); status != Status::ok)
    return status;
  return check_choices(args, session);
}

Status check_choices(const GenerateArgs& args, Session& session) {
  const emit::TargetRegistry& targets = emit::builtin_targets();
  diag::Diagnostics diags;
  if (targets.find(args.target) == nullptr) {
    diags.push_back(diag::make_error(
        "opscan-usage", {},
        fmt::format("unknown target '{}' (targets: {})", args.target, targets.listed())));
  }
  if (!args.registration.empty() && !ir::parse_registration(args.registration)) {
    diags.push_back(diag::make_error(
        "opscan-usage", {},
        fmt::format("unknown registration mode '{}' (modes: static, manual, named)",
                    args.registration)));
  }
  session.report(diags);
  return diags.empty() ? Status::ok : Status::usage;
}

Request request_of(const GenerateArgs& args) {
  Request request;
  emit::Options& options = request.options;
  options.target = args.target;
  request.target_given = args.target_given;
  if (!args.registration.empty()) {
    options.registration = *ir::parse_registration(args.registration);
    request.registration_given = true;
  }
  options.library = args.lib;
  if (!args.templates_dir.empty())
    options.templates_dir = args.templates_dir;
  options.generator = generator_name();
  if (args.dispatch_key)
    options.field_defaults["dispatch_key"] = *args.dispatch_key;
  options.profiling = !args.no_profiling;
  // Known before the file is read, so that --list-outputs lists the prim-op
  // selection --operators-from makes (read_operators_from fills it).
  if (!args.operators_from.empty())
    options.prim_ops.emplace();
  options.exception_boundary = args.exception_boundary;
  options.torch_target_version = args.torch_target_version;
  options.aten_mode = args.use_aten_lib;
  request.operators = args.operators;
  return request;
}

Status read_operators_from(const GenerateArgs& args, Request& request, Session& session) {
  if (args.operators_from.empty())
    return Status::ok;
  ReadSelection read = read_operator_selection(args.operators_from);
  request.operators_from = std::move(read.selection);
  request.options.prim_ops = std::move(read.prim_ops);
  return session.report(read.diagnostics, read.status);
}

std::vector<RoleFile> generation_inputs(const std::vector<std::string>& ir_files,
                                        const GenerateArgs& args) {
  std::vector<RoleFile> inputs;
  for (const std::string& file : ir_files)
    inputs.push_back({"an IR input", file});
  if (!args.operators_from.empty())
    inputs.push_back({"--operators-from", args.operators_from});
  if (!args.templates_dir.empty()) {
    std::vector<RoleFile> templates = files_under(args.templates_dir, "a template");
    inputs.insert(inputs.end(), templates.begin(), templates.end());
  }
  return inputs;
}

Status read_inputs(const std::vector<std::string>& paths, Session& session,
                   std::vector<IrFile>& files) {
  session.show_lines_of(paths);
  ReadIrs read = read_irs(paths);
  files = std::move(read.files);
  return session.report(read.diagnostics, read.status);
}

Status write_plan(const Plan& plan, const std::string& out_dir,
                  const std::vector<RoleFile>& inputs, Session& session,
                  const std::string& stamp) {
  for (const emit::Output& library : plan.libraries) {
    for (const emit::OutputFile& file : library.files)
      session.add_output("an output", (std::filesystem::path(out_dir) / file.path).string());
  }
  if (Status status = session.check_fixes_file(); status != Status::ok)
    return status;
  Written written =
      write_libraries(plan.libraries, out_dir, inputs, stamp, session.fixes_with_outputs());
  if (Status status = session.report(written.report.diagnostics, written.status);
      status != Status::ok)
    return status;
  for (const emit::Output& library : plan.libraries)
    session.say(summary(library, written.report, out_dir));
  return Status::ok;
}

} // namespace opscan::driver
