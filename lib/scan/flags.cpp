// Which compiler arguments reach libclang (filter_arguments and its deny and
// allow lists), and the arguments a scan adds.
#include "scan/flags.h"

#include "scan/flags_internal.h"
#include "scan/scan.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

namespace opscan::scan {

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
    args.insert(args.begin(), {"-resource-dir", clang_resource_dir()});
}

const char* clang_resource_dir() {
  return OPSCAN_CLANG_RESOURCE_DIR;
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

// The deny list. Each entry checked against libclang 14: every option its
// driver knows (`clang --autocomplete=-`), alone, with a value and with
// "=value", parsed by libclang in an empty directory, then a look at what
// appeared, at standard output and at the working directory. libclang runs
// the frontend with -fsyntax-only added, so of the clang driver's outputs
// these still happen: dependency files (-MD, -MMD, -M... -MF, -MJ,
// -Wp,-MD,...; -M and -MM without -MF print the rule to standard output),
// the module cache of implicit modules, and -Xclang's -dependency-file,
// -dependency-dot, -header-include-file and -module-dependency-dir; -v, -H,
// --help, --version, -dump*, --autocomplete= and -print-* print;
// -working-directory moves the process; --config reads more options; -###,
// -save-temps and -Xclang -add-plugin make the parse fail (-Xclang
// -print-stats crashes it). The others (-o, --serialize-diagnostics,
// -ftime-trace, -save-stats, -fproc-stat-report, -emit-*,
// -fcrash-diagnostics-dir=, plugins, -mllvm) do nothing under libclang 14
// but write, load or print with clang: dropped all the same, since no scan
// needs them.
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
  enum Scope {
    anywhere,
    driver_only,   // the driver's spelling: not after -Xclang/-Xpreprocessor
    frontend_only, // the frontend's spelling: only after -Xclang/-Xpreprocessor
  } scope = anywhere;
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
    {"--save-temps", Rule::exact, DropReason::writes_files},
    {"--save-temps=", Rule::prefix, DropReason::writes_files},
    {"-save-stats", Rule::exact, DropReason::writes_files},
    {"-save-stats=", Rule::prefix, DropReason::writes_files},
    {"--save-stats", Rule::exact, DropReason::writes_files},
    {"--save-stats=", Rule::prefix, DropReason::writes_files},
    {"--serialize-diagnostics", Rule::separate, DropReason::writes_files},
    {"-serialize-diagnostics", Rule::separate, DropReason::writes_files},
    {"--serialize-diagnostics=", Rule::prefix, DropReason::writes_files},
    {"-ftime-trace", Rule::exact, DropReason::writes_files},
    {"-ftime-trace=", Rule::prefix, DropReason::writes_files},
    {"-fproc-stat-report", Rule::exact, DropReason::writes_files},
    {"-fproc-stat-report=", Rule::prefix, DropReason::writes_files},
    {"-fcrash-diagnostics-dir=", Rule::prefix, DropReason::writes_files},
    {"-module-dependency-dir", Rule::separate, DropReason::writes_files},
    {"-gen-cdb-fragment-path", Rule::separate, DropReason::writes_files},
    {"-fmodules-cache-path=", Rule::prefix, DropReason::writes_files},
    {"-ccc-arcmt-modify", Rule::exact, DropReason::writes_files},
    {"-ccc-arcmt-migrate", Rule::separate, DropReason::writes_files},
    {"-ccc-objcmt-migrate", Rule::separate, DropReason::writes_files},
    {"-v", Rule::exact, DropReason::prints},
    {"--verbose", Rule::exact, DropReason::prints},
    {"-###", Rule::exact, DropReason::prints},
    {"-H", Rule::exact, DropReason::prints},
    {"--trace-includes", Rule::exact, DropReason::prints},
    {"-print-", Rule::prefix, DropReason::prints}, // -Xclang -print-stats too
    {"--print-", Rule::prefix, DropReason::prints},
    {"-help", Rule::exact, DropReason::prints},
    {"--help", Rule::exact, DropReason::prints},
    {"--help-hidden", Rule::exact, DropReason::prints},
    {"--version", Rule::exact, DropReason::prints},
    {"-dumpmachine", Rule::exact, DropReason::prints},
    {"-dumpversion", Rule::exact, DropReason::prints},
    {"-dumpspecs", Rule::exact, DropReason::prints},
    {"--autocomplete=", Rule::prefix, DropReason::prints},
    {"-ccc-print-phases", Rule::exact, DropReason::prints},
    {"-ccc-print-bindings", Rule::exact, DropReason::prints},
    {"-ccc-arcmt-check", Rule::exact, DropReason::prints},
    {"-fplugin=", Rule::prefix, DropReason::loads_code},
    {"-fpass-plugin=", Rule::prefix, DropReason::loads_code},
    {"-fplugin-arg-", Rule::prefix, DropReason::loads_code},
    {"-working-directory=", Rule::prefix, DropReason::changes_directory, Rule::driver_only},
    {"-working-directory", Rule::joined_or_separate, DropReason::changes_directory,
     Rule::driver_only},
    // clang 14's driver runs amdgpu-arch (found on -B, --prefix, COMPILER_PATH,
    // -ccc-install-dir, PATH; or the program --amdgpu-arch-tool= names) to
    // pick the GPU of an OpenMP offload target given without -march. A scan
    // reads the host's declarations: no offload target, no program path.
    {"-fopenmp-targets=", Rule::prefix, DropReason::runs_programs, Rule::driver_only},
    {"--amdgpu-arch-tool=", Rule::prefix, DropReason::runs_programs},
    {"-B", Rule::joined_or_separate, DropReason::runs_programs, Rule::driver_only},
    {"--prefix", Rule::separate, DropReason::runs_programs},
    {"--prefix=", Rule::prefix, DropReason::runs_programs},
    {"-ccc-install-dir", Rule::separate, DropReason::runs_programs},
    {"--config", Rule::separate, DropReason::reads_config},
    {"--config=", Rule::prefix, DropReason::reads_config},
    {"--config-system-dir=", Rule::prefix, DropReason::reads_config},
    {"--config-user-dir=", Rule::prefix, DropReason::reads_config},
    {"-mllvm", Rule::separate, DropReason::not_run},
    {"-Xanalyzer", Rule::separate, DropReason::not_run},
    {"-Xarch_", Rule::prefix_separate, DropReason::not_run},
    {"-Xopenmp-target", Rule::separate, DropReason::not_run},
    {"-Xopenmp-target=", Rule::prefix_separate, DropReason::not_run},
    {"-Xcuda-ptxas", Rule::separate, DropReason::not_run},
    {"-Xcuda-fatbinary", Rule::separate, DropReason::not_run},
    {"-working-directory=", Rule::prefix, DropReason::reads_elsewhere, Rule::frontend_only},
    {"-working-directory", Rule::joined_or_separate, DropReason::reads_elsewhere,
     Rule::frontend_only},
    {"-dependency-file", Rule::separate, DropReason::writes_files, Rule::frontend_only},
    {"-dependency-dot", Rule::separate, DropReason::writes_files, Rule::frontend_only},
    {"-header-include-file", Rule::separate, DropReason::writes_files, Rule::frontend_only},
    {"-diagnostic-log-file", Rule::separate, DropReason::writes_files, Rule::frontend_only},
    {"-serialize-diagnostic-file", Rule::separate, DropReason::writes_files, Rule::frontend_only},
    {"-stats-file=", Rule::prefix, DropReason::writes_files, Rule::frontend_only},
    {"-load", Rule::separate, DropReason::loads_code, Rule::frontend_only},
    {"-plugin", Rule::separate, DropReason::loads_code, Rule::frontend_only},
    {"-add-plugin", Rule::separate, DropReason::loads_code, Rule::frontend_only},
    {"-plugin-arg-", Rule::prefix_separate, DropReason::loads_code, Rule::frontend_only},
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
    "-resource-dir",
    "-cxx-isystem",
    "-isystem-after",
    "-imultilib",
    "--param",
    "-Xlinker",
    "-Xassembler",
    "-ccc-gcc-name",
};

