// What the commands do: reading IR files, planning and checking generations, writing outputs.
#include "driver/driver.h"

#include "ir/validate.h"
#include "scan/response_files.h"
#include "support/depfile.h"
#include "support/files.h"
#include "support/text.h"
#include "support/version.h"

#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace opscan::driver {
namespace {

// An I/O failure: "cannot <what> <path>: <why>". The path is in the message
// too: a location without a line is not shown.
diag::Diagnostic io_error(const std::string& path, std::string_view what, const std::string& why) {
  return diag::make_error("opscan-io", {path, 0, 0, 0},
                          fmt::format("cannot {} {}: {}", what, path, why));
}

// support::write_files of `files` and `companion`, a failure reported in
// `outcome` (naming the companion's role when it failed).
support::WriteFilesResult write_all(std::vector<support::FileWrite> files,
                                    const std::optional<Companion>& companion, Outcome& outcome) {
  if (companion)
    files.push_back(companion->file);
  support::WriteFilesResult result = support::write_files(files);
  if (result.ok())
    return result;
  const std::string path = result.failed_path->string();
  const std::string why = result.error + " (no output was changed)";
  outcome.diagnostics.push_back(
      companion && *result.failed_path == companion->file.path
          ? diag::make_error("opscan-io", {path, 0, 0, 0},
                             fmt::format("cannot write {} ({}): {}", path, companion->role, why))
          : io_error(path, "write", why));
  outcome.status = Status::failure;
  return result;
}

// Whether `stamp` (if any) is absent or a regular file, checked before a
// step writes anything: its outputs must not change when its stamp cannot.
bool stamp_can_be_touched(const std::string& stamp, Outcome& outcome) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(stamp, ec);
  if (stamp.empty() || !std::filesystem::exists(status))
    return true;
  // Never a link: touching it would change its target's time.
  std::string why =
      std::filesystem::is_symlink(status)
          ? "Not a regular file (a symbolic link)"
          : support::unreadable_reason(stamp, std::numeric_limits<std::uintmax_t>::max());
  if (why.empty())
    return true;
  outcome.diagnostics.push_back(io_error(stamp, "touch", why + " (no output was changed)"));
  outcome.status = Status::failure;
  return false;
}

// The options that regenerate a library IR as its record says; nullopt with
// a diagnostic for a record that no target could have written.
std::optional<emit::Options> recorded_options(const IrFile& input, const emit::Options& base,
                                              const emit::TargetRegistry& targets,
                                              const ir::Locator& locator,
                                              diag::Diagnostics& diags) {
  if (!input.module.library) {
    diags.push_back(diag::make_error(
        "opscan-ir-not-library", {input.path, 0, 0, 0},
        input.path + " is scan output (a fragment), not a library IR: generate it with --lib"));
    return std::nullopt;
  }
  const ir::LibraryInfo& lib = *input.module.library;
  const emit::Target* target = targets.find(lib.target);
  if (target == nullptr) {
    diags.push_back(locator.module_error("library.target", "opscan-ir-library",
                                         "unknown target " + support::quoted(lib.target) +
                                             " (targets: " + targets.listed() + ")"));
    return std::nullopt;
  }
  if (!target->accepts(lib.registration)) {
    diags.push_back(locator.module_error("library.registration", "opscan-ir-library",
                                         fmt::format("the {} target has no {} registration",
                                                     lib.target, ir::to_string(lib.registration))));
    return std::nullopt;
  }
  // The symbols are derived: a record that disagrees was edited, and the
  // build (which reads them) would disagree with the code.
  const emit::Symbols symbols = target->symbols({lib.name, lib.registration});
  bool agrees = true;
  for (auto [path, recorded, derived] :
       {std::tuple{"library.function", &lib.function, &symbols.registration_function},
        std::tuple{"library.link_anchor", &lib.link_anchor, &symbols.link_anchor}}) {
    if (*recorded != *derived) {
      diags.push_back(locator.module_error(
          path, "opscan-ir-library",
          fmt::format("is {}, but the {} target's library '{}' in {} mode defines {}",
                      support::quoted(*recorded), lib.target, lib.name,
                      ir::to_string(lib.registration),
                      derived->empty() ? "none" : support::quoted(*derived))));
      agrees = false;
    }
  }
  if (!agrees)
    return std::nullopt;
  emit::Options options = base;
  // "all" is how the IR names the unnamed default library.
  options.library = lib.name == "all" ? std::nullopt : std::optional<std::string>(lib.name);
  options.registration = lib.registration;
  options.target = lib.target;
  return options;
}

