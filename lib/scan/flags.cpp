#include "scan/flags.h"

#include "scan/clang.h"
#include "support/files.h"

#include <algorithm>
#include <clang-c/CXCompilationDatabase.h>
#include <filesystem>
#include <iterator>
#include <optional>
#include <string_view>

namespace opscan::scan {
namespace fs = std::filesystem;

void add_default_language(std::vector<std::string>& args) {
  auto given = [&](std::string_view prefix) {
    return std::any_of(args.begin(), args.end(),
                       [&](const std::string& a) { return a.starts_with(prefix); });
  };
  if (!given("-std=") && !given("--std"))
    args.insert(args.begin(), "-std=c++17");
  if (!given("-x"))
    args.insert(args.begin(), {"-x", "c++"});
}

void add_scanning_arguments(std::vector<std::string>& args) {
  args.insert(args.begin(), "-DOPSCAN_SCANNING=1");
  // No warnings (only errors matter here, and warnings cost time) but the
  // one clang gives for an attribute it drops, which is how an
  // OPSCAN_KERNEL before a class would vanish. Last, so the project's own
  // warning flags cannot turn others on, nor this one into an error.
  args.insert(args.end(), {"-Wno-everything", "-Wignored-attributes", "-Wno-error"});
  bool has_resource_dir = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "-resource-dir" || a.starts_with("-resource-dir=");
  });
  if (!has_resource_dir)
    args.insert(args.begin(), {"-resource-dir", OPSCAN_CLANG_RESOURCE_DIR});
}

