// opscan: the command-line driver. It parses arguments, calls the driver
// library (lib/driver) and prints what it returns; the work is done there.
#include "diag/text.h"
#include "diff_command.h"
#include "driver/driver.h"
#include "driver/model.h"
#include "driver/report.h"
#include "emit/registry.h"
#include "lsp_command.h"
#include "migrate/import_yaml.h"
#include "model_command.h"
#include "report_command.h"
#include "scan/libclang_loader.h"
#include "stdout.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/temporaries.h"
#include "support/text.h"
#include "yaml/operator_yaml.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <unistd.h>

namespace {

using namespace opscan;
using driver::Status;

// Documented in the README ("Exit codes").
int exit_code(Status status) {
  switch (status) {
  case Status::ok:
    return 0;
  case Status::errors:
    return 1;
  case Status::usage:
    return 2;
  case Status::failure:
    return 3;
  }
  return 3;
}

// The files whose lines diagnostics may show. Commands that read IR files
// show lines of those only: an IR file names source locations of any path.
std::optional<std::set<std::string>> g_source_files;

// --format, --srcroot, --export-fixes.
std::string g_format = "text";
driver::ReportOptions g_report;
// Every diagnostic of the command, for the JSON or SARIF document and the
// fixes file made at its end.
diag::Diagnostics g_reported;
// Whether messages that are not diagnostics (summaries, listings) go to
// stderr: they go to stdout, unless it holds a JSON or SARIF document.
bool g_say_on_stderr = false;

// Prints such a message.
template <typename... Args>
void say(fmt::format_string<Args...> format, Args&&... args) {
  const std::string text = fmt::format(format, std::forward<Args>(args)...);
  if (g_say_on_stderr)
    std::fputs(text.c_str(), stderr);
  else
    tool::write_stdout(text);
}

// What the command reads and writes, as far as known: the fixes file may be
// none of them (driver::check_fixes_file).
std::vector<driver::RoleFile> g_inputs;
std::vector<driver::RoleFile> g_outputs;
std::string g_main_source; // the fixes file's MainSourceFile

// Prints diagnostics to stderr as text (in the text format), and keeps them.
void report(const diag::Diagnostics& diags) {
  g_reported.insert(g_reported.end(), diags.begin(), diags.end());
  if (g_report.format != driver::Format::text)
    return;
  diag::TextOptions options;
  options.color = ::isatty(STDERR_FILENO) != 0;
  options.source_files = g_source_files;
  std::fputs(diag::render_text(diags, options).c_str(), stderr);
}

// Prints diagnostics; the status they make with `status`.
Status reported(const diag::Diagnostics& diags, Status status = Status::ok) {
  report(diags);
  return driver::worst(status, driver::status_of(diags));
}

Status usage(std::string message) {
  report({diag::make_error("opscan-usage", {}, std::move(message))});
  return Status::usage;
}

// Refuses a --export-fixes file that is an input or another output, or
// whose directory is missing; checked before the command runs and again
// before each write, as the command learns what it reads and writes.
Status check_fixes_file() {
  if (g_report.export_fixes.empty())
    return Status::ok;
  driver::Outcome checked = driver::check_fixes_file(g_report.export_fixes, g_outputs, g_inputs);
  return reported(checked.diagnostics, checked.status);
}

void add_inputs(const std::vector<driver::RoleFile>& files) {
  g_inputs.insert(g_inputs.end(), files.begin(), files.end());
}

// The response files (@FILE) the compiler arguments named: inputs of the
// step, as the flags file is (in its depfile, never an output).
std::vector<driver::RoleFile> g_response_files;

// driver::compiler_args, keeping the response files it read.
std::optional<std::vector<std::string>> read_compiler_args(const std::string& flags_file,
                                                           const std::vector<std::string>& extra,
                                                           diag::Diagnostics& diags) {
  std::vector<std::string> read;
  auto args = driver::compiler_args(flags_file, extra, diags, &read);
  for (const std::string& file : read)
    g_response_files.push_back({"a response file", file});
  add_inputs(g_response_files);
  return args;
}

// Whether the fixes file was left to a write of the command's outputs.
bool g_fixes_with_outputs = false;

// The --export-fixes file as the diagnostics so far make it, to be written
// with the command's outputs, all or nothing: when it cannot be written,
// neither are they. None when not asked for.
std::optional<driver::Companion> fixes_with_outputs() {
  if (g_report.export_fixes.empty())
    return std::nullopt;
  g_fixes_with_outputs = true;
  return driver::fixes_file(g_reported, g_report.export_fixes, g_main_source);
}

// The end of every command: the fixes file, unless written with the
// outputs (when the command judged its input: exit code 0 or 1), then the
// JSON or SARIF document on stdout.
Status finish(Status status) {
  if (!g_report.export_fixes.empty() && !g_fixes_with_outputs &&
      (status == Status::ok || status == Status::errors)) {
    driver::Outcome written = driver::write_fixes_file(g_reported, g_report.export_fixes,
                                                       g_main_source, g_outputs, g_inputs);
    status = reported(written.diagnostics, driver::worst(status, written.status));
  }
  if (g_report.format != driver::Format::text) {
    tool::write_stdout(driver::render_report(g_reported, g_report, g_source_files));
  }
  return status;
}

// The exit code of a command that ended with `status`, once opscan's stdout
// is closed: 3 when what it printed there could not be written, whatever
// the command's own result (README "Exit codes"). Said as text on stderr
// whatever the --format: the document is what was lost.
int exit_with(Status status) {
  if (std::optional<std::string> error = tool::close_stdout()) {
    diag::TextOptions options;
    options.color = ::isatty(STDERR_FILENO) != 0;
    std::fputs(
        diag::render_text({diag::make_error("opscan-io", {}, "cannot write to stdout: " + *error)},
                          options)
            .c_str(),
        stderr);
    status = Status::failure;
  }
  return exit_code(status);
}

// --format, --srcroot and --export-fixes, on every command.
void add_report_options(CLI::App& cmd) {
  cmd.add_option("--format", g_format,
                 "How diagnostics are reported: text (on stderr, the default), json or sarif "
                 "(one document on stdout, which then holds nothing else)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  cmd.add_option("--srcroot", g_report.source_root,
                 "The directory SARIF paths are relative to (%SRCROOT%; default: the current "
                 "directory)");
  cmd.add_option("--export-fixes", g_report.export_fixes,
                 "Write the fix-its of the diagnostics to FILE in clang-tidy's format, for "
                 "clang-apply-replacements (written when the exit code is 0 or 1)");
}

const emit::TargetRegistry& targets() {
  return emit::builtin_targets();
}

struct ScanArgs {
  std::vector<std::string> files;
  std::string build_dir;
  std::string schemas_file;
  std::string cache_dir;
  std::string flags_file;
  unsigned jobs = 0;
  bool no_auto_pch = false;
  std::vector<std::string> clang_args;
};

struct GenerateArgs {
  std::string target = "executorch";
  std::optional<std::string> dispatch_key;
  std::string registration;
  std::optional<std::string> lib;
  std::string templates_dir;
  std::string out_dir;
  std::optional<std::vector<std::string>> operators; // --operators: set when given
  std::string operators_from;                        // --operators-from
  bool no_profiling = false;
};

// How long one parse may take, in seconds (0: no limit).
unsigned g_parse_timeout = 300;

// The options of every command that parses sources with libclang.
void add_parse_options(CLI::App& cmd, std::string& flags_file) {
  cmd.add_option("--flags-file", flags_file,
                 "File of compiler arguments, one per line, used before those after --");
  cmd.add_option("--parse-timeout", g_parse_timeout,
                 "Fail when libclang takes longer than SECONDS to parse one file (default: 300; "
                 "0: no limit)");
}

// A parse that took longer than --parse-timeout: libclang cannot be stopped,
// so the command ends here, as a failed scan of that file (exit code 1).
// Nothing has been written: every write comes after the parses.
[[noreturn]] void parse_timed_out(const std::string& file) {
  static std::mutex once;
  once.lock(); // never unlocked: a second expiry waits for the exit
  report({diag::make_error("opscan-parse-timeout", {file, 0, 0, 0},
                           fmt::format("libclang did not finish parsing {} within {} s "
                                       "(--parse-timeout): the source or a header it includes "
                                       "never ends (a FIFO or device) or is too large to parse",
                                       support::display_path(file), g_parse_timeout))});
  std::fflush(stderr);
  const int code = exit_with(finish(Status::errors));
  support::remove_private_directories();
  std::_Exit(code);
}

void add_scan_options(CLI::App& cmd, ScanArgs& args) {
  cmd.add_option("files", args.files, "Kernel source files")->required();
  cmd.add_option("-p", args.build_dir, "Build directory holding compile_commands.json");
  cmd.add_option("-j,--jobs", args.jobs, "Parallel parse jobs (default: one per core)");
  cmd.add_option("--schemas", args.schemas_file,
                 "File of known operator schemas: one per line, or operator YAML "
                 "(native_functions.yaml, functions.yaml); kernels annotated with only a known "
                 "operator's name are checked against its schema");
  cmd.add_option("--cache", args.cache_dir,
                 "Directory caching each file's IR fragment (unchanged files are not parsed "
                 "again) and the precompiled leading #include lines that files share");
  cmd.add_flag("--no-auto-pch", args.no_auto_pch,
               "Do not precompile the leading #include lines that files share");
  add_parse_options(cmd, args.flags_file);
}

// The options that decide what a generation makes: generate, check and run.
void add_generate_options(CLI::App& cmd, GenerateArgs& args, bool registration_required) {
  cmd.add_option("--target", args.target,
                 "Runtime to generate for (" + targets().listed() + "; default: executorch)");
  cmd.add_option("--dispatch-key", args.dispatch_key,
                 "The dispatch key of kernels whose annotation names none (targets that read "
                 "dispatch keys; torch's default is CPU)");
  CLI::Option* registration =
      cmd.add_option("--registration", args.registration,
                     "static: register at load time; manual: register_all_kernels(); named: "
                     "register_<lib>_kernels()");
  if (registration_required)
    registration->required();
  cmd.add_option("--lib", args.lib, "Library name (output subdirectory and registration symbol)");
  // One value per occurrence: a vector option would otherwise swallow the
  // positional arguments that follow it.
  cmd.add_option_function<std::vector<std::string>>(
         "--operators", [&args](const std::vector<std::string>& names) { args.operators = names; },
         "Generate only the kernels of these operators (ns::name.overload or ns::name; "
         "comma-separated, or the option repeated)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--operators-from", args.operators_from,
                 "Generate only what a model needs: FILE is an ExecuTorch program (.pte: the "
                 "operators it calls, with their kernel keys) or a selected_operators.yaml; with "
                 "--operators, the operators of both");
  // Checked here: a missing directory would leave the built-in templates in
  // use without a word.
  cmd.add_option("--templates", args.templates_dir, "Directory overriding the built-in templates")
      ->check(CLI::ExistingDirectory);
  cmd.add_flag("--no-profiling", args.no_profiling,
               "No per-operator profiling in the wrappers (executorch: no profiler scope and "
               "event tracer calls)");
}

// The target and mode asked for, judged before any work: unknown ones are
// usage errors, with the choices.
Status check_choices(const GenerateArgs& args) {
  diag::Diagnostics diags;
  if (targets().find(args.target) == nullptr) {
    diags.push_back(diag::make_error(
        "opscan-usage", {},
        fmt::format("unknown target '{}' (targets: {})", args.target, targets().listed())));
  }
  if (!args.registration.empty() && !ir::parse_registration(args.registration)) {
    diags.push_back(diag::make_error(
        "opscan-usage", {},
        fmt::format("unknown registration mode '{}' (modes: static, manual, named)",
                    args.registration)));
  }
  report(diags);
  return diags.empty() ? Status::ok : Status::usage;
}

driver::Request request_of(const CLI::App& cmd, const GenerateArgs& args) {
  driver::Request request;
  emit::Options& options = request.options;
  options.target = args.target;
  request.target_given = cmd.count("--target") > 0;
  if (!args.registration.empty()) {
    options.registration = *ir::parse_registration(args.registration);
    request.registration_given = true;
  }
  options.library = args.lib;
  if (!args.templates_dir.empty())
    options.templates_dir = args.templates_dir;
  options.generator = driver::generator_name();
  if (args.dispatch_key)
    options.field_defaults[ir::Field::dispatch_key] = *args.dispatch_key;
  options.profiling = !args.no_profiling;
  request.operators = args.operators;
  return request;
}

// Reads --operators-from, if given, into `request`.
Status read_operators_from(const GenerateArgs& args, driver::Request& request) {
  if (args.operators_from.empty())
    return Status::ok;
  driver::ReadSelection read = driver::read_operator_selection(args.operators_from);
  request.operators_from = std::move(read.selection);
  return reported(read.diagnostics, read.status);
}

// Refuses sources libclang could block or choke on (FIFOs, devices, huge
// files) before it opens them.
Status checked_sources(const std::vector<std::string>& files) {
  std::vector<driver::RoleFile> sources;
  for (const std::string& file : files)
    sources.push_back({"a source", file});
  driver::Outcome checked = driver::check_inputs(sources);
  return reported(checked.diagnostics, checked.status);
}

// Scans `args`'s files; the module and every file the scan read.
Status scan_into(const ScanArgs& args, ir::Module& module, std::vector<std::string>* inputs) {
  if (Status status = checked_sources(args.files); status != Status::ok)
    return status;
  scan::Options options;
  options.files = args.files;
  if (!args.build_dir.empty())
    options.build_dir = args.build_dir;
  diag::Diagnostics diags;
  auto extra_args = read_compiler_args(args.flags_file, args.clang_args, diags);
  if (!extra_args)
    return reported(diags, Status::failure);
  options.extra_args = std::move(*extra_args);
  options.jobs = args.jobs;
  if (!args.schemas_file.empty())
    options.schemas_file = args.schemas_file;
  if (!args.cache_dir.empty())
    options.cache_dir = args.cache_dir;
  options.auto_pch = !args.no_auto_pch;
  options.check_field = driver::field_check(targets());
  // Progress on a terminal only, on one line, for scans long enough to want it.
  if (::isatty(STDERR_FILENO) && args.files.size() > 1) {
    options.progress = [](size_t done, size_t total, const std::string& file) {
      std::fprintf(stderr, "\r\033[Kopscan: scanned %zu/%zu %s", done, total, file.c_str());
      if (done == total)
        std::fputs("\r\033[K", stderr);
    };
  }
  scan::Result result = scan::scan(options);
  result.module.generator = driver::generator_name();
  module = std::move(result.module);
  if (inputs)
    *inputs = std::move(result.inputs);
  return reported(result.diagnostics);
}

// The files a scan's options name: besides the sources and headers it reads,
// what no output may replace.
std::vector<driver::RoleFile> option_inputs(const ScanArgs& args) {
  std::vector<driver::RoleFile> inputs;
  if (!args.schemas_file.empty())
    inputs.push_back({"--schemas", args.schemas_file});
  if (!args.flags_file.empty())
    inputs.push_back({"--flags-file", args.flags_file});
  if (!args.build_dir.empty())
    inputs.push_back({"the compilation database",
                      (std::filesystem::path(args.build_dir) / "compile_commands.json").string()});
  inputs.insert(inputs.end(), g_response_files.begin(), g_response_files.end());
  return inputs;
}

// Every file a generation reads: its IR files and templates.
std::vector<driver::RoleFile> generation_inputs(const std::vector<std::string>& ir_files,
                                                const GenerateArgs& args) {
  std::vector<driver::RoleFile> inputs;
  for (const std::string& file : ir_files)
    inputs.push_back({"an IR input", file});
  if (!args.operators_from.empty())
    inputs.push_back({"--operators-from", args.operators_from});
  if (!args.templates_dir.empty()) {
    std::vector<driver::RoleFile> templates = driver::files_under(args.templates_dir, "a template");
    inputs.insert(inputs.end(), templates.begin(), templates.end());
  }
  return inputs;
}

// Prints what one library holds and where its files went.
void print_summary(const emit::Output& library, const emit::WriteReport& written,
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
  say("opscan: library '{}': {} operator{} ({}), registration: {}\n", library.library.name,
      module.kernels.size(), module.kernels.size() == 1 ? "" : "s", namespaces,
      function.empty() ? "static initializer" : function + "()");
  std::vector<std::string> names;
  for (const emit::OutputFile& f : library.files)
    names.push_back(std::filesystem::path(f.path).filename());
  say("opscan: {}: {} ({} written, {} unchanged)\n",
      support::display_path(std::filesystem::path(out_dir) / library.library.name),
      fmt::join(names, ", "), count(written.written), count(written.unchanged));
}

// Writes every library of a successful plan, all or nothing, then the stamp.
Status write_plan(const driver::Plan& plan, const std::string& out_dir,
                  const std::vector<driver::RoleFile>& inputs, const std::string& stamp = {}) {
  for (const emit::Output& library : plan.libraries) {
    for (const emit::OutputFile& file : library.files)
      g_outputs.push_back({"an output", (std::filesystem::path(out_dir) / file.path).string()});
  }
  if (Status status = check_fixes_file(); status != Status::ok)
    return status;
  driver::Written written =
      driver::write_libraries(plan.libraries, out_dir, inputs, stamp, fixes_with_outputs());
  if (Status status = reported(written.report.diagnostics, written.status); status != Status::ok)
    return status;
  for (const emit::Output& library : plan.libraries)
    print_summary(library, written.report, out_dir);
  return Status::ok;
}

// Reads IR files; their status, and the files in `files`.
Status read_inputs(const std::vector<std::string>& paths, std::vector<driver::IrFile>& files) {
  g_source_files.emplace(paths.begin(), paths.end());
  driver::ReadIrs read = driver::read_irs(paths);
  files = std::move(read.files);
  return reported(read.diagnostics, read.status);
}

Status generate_command(const CLI::App& cmd, const std::vector<std::string>& ir_files,
                        const GenerateArgs& args, bool list_outputs, const std::string& stamp) {
  std::vector<driver::IrFile> inputs;
  if (Status status = read_inputs(ir_files, inputs); status != Status::ok)
    return status;
  driver::Request request = request_of(cmd, args);
  if (list_outputs) {
    if (g_report.format != driver::Format::text)
      return usage("--list-outputs prints its list on stdout: use it with --format text");
    driver::Listing listing = driver::list_outputs(inputs, request, targets());
    if (Status status = reported(listing.diagnostics, listing.status); status != Status::ok)
      return status;
    // One line per file and symbol: "<kind> <path or name>".
    for (const emit::OutputList& library : listing.libraries) {
      for (const emit::OutputFile& file : library.files)
        say("{} {}\n", emit::to_string(file.kind), file.path);
      if (!library.symbols.registration_function.empty())
        say("registration-function {}\n", library.symbols.registration_function);
      if (!library.symbols.link_anchor.empty())
        say("link-anchor {}\n", library.symbols.link_anchor);
    }
    return Status::ok;
  }
  if (args.out_dir.empty())
    return usage("-o (the output directory) is required");
  if (Status status = read_operators_from(args, request); status != Status::ok)
    return status;
  driver::Plan plan = driver::plan(std::move(inputs), request, targets());
  if (Status status = reported(plan.diagnostics, plan.status); status != Status::ok)
    return status;
  return write_plan(plan, args.out_dir, generation_inputs(ir_files, args), stamp);
}

// `check`: everything generate checks (and generates in memory), writing
// nothing.
Status check_command(const CLI::App& cmd, const std::vector<std::string>& ir_files,
                     const GenerateArgs& args, const std::string& stamp, const std::string& model) {
  if (!model.empty()) {
    if (args.lib || args.operators || !args.operators_from.empty())
      return usage("--model checks a model against library IRs as they are: it takes no --lib, "
                   "--operators or --operators-from");
    g_source_files.emplace(ir_files.begin(), ir_files.end());
    tool::ModelOutcome outcome = tool::check_model_command(model, ir_files);
    say("{}", outcome.table);
    if (Status status = reported(outcome.diagnostics, outcome.status); status != Status::ok)
      return status;
    if (!stamp.empty()) {
      std::vector<driver::RoleFile> inputs = generation_inputs(ir_files, args);
      inputs.push_back({"--model", model});
      driver::Outcome touched = driver::touch_stamp(stamp, inputs);
      return reported(touched.diagnostics, touched.status);
    }
    return Status::ok;
  }
  std::vector<driver::IrFile> inputs;
  if (Status status = read_inputs(ir_files, inputs); status != Status::ok)
    return status;
  driver::Request request = request_of(cmd, args);
  if (Status status = read_operators_from(args, request); status != Status::ok)
    return status;
  driver::Plan plan = driver::plan(std::move(inputs), request, targets());
  if (Status status = reported(plan.diagnostics, plan.status); status != Status::ok)
    return status;
  std::vector<std::string> names;
  for (const emit::Output& library : plan.libraries)
    names.push_back(library.library.name);
  if (!stamp.empty()) {
    driver::Outcome touched = driver::touch_stamp(stamp, generation_inputs(ir_files, args));
    if (Status status = reported(touched.diagnostics, touched.status); status != Status::ok)
      return status;
  }
  say("opscan: {} librar{} ({}) can live in one program\n", names.size(),
      names.size() == 1 ? "y" : "ies", fmt::join(names, ", "));
  return Status::ok;
}

} // namespace