// The frontend's options that may pass (-Xclang X, -Xpreprocessor X, -Wp,X):
// those saying what is read (macros, include paths, precompiled headers),
// the language, the warnings and the target. With a value, the value is the
// next -Xclang argument.
constexpr std::string_view kFrontendWithValue[] = {
    "-D",
    "-U",
    "-I",
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
    "-internal-isystem",
    "-internal-externc-isystem",
    "-c-isystem",
    "-cxx-isystem",
    "-objc-isystem",
    "-objcxx-isystem",
    "-resource-dir",
    "-ivfsoverlay",
    "-x",
    "-triple",
    "-aux-triple",
    "-target-cpu",
    "-target-feature",
    "-target-abi",
    "-tune-cpu",
    "-main-file-name",
    "-mrelocation-model",
    "-mthread-model",
    "-pic-level",
};
constexpr std::string_view kFrontendFlags[] = {
    "-nostdinc",
    "-nostdinc++",
    "-nostdsysteminc",
    "-nobuiltininc",
    "-undef",
    "-trigraphs",
    "-w",
    "-pedantic",
    "-pedantic-errors",
    "-disable-pragma-debug-crash",
    "-disable-free",
    "-disable-llvm-verifier",
    "-discard-value-names",
    "-pic-is-pie",
    "-mconstructor-aliases",
    "-munwind-tables",
    "-mms-bitfields",
};
// Joined: "-DX", "-Wall", "-std=c++17", "-fno-rtti", ...
constexpr std::string_view kFrontendPrefixes[] = {
    "-D",
    "-U",
    "-I",
    "-W",
    "-std=",
    "-stdlib=",
    "-f",
    "-O",
    "-mframe-pointer=",
    "-mlong-double-",
    "-debug-info-kind=",
    "-dwarf-version=",
};
// -f flags of the frontend that are not safe: they print (record layouts),
// apply fix-its to the sources, time (and print) or build modules.
constexpr std::string_view kFrontendDenied[] = {
    "-fdump-",         "-fixit",   "-ftime-",         "-fmodules", "-fimplicit-modules",
    "-fmodule-format", "-fcrash-", "-fbuild-session",
};

