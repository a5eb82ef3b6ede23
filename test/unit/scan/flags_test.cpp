// filter_arguments: which compiler arguments a scan keeps from libclang, and
// the notes a run gives for those it drops.
#include "scan/flags.h"
#include "scan/live.h"
#include "scan/response_files.h"
#include "scan_test_helpers.h"

#include <clang-c/CXCompilationDatabase.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <sys/stat.h>
#include <tuple>
#include <utility>
#include <vector>

namespace opscan::scan {
namespace {

using namespace test_support;
using Args = std::vector<std::string>;
using Json = nlohmann::json;

// The options filter_arguments drops from `args`, as the notes name them.
std::vector<std::string> dropped_options(const Args& args) {
  std::vector<std::string> options;
  for (const DroppedArgument& d : filter_arguments(args).dropped)
    options.push_back(d.option);
  return options;
}

Args kept(const Args& args) {
  return filter_arguments(args).kept;
}

TEST(FilterArguments, DependencyOutputIsDroppedWithItsValues) {
  const Args args = {"-MD",
                     "-MF",
                     "deps.d",
                     "-MMD",
                     "-MFother.d",
                     "-MT",
                     "target",
                     "-MQ",
                     "$obj",
                     "-MP",
                     "-MG",
                     "-M",
                     "-MM",
                     "-MJ",
                     "db.json",
                     "-MJfragment.json",
                     "-MV",
                     "--write-dependencies",
                     "--write-user-dependencies",
                     "--dependencies",
                     "--user-dependencies"};
  EXPECT_EQ(kept(args), Args{});
  EXPECT_EQ(dropped_options(args),
            (Args{"-MD", "-MF", "-MMD", "-MF", "-MT", "-MQ", "-MP", "-MG", "-M", "-MM", "-MJ",
                  "-MJ", "-MV", "--write-dependencies", "--write-user-dependencies",
                  "--dependencies", "--user-dependencies"}));
  const FilteredArguments filtered = filter_arguments({"-I", "inc", "-MF", "deps.d", "-MD"});
  ASSERT_EQ(filtered.dropped.size(), 2u);
  EXPECT_TRUE(filtered.dropped[0].has_value);
  EXPECT_EQ(filtered.dropped[0].index, 2u);
  EXPECT_EQ(filtered.dropped[0].reason, DropReason::writes_files);
  EXPECT_FALSE(filtered.dropped[1].has_value);
  EXPECT_EQ(filtered.dropped[1].index, 4u);
  EXPECT_EQ(filtered.kept, (Args{"-I", "inc"}));
}

TEST(FilterArguments, OutputInEverySpelling) {
  const Args args = {"-o", "a.o", "-ob.o", "--output=c.o", "--output", "d.o"};
  EXPECT_EQ(kept(args), Args{});
  EXPECT_EQ(dropped_options(args), (Args{"-o", "-o", "--output=c.o", "--output"}));
  for (const DroppedArgument& d : filter_arguments(args).dropped)
    EXPECT_EQ(d.reason, DropReason::output);
  // Options of their own that begin with -o.
  EXPECT_EQ(kept({"-objcmt-migrate-literals", "-object"}),
            (Args{"-objcmt-migrate-literals", "-object"}));
}

TEST(FilterArguments, OtherOutputsTracesAndStatistics) {
  const Args args = {"-emit-ast",
                     "-emit-llvm",
                     "-emit-pch",
                     "-emit-module",
                     "-save-temps",
                     "-save-temps=obj",
                     "--serialize-diagnostics",
                     "diags.dia",
                     "-serialize-diagnostics",
                     "more.dia",
                     "-ftime-trace",
                     "-ftime-trace=trace.json",
                     "-fcrash-diagnostics-dir=crash",
                     "-save-stats",
                     "-save-stats=cwd",
                     "-fproc-stat-report",
                     "-fproc-stat-report=report.txt",
                     "-fmodules-cache-path=cache",
                     "-module-dependency-dir",
                     "copies"};
  EXPECT_EQ(kept(args), Args{});
  EXPECT_EQ(filter_arguments(args).dropped.size(), 17u);
  // The granularity of a trace no longer taken writes nothing: kept.
  EXPECT_EQ(kept({"-ftime-trace-granularity=10"}), Args{"-ftime-trace-granularity=10"});
}

TEST(FilterArguments, PrintingFlags) {
  const Args args = {"-v", "--verbose", "-###", "-H", "-print-resource-dir", "--print-file-name=x"};
  EXPECT_EQ(kept(args), Args{});
  for (const DroppedArgument& d : filter_arguments(args).dropped)
    EXPECT_EQ(d.reason, DropReason::prints);
}

TEST(FilterArguments, PluginsThroughTheDriverAndTheFrontend) {
  const Args args = {"-fplugin=/p/a.so",
                     "-fpass-plugin=/p/b.so",
                     "-fplugin-arg-a-x",
                     "-Xclang",
                     "-load",
                     "-Xclang",
                     "/p/c.so",
                     "-Xclang",
                     "-plugin",
                     "-Xclang",
                     "print-fns",
                     "-Xclang",
                     "-add-plugin",
                     "-Xclang",
                     "other",
                     "-Xclang",
                     "-plugin-arg-other",
                     "-Xclang",
                     "value"};
  EXPECT_EQ(kept(args), Args{});
  EXPECT_EQ(dropped_options(args),
            (Args{"-fplugin=/p/a.so", "-fpass-plugin=/p/b.so", "-fplugin-arg-a-x", "-Xclang -load",
                  "-Xclang -plugin", "-Xclang -add-plugin", "-Xclang -plugin-arg-other"}));
  // Without -Xclang, -load is the driver's -l oad (a library to link, which a
  // scan never does): not the frontend's option, and its next argument stays.
  EXPECT_EQ(kept({"-load", "x.cpp"}), (Args{"-load", "x.cpp"}));
}

TEST(FilterArguments, FrontendOutputsGivenWithXclang) {
  const Args args = {"-Xclang",        "-dependency-file",
                     "-Xclang",        "deps.d",
                     "-Xclang",        "-MT",
                     "-Xclang",        "target",
                     "-Xclang",        "-dependency-dot",
                     "-Xclang",        "deps.dot",
                     "-Xclang",        "-header-include-file",
                     "-Xclang",        "headers.txt",
                     "-Xclang",        "-stats-file=stats.json",
                     "-Xclang",        "-print-stats",
                     "-Xpreprocessor", "-MD"};
  EXPECT_EQ(kept(args), Args{});
  EXPECT_EQ(dropped_options(args),
            (Args{"-Xclang -dependency-file", "-Xclang -MT", "-Xclang -dependency-dot",
                  "-Xclang -header-include-file", "-Xclang -stats-file=stats.json",
                  "-Xclang -print-stats", "-Xpreprocessor -MD"}));
  // Other frontend arguments pass, with their values.
  EXPECT_EQ(kept({"-Xclang", "-fno-validate-pch", "-Xclang", "-main-file-name", "-Xclang", "-MD"}),
            (Args{"-Xclang", "-fno-validate-pch", "-Xclang", "-main-file-name", "-Xclang", "-MD"}));
}

TEST(FilterArguments, PreprocessorListsKeepTheirOtherOptions) {
  EXPECT_EQ(kept({"-Wp,-MD,deps.d"}), Args{});
  EXPECT_EQ(dropped_options({"-Wp,-MD,deps.d"}), Args{"-Wp,-MD"});
  EXPECT_EQ(kept({"-Wp,-MMD,deps.d,-DFROM_WP=1,-MP"}), Args{"-Wp,-DFROM_WP=1"});
  EXPECT_EQ(dropped_options({"-Wp,-MMD,deps.d,-DFROM_WP=1,-MP"}), (Args{"-Wp,-MMD", "-Wp,-MP"}));
  EXPECT_EQ(kept({"-Wp,-DX,-UY"}), Args{"-Wp,-DX,-UY"});
}

TEST(FilterArguments, ImplicitModulesAreDroppedExplicitOnesKept) {
  EXPECT_EQ(kept({"-fmodules", "-fcxx-modules", "-fimplicit-module-maps"}),
            Args{"-fimplicit-module-maps"});
  EXPECT_EQ(filter_arguments({"-fmodules"}).dropped.at(0).reason, DropReason::module_cache);
  // The last of -f[no-]implicit-modules decides.
  EXPECT_EQ(kept({"-fmodules", "-fno-implicit-modules", "-fimplicit-modules"}),
            Args{"-fno-implicit-modules"});
  const Args explicit_modules = {"-fmodules", "-fimplicit-modules", "-fno-implicit-modules",
                                 "-fmodule-file=H=h.pcm", "-fmodule-map-file=module.modulemap"};
  EXPECT_EQ(kept(explicit_modules), explicit_modules);
  // Where a cache would go is dropped either way.
  EXPECT_EQ(kept({"-fmodules", "-fno-implicit-modules", "-fmodules-cache-path=cache"}),
            (Args{"-fmodules", "-fno-implicit-modules"}));
}

TEST(FilterArguments, WhatTheUserAskedToReadStays) {
  const Args args = {"-include-pch", "pre.pch",  "-include",     "first.h", "-fmodule-file=m.pcm",
                     "-I",           "inc",      "-isystem",     "sys",     "-std=c++20",
                     "-DX=1",        "-x",       "c++",          "-c",      "-Wall",
                     "-ivfsoverlay", "vfs.yaml", "-fsyntax-only"};
  EXPECT_EQ(kept(args), args);
}

TEST(FilterArguments, ValuesAreNotReadAsOptions) {
  // Each value here looks like an option that is dropped elsewhere.
  const Args args = {"-include", "-MD", "-I", "-o", "-D", "-v", "-isystem", "-MF", "-x", "-H"};
  EXPECT_EQ(kept(args), args);
  // A dropped option's value goes with it, whatever it looks like.
  EXPECT_EQ(kept({"-MF", "-I", "inc"}), Args{"inc"});
}

TEST(FilterArguments, AnOptionMissingItsValue) {
  const FilteredArguments filtered = filter_arguments({"-std=c++17", "-MF"});
  EXPECT_EQ(filtered.kept, Args{"-std=c++17"});
  ASSERT_EQ(filtered.dropped.size(), 1u);
  EXPECT_FALSE(filtered.dropped[0].has_value);
  // Through -Xclang, the value is -Xclang and the value.
  EXPECT_EQ(kept({"-Xclang", "-load", "lib.so"}), Args{"lib.so"});
}

TEST(FilterArguments, GccOnlyFlags) {
  const FilteredArguments filtered =
      filter_arguments({"-fconcepts", "-fdump-tree-all", "-O2", "-fno-gnu-unique"});
  EXPECT_EQ(filtered.kept, Args{"-O2"});
  ASSERT_EQ(filtered.dropped.size(), 3u);
  for (const DroppedArgument& d : filtered.dropped)
    EXPECT_EQ(d.reason, DropReason::gcc_only);
}

TEST(FilterArguments, FilteringTwiceDropsNothingMore) {
  const Args args = {"-MD", "-MF", "d", "-Wp,-MMD,e.d,-DX", "-fmodules", "-I", "inc", "-o", "x.o"};
  const FilteredArguments once = filter_arguments(args);
  const FilteredArguments twice = filter_arguments(once.kept);
  EXPECT_EQ(twice.kept, once.kept);
  EXPECT_TRUE(twice.dropped.empty());
}

// ---------------------------------------------------------------------------
// The decision for each family of options: what it would make libclang do,
// and what passes. Every row's arguments are given the ways a scan gets them
// (after -- or in a --flags-file, which become the same list, and in a
// compilation database entry); the same decision must come out.

using Drop = std::pair<std::string, DropReason>;

struct Family {
  std::string name;
  Args args;
  Args kept;
  std::vector<Drop> dropped;
};

void PrintTo(const Family& f, std::ostream* os) {
  *os << f.name;
}

const std::vector<Family> kFamilies = {
    // Writes files.
    {"DependencyFiles",
     {"-MD", "-MF", "deps.d", "-Wp,-MMD,d.d"},
     {},
     {{"-MD", DropReason::writes_files},
      {"-MF", DropReason::writes_files},
      {"-Wp,-MMD", DropReason::writes_files}}},
    {"SaveTemps",
     {"--save-temps", "-save-temps=obj"},
     {},
     {{"--save-temps", DropReason::writes_files}, {"-save-temps=obj", DropReason::writes_files}}},
    // The driver's "-" options that "--" spells too.
    {"SaveTempsAndStatisticsWithTwoDashes",
     {"--save-temps=cwd", "--save-stats", "--save-stats=obj"},
     {},
     {{"--save-temps=cwd", DropReason::writes_files},
      {"--save-stats", DropReason::writes_files},
      {"--save-stats=obj", DropReason::writes_files}}},
    {"CompilationDatabaseFragments",
     {"-gen-cdb-fragment-path", "cdb"},
     {},
     {{"-gen-cdb-fragment-path", DropReason::writes_files}}},
    {"FrontendDependencyFile",
     {"-Xclang", "-dependency-file", "-Xclang", "d.d"},
     {},
     {{"-Xclang -dependency-file", DropReason::writes_files}}},
    {"SourceRewriting",
     {"-ccc-arcmt-modify", "-ccc-objcmt-migrate", "out"},
     {},
     {{"-ccc-arcmt-modify", DropReason::writes_files},
      {"-ccc-objcmt-migrate", DropReason::writes_files}}},
    {"FrontendFixIts",
     {"-Xclang", "-fixit"},
     {},
     {{"-Xclang -fixit", DropReason::unknown_frontend}}},
    // Reads options from elsewhere.
    {"ConfigFile",
     {"--config", "c.cfg", "--config=d.cfg"},
     {},
     {{"--config", DropReason::reads_config}, {"--config=d.cfg", DropReason::reads_config}}},
    {"ConfigDirectories",
     {"--config-system-dir=/etc/x", "--config-user-dir=/home/x"},
     {},
     {{"--config-system-dir=/etc/x", DropReason::reads_config},
      {"--config-user-dir=/home/x", DropReason::reads_config}}},
    // Changes the directory.
    {"WorkingDirectory",
     {"-working-directory", "elsewhere", "-working-directory=there"},
     {},
     {{"-working-directory", DropReason::changes_directory},
      {"-working-directory=there", DropReason::changes_directory}}},
    {"WorkingDirectoryJoinedWithoutEquals",
     {"-working-directoryelsewhere"},
     {},
     {{"-working-directory", DropReason::changes_directory}}},
    // Runs a program: clang 14's driver runs amdgpu-arch (from where
    // --amdgpu-arch-tool=, -B, --prefix or -ccc-install-dir say) to pick the
    // GPU of an OpenMP offload target.
    {"RunsPrograms",
     {"-fopenmp", "-fopenmp-targets=amdgcn-amd-amdhsa", "--amdgpu-arch-tool=./tool", "-B", "bin",
      "-Bbin", "--prefix", "bin", "--prefix=bin", "-ccc-install-dir", "bin"},
     {"-fopenmp"},
     {{"-fopenmp-targets=amdgcn-amd-amdhsa", DropReason::runs_programs},
      {"--amdgpu-arch-tool=./tool", DropReason::runs_programs},
      {"-B", DropReason::runs_programs},
      {"-B", DropReason::runs_programs},
      {"--prefix", DropReason::runs_programs},
      {"--prefix=bin", DropReason::runs_programs},
      {"-ccc-install-dir", DropReason::runs_programs}}},
    // Prints on standard output.
    {"HelpAndVersion",
     {"--help", "--help-hidden", "-help", "--version"},
     {},
     {{"--help", DropReason::prints},
      {"--help-hidden", DropReason::prints},
      {"-help", DropReason::prints},
      {"--version", DropReason::prints}}},
    {"Dumps",
     {"-dumpmachine", "-dumpversion", "-print-search-dirs", "--print-targets"},
     {},
     {{"-dumpmachine", DropReason::prints},
      {"-dumpversion", DropReason::prints},
      {"-print-search-dirs", DropReason::prints},
      {"--print-targets", DropReason::prints}}},
    {"Autocomplete", {"--autocomplete=-fsyn"}, {}, {{"--autocomplete=-fsyn", DropReason::prints}}},
    {"DriverPhases",
     {"-ccc-print-phases", "-ccc-print-bindings", "-###", "-v"},
     {},
     {{"-ccc-print-phases", DropReason::prints},
      {"-ccc-print-bindings", DropReason::prints},
      {"-###", DropReason::prints},
      {"-v", DropReason::prints}}},
    {"FrontendPrinting",
     {"-Xclang", "--show-includes", "-Xclang", "-fdump-record-layouts", "-Xclang", "-ast-dump",
      "-Xpreprocessor", "-dD", "-Wp,--show-includes,-DX=1"},
     {"-Wp,-DX=1"},
     {{"-Xclang --show-includes", DropReason::unknown_frontend},
      {"-Xclang -fdump-record-layouts", DropReason::unknown_frontend},
      {"-Xclang -ast-dump", DropReason::unknown_frontend},
      {"-Xpreprocessor -dD", DropReason::unknown_frontend},
      {"-Wp,--show-includes", DropReason::unknown_frontend}}},
    {"ClDriverMode",
     {"--driver-mode=cl", "--driver-mode=cpp", "--driver-mode=g++"},
     {"--driver-mode=g++"},
     {{"--driver-mode=cl", DropReason::driver_mode},
      {"--driver-mode=cpp", DropReason::driver_mode}}},
    // Loads code.
    {"Plugins",
     {"-fplugin=p.so", "-Xclang", "-load", "-Xclang", "p.so"},
     {},
     {{"-fplugin=p.so", DropReason::loads_code}, {"-Xclang -load", DropReason::loads_code}}},
    // Writes a module cache.
    {"ImplicitModules",
     {"-fmodules", "-Xclang", "-fmodules", "-fmodules-cache-path=m"},
     {},
     {{"-fmodules", DropReason::module_cache},
      {"-Xclang -fmodules", DropReason::module_cache},
      {"-fmodules-cache-path=m", DropReason::writes_files}}},
    // Passed to parts a scan does not run.
    {"NotRun",
     {"-mllvm", "-stats", "-Xanalyzer", "-analyzer-output=html", "-Xarch_x86_64", "-MD", "-Xclang",
      "-mllvm", "-Xclang", "-info-output-file=x"},
     {},
     {{"-mllvm", DropReason::not_run},
      {"-Xanalyzer", DropReason::not_run},
      {"-Xarch_x86_64", DropReason::not_run},
      {"-Xclang -mllvm", DropReason::not_run}}},
    // Lets deep input overflow the stack or run without end.
    {"RaisedLimits",
     {"-fbracket-depth=100000", "-ftemplate-depth=5000", "-ftemplate-depth-5000",
      "-fconstexpr-depth=100000", "-fconstexpr-steps=4294967295", "-Xclang", "-fbracket-depth",
      "-Xclang", "100000", "-fbracket-depth=0x100"},
     {},
     {{"-fbracket-depth=100000", DropReason::raises_limit},
      {"-ftemplate-depth=5000", DropReason::raises_limit},
      {"-ftemplate-depth-5000", DropReason::raises_limit},
      {"-fconstexpr-depth=100000", DropReason::raises_limit},
      {"-fconstexpr-steps=4294967295", DropReason::raises_limit},
      {"-Xclang -fbracket-depth", DropReason::raises_limit},
      {"-fbracket-depth=0x100", DropReason::raises_limit}}},
    {"LimitsAtMostTheDefault",
     {"-fbracket-depth=256", "-ftemplate-depth=900", "-Xclang", "-fconstexpr-steps", "-Xclang",
      "1000"},
     {"-fbracket-depth=256", "-ftemplate-depth=900", "-Xclang", "-fconstexpr-steps", "-Xclang",
      "1000"},
     {}},
    // What a build passes the frontend and a scan needs: kept.
    {"SafeFrontendOptions",
     {"-Xclang", "-fno-validate-pch", "-Xclang", "-include", "-Xclang", "pre.h", "-Xclang",
      "-triple", "-Xclang", "x86_64-pc-linux-gnu", "-Xpreprocessor", "-DX=1", "-Xclang",
      "-Wno-unused"},
     {"-Xclang", "-fno-validate-pch", "-Xclang", "-include", "-Xclang", "pre.h", "-Xclang",
      "-triple", "-Xclang", "x86_64-pc-linux-gnu", "-Xpreprocessor", "-DX=1", "-Xclang",
      "-Wno-unused"},
     {}},
    // The frontend's working directory moves nothing, but reads every
    // relative path (the source's, a header's) from elsewhere: only a
    // database entry's directory sets it, through parse_arguments.
    {"FrontendWorkingDirectory",
     {"-Xclang", "-working-directory=/evil", "-Xclang", "-working-directory", "-Xclang", "/evil",
      "-Xpreprocessor", "-working-directory/evil", "-Wp,-DX,-working-directory,/evil"},
     {"-Wp,-DX"},
     {{"-Xclang -working-directory=/evil", DropReason::reads_elsewhere},
      {"-Xclang -working-directory", DropReason::reads_elsewhere},
      {"-Xpreprocessor -working-directory", DropReason::reads_elsewhere},
      {"-Wp,-working-directory", DropReason::reads_elsewhere}}},
    // A frontend option kept without its value would take opscan's next one.
    {"FrontendOptionWithoutItsValue",
     {"-I", "inc", "-Xclang", "-include"},
     {"-I", "inc"},
     {{"-Xclang -include", DropReason::unknown_frontend}}},
    {"WrapperWithoutAnOption",
     {"-I", "inc", "-Xpreprocessor"},
     {"-I", "inc"},
     {{"-Xpreprocessor", DropReason::unknown_frontend}}},
    // libclang reads an argument up to its first NUL byte (found by the
    // flags fuzz target: -M then printed the dependency rule).
    // After "--", the driver plans every argument as a file to compile, each
    // with a temporary object file (found by the flags fuzz target).
    {"DashDash",
     {"-include", "--", "inc/local.h", "--", "-DX", "-Xclang", "--"},
     {"-include", "inc/local.h", "-DX"},
     {{"--", DropReason::ends_options},
      {"--", DropReason::ends_options},
      {"-Xclang --", DropReason::unknown_frontend}}},
    {"NulInsideAnArgument",
     {std::string("-M\0planted.d", 12), std::string("-DX\0Y", 5)},
     {"-DX"},
     {{"-M", DropReason::writes_files}}},
};

class FilterFamilies : public ::testing::TestWithParam<Family> {};

TEST_P(FilterFamilies, GivenAsArguments) {
  const Family& f = GetParam();
  const FilteredArguments filtered = filter_arguments(f.args);
  EXPECT_EQ(filtered.kept, f.kept);
  std::vector<Drop> dropped;
  for (const DroppedArgument& d : filtered.dropped)
    dropped.emplace_back(d.option, d.reason);
  EXPECT_EQ(dropped, f.dropped);
  // What passes, filtered again, passes whole.
  EXPECT_TRUE(filter_arguments(filtered.kept).dropped.empty());
}

// In a database entry, between the compiler and the source: the same
// notes, and libclang gets none of the dropped arguments.
TEST_P(FilterFamilies, GivenInACompilationDatabase) {
  const Family& f = GetParam();
  TempDir dir;
  const std::string source = dir.write("src/k.cpp", "int k;\n");
  Json::array_t arguments = {"c++"};
  arguments.insert(arguments.end(), f.args.begin(), f.args.end());
  arguments.insert(arguments.end(), {"-c", "src/k.cpp"});
  dir.write("build/compile_commands.json", Json::array({{{"directory", dir.path().string()},
                                                         {"file", "src/k.cpp"},
                                                         {"arguments", arguments}}})
                                               .dump());
  diag::Diagnostics diags;
  auto db = CompilationDatabase::open(dir.file("build"), diags);
  ASSERT_TRUE(db) << describe(diags);
  auto command = db->command_for(source, diags);
  ASSERT_TRUE(command) << describe(diags);
  const size_t database_args = command->args.size();
  diag::Diagnostics notes;
  const std::vector<std::string> args =
      parse_arguments(command->file, command->args, notes, database_args, command->directory);
  std::vector<std::string> messages;
  for (const diag::Diagnostic& note : notes)
    messages.push_back(note.message);
  std::vector<std::string> expected;
  for (const DroppedArgument& d : filter_arguments(f.args).dropped)
    expected.push_back(dropped_message(d));
  EXPECT_EQ(messages, expected);
  for (const auto& [option, reason] : f.dropped) {
    const std::string spelling = option.substr(option.rfind(' ') + 1);
    EXPECT_EQ(std::count(args.begin(), args.end(), spelling),
              std::count(f.kept.begin(), f.kept.end(), spelling))
        << spelling;
  }
  // The database's own directory applies through the frontend, which moves
  // nothing.
  EXPECT_EQ(std::count(args.begin(), args.end(), "-working-directory=" + dir.path().string()), 1);
}

// The language server's units (lib/scan/live.h) get their arguments
// through the same filter.
TEST_P(FilterFamilies, GivenToTheLanguageServer) {
  const Family& f = GetParam();
  const LiveUnit unit("k.cpp", f.args, /*main_file_only=*/true);
  const std::vector<std::string>& args = unit.args();
  for (const auto& [option, reason] : f.dropped) {
    const std::string spelling = option.substr(option.rfind(' ') + 1);
    EXPECT_EQ(std::count(args.begin(), args.end(), spelling),
              std::count(f.kept.begin(), f.kept.end(), spelling))
        << spelling;
  }
  EXPECT_TRUE(std::search(args.begin(), args.end(), f.kept.begin(), f.kept.end()) != args.end());
}

INSTANTIATE_TEST_SUITE_P(Each, FilterFamilies, ::testing::ValuesIn(kFamilies),
                         [](const ::testing::TestParamInfo<Family>& info) {
                           return info.param.name;
                         });

TEST(FilterArguments, ResponseFilesLeftUnreadAreDropped) {
  const FilteredArguments filtered = filter_arguments({"@flags.rsp", "-I", "@inc"});
  EXPECT_EQ(filtered.kept, (Args{"-I", "@inc"}));
  ASSERT_EQ(filtered.dropped.size(), 1u);
  EXPECT_EQ(filtered.dropped[0].reason, DropReason::response_file);
}

TEST(DroppedMessage, NamesTheOptionAndWhy) {
  EXPECT_EQ(dropped_message({"-MF", DropReason::writes_files, true, 0}),
            "dropped '-MF' and its value, which makes the compiler write files");
  EXPECT_EQ(dropped_message({"-o", DropReason::output, true, 0}),
            "dropped '-o' and its value, which names a compiler output");
  EXPECT_EQ(dropped_message({"-v", DropReason::prints, false, 0}),
            "dropped '-v', which makes the compiler print to opscan's output");
  EXPECT_EQ(dropped_message({"-Xclang -load", DropReason::loads_code, true, 0}),
            "dropped '-Xclang -load' and its value, which makes the compiler load a plugin");
  EXPECT_EQ(dropped_message({"-fmodules", DropReason::module_cache, false, 0}),
            "dropped '-fmodules', which makes the compiler write a module cache (headers are "
            "included as text instead)");
  EXPECT_EQ(dropped_message({"-fconcepts", DropReason::gcc_only, false, 0}),
            "dropped '-fconcepts', which libclang does not accept");
  EXPECT_EQ(dropped_message({"-working-directory", DropReason::changes_directory, true, 0}),
            "dropped '-working-directory' and its value, which would move opscan into another "
            "directory");
  EXPECT_EQ(dropped_message({"--config", DropReason::reads_config, true, 0}),
            "dropped '--config' and its value, which makes the compiler read options from a "
            "configuration file");
  EXPECT_EQ(dropped_message({"--driver-mode=cl", DropReason::driver_mode, false, 0}),
            "dropped '--driver-mode=cl', which makes the compiler read its arguments as another "
            "driver (only the gcc and g++ modes are scanned)");
  EXPECT_EQ(dropped_message({"-mllvm", DropReason::not_run, true, 0}),
            "dropped '-mllvm' and its value, which passes options to a part of the compiler a "
            "scan does not run");
  EXPECT_EQ(dropped_message({"-Xclang -ast-dump", DropReason::unknown_frontend, false, 0}),
            "dropped '-Xclang -ast-dump', which passes the compiler's frontend an option opscan "
            "does not know to be safe");
  EXPECT_EQ(dropped_message({"-fbracket-depth=100000", DropReason::raises_limit, true, 0}),
            "dropped '-fbracket-depth=100000' and its value, which raises a compiler limit above "
            "its default (deep input would overflow the stack)");
  EXPECT_EQ(dropped_message({"@x.rsp", DropReason::response_file, false, 0}),
            "dropped '@x.rsp', a response file opscan did not read");
  EXPECT_EQ(dropped_message({"--", DropReason::ends_options, false, 0}),
            "dropped '--', after which the compiler reads every argument as a file to compile");
}

// ---------------------------------------------------------------------------
// Files the arguments name

// Each spelling of each option naming a file the compiler reads, given a
// FIFO: an error naming the file and the option; a regular file, a
// directory or (but after a failed parse) a missing file pass.
TEST(UnreadableNamedFile, EverySpellingOfAFileTheCompilerReads) {
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string regular = dir.write("regular.h", "");
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"-include", fifo}, "-include"},
      {{"-include" + fifo}, "-include"},
      {{"--include", fifo}, "--include"},
      {{"--include=" + fifo}, "--include"},
      {{"-imacros", fifo}, "-imacros"},
      {{"-include-pch", fifo}, "-include-pch"},
      {{"-ivfsoverlay" + fifo}, "-ivfsoverlay"},
      {{"-fprofile-list=" + fifo}, "-fprofile-list"},
      {{"-fsanitize-ignorelist=" + fifo}, "-fsanitize-ignorelist"},
      {{"-fsanitize-blacklist=" + fifo}, "-fsanitize-blacklist"},
      {{"-fprofile-instr-use=" + fifo}, "-fprofile-instr-use"},
      {{"-fmodule-file=name=" + fifo}, "-fmodule-file"},
      {{"-Xclang", "-fprofile-instrument-use-path=" + fifo}, "-fprofile-instrument-use-path"},
      {{"-Xclang", "-include", "-Xclang", fifo}, "-include"},
      {{"-Wp,-DX,-imacros," + fifo}, "-imacros"},
  };
  for (const auto& [args, option] : cases) {
    SCOPED_TRACE(args.back());
    const std::optional<diag::Diagnostic> error = unreadable_named_file(args);
    ASSERT_TRUE(error);
    EXPECT_EQ(error->code, "opscan-io");
    EXPECT_NE(error->message.find(", given with " + option + ": Not a regular file (a FIFO)"),
              std::string::npos)
        << error->message;
  }
  EXPECT_FALSE(unreadable_named_file({"-include", regular, "-fprofile-use=" + dir.path().string()}));
  EXPECT_FALSE(unreadable_named_file({"-include", dir.file("missing.h")}));
  EXPECT_TRUE(unreadable_named_file({"-include", dir.file("missing.h")}, /*missing_too=*/true));
  // /dev/zero is a device; a text input larger than opscan reads is refused.
  EXPECT_TRUE(unreadable_named_file({"-imacros", "/dev/zero"}));
  // Relative to the frontend's working directory (a database entry's).
  EXPECT_TRUE(unreadable_named_file({"-Xclang", "-working-directory=" + dir.path().string(),
                                     "-include", "fifo"}));
}