namespace {

// Flags GCC accepts and clang rejects.
bool is_gcc_only_flag(std::string_view arg) {
  // Each one checked against libclang 14, which fails with "unknown argument"
  // (or, for -fdiagnostics-format=json, refuses to parse at all). Flags clang
  // merely ignores with a warning (-fno-fat-lto-objects, -fno-tree-vrp,
  // -fmax-errors=...) or accepts (-fdiagnostics-color=, -fstack-usage) are
  // kept: they do no harm.
  static constexpr std::string_view kExact[] = {
      "-fallow-store-data-races",
      "-fcallgraph-info",
      "-fchecking",
      "-fcompare-debug-second",
      "-fconcepts",
      "-fconcepts-ts",
      "-fconserve-stack",
      "-fcoroutines",
      "-fext-numeric-literals",
      "-fimplicit-constexpr",
      "-fipa-pta",
      "-flarge-source-files",
      "-fnew-ttp-matching",
      "-fno-allow-store-data-races",
      "-fno-canonical-system-headers",
      "-fno-code-hoisting",
      "-fno-crossjumping",
      "-fno-diagnostics-show-caret",
      "-fno-diagnostics-show-labels",
      "-fno-early-inlining",
      "-fno-gnu-unique",
      "-fno-guess-branch-probability",
      "-fno-ipa-bit-cp",
      "-fno-ipa-cp-clone",
      "-fno-ipa-icf",
      "-fno-ipa-pta",
      "-fno-ipa-ra",
      "-fno-ipa-sra",
      "-fno-keep-inline-dllexport",
      "-fno-lifetime-dse",
      "-fno-peephole2",
      "-fno-printf-return-value",
      "-fno-reorder-blocks-and-partition",
      "-fno-shrink-wrap",
      "-fno-toplevel-reorder",
      "-fno-tree-loop-distribute-patterns",
      "-fno-tree-pre",
      "-fno-var-tracking-assignments",
      "-freorder-blocks-and-partition",
      "-fsched-pressure",
      "-fvar-tracking-assignments",
      "-mindirect-branch-register",
      "-mno-direct-extern-access",
      "-mrecord-mcount",
  };
  static constexpr std::string_view kPrefix[] = {
      "-fconcepts-diagnostics-depth=",
      "-fdiagnostics-format=json",
      "-fdiagnostics-urls=",
      "-fdump-tree-",
      "-fira-region=",
      "-flto-compression-level=",
      "-flto-partition=",
      "-fopt-info",
      "-ftrack-macro-expansion=",
      "-mfunction-return=",
      "-mindirect-branch=",
      "-mpreferred-stack-boundary=",
  };
  if (std::find(std::begin(kExact), std::end(kExact), arg) != std::end(kExact))
    return true;
  return std::any_of(std::begin(kPrefix), std::end(kPrefix),
                     [&](std::string_view p) { return arg.starts_with(p); });
}

// Each entry checked against libclang 14 (a parse in an empty directory,
// then a look at what appeared). libclang runs the frontend with
// -fsyntax-only added, so of the clang driver's outputs these still happen:
// dependency files (-MD, -MMD, -M... -MF, -MJ, -Wp,-MD,...; -M and -MM
// without -MF print the rule to standard output), the module cache of
// implicit modules, and -Xclang's -dependency-file, -dependency-dot,
// -header-include-file and -module-dependency-dir; -v, -H and -print-*
// print, and -###, -save-temps, -print-* and -Xclang -add-plugin make the
// parse fail (-Xclang -print-stats crashes it). The others (-o,
// --serialize-diagnostics, -ftime-trace, -save-stats, -fproc-stat-report,
// -emit-*, -fcrash-diagnostics-dir=, plugins) do nothing under libclang 14
// but write or load with clang: dropped all the same, since no scan needs
// them.
struct Rule {
  std::string_view spelling;
  enum Form {
    exact,
    prefix,
    separate,           // the value is the next argument
    joined_or_separate, // "-MF deps.d" or "-MFdeps.d"
    prefix_separate,    // -plugin-arg-NAME VALUE
  } form;
  DropReason reason;
  bool frontend_only = false; // the frontend's spelling: counts only after -Xclang/-Xpreprocessor
};

constexpr Rule kRules[] = {
    {"-o", Rule::joined_or_separate, DropReason::output},
    {"--output", Rule::separate, DropReason::output},
    {"--output=", Rule::prefix, DropReason::output},
    {"-M", Rule::exact, DropReason::writes_files},
    {"-MM", Rule::exact, DropReason::writes_files},
    {"-MD", Rule::exact, DropReason::writes_files},
    {"-MMD", Rule::exact, DropReason::writes_files},
    {"-MP", Rule::exact, DropReason::writes_files},
    {"-MG", Rule::exact, DropReason::writes_files},
    {"-MV", Rule::exact, DropReason::writes_files},
    {"-MF", Rule::joined_or_separate, DropReason::writes_files},
    {"-MT", Rule::joined_or_separate, DropReason::writes_files},
    {"-MQ", Rule::joined_or_separate, DropReason::writes_files},
    {"-MJ", Rule::joined_or_separate, DropReason::writes_files},
    {"--dependencies", Rule::exact, DropReason::writes_files},
    {"--user-dependencies", Rule::exact, DropReason::writes_files},
    {"--write-dependencies", Rule::exact, DropReason::writes_files},
    {"--write-user-dependencies", Rule::exact, DropReason::writes_files},
    {"-emit-", Rule::prefix, DropReason::writes_files},
    {"-save-temps", Rule::exact, DropReason::writes_files},
    {"-save-temps=", Rule::prefix, DropReason::writes_files},
    {"-save-stats", Rule::exact, DropReason::writes_files},
    {"-save-stats=", Rule::prefix, DropReason::writes_files},
    {"--serialize-diagnostics", Rule::separate, DropReason::writes_files},
    {"-serialize-diagnostics", Rule::separate, DropReason::writes_files},
    {"--serialize-diagnostics=", Rule::prefix, DropReason::writes_files},
    {"-ftime-trace", Rule::exact, DropReason::writes_files},
    {"-ftime-trace=", Rule::prefix, DropReason::writes_files},
    {"-fproc-stat-report", Rule::exact, DropReason::writes_files},
    {"-fproc-stat-report=", Rule::prefix, DropReason::writes_files},
    {"-fcrash-diagnostics-dir=", Rule::prefix, DropReason::writes_files},
    {"-module-dependency-dir", Rule::separate, DropReason::writes_files},
    {"-fmodules-cache-path=", Rule::prefix, DropReason::writes_files},
    {"-v", Rule::exact, DropReason::prints},
    {"--verbose", Rule::exact, DropReason::prints},
    {"-###", Rule::exact, DropReason::prints},
    {"-H", Rule::exact, DropReason::prints},
    {"-print-", Rule::prefix, DropReason::prints}, // -Xclang -print-stats too
    {"--print-", Rule::prefix, DropReason::prints},
    {"-fplugin=", Rule::prefix, DropReason::loads_code},
    {"-fpass-plugin=", Rule::prefix, DropReason::loads_code},
    {"-fplugin-arg-", Rule::prefix, DropReason::loads_code},
    {"-dependency-file", Rule::separate, DropReason::writes_files, true},
    {"-dependency-dot", Rule::separate, DropReason::writes_files, true},
    {"-header-include-file", Rule::separate, DropReason::writes_files, true},
    {"-diagnostic-log-file", Rule::separate, DropReason::writes_files, true},
    {"-serialize-diagnostic-file", Rule::separate, DropReason::writes_files, true},
    {"-stats-file=", Rule::prefix, DropReason::writes_files, true},
    {"-load", Rule::separate, DropReason::loads_code, true},
    {"-plugin", Rule::separate, DropReason::loads_code, true},
    {"-add-plugin", Rule::separate, DropReason::loads_code, true},
    {"-plugin-arg-", Rule::prefix_separate, DropReason::loads_code, true},
};

// Options whose value is the next argument, kept: that value is passed over,
// never read as an option ("-include -MD" includes a file named -MD).
constexpr std::string_view kKeptWithValue[] = {
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-include-pch",
    "-isystem",
    "-idirafter",
    "-iquote",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "--sysroot",
    "-x",
    "-target",
    "-arch",
    "-F",
    "-iframework",
    "-ivfsoverlay",
    "-L",
    "-working-directory",
    "-resource-dir",
    "-cxx-isystem",
    "-isystem-after",
    "-imultilib",
    "-B",
    "-mllvm",
    "--param",
    "-Xlinker",
    "-Xassembler",
    "-Xanalyzer",
};
constexpr std::string_view kFrontendKeptWithValue[] = {
    "-triple",         "-aux-triple",       "-target-cpu",
    "-target-feature", "-internal-isystem", "-internal-externc-isystem",
    "-main-file-name",
};

struct Match {
  const Rule* rule = nullptr;
  bool value_joined = false; // "-MFdeps.d"
};

Match match(std::string_view arg, bool wrapped) {
  for (const Rule& rule : kRules) {
    if (rule.frontend_only && !wrapped)
      continue;
    const bool prefixed = arg.starts_with(rule.spelling);
    switch (rule.form) {
    case Rule::exact:
    case Rule::separate:
      if (arg == rule.spelling)
        return {&rule};
      break;
    case Rule::prefix:
    case Rule::prefix_separate:
      if (prefixed)
        return {&rule};
      break;
    case Rule::joined_or_separate:
      if (arg == rule.spelling)
        return {&rule};
      // -object, -objcmt-... are options of their own, not -o.
      if (prefixed && !arg.starts_with("-obj"))
        return {&rule, true};
      break;
    }
  }
  return {};
}

template <size_t N>
bool listed(const std::string_view (&list)[N], std::string_view arg) {
  return std::find(std::begin(list), std::end(list), arg) != std::end(list);
}

// Whether implicit modules are on: -fmodules (or -fcxx-modules) builds every
// module a header's module map names into a cache (by default under
// $XDG_CACHE_HOME; so does libclang), unless -fno-implicit-modules comes
// last. Then the module switches are dropped, not refused: modules compile
// the same headers faster, and included as text they declare the same
// kernels (a source that needs modules, importing one, fails to parse with
// an error rather than silently). Explicit modules (-fno-implicit-modules,
// -fmodule-file=) are read only, and kept.
bool builds_implicit_modules(const std::vector<std::string>& args) {
  bool modules = false, implicit = true;
  for (const std::string& arg : args) {
    if (arg == "-fmodules" || arg == "-fcxx-modules")
      modules = true;
    else if (arg == "-fimplicit-modules")
      implicit = true;
    else if (arg == "-fno-implicit-modules")
      implicit = false;
  }
  return modules && implicit;
}

// The parts of -Wp,A,B,...: GCC's preprocessor options, of which clang's
// driver honours the dependency ones (-Wp,-MD,FILE is -MD -MF FILE).
void filter_preprocessor_list(const std::string& arg, size_t index, FilteredArguments& out) {
  std::vector<std::string> parts;
  for (size_t begin = 4;;) { // after "-Wp,"
    const size_t comma = arg.find(',', begin);
    parts.push_back(arg.substr(begin, comma - begin));
    if (comma == std::string::npos)
      break;
    begin = comma + 1;
  }
  std::string kept;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool with_file =
        part == "-MD" || part == "-MMD" || part == "-MF" || part == "-MT" || part == "-MQ";
    if (with_file || part == "-M" || part == "-MM" || part == "-MP" || part == "-MG") {
      const bool has_value = with_file && i + 1 < parts.size();
      out.dropped.push_back({"-Wp," + part, DropReason::writes_files, has_value, index});
      i += has_value;
    } else {
      kept += (kept.empty() ? "-Wp," : ",") + part;
    }
  }
  if (!kept.empty())
    out.kept.push_back(std::move(kept));
}

} // namespace