// One library from `module` (with --operators and --operators-from, only
// the operators, and kernel keys, they select).
Plan plan_one(ir::Module module, const Request& request, const emit::TargetRegistry& targets,
              const ir::Locator& locator) {
  Plan plan;
  if (request.operators || request.operators_from) {
    ir::OperatorSelection selection = request.operators_from.value_or(ir::OperatorSelection{});
    for (const std::string& name : request.operators.value_or(std::vector<std::string>{}))
      selection.operators.push_back({name, std::nullopt, false, {}, ""});
    ir::SelectResult selected = ir::select_kernels(module, selection);
    plan.diagnostics = std::move(selected.diagnostics);
    if (diag::has_errors(plan.diagnostics)) {
      plan.status = Status::errors;
      return plan;
    }
    module = std::move(selected.module);
  }
  emit::Output output = emit::generate(std::move(module), request.options, targets, locator);
  plan.diagnostics.insert(plan.diagnostics.end(), output.diagnostics.begin(),
                          output.diagnostics.end());
  plan.status = status_of(plan.diagnostics);
  if (plan.status == Status::ok)
    plan.libraries.push_back(std::move(output));
  return plan;
}

Plan usage(std::string message) {
  Plan plan;
  plan.status = Status::usage;
  plan.diagnostics.push_back(diag::make_error("opscan-usage", {}, std::move(message)));
  return plan;
}

ir::Locator locator_of(const IrFile& file) {
  ir::Locator locator;
  locator.add(file.module, file.positions);
  return locator;
}

} // namespace