// Recursion limits and clang 14's defaults (LangOptions.def): a larger one
// lets deep input (nested brackets, recursive templates or constexpr calls)
// overflow libclang's stack, which kills the process, or (constexpr steps)
// run without end.
struct Limit {
  std::string_view name;
  unsigned long long default_value;
};
constexpr Limit kLimits[] = {
    {"-fbracket-depth", 256},
    {"-ftemplate-depth", 1024},
    {"-fconstexpr-depth", 512},
    {"-fconstexpr-steps", 1048576},
};

// The driver modes whose arguments are GCC's, as a scan reads them.
constexpr std::string_view kDriverModes[] = {"--driver-mode=gcc", "--driver-mode=g++"};

template <size_t N>
bool listed(const std::string_view (&list)[N], std::string_view arg) {
  return std::find(std::begin(list), std::end(list), arg) != std::end(list);
}

template <size_t N>
bool prefixed(const std::string_view (&list)[N], std::string_view arg) {
  return std::any_of(std::begin(list), std::end(list),
                     [&](std::string_view p) { return arg.starts_with(p); });
}

// What filter_arguments does with one argument (after -Xclang and the
// like, when `wrapped`).
struct Decision {
  std::optional<DropReason> drop;
  std::string option;        // as the note names it
  bool value_joined = false; // "-MFdeps.d": the value went with it
  bool takes_next = false;   // the next argument (wrapped as this one) is its value
};

std::optional<Decision> by_rule(std::string_view arg, bool wrapped) {
  for (const Rule& rule : kRules) {
    if ((rule.scope == Rule::frontend_only && !wrapped) ||
        (rule.scope == Rule::driver_only && wrapped))
      continue;
    const bool prefixed = arg.starts_with(rule.spelling);
    const std::string whole(arg);
    switch (rule.form) {
    case Rule::exact:
      if (arg == rule.spelling)
        return Decision{rule.reason, whole};
      break;
    case Rule::separate:
      if (arg == rule.spelling)
        return Decision{rule.reason, whole, false, true};
      break;
    case Rule::prefix:
      if (prefixed)
        return Decision{rule.reason, whole};
      break;
    case Rule::prefix_separate:
      if (prefixed)
        return Decision{rule.reason, whole, false, true};
      break;
    case Rule::joined_or_separate:
      if (arg == rule.spelling)
        return Decision{rule.reason, whole, false, true};
      // -object, -objcmt-... are options of their own, not -o.
      if (prefixed && !arg.starts_with("-obj"))
        return Decision{rule.reason, std::string(rule.spelling), true};
      break;
    }
  }
  return std::nullopt;
}