// ---------------------------------------------------------------------------
// Response files

TEST(ResponseFiles, AreReadWithTheirQuotingAndNestedRelativeToEachOther) {
  TempDir dir;
  dir.write("a.rsp", "-DA=1 \"-DB=two words\"\n'-DC=x y' -I\\ sp\t@sub/b.rsp -DLAST\n");
  dir.write("sub/b.rsp", "-DD @c.rsp");
  dir.write("sub/c.rsp", "-DE\n");
  diag::Diagnostics diags;
  auto args = expand_response_files({"-x", "c++", "@a.rsp", "-DAFTER"}, dir.path().string(), diags);
  ASSERT_TRUE(args) << describe(diags);
  EXPECT_EQ(*args, (Args{"-x", "c++", "-DA=1", "-DB=two words", "-DC=x y", "-I sp", "-DD", "-DE",
                         "-DLAST", "-DAFTER"}));
  EXPECT_TRUE(diags.empty());
  // Without one, the arguments stay as they are.
  EXPECT_EQ(expand_response_files({"-I", "inc"}, "", diags), (Args{"-I", "inc"}));
}

TEST(ResponseFiles, OneThatCannotBeReadIsAnErrorNamingIt) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo.rsp").c_str(), 0644), 0);
  fs::create_directory(dir.path() / "dir.rsp");
  fs::create_symlink("/dev/zero", dir.path() / "zero.rsp");
  dir.write("self.rsp", "-DX @self.rsp");
  dir.write("big.rsp", std::string((1 << 20) + 1, 'x'));
  for (int i = 0; i < 9; ++i)
    dir.write("deep" + std::to_string(i) + ".rsp", "@deep" + std::to_string(i + 1) + ".rsp");
  dir.write("deep9.rsp", "-DDEEP");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"@missing.rsp", "No such file or directory"},
      {"@fifo.rsp", "Not a regular file (a FIFO)"},
      {"@dir.rsp", "Is a directory"},
      {"@zero.rsp", "Not a regular file (a character device)"},
      {"@self.rsp", "it names itself"},
      {"@big.rsp", "File too large"},
      {"@deep0.rsp", "response files nest more than 8 deep"},
      {"@", "it names no file"},
  };
  for (const auto& [arg, why] : cases) {
    SCOPED_TRACE(arg);
    diag::Diagnostics diags;
    EXPECT_FALSE(expand_response_files({"-DX", arg}, dir.path().string(), diags));
    ASSERT_EQ(diags.size(), 1u) << describe(diags);
    EXPECT_EQ(diags[0].code, "opscan-io");
    EXPECT_EQ(diags[0].severity, diag::Severity::error);
    // The one that cannot be read (the deepest, for nesting), and the one
    // naming it.
    std::string named = "'" + dir.file(arg.substr(1)) + "': ";
    if (arg == "@")
      named = "'@': ";
    else if (arg == "@self.rsp")
      named = "'" + dir.file("self.rsp") + "' (named in '" + dir.file("self.rsp") + "'): ";
    else if (arg == "@deep0.rsp")
      named = "'" + dir.file("deep8.rsp") + "' (named in '" + dir.file("deep7.rsp") + "'): ";
    EXPECT_NE(diags[0].message.find("cannot read the response file " + named), std::string::npos)
        << diags[0].message;
    EXPECT_NE(diags[0].message.find(why), std::string::npos) << diags[0].message;
    if (arg.size() > 1 && arg != "@deep0.rsp" && arg != "@self.rsp") {
      EXPECT_EQ(diags[0].location.file, dir.file(arg.substr(1)));
    }
  }
}