Status worst(Status a, Status b) {
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

Status status_of(const diag::Diagnostics& diags) {
  Status status = Status::ok;
  for (const diag::Diagnostic& d : diags) {
    if (d.severity == diag::Severity::error)
      status = worst(status, d.code == "opscan-io" || d.code == "opscan-no-compile-commands"
                                 ? Status::failure
                                 : Status::errors);
  }
  return status;
}

std::string version() {
  return std::string(support::opscan_version());
}

std::string generator_name() {
  return "opscan " + version();
}

namespace {

// What generate refuses in `file` on its own (see read_irs); a library IR's
// regeneration is kept in it.
diag::Diagnostics regenerate(IrFile& file, const emit::TargetRegistry& targets) {
  diag::Diagnostics diags;
  const ir::Locator locator = locator_of(file);
  if (!file.module.library) {
    for (size_t i = 0; i < file.module.kernels.size(); ++i) {
      const ir::Kernel& k = file.module.kernels[i];
      for (const ir::FieldFinding& found : ir::check_fields(k, targets.fields())) {
        diags.push_back(
            locator.kernel_error(i, k, found.field->key, found.field->code, found.problem.message));
      }
    }
    return diags;
  }
  // The options of `opscan generate FILE`.
  emit::Options base;
  base.generator = generator_name();
  std::optional<emit::Options> options = recorded_options(file, base, targets, locator, diags);
  if (!options)
    return diags;
  auto output =
      std::make_shared<emit::Output>(emit::generate(file.module, *options, targets, locator));
  if (diag::has_errors(output->diagnostics))
    return std::move(output->diagnostics);
  file.regenerated = std::move(output);
  file.regenerated_with = *options;
  return {};
}

} // namespace

ReadIrs read_irs(const std::vector<std::string>& paths, const emit::TargetRegistry& targets) {
  ReadIrs out;
  for (const std::string& path : paths) {
    std::string error;
    auto text = support::read_file(path, &error);
    if (!text) {
      out.diagnostics.push_back(io_error(path, "read", error));
      out.status = worst(out.status, Status::failure);
      continue;
    }
    ir::ReadResult read = ir::from_json(std::move(*text), path, targets.fields());
    out.diagnostics.insert(out.diagnostics.end(), read.diagnostics.begin(), read.diagnostics.end());
    if (!read.module) {
      out.status = worst(out.status, Status::errors);
      continue;
    }
    IrFile file{{path, std::move(*read.module), std::move(read.positions)}};
    diag::Diagnostics invalid = ir::validate(file.module, locator_of(file));
    if (invalid.empty())
      invalid = regenerate(file, targets);
    if (!invalid.empty()) {
      out.diagnostics.insert(out.diagnostics.end(), invalid.begin(), invalid.end());
      out.status = worst(out.status, Status::errors);
      continue;
    }
    out.files.push_back(std::move(file));
  }
  return out;
}

LibraryCheck check_libraries(const std::vector<IrFile>& inputs,
                             const emit::TargetRegistry& targets) {
  LibraryCheck check;
  diag::Diagnostics& diags = check.diagnostics;
  struct Planned {
    size_t index; // into inputs
    const IrFile* input;
    const emit::Target* target;
    std::string name;
    std::string function; // empty in static mode
    ir::Locator locator;
  };
  std::vector<Planned> planned;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IrFile& input = inputs[i];
    ir::Locator locator = locator_of(input);
    if (auto o = recorded_options(input, {}, targets, locator, diags)) {
      const emit::Target* target = targets.find(o->target);
      planned.push_back({i, &input, target, input.module.library->name,
                         input.module.library->function, std::move(locator)});
    }
  }

  // One error per later library: the first clash explains it.
  for (size_t j = 0; j < planned.size(); ++j) {
    const Planned& b = planned[j];
    for (size_t i = 0; i < j; ++i) {
      const Planned& a = planned[i];
      if (a.name == b.name) {
        diags.push_back(b.locator.module_error(
            "library.name", "opscan-duplicate-library",
            fmt::format("two libraries named '{}': {} and {}; each library needs its own name (it "
                        "names the output directory)",
                        b.name, a.input->path, b.input->path)));
        break;
      }
      if (!a.function.empty() && a.function == b.function) {
        diags.push_back(b.locator.module_error(
            "library.function", "opscan-duplicate-registration",
            fmt::format("libraries '{}' ({}) and '{}' ({}) both define {}(), so they cannot be "
                        "linked into one program; give them named registration",
                        a.name, a.input->path, b.name, b.input->path, a.function)));
        break;
      }
    }
  }

  // Claims that two libraries of one runtime make (a kernel under one
  // identity, say): it would refuse the second library. Runtimes are
  // separate, so one library for each may register the same operator.
  std::vector<const Planned*> planned_input(inputs.size());
  for (const Planned& p : planned)
    planned_input[p.index] = &p;
  std::set<std::pair<std::string, std::string>> reported;
  for (size_t j = 0; j < planned.size(); ++j) {
    const emit::Target* target = planned[j].target;
    const std::vector<ir::Kernel>& kernels = planned[j].input->module.kernels;
    for (size_t kernel = 0; kernel < kernels.size(); ++kernel) {
      const ir::Kernel& k = kernels[kernel];
      for (emit::Target::Claim& claim : target->claims(k)) {
        auto key = std::pair{std::string(target->runtime()), claim.key};
        std::vector<LibraryCheck::Claim>& claimants = check.claims[key];
        claimants.push_back({planned[j].index, kernel, std::move(claim.description)});
        const LibraryCheck::Claim& first = claimants.front();
        if (first.library == planned[j].index ||
            planned_input[first.library]->name == planned[j].name || !reported.insert(key).second)
          continue;
        check.overlaps.push_back({target, first, claimants.back()});
      }
    }
  }
  // Each reported at the later library's kernel.
  for (const LibraryCheck::Overlap& o : check.overlaps) {
    const Planned& owner = *planned_input[o.first.library];
    const Planned& later = *planned_input[o.later.library];
    const ir::Kernel& first_kernel = owner.input->module.kernels[o.first.kernel];
    diag::Diagnostic d = later.locator.kernel_error(
        later.input->module.kernels[o.later.kernel], "", "opscan-library-overlap",
        fmt::format("{} is registered by library '{}' and by library '{}'; the {} runtime "
                    "registers it once",
                    o.later.description, owner.name, later.name, o.target->runtime()));
    d.notes.push_back({fmt::format("library '{}' registers it here, with '{}'", owner.name,
                                   first_kernel.cpp_function),
                       first_kernel.location});
    diags.push_back(std::move(d));
  }
  return check;
}