// A recursion limit: kept at most at clang's default. The driver spells it
// "-fbracket-depth=N" (and GCC's "-ftemplate-depth-N"), the frontend
// "-fbracket-depth N".
std::optional<Decision> by_limit(std::string_view arg, const std::string* next) {
  for (const Limit& limit : kLimits) {
    if (!arg.starts_with(limit.name))
      continue;
    std::string_view rest = arg.substr(limit.name.size());
    const bool separate = rest.empty();
    if (!separate && !rest.starts_with('=') && !rest.starts_with('-'))
      continue; // another option with this prefix
    std::string_view value = separate ? (next ? std::string_view(*next) : "") : rest.substr(1);
    unsigned long long n = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
    const bool at_most_default =
        error == std::errc() && end == value.data() + value.size() && n <= limit.default_value;
    if (at_most_default)
      return Decision{std::nullopt, std::string(arg), false, separate};
    return Decision{DropReason::raises_limit, std::string(arg), !separate, separate};
  }
  return std::nullopt;
}

// Whether the frontend option `arg` (-Xclang arg) is on the allow list;
// with `takes_next` set when its value is the next -Xclang argument.
bool frontend_allows(std::string_view arg, bool& takes_next) {
  takes_next = listed(kFrontendWithValue, arg);
  if (takes_next || listed(kFrontendFlags, arg))
    return true;
  // -W, joined, is a warning option; -Wl, -Wa, and -Wp, are not the frontend's.
  if (arg.starts_with("-W") && arg.size() > 3 && arg[3] == ',')
    return false;
  if (arg.starts_with("-f") && prefixed(kFrontendDenied, arg))
    return false;
  return prefixed(kFrontendPrefixes, arg);
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

Decision decide(std::string_view arg, bool wrapped, const std::string* next,
                bool implicit_modules) {
  if (std::optional<Decision> d = by_rule(arg, wrapped))
    return *d;
  if (std::optional<Decision> d = by_limit(arg, next))
    return *d;
  const std::string whole(arg);
  if (implicit_modules && !wrapped &&
      (arg == "-fmodules" || arg == "-fcxx-modules" || arg == "-fimplicit-modules"))
    return {DropReason::module_cache, whole};
  if (is_gcc_only_flag(arg))
    return {DropReason::gcc_only, whole};
  if (!wrapped && arg.starts_with("--driver-mode=") && !listed(kDriverModes, arg))
    return {DropReason::driver_mode, whole};
  if (!wrapped && arg.starts_with('@'))
    return {DropReason::response_file, whole};
  if (wrapped) {
    bool takes_next = false;
    if (!frontend_allows(arg, takes_next)) {
      const bool builds_modules =
          arg.starts_with("-fmodules") || arg.starts_with("-fimplicit-modules");
      return {builds_modules ? DropReason::module_cache : DropReason::unknown_frontend, whole};
    }
    return {std::nullopt, whole, false, takes_next};
  }
  return {std::nullopt, whole, false, listed(kKeptWithValue, arg)};
}

FilteredArguments filter(const std::vector<std::string>& args, bool implicit_modules);

// The parts of -Wp,A,B,...: options passed to the frontend as they are
// (each as if given with -Xpreprocessor), but -MD,FILE and -MMD,FILE, which
// clang's driver reads as -MD -MF FILE.
void filter_preprocessor_list(const std::string& arg, size_t index, bool implicit_modules,
                              FilteredArguments& out) {
  std::vector<std::string> parts;
  for (size_t begin = 4;;) { // after "-Wp,"
    const size_t comma = arg.find(',', begin);
    parts.push_back(arg.substr(begin, comma - begin));
    if (comma == std::string::npos)
      break;
    begin = comma + 1;
  }
  std::vector<std::string> wrapped;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool with_file =
        part == "-MD" || part == "-MMD" || part == "-MF" || part == "-MT" || part == "-MQ";
    if (with_file || part == "-M" || part == "-MM" || part == "-MP" || part == "-MG") {
      const bool has_value = with_file && i + 1 < parts.size();
      out.dropped.push_back({"-Wp," + part, DropReason::writes_files, has_value, index});
      i += has_value;
    } else {
      wrapped.insert(wrapped.end(), {"-Xpreprocessor", part});
    }
  }
  FilteredArguments inner = filter(wrapped, implicit_modules);
  for (DroppedArgument& dropped : inner.dropped) {
    dropped.option = "-Wp," + dropped.option.substr(std::string_view("-Xpreprocessor ").size());
    dropped.index = index;
    out.dropped.push_back(std::move(dropped));
  }
  std::string kept;
  for (size_t i = 1; i < inner.kept.size(); i += 2)
    kept += (kept.empty() ? "-Wp," : ",") + inner.kept[i];
  if (!kept.empty())
    out.kept.push_back(std::move(kept));
}