// ---------------------------------------------------------------------------
// Compilation databases: checked before libclang reads them

// What `CompilationDatabase::open` makes of `text`, and what was printed
// on standard error meanwhile (libclang prints its own complaints there).
struct Opened {
  bool ok = false;
  diag::Diagnostics diags;
  std::string stderr_text;
};

Opened open_database(const TempDir& dir, const std::string& text) {
  dir.write("build/compile_commands.json", text);
  Opened out;
  ::testing::internal::CaptureStderr();
  out.ok = CompilationDatabase::open(dir.file("build"), out.diags) != nullptr;
  out.stderr_text = ::testing::internal::GetCapturedStderr();
  return out;
}

TEST(CompilationDatabaseCheck, MalformedDatabasesGetALocatedErrorAndLibclangSaysNothing) {
  TempDir dir;
  const std::string entry =
      R"({"directory": "/src", "file": "k.cpp", "arguments": ["c++", "-c", "k.cpp"]})";
  struct Case {
    std::string text;
    unsigned line, column;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"[" + entry + ",\n  {oops}]", 2, 4, "not valid JSON"},
      {"[" + entry + ",\n", 2, 1, "not valid JSON: the file ends too early (truncated?)"},
      {"\n  {\"directory\": \"/\"}", 2, 3, "a compilation database is a JSON array of entries"},
      {"[" + entry + ",\n 3]", 2, 2, "entry 2 is not an object"},
      {"[" + entry + ",\n {\"directory\": \"/\", \"fil\": \"k.cpp\"}]", 2, 21,
       "entry 2: unknown field 'fil' (fields: directory, file, arguments, command, output)"},
      {"[{\"directory\": \"/\",\n  \"file\": 3, \"command\": \"c++ k.cpp\"}]", 2, 3,
       "entry 1: \"file\" is not a string"},
      {"[{\"directory\": \"/\", \"file\": \"k.cpp\",\n  \"arguments\": [\"c++\", 1]}]", 2, 3,
       "entry 1: \"arguments\" is not an array of strings"},
      {"[{\"file\": \"k.cpp\", \"command\": \"c++ k.cpp\"}]", 1, 2, "entry 1 has no \"directory\""},
      {"[" + entry + ", {\"directory\": \"/\", \"file\": \"k.cpp\"}]", 1, 79,
       "entry 2 has neither \"arguments\" nor \"command\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const Opened opened = open_database(dir, c.text);
    EXPECT_FALSE(opened.ok);
    ASSERT_EQ(opened.diags.size(), 1u) << describe(opened.diags);
    const diag::Diagnostic& d = opened.diags[0];
    EXPECT_EQ(d.code, "opscan-compile-commands-invalid");
    EXPECT_EQ(d.message, c.message);
    EXPECT_EQ(d.location.file, dir.file("build/compile_commands.json"));
    EXPECT_EQ(d.location.line, c.line);
    EXPECT_EQ(d.location.column, c.column);
    EXPECT_EQ(opened.stderr_text, "");
  }
}

