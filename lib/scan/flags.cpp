// The compiler arguments libclang gets: defaults, the database, and the filter of what passes.
#include "scan/flags.h"

#include "scan/clang.h"
#include "scan/includes.h"
#include "scan/response_files.h"
#include "support/files.h"
#include "support/text.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <system_error>

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

bool is_wrapper(const std::string& arg) {
  return arg == "-Xclang" || arg == "-Xpreprocessor";
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

namespace {

// The options naming a file the compiler reads, as the driver's table (and
// the frontend's) spells them.
struct NamedFile {
  std::string_view option;
  enum Form {
    separate,           // "-include-pch x.pch"
    joined_or_separate, // "-include x.h" or "-includex.h"
    joined,             // "-fprofile-list=x" (the spelling ends with '=')
  } form;
  bool text; // read whole as text: at most kMaxInputBytes
};
constexpr NamedFile kNamedFiles[] = {
    {"-include-pch", NamedFile::separate, false}, // before -include, which it starts with
    {"-include", NamedFile::joined_or_separate, true},
    {"--include", NamedFile::separate, true},
    {"--include=", NamedFile::joined, true},
    {"-imacros", NamedFile::joined_or_separate, true},
    {"--imacros", NamedFile::separate, true},
    {"--imacros=", NamedFile::joined, true},
    {"-chain-include", NamedFile::separate, true},
    {"-ivfsoverlay", NamedFile::joined_or_separate, true},
    {"-fmodule-map-file=", NamedFile::joined, true},
    {"-fmodule-file=", NamedFile::joined, false},
    {"-fprofile-list=", NamedFile::joined, true},
    {"-fsanitize-blacklist=", NamedFile::joined, true},
    {"-fsanitize-ignorelist=", NamedFile::joined, true},
    {"-fsanitize-system-blacklist=", NamedFile::joined, true},
    {"-fsanitize-system-ignorelist=", NamedFile::joined, true},
    {"-fsanitize-coverage-allowlist=", NamedFile::joined, true},
    {"-fsanitize-coverage-whitelist=", NamedFile::joined, true},
    {"-fsanitize-coverage-ignorelist=", NamedFile::joined, true},
    {"-fsanitize-coverage-blacklist=", NamedFile::joined, true},
    {"-fxray-always-instrument=", NamedFile::joined, true},
    {"-fxray-never-instrument=", NamedFile::joined, true},
    {"-fxray-attr-list=", NamedFile::joined_or_separate, true},
    {"-fprofile-instr-use=", NamedFile::joined, false},
    {"-fprofile-use=", NamedFile::joined, false},
    {"-fprofile-sample-use=", NamedFile::joined, false},
    {"-fauto-profile=", NamedFile::joined, false},
    {"-fprofile-remapping-file=", NamedFile::joined, false},
    {"-fprofile-instrument-use-path=", NamedFile::joined, false},
    {"-fopenmp-host-ir-file-path", NamedFile::separate, false},
    {"-fcuda-include-gpubinary", NamedFile::separate, false},
    {"-mlink-bitcode-file", NamedFile::separate, false},
    {"-mlink-builtin-bitcode", NamedFile::separate, false},
    {"-mlink-cuda-bitcode", NamedFile::separate, false},
};

// The arguments as the frontend reads them: -Xclang X and -Xpreprocessor X
// as X, -Wp,A,B as A and B.
std::vector<std::string> unwrapped(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (is_wrapper(args[i]) && i + 1 < args.size()) {
      out.push_back(args[++i]);
    } else if (args[i].starts_with("-Wp,")) {
      for (size_t begin = 4;;) {
        const size_t comma = args[i].find(',', begin);
        out.push_back(args[i].substr(begin, comma - begin));
        if (comma == std::string::npos)
          break;
        begin = comma + 1;
      }
    } else {
      out.push_back(args[i]);
    }
  }
  return out;
}

// The file `arg` (at `i` of `args`) names, with the option naming it; `i`
// moves past a separate value.
std::optional<std::pair<std::string_view, std::string>>
named_file(const std::vector<std::string>& args, size_t& i, bool& text) {
  const std::string& arg = args[i];
  for (const NamedFile& named : kNamedFiles) {
    text = named.text;
    if (named.form != NamedFile::joined && arg == named.option) {
      if (i + 1 < args.size())
        return std::pair{named.option, args[++i]};
      return std::nullopt;
    }
    if (named.form != NamedFile::separate && arg.starts_with(named.option) &&
        arg.size() > named.option.size())
      return std::pair{named.option, arg.substr(named.option.size())};
  }
  return std::nullopt;
}

} // namespace