struct ImportArgs {
  std::string yaml_file;
  std::vector<std::string> files;
  std::string build_dir;
  std::string flags_file;
  bool dry_run = false;
  std::vector<std::string> clang_args;
};

// import-yaml: annotates the kernels a functions.yaml names, in place. On
// any error nothing is written.
// opscan pch --shared: the automatic precompiled headers of kernel
// sources, made into the scans' cache ahead of one scan per source; writes
// the list of those made.
Status shared_pch_command(const std::vector<std::string>& files, const std::string& cache,
                          const std::string& out, const std::string& flags_file,
                          const std::string& depfile, const std::string& stamp,
                          const std::vector<std::string>& clang_args) {
  if (cache.empty())
    return usage("pch --shared needs --cache, the directory the scans will use");
  if (Status status = checked_sources(files); status != Status::ok)
    return status;
  diag::Diagnostics diags;
  auto args = read_compiler_args(flags_file, clang_args, diags);
  if (!args)
    return reported(diags, Status::failure);
  scan::Options options;
  options.files = files;
  options.extra_args = std::move(*args);
  options.cache_dir = cache;
  scan::SharedPchResult result = scan::precompile_shared(options);
  for (const std::string& file : result.inputs)
    g_inputs.push_back({"an input of the headers", file});
  if (Status status = reported(result.diagnostics); status != Status::ok)
    return status;
  if (Status status = check_fixes_file(); status != Status::ok)
    return status;
  std::string list =
      "# The #include lines these sources share, precompiled by opscan pch --shared:\n"
      "# the header, how many sources start with its lines, the lines.\n";
  for (const scan::SharedPch& pch : result.pchs)
    list += fmt::format("{} {} {}\n", pch.path, pch.files, fmt::join(pch.includes, " "));
  std::vector<driver::RoleFile> roles;
  for (const std::string& file : files)
    roles.push_back({"a source", file});
  if (!flags_file.empty())
    roles.push_back({"--flags-file", flags_file});
  roles.insert(roles.end(), g_response_files.begin(), g_response_files.end());
  driver::Outcome written =
      driver::write_step({out, list, depfile, stamp}, result.inputs, roles, fixes_with_outputs());
  return reported(written.diagnostics, written.status);
}

