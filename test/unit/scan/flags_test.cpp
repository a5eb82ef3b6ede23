// filter_arguments: which compiler arguments a scan keeps from libclang, and
// the notes a run gives for those it drops.
#include "scan/flags.h"
#include "scan_test_helpers.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace opscan::scan {
namespace {

using namespace test_support;
using Args = std::vector<std::string>;

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