FilteredArguments filter_arguments(const std::vector<std::string>& args) {
  FilteredArguments out;
  const bool implicit_modules = builds_implicit_modules(args);
  const size_t n = args.size();
  for (size_t i = 0; i < n;) {
    // -Xclang X and -Xpreprocessor X pass X on; X's value comes as the
    // wrapper again and the value.
    const bool wrapped = (args[i] == "-Xclang" || args[i] == "-Xpreprocessor") && i + 1 < n;
    const std::string& arg = wrapped ? args[i + 1] : args[i];
    const std::string wrapper = wrapped ? args[i] + " " : "";
    size_t width = wrapped ? 2 : 1;
    auto next_value = [&] {
      if (!wrapped)
        return i + width < n ? size_t{1} : size_t{0};
      return i + width + 1 < n && args[i + width] == args[i] ? size_t{2} : size_t{0};
    };
    std::optional<DroppedArgument> dropped;
    if (const Match m = match(arg, wrapped); m.rule) {
      const bool takes_next = m.rule->form == Rule::separate ||
                              m.rule->form == Rule::prefix_separate ||
                              (m.rule->form == Rule::joined_or_separate && !m.value_joined);
      const size_t value = takes_next ? next_value() : 0;
      std::string option = m.value_joined ? std::string(m.rule->spelling) : arg;
      dropped = DroppedArgument{wrapper + option, m.rule->reason, m.value_joined || value > 0, i};
      width += value;
    } else if (implicit_modules &&
               (arg == "-fmodules" || arg == "-fcxx-modules" || arg == "-fimplicit-modules")) {
      dropped = DroppedArgument{wrapper + arg, DropReason::module_cache, false, i};
    } else if (is_gcc_only_flag(arg)) {
      dropped = DroppedArgument{wrapper + arg, DropReason::gcc_only, false, i};
    } else if (!wrapped && arg.starts_with("-Wp,")) {
      filter_preprocessor_list(arg, i, out);
      ++i;
      continue;
    } else if (listed(kKeptWithValue, arg) || (wrapped && listed(kFrontendKeptWithValue, arg))) {
      width += next_value();
    }
    if (dropped)
      out.dropped.push_back(std::move(*dropped));
    else
      out.kept.insert(out.kept.end(), args.begin() + i, args.begin() + i + width);
    i += width;
  }
  return out;
}