Plan plan(std::vector<IrFile> inputs, const Request& request, const emit::TargetRegistry& targets) {
  std::vector<std::string> libraries, fragments;
  for (const IrFile& input : inputs)
    (input.module.library ? libraries : fragments).push_back(input.path);
  const bool regenerate = !request.options.library && fragments.empty();

  if (regenerate) {
    if (request.operators_from && !request.operators) {
      return usage("--operators-from selects the operators of one new library: give --lib to "
                   "merge the library IRs into one (without --lib each library is generated "
                   "again with all its operators)");
    }
    if (request.operators) {
      return usage("--operators selects the operators of one new library: give --lib to merge the "
                   "library IRs into one (without --lib each library is generated again with all "
                   "its operators)");
    }
    Plan plan;
    plan.diagnostics = check_libraries(inputs, targets).diagnostics;
    for (IrFile& input : inputs) {
      ir::Locator locator = locator_of(input);
      diag::Diagnostics ignored; // check_libraries reported the records it refuses
      auto options = recorded_options(input, request.options, targets, locator, ignored);
      if (!options)
        continue;
      if (request.target_given && request.options.target != options->target) {
        return usage(fmt::format("{} is a library IR for target {}, not {}: leave out --target "
                                 "to generate each library for its own target",
                                 input.path, options->target, request.options.target));
      }
      if (request.registration_given)
        options->registration = request.options.registration;
      // Generated once already, to validate it, when read with these options.
      emit::Output output =
          input.regenerated && input.regenerated_with == *options
              ? *input.regenerated
              : emit::generate(std::move(input.module), *options, targets, locator);
      plan.diagnostics.insert(plan.diagnostics.end(), output.diagnostics.begin(),
                              output.diagnostics.end());
      plan.libraries.push_back(std::move(output));
    }
    plan.status = status_of(plan.diagnostics);
    if (plan.status != Status::ok)
      plan.libraries.clear();
    return plan;
  }

  if (!request.options.library && !libraries.empty()) {
    return usage(fmt::format("{} is a library IR and {} is scan output: give --lib to merge them "
                             "into one library, or pass only library IRs to regenerate each",
                             libraries[0], fragments[0]));
  }
  if (!request.registration_given) {
    return usage("--registration is required when merging IR files into one library (only "
                 "library IRs without --lib keep their own)");
  }
  ir::Locator locator;
  std::vector<ir::Module> modules;
  for (IrFile& input : inputs) {
    locator.add(input.module, input.positions);
    modules.push_back(std::move(input.module));
  }
  ir::MergeResult merged = ir::merge(std::move(modules), targets.fields());
  if (diag::has_errors(merged.diagnostics)) {
    Plan plan;
    plan.diagnostics = std::move(merged.diagnostics);
    plan.status = Status::errors;
    return plan;
  }
  return plan_one(std::move(merged.module), request, targets, locator);
}

Plan plan_scanned(ir::Module scanned, const Request& request, const emit::TargetRegistry& targets) {
  return plan_one(std::move(scanned), request, targets, ir::Locator());
}

Listing list_outputs(const std::vector<IrFile>& inputs, const Request& request,
                     const emit::TargetRegistry& targets) {
  Listing listing;
  auto add = [&](const emit::Options& options) {
    emit::OutputList list = emit::list_outputs(options, targets);
    listing.diagnostics.insert(listing.diagnostics.end(), list.diagnostics.begin(),
                               list.diagnostics.end());
    listing.libraries.push_back(std::move(list));
  };
  bool only_libraries = !inputs.empty();
  for (const IrFile& input : inputs)
    only_libraries = only_libraries && input.module.library.has_value();
  if (request.options.library || !only_libraries) {
    add(request.options);
  } else {
    for (const IrFile& input : inputs) {
      if (auto options = recorded_options(input, request.options, targets, locator_of(input),
                                          listing.diagnostics)) {
        if (request.registration_given)
          options->registration = request.options.registration;
        add(*options);
      }
    }
  }
  listing.status = status_of(listing.diagnostics);
  return listing;
}