// libclang expands an entry's response files as it reads the database; a
// FIFO among them would block it for good.
TEST(CompilationDatabaseCheck, ResponseFilesOfEntriesAreCheckedBeforeLibclangReadsThem) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo.rsp").c_str(), 0644), 0);
  const std::string d = dir.path().string();
  for (const std::string& entry :
       {R"({"directory": ")" + d +
            R"(", "file": "k.cpp", "arguments": ["c++", "@fifo.rsp", "k.cpp"]})",
        R"({"directory": ")" + d + R"(", "file": "k.cpp", "command": "c++ '@fifo.rsp' k.cpp"})"}) {
    SCOPED_TRACE(entry);
    const Opened opened = open_database(dir, "[" + entry + "]");
    EXPECT_FALSE(opened.ok);
    ASSERT_EQ(opened.diags.size(), 1u) << describe(opened.diags);
    EXPECT_EQ(opened.diags[0].code, "opscan-io");
    EXPECT_EQ(opened.diags[0].message, "cannot read the response file '" + dir.file("fifo.rsp") +
                                           "': Not a regular file (a FIFO) (named by entry 1 of " +
                                           dir.file("build/compile_commands.json") + ")");
    EXPECT_EQ(opened.stderr_text, "");
  }
  // A readable one is expanded relative to the entry's directory.
  dir.write("flags.rsp", "-DFROM_RSP=1");
  const std::string source = dir.write("k.cpp", "int k;\n");
  const Opened opened = open_database(
      dir, R"([{"directory": ")" + d +
               R"(", "file": "k.cpp", "arguments": ["c++", "@flags.rsp", "-c", "k.cpp"]}])");
  ASSERT_TRUE(opened.ok) << describe(opened.diags);
  diag::Diagnostics diags;
  auto db = CompilationDatabase::open(dir.file("build"), diags);
  ASSERT_TRUE(db);
  auto command = db->command_for(source, diags);
  ASSERT_TRUE(command) << describe(diags);
  EXPECT_EQ(std::count(command->args.begin(), command->args.end(), "-DFROM_RSP=1"), 1);
}