Status import_command(const ImportArgs& args) {
  diag::Diagnostics diags;
  std::string error;
  std::optional<std::string> text = support::read_file(args.yaml_file, &error);
  if (!text) {
    diags.push_back(diag::make_error("opscan-io", {args.yaml_file, 0, 0, 0},
                                     "cannot read the YAML file " + args.yaml_file + ": " + error));
    return reported(diags, Status::failure);
  }
  std::optional<std::vector<yaml::Entry>> entries =
      yaml::parse_operator_yaml(*text, args.yaml_file, diags);
  if (!entries)
    return reported(diags);
  if (Status status = checked_sources(args.files); status != Status::ok)
    return status;
  scan::Options options;
  options.files = args.files;
  if (!args.build_dir.empty())
    options.build_dir = args.build_dir;
  auto extra_args = read_compiler_args(args.flags_file, args.clang_args, diags);
  if (!extra_args)
    return reported(diags, Status::failure);
  options.extra_args = std::move(*extra_args);
  scan::LocateResult located = scan::locate_functions(options);
  if (Status status = reported(located.diagnostics); status != Status::ok)
    return status;
  migrate::ImportPlan plan = migrate::plan_import(*entries, located.files);
  if (Status status = reported(plan.diagnostics); status != Status::ok)
    return status;
  if (!args.dry_run) {
    std::vector<support::FileWrite> edits;
    for (const migrate::FileEdit& edit : plan.edits)
      edits.push_back({edit.path, edit.content});
    std::vector<driver::RoleFile> inputs = {{"the YAML file", args.yaml_file}};
    if (!args.flags_file.empty())
      inputs.push_back({"--flags-file", args.flags_file});
    for (const support::FileWrite& edit : edits)
      g_outputs.push_back({"a source to annotate", edit.path.string()});
    if (Status status = check_fixes_file(); status != Status::ok)
      return status;
    driver::Outcome written =
        driver::write_files(edits, "a source to annotate", inputs, fixes_with_outputs());
    if (Status status = reported(written.diagnostics, written.status); status != Status::ok)
      return status;
  }
  for (const migrate::FileEdit& edit : plan.edits) {
    say("opscan: {}: {} annotation{}{}\n", support::display_path(edit.path), edit.annotations,
        edit.annotations == 1 ? "" : "s", args.dry_run ? " (dry run: not written)" : "");
  }
  say("opscan: {} kernel{} annotated, {} not placed{}\n", plan.placed, plan.placed == 1 ? "" : "s",
      plan.not_placed, plan.not_placed > 0 ? " (see the warnings above)" : "");
  return Status::ok;
}

