// opscan: the command-line driver. Argument parsing and wiring only; the
// work is done by the libraries in lib/.
#include "diag/text.h"
#include "emit/emit.h"
#include "ident/ident.h"
#include "ir/ir.h"
#include "scan/scan.h"
#include "support/depfile.h"
#include "support/files.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <sstream>
#include <unistd.h>

namespace {

using namespace opscan;

// Documented in the README ("Exit codes").
enum Exit : int { kOk = 0, kErrors = 1, kUsage = 2, kFailure = 3 };

constexpr const char* kVersion = "0.1.0";

std::string generator_name() {
  return fmt::format("opscan {}", kVersion);
}

// Prints diagnostics to stderr; returns whether any is an error.
bool report(const diag::Diagnostics& diags) {
  diag::TextOptions options;
  options.color = ::isatty(STDERR_FILENO) != 0;
  std::fputs(diag::render_text(diags, options).c_str(), stderr);
  return diag::has_errors(diags);
}

struct ScanArgs {
  std::vector<std::string> files;
  std::string build_dir;
  std::string schemas_file;
  std::string cache_dir;
  std::string flags_file;
  unsigned jobs = 0;
  std::vector<std::string> clang_args;
};

struct GenerateArgs {
  std::string target = "executorch";
  std::string dispatch_key = "CPU";
  std::string registration;
  std::optional<std::string> lib;
  std::string templates_dir;
  std::string out_dir;
  std::optional<std::vector<std::string>> operators; // --operators: set when given
};

void add_flags_file_option(CLI::App& cmd, std::string& flags_file) {
  cmd.add_option("--flags-file", flags_file,
                 "File of compiler arguments, one per line, used before those after --")
      ->check(CLI::ExistingFile);
}

void add_scan_options(CLI::App& cmd, ScanArgs& args) {
  cmd.add_option("files", args.files, "Kernel source files")->required()->check(CLI::ExistingFile);
  cmd.add_option("-p", args.build_dir, "Build directory holding compile_commands.json")
      ->check(CLI::ExistingDirectory);
  cmd.add_option("-j,--jobs", args.jobs, "Parallel parse jobs (default: one per core)");
  cmd.add_option("--schemas", args.schemas_file,
                 "File of known operator schemas, one per line; kernels annotated with only a "
                 "known operator's name are checked against its schema")
      ->check(CLI::ExistingFile);
  cmd.add_option("--cache", args.cache_dir,
                 "Directory caching each file's IR fragment: unchanged files are not parsed again");
  add_flags_file_option(cmd, args.flags_file);
}

// The compiler arguments of scan and pch: the lines of the --flags-file, each
// one argument as written (no quoting), then those after "--".
std::optional<std::vector<std::string>> compiler_args(const std::string& flags_file,
                                                      const std::vector<std::string>& clang_args) {
  std::vector<std::string> args;
  if (!flags_file.empty()) {
    std::string error;
    auto text = support::read_file(flags_file, &error);
    if (!text) {
      std::fprintf(stderr, "opscan: error: cannot read %s: %s\n", flags_file.c_str(),
                   error.c_str());
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
  args.insert(args.end(), clang_args.begin(), clang_args.end());
  return args;
}

// `generate` given only library IRs needs no --registration: each library
// keeps its own mode. `run` always makes one new library, so needs it.
void add_generate_options(CLI::App& cmd, GenerateArgs& args, bool registration_required) {
  cmd.add_option("--target", args.target, "Runtime to generate for")
      ->check(CLI::IsMember({"executorch", "torch"}))
      ->capture_default_str();
  cmd.add_option("--dispatch-key", args.dispatch_key,
                 "torch: dispatch key of kernels whose annotation names none")
      ->capture_default_str();
  CLI::Option* registration =
      cmd.add_option("--registration", args.registration,
                     "static: register at load time; manual: register_all_kernels(); named: "
                     "register_<lib>_kernels()")
          ->check(CLI::IsMember({"static", "manual", "named"}));
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
  cmd.add_option("--templates", args.templates_dir, "Directory overriding the built-in templates")
      ->check(CLI::ExistingDirectory);
  cmd.add_option("-o,--output", args.out_dir, "Output directory")->required();
}

int scan_into(const ScanArgs& args, ir::Module& module, std::vector<std::string>* inputs = nullptr) {
  scan::Options options;
  options.files = args.files;
  if (!args.build_dir.empty())
    options.build_dir = args.build_dir;
  auto extra_args = compiler_args(args.flags_file, args.clang_args);
  if (!extra_args)
    return kFailure;
  options.extra_args = std::move(*extra_args);
  options.jobs = args.jobs;
  if (!args.schemas_file.empty())
    options.schemas_file = args.schemas_file;
  if (!args.cache_dir.empty())
    options.cache_dir = args.cache_dir;
  // Progress on a terminal only, on one line, for scans long enough to want it.
  if (::isatty(STDERR_FILENO) && args.files.size() > 1) {
    options.progress = [](size_t done, size_t total, const std::string& file) {
      std::fprintf(stderr, "\r\033[Kopscan: scanned %zu/%zu %s", done, total, file.c_str());
      if (done == total)
        std::fputs("\r\033[K", stderr);
    };
  }
  scan::Result result = scan::scan(options);
  result.module.generator = generator_name();
  module = std::move(result.module);
  if (inputs)
    *inputs = std::move(result.inputs);
  return report(result.diagnostics) ? kErrors : kOk;
}

emit::Options emit_options(const GenerateArgs& args) {
  emit::Options options;
  options.target = *emit::parse_target(args.target);
  if (!args.registration.empty())
    options.registration = *emit::parse_registration(args.registration);
  options.library = args.lib;
  if (!args.templates_dir.empty())
    options.templates_dir = args.templates_dir;
  options.generator = generator_name();
  options.dispatch_key = args.dispatch_key;
  return options;
}

// Writes one generated library and prints its summary.
int write_library(const ir::Module& module, const emit::Output& output,
                  const std::string& out_dir) {
  emit::WriteReport written = emit::write_outputs(out_dir, output.files);
  if (report(written.diagnostics))
    return kFailure;

  std::map<std::string, int> per_namespace;
  for (const ir::Kernel& k : module.kernels)
    ++per_namespace[k.op.ns];
  std::string namespaces;
  for (const auto& [ns, count] : per_namespace) {
    namespaces += fmt::format("{}{} {}", namespaces.empty() ? "" : ", ", count, ns);
  }
  fmt::print("opscan: library '{}': {} operator{} ({}), registration: {}\n", output.library_dir,
             module.kernels.size(), module.kernels.size() == 1 ? "" : "s", namespaces,
             output.registration_function.empty() ? "static initializer"
                                                  : output.registration_function + "()");
  std::vector<std::string> names;
  for (const emit::OutputFile& f : output.files)
    names.push_back(std::filesystem::path(f.path).filename());
  fmt::print("opscan: {}: {} ({} written, {} unchanged)\n",
             support::display_path(std::filesystem::path(out_dir) / output.library_dir),
             fmt::join(names, ", "), written.written.size(), written.unchanged.size());
  return kOk;
}

// One library from `scanned` (with --operators, only the operators named).
int generate_from(const ir::Module& scanned, const GenerateArgs& args) {
  ir::SelectResult selected;
  const ir::Module* module = &scanned;
  if (args.operators) {
    selected = ir::select_operators(scanned, *args.operators);
    if (report(selected.diagnostics))
      return kErrors;
    module = &selected.module;
  }
  emit::Output output = emit::generate(*module, emit_options(args));
  if (report(output.diagnostics))
    return kErrors;
  return write_library(*module, output, args.out_dir);
}

// Library IRs without --lib: each library regenerated into its own
// directory, after checking they can live in one program. --registration,
// when given, applies to every library.
int generate_libraries(std::vector<emit::LibraryIr> libraries, const GenerateArgs& args) {
  if (!args.registration.empty()) {
    for (emit::LibraryIr& library : libraries)
      library.module.library->registration = args.registration;
  }
  emit::Generation generation = emit::generate_libraries(libraries, emit_options(args));
  if (report(generation.diagnostics))
    return kErrors;
  for (size_t i = 0; i < libraries.size(); ++i) {
    if (int status = write_library(libraries[i].module, generation.libraries[i], args.out_dir);
        status != kOk) {
      return status;
    }
  }
  return kOk;
}

// Reads IR files into `inputs`; reports what cannot be read and returns
// false on errors.
bool read_irs(const std::vector<std::string>& ir_files, std::vector<emit::LibraryIr>& inputs) {
  diag::Diagnostics diags;
  for (const std::string& path : ir_files) {
    std::string error;
    auto text = support::read_file(path, &error);
    if (!text) {
      diags.push_back(diag::make_error("opscan-io", {path, 0, 0, 0}, "cannot read: " + error));
      continue;
    }
    ir::ReadResult read = ir::from_json(*text, path);
    diags.insert(diags.end(), read.diagnostics.begin(), read.diagnostics.end());
    if (read.module)
      inputs.push_back({path, std::move(*read.module)});
  }
  return !report(diags);
}

// `check`: whether library IRs can live in one program, as generate checks
// before regenerating them; writes nothing.
int check_command(const std::vector<std::string>& ir_files) {
  std::vector<emit::LibraryIr> inputs;
  if (!read_irs(ir_files, inputs))
    return kErrors;
  if (report(emit::check_libraries(inputs)))
    return kErrors;
  std::vector<std::string> names;
  for (const emit::LibraryIr& input : inputs)
    names.push_back(input.module.library->name);
  fmt::print("opscan: {} librar{} ({}) can live in one program\n", names.size(),
             names.size() == 1 ? "y" : "ies", fmt::join(names, ", "));
  return kOk;
}

// --stamp: created or touched once the command succeeded, so build tools that
// compare times see the step done even when no output changed.
int touch_stamp(const std::string& stamp) {
  std::string error;
  if (stamp.empty() || support::touch(stamp, &error))
    return kOk;
  std::fprintf(stderr, "opscan: error: cannot touch %s: %s\n", stamp.c_str(), error.c_str());
  return kFailure;
}

// Writes `content` to `path` unless it holds it already; reports a failure.
bool write_output(const std::string& path, const std::string& content) {
  std::string error;
  if (support::write_if_changed(path, content, &error) != support::WriteOutcome::failed)
    return true;
  std::fprintf(stderr, "opscan: error: cannot write %s: %s\n", path.c_str(), error.c_str());
  return false;
}

// The end of a build step that wrote `output` from `inputs` and the files
// named by options (`option_files`; empty when not given): its depfile
// (whose target is the stamp, if any), then its stamp.
int finish_step(const std::string& output, std::vector<std::string> inputs,
                const std::vector<std::string>& option_files, const std::string& depfile,
                const std::string& stamp) {
  for (const std::string& file : option_files) {
    if (!file.empty())
      inputs.push_back(std::filesystem::weakly_canonical(std::filesystem::absolute(file)));
  }
  if (!depfile.empty() &&
      !write_output(depfile, support::make_depfile(stamp.empty() ? output : stamp, inputs)))
    return kFailure;
  return touch_stamp(stamp);
}

// Reads the IR files of `generate`, then either generates each library IR
// as recorded (only library IRs, no --lib) or merges everything into one
// library (--lib, or scan fragments).
int generate_command(const std::vector<std::string>& ir_files, const GenerateArgs& args) {
  std::vector<emit::LibraryIr> inputs;
  if (!read_irs(ir_files, inputs))
    return kErrors;

  std::vector<std::string> libraries, fragments;
  for (const emit::LibraryIr& input : inputs)
    (input.module.library ? libraries : fragments).push_back(input.path);
  if (!args.lib && fragments.empty()) {
    if (args.operators) {
      std::fprintf(stderr, "opscan: error: --operators selects the operators of one new library: "
                           "give --lib to merge the library IRs into one (without --lib each "
                           "library is generated again with all its operators)\n");
      return kUsage;
    }
    return generate_libraries(std::move(inputs), args);
  }
  if (!args.lib && !libraries.empty()) {
    std::fprintf(stderr,
                 "opscan: error: %s is a library IR and %s is scan output: give --lib to merge "
                 "them into one library, or pass only library IRs to regenerate each\n",
                 libraries[0].c_str(), fragments[0].c_str());
    return kUsage;
  }
  if (args.registration.empty()) {
    std::fprintf(stderr, "opscan: error: --registration is required when merging IR files into "
                         "one library (only library IRs without --lib keep their own)\n");
    return kUsage;
  }
  std::vector<ir::Module> modules;
  for (emit::LibraryIr& input : inputs)
    modules.push_back(std::move(input.module));
  ir::MergeResult merged = ir::merge(std::move(modules));
  if (report(merged.diagnostics))
    return kErrors;
  return generate_from(merged.module, args);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"opscan: operator registration code from annotated C++ kernels", "opscan"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    return fmt::format("opscan {}\nlibclang: {}", kVersion, scan::libclang_version());
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

  std::string pch_header, pch_out, pch_flags_file, pch_depfile, pch_stamp;
  CLI::App* pch_cmd = app.add_subcommand(
      "pch", "Precompile the header every kernel source includes first, for faster scans");
  pch_cmd->add_option("header", pch_header, "The header")->required()->check(CLI::ExistingFile);
  pch_cmd->add_option("-o,--output", pch_out, "Precompiled header to write")->required();
  add_flags_file_option(*pch_cmd, pch_flags_file);
  pch_cmd->add_option("--depfile", pch_depfile,
                      "Write a depfile (Make syntax) listing every file the header read");
  pch_cmd->add_option("--stamp", pch_stamp,
                      "File to create or touch after success, even when the output kept its "
                      "content");
  pch_cmd->footer("Example:\n  opscan pch include/kernels/runtime.h -o runtime.pch -- -Iinclude\n"
                  "  opscan scan src/*.cpp -o kernels.ir.json -- -Iinclude -include-pch runtime.pch");

  std::vector<std::string> ir_files;
  GenerateArgs gen_args;
  CLI::App* gen_cmd = app.add_subcommand("generate", "Generate registration code from IR files");
  gen_cmd
      ->add_option("ir", ir_files,
                   "IR files: scan output (merged into one library), or library IRs "
                   "(<lib>/ir.json; without --lib each is generated into its own directory)")
      ->required()
      ->check(CLI::ExistingFile);
  add_generate_options(*gen_cmd, gen_args, /*registration_required=*/false);
  std::string gen_stamp;
  gen_cmd->add_option("--stamp", gen_stamp,
                      "File to create or touch after a successful generation, even when no "
                      "generated file changed");
  gen_cmd->footer(
      "Example:\n  opscan generate kernels.ir.json --registration named --lib portable_ops -o gen\n"
      "  opscan generate gen/portable_ops/ir.json gen/quantized_ops/ir.json -o gen");

  std::vector<std::string> check_files;
  std::string check_stamp;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "Check that library IRs can be linked into one program (writes nothing)");
  check_cmd->add_option("ir", check_files, "Library IRs (<lib>/ir.json)")
      ->required()
      ->check(CLI::ExistingFile);
  check_cmd->add_option("--stamp", check_stamp,
                        "File to create or touch when the libraries can live in one program");
  check_cmd->footer("Example:\n  opscan check gen/portable_ops/ir.json gen/quantized_ops/ir.json");

  ScanArgs run_scan;
  GenerateArgs run_gen;
  CLI::App* run_cmd = app.add_subcommand("run", "Scan kernel sources and generate in one step");
  add_scan_options(*run_cmd, run_scan);
  add_generate_options(*run_cmd, run_gen, /*registration_required=*/true);
  run_cmd->footer("Example:\n  opscan run src/*.cpp --registration named --lib portable_ops -o gen "
                  "-- -Iinclude");

  // Everything after the first "--" goes to the compiler untouched.
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> clang_args;
  if (auto dash = std::find(args.begin(), args.end(), "--"); dash != args.end()) {
    clang_args.assign(dash + 1, args.end());
    args.erase(dash, args.end());
  }
  scan_args.clang_args = run_scan.clang_args = clang_args;
  std::reverse(args.begin(), args.end()); // CLI11 takes them last-first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kOk : kUsage;
  }

  try {
    if (*scan_cmd) {
      ir::Module module;
      std::vector<std::string> inputs;
      int status = scan_into(scan_args, module, &inputs);
      if (status != kOk)
        return status;
      if (!write_output(ir_out, ir::to_json(module)))
        return kFailure;
      return finish_step(ir_out, std::move(inputs), {scan_args.schemas_file, scan_args.flags_file},
                         depfile, scan_stamp);
    }
    if (*pch_cmd) {
      auto args = compiler_args(pch_flags_file, clang_args);
      if (!args)
        return kFailure;
      scan::PrecompileResult result = scan::precompile({pch_header, std::move(*args)});
      if (report(result.diagnostics))
        return kErrors;
      if (!write_output(pch_out, result.pch))
        return kFailure;
      return finish_step(pch_out, std::move(result.inputs), {pch_flags_file}, pch_depfile,
                         pch_stamp);
    }
    if (*gen_cmd) {
      int status = generate_command(ir_files, gen_args);
      return status == kOk ? touch_stamp(gen_stamp) : status;
    }
    if (*check_cmd) {
      int status = check_command(check_files);
      return status == kOk ? touch_stamp(check_stamp) : status;
    }
    ir::Module module;
    int status = scan_into(run_scan, module);
    if (status != kOk)
      return status;
    return generate_from(module, run_gen);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opscan: internal error: %s\n", e.what());
    return kFailure;
  }
}