FilteredArguments filter(const std::vector<std::string>& args, bool implicit_modules) {
  FilteredArguments out;
  const size_t n = args.size();
  for (size_t i = 0; i < n;) {
    // -Xclang X and -Xpreprocessor X pass X on; X's value comes as the
    // wrapper again and the value.
    const bool wrapped = is_wrapper(args[i]) && i + 1 < n;
    const std::string& arg = wrapped ? args[i + 1] : args[i];
    const std::string wrapper = wrapped ? args[i] + " " : "";
    const size_t width = wrapped ? 2 : 1;
    // "--" is never a value: the driver reads it wherever it is.
    const size_t at = i + width + (wrapped ? 1 : 0);
    const bool has_next = at < n && (!wrapped || args[i + width] == args[i]) && args[at] != "--";
    const std::string* next = has_next ? &args[at] : nullptr;
    if (arg == "--" && !wrapped) {
      out.dropped.push_back({arg, DropReason::ends_options, false, i});
      ++i;
      continue;
    }
    if (!wrapped && arg.starts_with("-Wp,")) {
      filter_preprocessor_list(arg, i, implicit_modules, out);
      ++i;
      continue;
    }
    // The frontend would take opscan's next argument.
    if (!wrapped && is_wrapper(arg)) {
      out.dropped.push_back({arg, DropReason::unknown_frontend, false, i});
      ++i;
      continue;
    }
    Decision d = decide(arg, wrapped, next, implicit_modules);
    // A frontend option kept without its value would take the next one
    // the frontend gets, maybe one of opscan's own.
    if (!d.drop && d.takes_next && wrapped && !has_next) {
      d.drop = DropReason::unknown_frontend;
      d.takes_next = false;
    }
    const size_t value = d.takes_next && has_next ? width : 0;
    if (d.drop)
      out.dropped.push_back({wrapper + d.option, *d.drop, d.value_joined || value > 0, i});
    else
      out.kept.insert(out.kept.end(), args.begin() + i, args.begin() + i + width + value);
    i += width + value;
  }
  return out;
}

} // namespace

FilteredArguments filter_arguments(const std::vector<std::string>& args) {
  // Each argument as libclang reads it: a C string, which ends at the first
  // NUL byte ("-M\0x" is -M).
  std::vector<std::string> read(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    read[i] = args[i].substr(0, args[i].find('\0'));
  return filter(read, builds_implicit_modules(read));
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
  case DropReason::changes_directory:
    return message + ", which would move opscan into another directory";
  case DropReason::reads_config:
    return message + ", which makes the compiler read options from a configuration file";
  case DropReason::driver_mode:
    return message + ", which makes the compiler read its arguments as another driver (only the "
                     "gcc and g++ modes are scanned)";
  case DropReason::not_run:
    return message + ", which passes options to a part of the compiler a scan does not run";
  case DropReason::unknown_frontend:
    return message + ", which passes the compiler's frontend an option opscan does not know to "
                     "be safe";
  case DropReason::raises_limit:
    return message + ", which raises a compiler limit above its default (deep input would "
                     "overflow the stack)";
  case DropReason::reads_elsewhere:
    return message + ", which makes the compiler read relative paths from another directory";
  case DropReason::response_file:
    return message + ", a response file opscan did not read";
  case DropReason::ends_options:
    return message + ", after which the compiler reads every argument as a file to compile";
  case DropReason::runs_programs:
    return message + ", which can make the compiler run a program";
  }
  return message;
}

std::vector<std::string> parse_arguments(const std::string& file, std::vector<std::string> args,
                                         diag::Diagnostics& notes, size_t database_args,
                                         const std::string& directory) {
  FilteredArguments filtered = filter_arguments(args);
  for (const DroppedArgument& dropped : filtered.dropped) {
    if (dropped.reason == DropReason::output && dropped.index < database_args)
      continue;
    notes.push_back(
        diag::make_note("opscan-dropped-flag", {file, 0, 0, 0}, dropped_message(dropped)));
  }
  // libclang does not apply a database entry's directory by itself. Given
  // to the driver, -working-directory changes the directory of the whole
  // process (for every thread, and for good); the frontend resolves relative
  // paths against it without that. Added after the filter, which drops any
  // other.
  if (!directory.empty())
    filtered.kept.insert(filtered.kept.begin(), {"-Xclang", "-working-directory=" + directory});
  add_scanning_arguments(filtered.kept);
  return std::move(filtered.kept);
}

} // namespace opscan::scan