// A current directory that was removed (or cannot be named): relative paths
// then name nothing, and the paths opscan writes into outputs and messages
// (relative to it) cannot be made. Said before any work.
Status check_working_directory() {
  std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
  if (cwd)
    return Status::ok;
  const int error = errno;
  report({diag::make_error("opscan-io", {},
                           error == ENOENT ? std::string("the current directory no longer exists")
                                           : std::string("cannot tell the current directory: ") +
                                                 std::strerror(error))});
  return Status::failure;
}

// Every option and argument that names a file or directory refuses an
// empty one (a variable a script left unset) as a usage error: "-o ''"
// would otherwise write into the current directory, or fail deep inside.
void refuse_empty_paths(CLI::App& app) {
  static const std::set<std::string> paths = {"files",        "header",
                                              "ir",           "yaml",
                                              "old",          "new",
                                              "--output",     "--depfile",
                                              "--stamp",      "--cache",
                                              "-p",           "--schemas",
                                              "--flags-file", "--operators-from",
                                              "--model",      "--export-fixes",
                                              "--srcroot",    "--compile-commands-dir",
                                              "--allow",      "--against"};
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? "the path is empty" : std::string(); }, "");
  for (CLI::App* cmd : app.get_subcommands({})) {
    for (CLI::Option* option : cmd->get_options()) {
      if (paths.count(option->get_name()) > 0)
        option->check(non_empty);
    }
  }
}