// libclang would read a compile_flags.txt beside the database instead of it
// (and block on one that is a FIFO).
TEST(CompilationDatabaseCheck, ACompileFlagsFileBesideItIsNotRead) {
  TempDir dir;
  const std::string source = dir.write("k.cpp", "int k;\n");
  const std::string database = R"([{"directory": ")" + dir.path().string() +
                               R"(", "file": "k.cpp", "arguments": ["c++", "-DX", "k.cpp"]}])";
  for (bool fifo : {false, true}) {
    SCOPED_TRACE(fifo ? "a FIFO" : "a file");
    dir.write("build/compile_commands.json", database);
    fs::remove(dir.path() / "build/compile_flags.txt");
    if (fifo)
      ASSERT_EQ(::mkfifo(dir.file("build/compile_flags.txt").c_str(), 0644), 0);
    else
      dir.write("build/compile_flags.txt", "-DFROM_FLAGS_FILE\n");
    const Opened opened = open_database(dir, database);
    EXPECT_TRUE(opened.ok) << describe(opened.diags);
    diag::Diagnostics diags;
    auto db = CompilationDatabase::open(dir.file("build"), diags);
    ASSERT_TRUE(db) << describe(diags);
    EXPECT_EQ(db->files(), std::set<std::string>{source});
    auto command = db->command_for(source, diags);
    ASSERT_TRUE(command) << describe(diags);
    EXPECT_EQ(std::count(command->args.begin(), command->args.end(), "-DX"), 1);
    EXPECT_EQ(std::count(command->args.begin(), command->args.end(), "-DFROM_FLAGS_FILE"), 0);
    EXPECT_EQ(opened.stderr_text, "");
  }
}