std::optional<diag::Diagnostic> unreadable_named_file(const std::vector<std::string>& args,
                                                      bool missing_too) {
  const std::vector<std::string> read = unwrapped(args);
  const std::string working_directory = working_directory_of(args);
  for (size_t i = 0; i < read.size(); ++i) {
    bool text = false;
    const auto named = named_file(read, i, text);
    if (!named)
      continue;
    const auto& [option, given] = *named;
    std::string path = given;
    // -fmodule-file=[NAME=]FILE
    if (option == "-fmodule-file=" && given.find('=') != std::string::npos &&
        support::unreadable_reason(given).starts_with("No such"))
      path = given.substr(given.find('=') + 1);
    if (!path.starts_with('/') && !working_directory.empty())
      path = joined(working_directory, path);
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (status.type() == fs::file_type::directory)
      continue; // -fprofile-use=DIR; libclang says what else it makes of one
    if (status.type() == fs::file_type::not_found && !missing_too)
      continue; // -include searches the include path; libclang says when it is nowhere
    const std::string why = support::unreadable_reason(
        path, text ? support::kMaxInputBytes : std::numeric_limits<std::uintmax_t>::max());
    if (why.empty())
      continue;
    return diag::make_error(
        "opscan-io", {given, 0, 0, 0},
        fmt::format("cannot read {}, given with {}: {}; no file that uses it can be scanned", given,
                    option.ends_with('=') ? option.substr(0, option.size() - 1) : option, why));
  }
  return std::nullopt;
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

namespace {

// `path` made absolute against `directory`, lexically normal.
std::string absolute_in(const fs::path& directory, const std::string& path) {
  std::error_code ec;
  return fs::absolute(directory / path, ec).lexically_normal().string();
}

using Json = nlohmann::json;

// The arguments of an entry's "command", split as libclang 14's JSON
// compilation database splits it (POSIX-like: only spaces separate;
// '...' quotes; "..." quotes with backslash escapes; a backslash outside
// quotes escapes the next character).
std::vector<std::string> split_command(std::string_view command) {
  std::vector<std::string> args;
  size_t i = 0;
  const size_t n = command.size();
  while (true) {
    while (i < n && command[i] == ' ')
      ++i;
    if (i >= n)
      break;
    std::string arg;
    while (i < n && command[i] != ' ') {
      const char c = command[i];
      if (c == '\'' || c == '"') {
        for (++i; i < n && command[i] != c; ++i) {
          if (c == '"' && command[i] == '\\' && i + 1 < n)
            ++i;
          arg += command[i];
        }
        ++i;
      } else {
        if (c == '\\' && i + 1 < n)
          ++i;
        arg += command[i++];
      }
    }
    args.push_back(std::move(arg));
  }
  return args;
}

// Where the `entry`-th element of the array `text` (valid JSON) begins, or
// its member `key` when given and found: a byte offset.
size_t offset_of(std::string_view text, size_t entry, std::string_view key = {}) {
  size_t depth = 0, element = 0, found = 0;
  bool before_element = false; // at depth 1, the next token starts an element
  bool before_key = false;     // at depth 2, the next string is a key
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      continue;
    if (depth == 1 && before_element && c != ']') {
      before_element = false;
      if (element == entry) {
        found = i;
        if (key.empty())
          return i;
      }
    }
    if (c == '"') {
      const size_t start = i;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        i += text[i] == '\\';
      if (depth == 2 && before_key && element == entry &&
          text.substr(start + 1, i - start - 1) == key)
        return start;
      before_key = false;
    } else if (c == '[' || c == '{') {
      ++depth;
      before_element = depth == 1;
      before_key = depth == 2 && c == '{';
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',') {
      element += depth == 1;
      before_element = depth == 1;
      before_key = depth == 2;
    }
  }
  return found;
}

diag::Location location_at(std::string_view text, const std::string& path, size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line_start =
      before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  return {path, static_cast<uint32_t>(std::count(before.begin(), before.end(), '\n') + 1),
          static_cast<uint32_t>(offset - line_start + 1), static_cast<uint32_t>(offset)};
}

// Checks the database before it is read (libclang's reader printed its own
// unlocated complaint, and read a response file that is not a regular file,
// which blocks on a FIFO): a JSON array of objects,
// each with the strings "directory" and "file", and "arguments" (an array
// of strings) or "command" (a string); "output" may be given. Every @FILE
// of an entry's arguments must be readable as expand_response_files reads
// it. Errors go to `diags`, located; the response files read, to
// `response_files`; the JSON, to `root`.
bool check_database(const std::string& text, const std::string& path, diag::Diagnostics& diags,
                    std::vector<std::string>& response_files, Json& root) {
  auto invalid = [&](size_t offset, const std::string& message) {
    diags.push_back(diag::make_error("opscan-compile-commands-invalid",
                                     location_at(text, path, offset), message));
    return false;
  };
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte counts the characters read, the offending one included.
    const size_t at = e.byte > 0 ? e.byte - 1 : 0;
    return invalid(at, at >= text.size() ? "not valid JSON: the file ends too early (truncated?)"
                                         : "not valid JSON");
  } catch (const Json::exception&) {
    return invalid(0, "not valid JSON");
  }
  if (!root.is_array()) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    return invalid(first == std::string::npos ? 0 : first,
                   "a compilation database is a JSON array of entries");
  }
  constexpr std::string_view kFields[] = {"directory", "file", "arguments", "command", "output"};
  for (size_t i = 0; i < root.size(); ++i) {
    const Json& entry = root[i];
    const std::string which = fmt::format("entry {}", i + 1);
    if (!entry.is_object())
      return invalid(offset_of(text, i), which + " is not an object");
    for (const auto& [key, value] : entry.items()) {
      if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields)) {
        return invalid(offset_of(text, i, key),
                       fmt::format("{}: unknown field {} (fields: {})", which, support::quoted(key),
                                   fmt::join(kFields, ", ")));
      }
      const bool is_arguments = key == "arguments";
      const bool ok =
          is_arguments
              ? value.is_array() && std::all_of(value.begin(), value.end(),
                                                [](const Json& arg) { return arg.is_string(); })
              : value.is_string();
      if (!ok) {
        return invalid(offset_of(text, i, key),
                       fmt::format("{}: \"{}\" is not {}", which, key,
                                   is_arguments ? "an array of strings" : "a string"));
      }
    }
    for (std::string_view required : {"directory", "file"}) {
      if (!entry.contains(required))
        return invalid(offset_of(text, i), fmt::format("{} has no \"{}\"", which, required));
    }
    if (!entry.contains("arguments") && !entry.contains("command"))
      return invalid(offset_of(text, i), which + " has neither \"arguments\" nor \"command\"");
    // libclang expands the entry's response files (each relative to the
    // entry's directory) as it reads the database.
    std::vector<std::string> args;
    if (entry.contains("arguments"))
      args = entry["arguments"].get<std::vector<std::string>>();
    else
      args = split_command(entry["command"].get<std::string>());
    if (std::none_of(args.begin(), args.end(),
                     [](const std::string& arg) { return arg.starts_with('@'); }))
      continue;
    diag::Diagnostics unread;
    if (!expand_response_files(args, entry["directory"].get<std::string>(), unread,
                               &response_files)) {
      for (diag::Diagnostic& d : unread)
        d.message += fmt::format(" (named by {} of {})", which, path);
      diags.insert(diags.end(), unread.begin(), unread.end());
      return false;
    }
  }
  return true;
}