std::string dropped_message(const DroppedArgument& dropped) {
  std::string message = "dropped '" + dropped.option + "'";
  if (dropped.has_value)
    message += " and its value";
  switch (dropped.reason) {
  case DropReason::gcc_only:
    return message + ", which libclang does not accept";
  case DropReason::output:
    return message + ", which names a compiler output";
  case DropReason::writes_files:
    return message + ", which makes the compiler write files";
  case DropReason::prints:
    return message + ", which makes the compiler print to opscan's output";
  case DropReason::loads_code:
    return message + ", which makes the compiler load a plugin";
  case DropReason::module_cache:
    return message + ", which makes the compiler write a module cache (headers are included as "
                     "text instead)";
  }
  return message;
}

namespace {

// `path` made absolute against `directory`, lexically normal.
std::string absolute_in(const fs::path& directory, const std::string& path) {
  std::error_code ec;
  return fs::absolute(directory / path, ec).lexically_normal().string();
}

} // namespace

std::unique_ptr<CompilationDatabase> CompilationDatabase::open(const std::string& build_dir,
                                                               diag::Diagnostics& diags) {
  const std::string path = (fs::path(build_dir) / "compile_commands.json").string();
  auto fail = [&](const std::string& why) {
    diags.push_back(
        diag::make_error("opscan-no-compile-commands", {}, "cannot read " + path + ": " + why));
    return nullptr;
  };
  // Checked first: libclang prints to stderr when there is none, and would
  // block on a FIFO or read a device without end.
  if (std::string why = support::unreadable_reason(path); !why.empty())
    return fail(why);
  CXCompilationDatabase_Error error;
  CompilationDatabaseHandle db(clang_CompilationDatabase_fromDirectory(build_dir.c_str(), &error));
  if (error != CXCompilationDatabase_NoError)
    return fail("libclang cannot read it as a compilation database");
  std::set<std::string> files;
  CompileCommands all(clang_CompilationDatabase_getAllCompileCommands(db.get()));
  for (unsigned i = 0, n = clang_CompileCommands_getSize(all.get()); i < n; ++i) {
    CXCompileCommand command = clang_CompileCommands_getCommand(all.get(), i);
    files.insert(absolute_in(take(clang_CompileCommand_getDirectory(command)),
                             take(clang_CompileCommand_getFilename(command))));
  }
  return std::unique_ptr<CompilationDatabase>(
      new CompilationDatabase(std::move(db), build_dir, std::move(files)));
}