// The database is read without libclang (which a scan that parses nothing
// does not load), with the commands libclang 14's own reader makes of it:
// compared here, entry by entry, with what libclang reads.
TEST(CompilationDatabaseCheck, CommandsAreThoseLibclangReads) {
  TempDir dir;
  const std::string d = dir.path().string();
  dir.write("sub/flags.rsp", "-DFROM_RSP='a b' @more.rsp");
  dir.write("sub/more.rsp", "-DNESTED");
  const Json entries = Json::array({
      {{"directory", d},
       {"file", "a.cpp"},
       {"command", "/usr/bin/c++ -DX=\"a b\" -c a.cpp -o a.o"}},
      {{"directory", d}, {"file", "b.cpp"}, {"arguments", {"g++-12 -I'in c' -c b.cpp"}}},
      {{"directory", d}, {"file", "c.cpp"}, {"arguments", {"clang++-14", "-c", "c.cpp"}}},
      {{"directory", d}, {"file", "d.cpp"}, {"arguments", {"gcc", "-xc++", "d.cpp"}}},
      {{"directory", d}, {"file", "e.cpp"}, {"arguments", {"clang-cl", "/c", "e.cpp"}}},
      {{"directory", d},
       {"file", "f.cpp"},
       {"arguments", {"c++", "--driver-mode=gcc", "-c", "f.cpp"}}},
      {{"directory", d + "/sub"},
       {"file", "../g.cpp"},
       {"arguments", {"clang++", "@flags.rsp", "-c", "../g.cpp"}}},
      {{"directory", d}, {"file", "h.cpp"}, {"arguments", {"cc", "-DFIRST", "h.cpp"}}},
      {{"directory", d}, {"file", "h.cpp"}, {"arguments", {"cc", "-DSECOND", "h.cpp"}}},
      {{"directory", d}, {"file", d + "/i.cpp"}, {"command", "clang++3.5 -c i.cpp"}},
      {{"directory", d}, {"file", "j.cpp"}, {"command", "x86_64-linux-gnu-g++-12 -c j.cpp"}},
  });
  dir.write("build/compile_commands.json", entries.dump(1));
  diag::Diagnostics diags;
  auto db = CompilationDatabase::open(dir.file("build"), diags);
  ASSERT_TRUE(db) << describe(diags);
  CXCompilationDatabase_Error error;
  CXCompilationDatabase theirs =
      clang_CompilationDatabase_fromDirectory(dir.file("build").c_str(), &error);
  ASSERT_EQ(error, CXCompilationDatabase_NoError);
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}) {
    SCOPED_TRACE(name);
    const std::string file = (dir.path() / (std::string(name) + ".cpp")).string();
    auto ours = db->command_for(file, diags);
    ASSERT_TRUE(ours) << describe(diags);
    CXCompileCommands commands = clang_CompilationDatabase_getCompileCommands(theirs, file.c_str());
    ASSERT_GE(clang_CompileCommands_getSize(commands), 1u);
    CXCompileCommand command = clang_CompileCommands_getCommand(commands, 0);
    EXPECT_EQ(ours->directory, take(clang_CompileCommand_getDirectory(command)));
    // As the reader before took them: the compiler, -c and the file left out.
    Args expected;
    for (unsigned i = 1, n = clang_CompileCommand_getNumArgs(command); i < n; ++i) {
      std::string arg = take(clang_CompileCommand_getArg(command, i));
      // libclang adds --target=PREFIX for a compiler named PREFIX-g++ once
      // an index has registered the targets (this process has made some):
      // never before a scan's first parse, when a scan reads the database.
      if (arg != "-c" && (fs::path(ours->directory) / arg).lexically_normal() != file &&
          !arg.starts_with("--target="))
        expected.push_back(std::move(arg));
    }
    EXPECT_EQ(ours->args, expected);
    clang_CompileCommands_dispose(commands);
  }
  clang_CompilationDatabase_dispose(theirs);
}