// A command line CLI11 refused, as a diagnostic like opscan's others.
Status usage_error(const CLI::App& app, const std::string& first, std::string message) {
  // CLI11 calls an unknown command a missing one.
  if (!first.empty() && first[0] != '-') {
    std::vector<std::string> names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      names.push_back(sub->get_name());
      known = known || sub->get_name() == first;
    }
    if (!known)
      message = fmt::format("unknown command {} (commands: {})", support::quoted(first),
                            fmt::join(names, ", "));
  }
  report({diag::make_error("opscan-usage", {}, message + "; see opscan --help")});
  return Status::usage;
}

int main(int argc, char** argv) {
  opscan::support::hold_interrupts_during_commits();
  tool::keep_stdout_private();
  CLI::App app{"opscan: operator registration code from annotated C++ kernels", "opscan"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    const std::string version = scan::libclang_version();
    return fmt::format("opscan {}\nlibclang: {}", driver::version(),
                       version.empty() ? scan::load_libclang() : version);
  });
  app.footer(
      "Exit codes: 0 success, 1 errors in the input, 2 usage error, 3 I/O or internal failure.");

  ScanArgs scan_args;
  std::string ir_out, depfile, scan_stamp;
  CLI::App* scan_cmd = app.add_subcommand("scan", "Scan kernel sources into an IR file");
  add_scan_options(*scan_cmd, scan_args);
  scan_cmd->add_option("-o,--output", ir_out, "IR file to write")->required();
  scan_cmd->add_option("--depfile", depfile,
                       "Write a depfile (Make syntax) listing every file the scan read, for "
                       "Ninja and Make; its target is the --stamp file, or else the IR file");
  scan_cmd->add_option("--stamp", scan_stamp,
                       "File to create or touch after a successful scan, even when the IR "
                       "file kept its content");
  scan_cmd->footer("Example:\n  opscan scan -o kernels.ir.json src/op_add.cpp src/op_mul.cpp -- "
                   "-Iinclude -std=c++17");

  std::string pch_out, pch_flags_file, pch_depfile, pch_stamp, pch_cache;
  std::vector<std::string> pch_files;
  bool pch_shared = false;
  CLI::App* pch_cmd = app.add_subcommand(
      "pch", "Precompile the header every kernel source includes first, for faster scans");
  pch_cmd->add_option("header", pch_files, "The header (with --shared: the kernel sources)")
      ->required();
  pch_cmd
      ->add_option("-o,--output", pch_out,
                   "Precompiled header to write (with --shared: the list of those made)")
      ->required();
  pch_cmd->add_flag("--shared", pch_shared,
                    "Make the automatic precompiled headers of the sources given, into --cache, "
                    "ahead of one scan per source with that --cache");
  pch_cmd->add_option("--cache", pch_cache, "With --shared: the scans' cache directory");
  add_parse_options(*pch_cmd, pch_flags_file);
  pch_cmd->add_option("--depfile", pch_depfile,
                      "Write a depfile (Make syntax) listing every file the header read");
  pch_cmd->add_option("--stamp", pch_stamp,
                      "File to create or touch after success, even when the output kept its "
                      "content");
  pch_cmd->footer(
      "Example:\n  opscan pch include/kernels/runtime.h -o runtime.pch -- -Iinclude\n"
      "  opscan scan src/*.cpp -o kernels.ir.json -- -Iinclude -include-pch runtime.pch");

  std::vector<std::string> ir_files;
  GenerateArgs gen_args;
  bool list_outputs = false;
  CLI::App* gen_cmd = app.add_subcommand("generate", "Generate registration code from IR files");
  gen_cmd->add_option("ir", ir_files,
                      "IR files: scan output (merged into one library), or library IRs "
                      "(<lib>/ir.json; without --lib each is generated into its own directory)");
  add_generate_options(*gen_cmd, gen_args, /*registration_required=*/false);
  gen_cmd->add_option("-o,--output", gen_args.out_dir, "Output directory");
  gen_cmd->add_flag("--list-outputs", list_outputs,
                    "Print the files (and symbols) the generation would write, one per line as "
                    "'<kind> <path>', without reading kernels or writing anything; IR files are "
                    "needed only to list library IRs as recorded");
  std::string gen_stamp;
  gen_cmd->add_option("--stamp", gen_stamp,
                      "File to create or touch after a successful generation, even when no "
                      "generated file changed");
  gen_cmd->footer(
      "Example:\n  opscan generate kernels.ir.json --registration named --lib portable_ops -o gen\n"
      "  opscan generate gen/portable_ops/ir.json gen/quantized_ops/ir.json -o gen\n"
      "  opscan generate --list-outputs --target executorch --registration named --lib ops");

  std::vector<std::string> check_files;
  GenerateArgs check_args;
  std::string check_stamp;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "Check IR files as generate would, writing nothing: library IRs can be linked "
               "into one program, fragments (with --lib) make a library");
  check_cmd->add_option("ir", check_files, "IR files, as for generate")->required();
  add_generate_options(*check_cmd, check_args, /*registration_required=*/false);
  check_cmd->add_option("--stamp", check_stamp, "File to create or touch when the check passes");
  std::string check_model;
  check_cmd->add_option("--model", check_model,
                        "An ExecuTorch program (.pte): check that the libraries serve every "
                        "operator and kernel key it calls, and print what serves each");
  check_cmd->footer("Example:\n  opscan check gen/portable_ops/ir.json gen/quantized_ops/ir.json\n"
                    "  opscan check --model model.pte gen/portable_ops/ir.json");

  ScanArgs run_scan;
  GenerateArgs run_gen;
  CLI::App* run_cmd = app.add_subcommand("run", "Scan kernel sources and generate in one step");
  add_scan_options(*run_cmd, run_scan);
  add_generate_options(*run_cmd, run_gen, /*registration_required=*/true);
  run_cmd->add_option("-o,--output", run_gen.out_dir, "Output directory")->required();
  run_cmd->footer("Example:\n  opscan run src/*.cpp --registration named --lib portable_ops -o gen "
                  "-- -Iinclude");

  ImportArgs import_args;
  CLI::App* import_cmd = app.add_subcommand(
      "import-yaml", "Annotate, in place, the kernels an ExecuTorch functions.yaml names");
  import_cmd->add_option("yaml", import_args.yaml_file, "functions.yaml or custom_ops.yaml")
      ->required();
  import_cmd->add_option("files", import_args.files, "The kernel sources to annotate")->required();
  import_cmd->add_option("-p", import_args.build_dir,
                         "Build directory holding compile_commands.json");
  add_parse_options(*import_cmd, import_args.flags_file);
  import_cmd->add_flag("--dry-run", import_args.dry_run,
                       "Report what would be annotated, writing nothing");
  import_cmd->footer("Example:\n  opscan import-yaml kernels/functions.yaml kernels/op_*.cpp -- "
                     "-Iinclude\n  opscan run kernels/op_*.cpp --schemas native_functions.yaml "
                     "--registration named --lib portable -o gen -- -Iinclude");

  tool::LspArgs lsp_args;
  CLI::App* lsp_cmd = app.add_subcommand(
      "lsp", "Language server on stdin/stdout: opscan's diagnostics, quick fixes and hovers in an "
             "editor, beside clangd");
  lsp_cmd->add_option("--compile-commands-dir", lsp_args.compilation_database_dir,
                      "Directory of the compile_commands.json every file uses (default: found "
                      "as clangd finds it, from each file's directory upwards)");
  lsp_cmd->add_option("--debounce-ms", lsp_args.debounce_ms,
                      "Milliseconds after an edit before the file is analysed (default 25)");
  lsp_cmd
      ->add_option("--analysis-timeout", lsp_args.analysis_timeout,
                   "Seconds one analysis of a file may take before it is stopped and the file "
                   "gets a diagnostic saying so (default 30)")
      ->check(CLI::Range(0.001, 86400.0))
      ->option_text("SECONDS");
  lsp_cmd->add_flag("--worker", lsp_args.worker)->group(""); // the server's analysis process

  // diff and report: their --format is their report's; diagnostics are text.
  tool::DiffArgs diff_args;
  CLI::App* diff_cmd = app.add_subcommand(
      "diff", "What a change did to the operators of kernel libraries: classified changes, "
              "breaking ones failing unless an allow-list allows them");
  diff_cmd
      ->add_option("old", diff_args.old_path,
                   "The IRs before: an IR file, or a directory of generated libraries "
                   "(DIR/*/ir.json, and DIR/ir.json)")
      ->required();
  diff_cmd->add_option("new", diff_args.new_path, "The IRs after, as OLD")->required();
  diff_cmd
      ->add_option("--format", diff_args.format,
                   "The report's form on stdout: text (the default), json or markdown (for a "
                   "pull-request comment); diagnostics go to stderr as text")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  diff_cmd->add_option("--allow", diff_args.allow_file,
                       "Allow-list (JSON) of accepted breaking changes, each with a reason and an "
                       "expiry date");
  diff_cmd->add_option("--today", diff_args.today,
                       "The date allow-list entries expire against (YYYY-MM-DD; default: today "
                       "in UTC)");
  diff_cmd->footer("Example:\n  opscan diff base/gen head/gen --allow opscan-allow.json --format "
                   "markdown > comment.md");

  tool::ReportArgs report_args;
  CLI::App* report_cmd = app.add_subcommand(
      "report", "What kernel libraries provide (operators, schemas, kernels, sources) and their "
                "coverage of a list of operators");
  report_cmd
      ->add_option("ir", report_args.inputs,
                   "IR files, or directories of generated libraries (DIR/*/ir.json, and "
                   "DIR/ir.json)")
      ->required();
  report_cmd->add_option("--against", report_args.against,
                         "File of operator names (or schemas), one per line ('#' comments): "
                         "the report adds which are covered and which missing");
  report_cmd
      ->add_option("--format", report_args.format,
                   "The report's form: markdown (the default) or json")
      ->check(CLI::IsMember({"markdown", "json"}));
  report_cmd->add_option("-o,--output", report_args.output, "Write the report here, not stdout");
  report_cmd->add_flag("--fail-on-missing", report_args.fail_on_missing,
                       "Exit code 1 when an operator of --against is missing");
  report_cmd->footer("Example:\n  opscan report gen --against core_aten_ops.txt > operators.md");

  for (CLI::App* cmd : {scan_cmd, pch_cmd, gen_cmd, check_cmd, run_cmd, import_cmd})
    add_report_options(*cmd);
  refuse_empty_paths(app);

  // Everything after the first "--" goes to the compiler untouched.
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> clang_args;
  if (auto dash = std::find(args.begin(), args.end(), "--"); dash != args.end()) {
    clang_args.assign(dash + 1, args.end());
    args.erase(dash, args.end());
  }
  scan_args.clang_args = run_scan.clang_args = import_args.clang_args = clang_args;
  const std::string command_word = args.empty() ? "" : args.front();
  std::reverse(args.begin(), args.end()); // CLI11 takes them last-first
  // --help and --version: CLI11's text, on opscan's stdout.
  auto print_exit = [&app](const CLI::Error& e) {
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    tool::write_stdout(out.str());
    std::fputs(err.str().c_str(), stderr);
    return exit_with(code == 0 ? Status::ok : Status::usage);
  };
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return print_exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return print_exit(e);
  } catch (const CLI::CallForVersion& e) {
    return print_exit(e);
  } catch (const CLI::ParseError& e) {
    return exit_with(finish(usage_error(app, command_word, e.what())));
  }

  g_report.format = g_format == "json"    ? driver::Format::json
                    : g_format == "sarif" ? driver::Format::sarif
                                          : driver::Format::text;
  if (g_report.format != driver::Format::text)
    g_say_on_stderr = true;
  if (Status status = check_working_directory(); status != Status::ok)
    return exit_with(finish(status));
  // The language server speaks LSP on stdout: it has no --format. Its
  // workers' analyses are bounded by the server (--analysis-timeout).
  if (*lsp_cmd)
    return tool::run_lsp(lsp_args);
  scan::limit_parse_time(std::chrono::seconds(g_parse_timeout), parse_timed_out);
  // What killed or interrupted runs left in TMPDIR goes with any command
  // that parses, whether or not it needs a private directory itself.
  if (*scan_cmd || *run_cmd || *pch_cmd || *import_cmd)
    support::remove_orphaned_private_directories();
  // What each command reads and writes, as known before it runs.
  const std::vector<std::string> sources = *scan_cmd     ? scan_args.files
                                           : *run_cmd    ? run_scan.files
                                           : *import_cmd ? import_args.files
                                                         : std::vector<std::string>{};
  for (const std::string& file : sources)
    g_inputs.push_back({"a source", file});
  if (!sources.empty())
    g_main_source = sources.front();
  // A build step's outputs: -o, --depfile, --stamp.
  auto add_step_outputs = [](const std::string& output, const std::string& depfile,
                             const std::string& stamp) {
    g_outputs.push_back({"-o", output});
    if (!depfile.empty())
      g_outputs.push_back({"--depfile", depfile});
    if (!stamp.empty())
      g_outputs.push_back({"--stamp", stamp});
  };
  if (*scan_cmd) {
    add_inputs(option_inputs(scan_args));
    add_step_outputs(ir_out, depfile, scan_stamp);
  } else if (*run_cmd) {
    add_inputs(option_inputs(run_scan));
    add_inputs(generation_inputs({}, run_gen));
  } else if (*pch_cmd) {
    for (const std::string& file : pch_files)
      g_inputs.push_back({pch_shared ? "a source" : "the header", file});
    if (!pch_flags_file.empty())
      g_inputs.push_back({"--flags-file", pch_flags_file});
    add_step_outputs(pch_out, pch_depfile, pch_stamp);
  } else if (*import_cmd) {
    g_inputs.push_back({"the YAML file", import_args.yaml_file});
    if (!import_args.flags_file.empty())
      g_inputs.push_back({"--flags-file", import_args.flags_file});
  } else if (*gen_cmd) {
    add_inputs(generation_inputs(ir_files, gen_args));
    if (!gen_stamp.empty())
      g_outputs.push_back({"--stamp", gen_stamp});
  } else if (*check_cmd) {
    add_inputs(generation_inputs(check_files, check_args));
    if (!check_model.empty())
      g_inputs.push_back({"--model", check_model});
    if (!check_stamp.empty())
      g_outputs.push_back({"--stamp", check_stamp});
  }
  auto run = [&]() -> Status {
    if (*diff_cmd)
      return tool::run_diff(diff_args);
    if (*report_cmd)
      return tool::run_report(report_args);
    if (Status status = check_fixes_file(); status != Status::ok)
      return status;
    // The outputs known now, against the inputs known now: refused before
    // the command reads a source or fills a cache (each step checks again,
    // against every file it read).
    if (driver::Outcome early = driver::check_outputs(g_outputs, g_inputs);
        early.status != Status::ok)
      return reported(early.diagnostics, early.status);
    if (*scan_cmd) {
      ir::Module module;
      std::vector<std::string> inputs;
      Status status = scan_into(scan_args, module, &inputs);
      for (const std::string& file : inputs)
        g_inputs.push_back({"an input of the scan", file});
      if (status != Status::ok)
        return status;
      if (status = check_fixes_file(); status != Status::ok)
        return status;
      driver::Outcome written =
          driver::write_step({ir_out, ir::to_json(module), depfile, scan_stamp}, inputs,
                             option_inputs(scan_args), fixes_with_outputs());
      return reported(written.diagnostics, written.status);
    }
    if (*pch_cmd && pch_shared)
      return shared_pch_command(pch_files, pch_cache, pch_out, pch_flags_file, pch_depfile,
                                pch_stamp, clang_args);
    if (*pch_cmd) {
      if (pch_files.size() != 1 || !pch_cache.empty())
        return usage(pch_files.size() != 1 ? "pch takes one header (several files only with "
                                             "--shared)"
                                           : "--cache is an option of pch --shared only");
      const std::string& pch_header = pch_files[0];
      if (Status status = checked_sources({pch_header}); status != Status::ok)
        return status;
      diag::Diagnostics diags;
      auto args = read_compiler_args(pch_flags_file, clang_args, diags);
      if (!args)
        return reported(diags, Status::failure);
      scan::PrecompileResult result = scan::precompile({pch_header, std::move(*args)});
      for (const std::string& file : result.inputs)
        g_inputs.push_back({"an input of the header", file});
      if (Status status = reported(result.diagnostics); status != Status::ok)
        return status;
      if (Status status = check_fixes_file(); status != Status::ok)
        return status;
      std::vector<driver::RoleFile> options = {{"the header", pch_header}};
      if (!pch_flags_file.empty())
        options.push_back({"--flags-file", pch_flags_file});
      options.insert(options.end(), g_response_files.begin(), g_response_files.end());
      driver::Outcome written =
          driver::write_step({pch_out, std::move(result.pch), pch_depfile, pch_stamp},
                             result.inputs, options, fixes_with_outputs());
      return reported(written.diagnostics, written.status);
    }
    if (*import_cmd)
      return import_command(import_args);
    for (const auto& [cmd, args] :
         {std::pair{gen_cmd, &gen_args}, std::pair{check_cmd, &check_args},
          std::pair{run_cmd, &run_gen}}) {
      if (*cmd) {
        if (Status status = check_choices(*args); status != Status::ok)
          return status;
      }
    }
    if (*gen_cmd) {
      if (ir_files.empty() && !list_outputs)
        return usage("generate needs IR files (or --list-outputs)");
      return generate_command(*gen_cmd, ir_files, gen_args, list_outputs, gen_stamp);
    }
    if (*check_cmd)
      return check_command(*check_cmd, check_files, check_args, check_stamp, check_model);
    driver::Request run_request = request_of(*run_cmd, run_gen);
    if (Status status = read_operators_from(run_gen, run_request); status != Status::ok)
      return status;
    ir::Module module;
    std::vector<std::string> scanned;
    Status status = scan_into(run_scan, module, &scanned);
    for (const std::string& file : scanned)
      g_inputs.push_back({"an input of the scan", file});
    if (status != Status::ok)
      return status;
    driver::Plan plan = driver::plan_scanned(std::move(module), run_request, targets());
    if (status = reported(plan.diagnostics, plan.status); status != Status::ok)
      return status;
    std::vector<driver::RoleFile> inputs = option_inputs(run_scan);
    for (const std::string& file : scanned)
      inputs.push_back({"an input of the scan", file});
    std::vector<driver::RoleFile> templates = generation_inputs({}, run_gen);
    inputs.insert(inputs.end(), templates.begin(), templates.end());
    return write_plan(plan, run_gen.out_dir, inputs);
  };
  try {
    return exit_with(finish(run()));
  } catch (const std::exception& e) {
    report({diag::make_error("opscan-internal", {}, std::string("internal error: ") + e.what())});
    return exit_with(finish(Status::failure));
  }
}
