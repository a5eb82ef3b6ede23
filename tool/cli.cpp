// The command line's options and help texts (cli.h).
#include "cli.h"

#include "emit/registry.h"

#include <set>
#include <string>

namespace opscan::tool {
namespace {


// --format, --srcroot and --export-fixes.
void add_report_options(CLI::App& cmd, Commands& c) {
  cmd.add_option("--format", c.format,
                 "How diagnostics are reported: text (on stderr, the default), json or sarif "
                 "(one document on stdout, which then holds nothing else)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  cmd.add_option("--srcroot", c.report.source_root,
                 "The directory SARIF paths are relative to (%SRCROOT%; default: the current "
                 "directory)");
  cmd.add_option("--export-fixes", c.report.export_fixes,
                 "Write the fix-its of the diagnostics to FILE in clang-tidy's format, for "
                 "clang-apply-replacements (written when the exit code is 0 or 1)");
}

// The options of every command that parses sources with libclang.
void add_parse_options(CLI::App& cmd, std::string& flags_file, Commands& c) {
  cmd.add_option("--flags-file", flags_file,
                 "File of compiler arguments, one per line, used before those after --");
  cmd.add_option("--parse-timeout", c.parse_timeout,
                 "Fail when libclang takes longer than SECONDS to parse one file (default: 300; "
                 "0: no limit)");
}

void add_scan_options(CLI::App& cmd, driver::ScanArgs& args, Commands& c) {
  cmd.add_option("files", args.files, "Kernel source files")->required();
  cmd.add_option("-p", args.build_dir, "Build directory holding compile_commands.json");
  cmd.add_option("-j,--jobs", args.jobs, "Parallel parse jobs (default: one per core)");
  // One file per occurrence, as --operators.
  cmd.add_option("--schemas", args.schemas_files,
                 "File of known operator schemas: one per line, or operator YAML "
                 "(native_functions.yaml, functions.yaml, custom_ops.yaml); repeat it for "
                 "several. Kernels annotated with only a known operator's name are checked "
                 "against its schema; those of an operator no file knows get a warning")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--cache", args.cache_dir,
                 "Directory caching each file's IR fragment (unchanged files are not parsed "
                 "again) and the precompiled leading #include lines that files share");
  cmd.add_flag("--no-auto-pch", args.no_auto_pch,
               "Do not precompile the leading #include lines that files share");
  add_parse_options(cmd, args.flags_file, c);
}

// The options that decide what a generation makes: generate, check and run.
void add_generate_options(CLI::App& cmd, driver::GenerateArgs& args, bool registration_required) {
  cmd.add_option("--target", args.target,
                 "Runtime to generate for (" + emit::builtin_targets().listed() +
                     "; default: executorch)");
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
  cmd.add_flag("--exception-boundary", args.exception_boundary,
               "Catch what a kernel throws in its wrapper and fail the call instead "
               "(executorch: as ExecuTorch's --add-exception-boundary; needs C++ exceptions)");
  cmd.add_option("--torch-target-version", args.torch_target_version,
                 "The stable ABI version (2.<minor>) the library is built for (torch-stable: "
                 "its TORCH_TARGET_VERSION; by default the oldest that converts what its "
                 "kernels pass)");
  cmd.add_flag("--use-aten-lib", args.use_aten_lib,
               "ExecuTorch's ATen mode (executorch: kernels compiled with USE_ATEN_LIB=1, whose "
               "tensors are at::Tensor, as ExecuTorch's own --use-aten-lib)");
}

// A build step's --depfile and --stamp.
void add_step_options(CLI::App& cmd, std::string& depfile, std::string& stamp,
                      const std::string& depfile_help, const std::string& stamp_help) {
  cmd.add_option("--depfile", depfile, depfile_help);
  cmd.add_option("--stamp", stamp, stamp_help);
}

CLI::App* add_scan_command(CLI::App& app, Commands& c) {
  CLI::App* cmd = app.add_subcommand("scan", "Scan kernel sources into an IR file");
  add_scan_options(*cmd, c.scan.scan, c);
  cmd->add_option("-o,--output", c.scan.output, "IR file to write")->required();
  add_step_options(*cmd, c.scan.depfile, c.scan.stamp,
                   "Write a depfile (Make syntax) listing every file the scan read, for Ninja "
                   "and Make; its target is the --stamp file, or else the IR file",
                   "File to create or touch after a successful scan, even when the IR file kept "
                   "its content");
  cmd->footer("Example:\n  opscan scan -o kernels.ir.json src/op_add.cpp src/op_mul.cpp -- "
              "-Iinclude -std=c++17");
  return cmd;
}

CLI::App* add_pch_command(CLI::App& app, Commands& c) {
  CLI::App* cmd = app.add_subcommand(
      "pch", "Precompile the header every kernel source includes first, for faster scans");
  cmd->add_option("header", c.pch.files, "The header (with --shared: the kernel sources)")
      ->required();
  cmd->add_option("-o,--output", c.pch.output,
                  "Precompiled header to write (with --shared: the list of those made)")
      ->required();
  cmd->add_flag("--shared", c.pch.shared,
                "Make the automatic precompiled headers of the sources given, into --cache, "
                "ahead of one scan per source with that --cache");
  cmd->add_option("--cache", c.pch.cache, "With --shared: the scans' cache directory");
  add_parse_options(*cmd, c.pch.flags_file, c);
  add_step_options(*cmd, c.pch.depfile, c.pch.stamp,
                   "Write a depfile (Make syntax) listing every file the header read",
                   "File to create or touch after success, even when the output kept its "
                   "content");
  cmd->footer("Example:\n  opscan pch include/kernels/runtime.h -o runtime.pch -- -Iinclude\n"
              "  opscan scan src/*.cpp -o kernels.ir.json -- -Iinclude -include-pch runtime.pch");
  return cmd;
}

CLI::App* add_generate_command(CLI::App& app, Commands& c) {
  CLI::App* cmd = app.add_subcommand("generate", "Generate registration code from IR files");
  cmd->add_option("ir", c.generate.ir_files,
                  "IR files: scan output (merged into one library), or library IRs "
                  "(<lib>/ir.json; without --lib each is generated into its own directory)");
  add_generate_options(*cmd, c.generate.generate, /*registration_required=*/false);
  cmd->add_option("-o,--output", c.generate.generate.out_dir, "Output directory");
  cmd->add_flag("--list-outputs", c.generate.list_outputs,
                "Print the files (and symbols) the generation would write, one per line as "
                "'<kind> <path>', without reading kernels or writing anything; IR files are "
                "needed only to list library IRs as recorded");
  cmd->add_option("--stamp", c.generate.stamp,
                  "File to create or touch after a successful generation, even when no "
                  "generated file changed");
  cmd->footer(
      "Example:\n  opscan generate kernels.ir.json --registration named --lib portable_ops -o gen\n"
      "  opscan generate gen/portable_ops/ir.json gen/quantized_ops/ir.json -o gen\n"
      "  opscan generate --list-outputs --target executorch --registration named --lib ops");
  return cmd;
}

CLI::App* add_check_command(CLI::App& app, Commands& c) {
  CLI::App* cmd = app.add_subcommand(
      "check", "Check IR files as generate would, writing nothing: library IRs can be linked "
               "into one program, fragments (with --lib) make a library");
  cmd->add_option("ir", c.check.ir_files, "IR files, as for generate")->required();
  add_generate_options(*cmd, c.check.generate, /*registration_required=*/false);
  cmd->add_option("--stamp", c.check.stamp, "File to create or touch when the check passes");
  cmd->add_option("--model", c.check.model,
                  "An ExecuTorch program (.pte): check that the libraries serve every operator "
                  "and kernel key it calls, and print what serves each");
  cmd->footer("Example:\n  opscan check gen/portable_ops/ir.json gen/quantized_ops/ir.json\n"
              "  opscan check --model model.pte gen/portable_ops/ir.json");
  return cmd;
}

CLI::App* add_run_command(CLI::App& app, Commands& c) {
  CLI::App* cmd = app.add_subcommand("run", "Scan kernel sources and generate in one step");
  add_scan_options(*cmd, c.run.scan, c);
  add_generate_options(*cmd, c.run.generate, /*registration_required=*/true);
  cmd->add_option("-o,--output", c.run.generate.out_dir, "Output directory")->required();
  cmd->footer("Example:\n  opscan run src/*.cpp --registration named --lib portable_ops -o gen "
              "-- -Iinclude");
  return cmd;
}

CLI::App* add_import_yaml_command(CLI::App& app, Commands& c) {
  driver::import_yaml_command::Args& args = c.import_yaml;
  CLI::App* cmd = app.add_subcommand(
      "import-yaml", "Annotate, in place, the kernels an ExecuTorch functions.yaml names");
  cmd->add_option("yaml", args.yaml_file, "functions.yaml or custom_ops.yaml")->required();
  cmd->add_option("files", args.files, "The kernel sources to annotate")->required();
  cmd->add_option("-p", args.build_dir, "Build directory holding compile_commands.json");
  add_parse_options(*cmd, args.flags_file, c);
  cmd->add_flag("--dry-run", args.dry_run, "Report what would be annotated, writing nothing");
  cmd->footer("Example:\n  opscan import-yaml kernels/functions.yaml kernels/op_*.cpp -- "
              "-Iinclude\n  opscan run kernels/op_*.cpp --schemas native_functions.yaml "
              "--schemas kernels/functions.yaml --registration named --lib portable -o gen -- "
              "-Iinclude");
  return cmd;
}

CLI::App* add_lsp_command(CLI::App& app, Commands& c) {
  CLI::App* cmd = app.add_subcommand(
      "lsp", "Language server on stdin/stdout: opscan's diagnostics, quick fixes and hovers in an "
             "editor, beside clangd");
  cmd->add_option("--compile-commands-dir", c.lsp.compilation_database_dir,
                  "Directory of the compile_commands.json every file uses (default: found as "
                  "clangd finds it, from each file's directory upwards)");
  cmd->add_option("--debounce-ms", c.lsp.debounce_ms,
                  "Milliseconds after an edit before the file is analysed (default 25)");
  cmd->add_option("--analysis-timeout", c.lsp.analysis_timeout,
                  "Seconds one analysis of a file may take before it is stopped and the file "
                  "gets a diagnostic saying so (default 30)")
      ->check(CLI::Range(0.001, 86400.0))
      ->option_text("SECONDS");
  cmd->add_flag("--worker", c.lsp.worker)->group(""); // the server's analysis process
  return cmd;
}

// diff and report: their --format is their report's; diagnostics are text.
CLI::App* add_diff_command(CLI::App& app, Commands& c) {
  CLI::App* cmd = app.add_subcommand(
      "diff", "What a change did to the operators of kernel libraries: classified changes, "
              "breaking ones failing unless an allow-list allows them");
  cmd->add_option("old", c.diff.old_path,
                  "The IRs before: an IR file, or a directory of generated libraries "
                  "(DIR/*/ir.json, and DIR/ir.json)")
      ->required();
  cmd->add_option("new", c.diff.new_path, "The IRs after, as OLD")->required();
  cmd->add_option("--format", c.diff.format,
                  "The report's form on stdout: text (the default), json or markdown (for a "
                  "pull-request comment); diagnostics go to stderr as text")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  cmd->add_option("--allow", c.diff.allow_file,
                  "Allow-list (JSON) of accepted breaking changes, each with a reason and an "
                  "expiry date");
  cmd->add_option("--today", c.diff.today,
                  "The date allow-list entries expire against (YYYY-MM-DD; default: today in "
                  "UTC)");
  cmd->footer("Example:\n  opscan diff base/gen head/gen --allow opscan-allow.json --format "
              "markdown > comment.md");
  return cmd;
}

CLI::App* add_report_command(CLI::App& app, Commands& c) {
  driver::report_command::Args& args = c.report_args;
  CLI::App* cmd = app.add_subcommand(
      "report", "What kernel libraries provide (operators, schemas, kernels, sources) and their "
                "coverage of a list of operators");
  cmd->add_option("ir", args.inputs,
                  "IR files, or directories of generated libraries (DIR/*/ir.json, and "
                  "DIR/ir.json)")
      ->required();
  cmd->add_option("--against", args.against,
                  "File of operator names (or schemas), one per line ('#' comments): the report "
                  "adds which are covered and which missing");
  cmd->add_option("--format", args.format, "The report's form: markdown (the default) or json")
      ->check(CLI::IsMember({"markdown", "json"}));
  cmd->add_option("-o,--output", args.output, "Write the report here, not stdout");
  cmd->add_flag("--fail-on-missing", args.fail_on_missing,
                "Exit code 1 when an operator of --against is missing");
  cmd->footer("Example:\n  opscan report gen --against core_aten_ops.txt > operators.md");
  return cmd;
}

// Every option and argument that names a file or directory refuses an
// empty one (a variable a script left unset) as a usage error: "-o ''"
// would otherwise write into the current directory, or fail deep inside.
void refuse_empty_paths(CLI::App& app) {
  static const std::set<std::string> paths = {
      "files",      "header",       "ir",         "yaml",           "old",
      "new",        "--output",     "--depfile",  "--stamp",        "--cache",
      "-p",         "--schemas",    "--flags-file", "--operators-from", "--model",
      "--export-fixes", "--srcroot", "--compile-commands-dir", "--allow", "--against"};
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? "the path is empty" : std::string(); }, "");
  for (CLI::App* cmd : app.get_subcommands({})) {
    for (CLI::Option* option : cmd->get_options()) {
      if (paths.count(option->get_name()) > 0)
        option->check(non_empty);
    }
  }
}

} // namespace

CLI::App* bind_commands(CLI::App& app, Commands& c) {
  for (CLI::App* cmd : {add_scan_command(app, c), add_pch_command(app, c),
                        add_generate_command(app, c), add_check_command(app, c),
                        add_run_command(app, c), add_import_yaml_command(app, c)})
    add_report_options(*cmd, c);
  CLI::App* lsp = add_lsp_command(app, c);
  add_diff_command(app, c);
  add_report_command(app, c);
  refuse_empty_paths(app);
  return lsp;
}

} // namespace opscan::tool