Outcome check_outputs(const std::vector<RoleFile>& outputs, const std::vector<RoleFile>& inputs) {
  Outcome outcome;
  auto refuse = [&](const RoleFile& output, std::string code, std::string message) {
    outcome.diagnostics.push_back(
        diag::make_error(std::move(code), {output.path, 0, 0, 0}, std::move(message)));
    outcome.status = Status::usage;
  };
  // Identity (device and inode) of each output that exists: the inputs are
  // many (every header a scan read), so each is looked at once.
  std::map<support::FileId, const RoleFile*> existing;
  std::map<std::string, const RoleFile*> named;
  for (const RoleFile& output : outputs) {
    const std::string absolute = std::filesystem::absolute(output.path).lexically_normal().string();
    auto [by_name, fresh] = named.try_emplace(absolute, &output);
    std::optional<support::FileId> id = support::file_id(output.path);
    const RoleFile* other = fresh ? nullptr : by_name->second;
    if (fresh && id) {
      auto [by_id, inserted] = existing.try_emplace(*id, &output);
      if (!inserted)
        other = by_id->second;
    }
    if (other) {
      refuse(output, "opscan-output-twice",
             fmt::format("{} ({}) and {} ({}) are one file; each output needs its own", other->path,
                         other->role, output.path, output.role));
    }
  }
  if (existing.empty())
    return outcome;
  std::set<const RoleFile*> reported;
  for (const RoleFile& input : inputs) {
    std::optional<support::FileId> id = support::file_id(input.path);
    if (!id)
      continue;
    auto it = existing.find(*id);
    if (it == existing.end() || !reported.insert(it->second).second)
      continue;
    const RoleFile& output = *it->second;
    refuse(output, "opscan-output-is-input",
           output.path == input.path
               ? fmt::format("{} is both {} and {}; opscan does not overwrite its inputs",
                             output.path, output.role, input.role)
               : fmt::format("{} ({}) is {} ({}); opscan does not overwrite its inputs",
                             output.path, output.role, input.path, input.role));
  }
  return outcome;
}

Outcome check_inputs(const std::vector<RoleFile>& inputs) {
  Outcome outcome;
  for (const RoleFile& input : inputs) {
    if (std::string why = support::unreadable_reason(input.path); !why.empty()) {
      outcome.diagnostics.push_back(
          diag::make_error("opscan-io", {input.path, 0, 0, 0},
                           fmt::format("cannot read {} ({}): {}", input.path, input.role, why)));
      outcome.status = Status::failure;
    }
  }
  return outcome;
}

std::vector<RoleFile> files_under(const std::string& dir, const std::string& role) {
  std::vector<RoleFile> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec))
      files.push_back({role, it->path().string()});
  }
  return files;
}

Outcome write_files(const std::vector<support::FileWrite>& files, const std::string& role,
                    const std::vector<RoleFile>& inputs,
                    const std::optional<Companion>& companion) {
  std::vector<RoleFile> outputs;
  for (const support::FileWrite& file : files)
    outputs.push_back({role, file.path.string()});
  Outcome outcome = check_outputs(outputs, inputs);
  if (outcome.status != Status::ok)
    return outcome;
  write_all(files, companion, outcome);
  return outcome;
}

Written write_libraries(const std::vector<emit::Output>& libraries, const std::string& out_dir,
                        const std::vector<RoleFile>& inputs, const std::string& stamp,
                        const std::optional<Companion>& companion) {
  Written written;
  std::vector<std::string> names; // relative to out_dir
  std::vector<support::FileWrite> files;
  std::vector<RoleFile> outputs;
  for (const emit::Output& library : libraries) {
    for (const emit::OutputFile& file : library.files) {
      names.push_back(file.path);
      files.push_back({std::filesystem::path(out_dir) / file.path, file.content, out_dir});
      outputs.push_back({"an output", files.back().path.string()});
    }
  }
  if (!stamp.empty())
    outputs.push_back({"--stamp", stamp});
  Outcome checked = check_outputs(outputs, inputs);
  if (checked.status != Status::ok || !stamp_can_be_touched(stamp, checked)) {
    written.report.diagnostics = std::move(checked.diagnostics);
    written.status = checked.status;
    return written;
  }
  Outcome outcome;
  support::WriteFilesResult result = write_all(std::move(files), companion, outcome);
  if (!result.ok()) {
    written.report.diagnostics = std::move(outcome.diagnostics);
    written.status = outcome.status;
    return written;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    (result.outcomes[i] == support::WriteOutcome::written ? written.report.written
                                                          : written.report.unchanged)
        .push_back(names[i]);
  }
  std::string error;
  if (!stamp.empty() && !support::touch(stamp, &error)) {
    written.report.diagnostics.push_back(io_error(stamp, "touch", error));
    written.status = Status::failure;
  }
  return written;
}