CompilationDatabase::CompilationDatabase(CompilationDatabaseHandle db, std::string build_dir,
                                         std::set<std::string> files)
    : db_(std::move(db)), build_dir_(std::move(build_dir)), files_(std::move(files)) {}

CompilationDatabase::~CompilationDatabase() = default;

std::optional<CompileCommand> CompilationDatabase::command_for(const std::string& file,
                                                               diag::Diagnostics& diags) const {
  std::string absolute = absolute_in(fs::current_path(), file);
  if (!files_.contains(absolute)) {
    diags.push_back(
        diag::make_error("opscan-no-compile-command", {file, 0, 0, 0},
                         "no entry for this file in " + build_dir_ + "/compile_commands.json"));
    return std::nullopt;
  }
  std::lock_guard lock(mutex_);
  CompileCommands commands(
      clang_CompilationDatabase_getCompileCommands(db_.get(), absolute.c_str()));
  std::optional<CompileCommand> result;
  if (clang_CompileCommands_getSize(commands.get()) == 0) {
    diags.push_back(
        diag::make_error("opscan-no-compile-command", {file, 0, 0, 0},
                         "no entry for this file in " + build_dir_ + "/compile_commands.json"));
  } else {
    CXCompileCommand command = clang_CompileCommands_getCommand(commands.get(), 0);
    CompileCommand out;
    out.file = absolute;
    std::string directory = take(clang_CompileCommand_getDirectory(command));
    // libclang does not apply the entry's directory by itself. Given to the
    // driver, -working-directory changes the directory of the whole process
    // (for every thread, and for good); the frontend resolves relative paths
    // against it without that.
    out.args.insert(out.args.end(), {"-Xclang", "-working-directory=" + directory});
    unsigned n = clang_CompileCommand_getNumArgs(command);
    // Its output (-o) and everything else a scan must not pass on goes in
    // filter_arguments, with the arguments given on the command line.
    for (unsigned i = 1; i < n; ++i) { // 0 is the compiler
      std::string arg = take(clang_CompileCommand_getArg(command, i));
      if (arg == "-c")
        continue;
      if (absolute_in(directory, arg) == absolute)
        continue;
      out.args.push_back(std::move(arg));
    }
    result = std::move(out);
  }
  return result;
}

// `database_args`), which every entry names: that one is expected.
std::vector<std::string> parse_arguments(const std::string& file, std::vector<std::string> args,
                                         diag::Diagnostics& notes, size_t database_args) {
  FilteredArguments filtered = filter_arguments(args);
  for (const DroppedArgument& dropped : filtered.dropped) {
    if (dropped.reason == DropReason::output && dropped.index < database_args)
      continue;
    notes.push_back(
        diag::make_note("opscan-dropped-flag", {file, 0, 0, 0}, dropped_message(dropped)));
  }
  add_scanning_arguments(filtered.kept);
  return std::move(filtered.kept);
}

} // namespace opscan::scan