// ---------------------------------------------------------------------------
// Notes in a run

// The messages of `diags`, which must all be dropped-flag notes.
std::vector<std::string> dropped_notes(const diag::Diagnostics& diags) {
  std::vector<std::string> messages;
  for (const diag::Diagnostic& d : diags) {
    EXPECT_EQ(d.code, "opscan-dropped-flag") << describe(diags);
    EXPECT_EQ(d.severity, diag::Severity::note);
    messages.push_back(d.message);
  }
  return messages;
}

TEST(DroppedFlagNotes, OncePerRunAtTheFirstFile) {
  TempDir dir;
  const std::vector<std::string> files = {data_file("returns.cpp"), data_file("noexcept.cpp")};
  const std::string deps = dir.file("deps.d");
  Result result = scan_paths(files, {"-std=c++17", "-MD", "-MF", deps, "-fconcepts"}, 2);
  EXPECT_EQ(
      dropped_notes(result.diagnostics),
      (std::vector<std::string>{"dropped '-MD', which makes the compiler write files",
                                "dropped '-MF' and its value, which makes the compiler write files",
                                "dropped '-fconcepts', which libclang does not accept"}));
  for (const diag::Diagnostic& d : result.diagnostics)
    EXPECT_EQ(d.location.file, shown(files[0]));
  EXPECT_FALSE(fs::exists(deps));
  EXPECT_FALSE(result.module.kernels.empty());
}