std::optional<std::vector<std::string>> compiler_args(const std::string& flags_file,
                                                      const std::vector<std::string>& extra,
                                                      diag::Diagnostics& diags,
                                                      std::vector<std::string>* response_files) {
  std::vector<std::string> args;
  if (!flags_file.empty()) {
    std::string error;
    auto text = support::read_file(flags_file, &error);
    if (!text) {
      diags.push_back(io_error(flags_file, "read", error));
      return std::nullopt;
    }
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      if (!line.empty())
        args.push_back(line);
    }
  }
  args.insert(args.end(), extra.begin(), extra.end());
  // Read here, as any input, relative to the working directory (the
  // compilation database's are read by libclang, relative to each entry's).
  return scan::expand_response_files(args, ".", diags, response_files);
}

Outcome write_step(const StepFiles& files, const std::vector<std::string>& inputs,
                   const std::vector<RoleFile>& option_inputs,
                   const std::optional<Companion>& companion) {
  // The files options name first: a message names an input by its role.
  std::vector<RoleFile> all_inputs = option_inputs;
  for (const std::string& input : inputs)
    all_inputs.push_back({"an input of this step", input});
  std::vector<RoleFile> outputs = {{"-o", files.output}};
  if (!files.depfile.empty())
    outputs.push_back({"--depfile", files.depfile});
  if (!files.stamp.empty())
    outputs.push_back({"--stamp", files.stamp});
  Outcome outcome = check_outputs(outputs, all_inputs);
  if (outcome.status != Status::ok || !stamp_can_be_touched(files.stamp, outcome))
    return outcome;

  std::vector<support::FileWrite> writes = {{files.output, files.content}};
  if (!files.depfile.empty()) {
    std::vector<std::string> prerequisites = inputs;
    for (const RoleFile& file : option_inputs) {
      prerequisites.push_back(
          std::filesystem::weakly_canonical(std::filesystem::absolute(file.path)).string());
    }
    // Each once, in order: a source is an option's input and the step's.
    std::set<std::string> seen;
    std::erase_if(prerequisites, [&](const std::string& path) { return !seen.insert(path).second; });
    std::string unwritable;
    std::optional<std::string> depfile = support::make_depfile(
        files.stamp.empty() ? files.output : files.stamp, prerequisites, &unwritable);
    if (!depfile) {
      outcome.diagnostics.push_back(diag::make_error(
          "opscan-depfile-path", {files.depfile, 0, 0, 0},
          fmt::format("cannot write the depfile {}: the path {} holds a line break, which Make "
                      "and Ninja cannot read in a depfile (nothing was written)",
                      files.depfile, support::quoted(unwritable, 200))));
      outcome.status = Status::failure;
      return outcome;
    }
    writes.push_back({files.depfile, std::move(*depfile)});
  }
  if (!write_all(std::move(writes), companion, outcome).ok())
    return outcome;
  std::string error;
  if (!files.stamp.empty() && !support::touch(files.stamp, &error)) {
    outcome.diagnostics.push_back(io_error(files.stamp, "touch", error));
    outcome.status = Status::failure;
  }
  return outcome;
}

Outcome touch_stamp(const std::string& stamp, const std::vector<RoleFile>& inputs) {
  Outcome outcome = check_outputs({{"--stamp", stamp}}, inputs);
  std::string error;
  if (outcome.status == Status::ok && !support::touch(stamp, &error)) {
    outcome.diagnostics.push_back(io_error(stamp, "touch", error));
    outcome.status = Status::failure;
  }
  return outcome;
}

} // namespace opscan::driver