// The --driver-mode libclang 14's database reader adds to a command whose
// compiler is `argv0` (clang's table of program-name suffixes: g++, c++,
// clang++-14 and x86_64-linux-gnu-g++-12 are g++), or none. It adds
// --target=PREFIX too for such a prefix, but only once an index has
// registered the targets: never when a scan reads the database, before any
// parse; neither is it added here.
std::string_view driver_mode_of(std::string_view argv0) {
  static constexpr std::pair<std::string_view, std::string_view> kSuffixes[] = {
      {"clang", ""},
      {"clang++", "--driver-mode=g++"},
      {"clang-c++", "--driver-mode=g++"},
      {"clang-cc", ""},
      {"clang-cpp", "--driver-mode=cpp"},
      {"clang-g++", "--driver-mode=g++"},
      {"clang-gcc", ""},
      {"clang-cl", "--driver-mode=cl"},
      {"cc", ""},
      {"cpp", "--driver-mode=cpp"},
      {"cl", "--driver-mode=cl"},
      {"++", "--driver-mode=g++"},
      {"flang", "--driver-mode=flang"}};
  auto mode_of = [](std::string_view name) -> std::optional<std::string_view> {
    for (const auto& [suffix, mode] : kSuffixes) {
      if (name.ends_with(suffix))
        return mode;
    }
    return std::nullopt;
  };
  std::string_view name = argv0.substr(argv0.rfind('/') + 1);
  auto mode = mode_of(name);
  if (!mode) { // clang++3.5
    name = name.substr(0, name.find_last_not_of("0123456789.") + 1);
    mode = mode_of(name);
  }
  if (!mode) // clang++-tot
    mode = mode_of(name.substr(0, name.rfind('-')));
  return mode.value_or("");
}