// Meson's entries: each with its own dependency file and object. The -o of
// an entry is its build's object, expected in every entry: no note.
TEST(DroppedFlagNotes, DatabaseEntriesWithTheirOwnDependencyFiles) {
  TempDir dir;
  const std::vector<std::string> files = {data_file("returns.cpp"), data_file("noexcept.cpp")};
  std::string entries;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string object = "obj" + std::to_string(i) + ".o";
    entries += std::string(i ? "," : "") + R"({"directory": ")" + dir.path().string() +
               R"(", "file": ")" + files[i] +
               R"(", "arguments": ["c++", "-std=c++17", "-MD", "-MQ", ")" + object +
               R"(", "-MF", ")" + object + R"(.d", "-o", ")" + object + R"(", "-c", ")" + files[i] +
               R"("]})";
  }
  dir.write("compile_commands.json", "[" + entries + "]");
  const testing::Snapshot before = testing::snapshot(dir.path());
  Options options;
  options.fields = test_fields();
  options.files = files;
  options.build_dir = dir.path().string();
  Result result = scan(options);
  EXPECT_EQ(dropped_notes(result.diagnostics),
            (std::vector<std::string>{
                "dropped '-MD', which makes the compiler write files",
                "dropped '-MF' and its value, which makes the compiler write files",
                "dropped '-MQ' and its value, which makes the compiler write files"}));
  EXPECT_EQ(testing::snapshot(dir.path()), before);
  // Given on the command line, -o is the user's: noted.
  options.extra_args = {"-o", "more.o"};
  EXPECT_EQ(dropped_notes(scan(options).diagnostics).back(),
            "dropped '-o' and its value, which names a compiler output");
}

TEST(DroppedFlagNotes, LocateFunctionsAndPrecompileToo) {
  TempDir dir;
  Options options;
  options.fields = test_fields();
  options.files = {data_file("returns.cpp"), data_file("noexcept.cpp")};
  options.extra_args = {"-std=c++17", "-MMD", "-MF", dir.file("deps.d")};
  LocateResult located = locate_functions(options);
  EXPECT_EQ(
      dropped_notes(located.diagnostics),
      (std::vector<std::string>{"dropped '-MF' and its value, which makes the compiler write files",
                                "dropped '-MMD', which makes the compiler write files"}));
  EXPECT_EQ(located.files.size(), 2u);

  PrecompileResult pch = precompile({data_file("et_types.h"), options.extra_args});
  EXPECT_EQ(dropped_notes(pch.diagnostics).size(), 2u);
  EXPECT_FALSE(pch.pch.empty());
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

} // namespace
} // namespace opscan::scan