// The command of a checked database entry, as libclang 14 read it: its
// "arguments" (one alone is split as a command), else its "command" split;
// response files expanded; the driver mode its compiler's name implies
// added after it, unless one is given.
std::vector<std::string> command_of(const Json& entry) {
  std::vector<std::string> args;
  if (entry.contains("arguments")) {
    args = entry["arguments"].get<std::vector<std::string>>();
    if (args.size() == 1)
      args = split_command(args[0]);
  } else {
    args = split_command(entry["command"].get<std::string>());
  }
  if (std::any_of(args.begin(), args.end(),
                  [](const std::string& arg) { return arg.starts_with('@'); })) {
    diag::Diagnostics unread; // none: the check read them all
    if (auto expanded = expand_response_files(args, entry["directory"].get<std::string>(), unread))
      args = std::move(*expanded);
  }
  if (args.empty())
    return args;
  const std::string_view mode = driver_mode_of(args[0]);
  if (!mode.empty() && std::none_of(args.begin() + 1, args.end(), [](const std::string& arg) {
        return arg.starts_with("--driver-mode=");
      }))
    args.insert(args.begin() + 1, std::string(mode));
  return args;
}

} // namespace

std::unique_ptr<CompilationDatabase> CompilationDatabase::open(const std::string& build_dir,
                                                               diag::Diagnostics& diags) {
  const std::string path = (fs::path(build_dir) / "compile_commands.json").string();
  // Checked first: a FIFO would block, a device never end.
  std::string error;
  std::optional<std::string> text = support::read_file(path, &error);
  if (!text) {
    diags.push_back(
        diag::make_error("opscan-no-compile-commands", {}, "cannot read " + path + ": " + error));
    return nullptr;
  }
  std::vector<std::string> response_files;
  Json root;
  if (!check_database(*text, path, diags, response_files, root))
    return nullptr;
  // Read here rather than by libclang, which a scan that parses nothing
  // does not load; with the same commands (flags_test holds libclang's).
  // Each file's first entry counts (libclang's reader listed them all, and
  // opscan took the first).
  std::unique_ptr<CompilationDatabase> out(new CompilationDatabase(build_dir));
  for (const Json& entry : root) {
    const std::string directory = entry["directory"].get<std::string>();
    const std::string file = absolute_in(directory, entry["file"].get<std::string>());
    if (out->commands_.count(file))
      continue;
    out->commands_.emplace(file, Entry{directory, command_of(entry)});
    out->files_.insert(file);
  }
  std::sort(response_files.begin(), response_files.end());
  response_files.erase(std::unique(response_files.begin(), response_files.end()),
                       response_files.end());
  out->response_files_ = std::move(response_files);
  return out;
}

CompilationDatabase::CompilationDatabase(std::string build_dir)
    : build_dir_(std::move(build_dir)) {}

CompilationDatabase::~CompilationDatabase() = default;

std::optional<CompileCommand> CompilationDatabase::command_for(const std::string& file,
                                                               diag::Diagnostics& diags) const {
  std::string absolute = absolute_in(fs::current_path(), file);
  auto entry = commands_.find(absolute);
  if (entry == commands_.end()) {
    diags.push_back(
        diag::make_error("opscan-no-compile-command", {file, 0, 0, 0},
                         "no entry for this file in " + build_dir_ + "/compile_commands.json"));
    return std::nullopt;
  }
  CompileCommand out;
  out.file = absolute;
  out.directory = entry->second.directory;
  const std::string& directory = out.directory;
  const std::vector<std::string>& args = entry->second.args;
  // Its output (-o) and everything else a scan must not pass on goes in
  // filter_arguments, with the arguments given on the command line.
  for (size_t i = 1; i < args.size(); ++i) { // 0 is the compiler
    const std::string& arg = args[i];
    if (arg == "-c")
      continue;
    if (absolute_in(directory, arg) == absolute)
      continue;
    out.args.push_back(arg);
  }
  return out;
}

// `database_args`), which every entry names: that one is expected.
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
