// Runs the opscan binary the way users do, from the repository root, and
// checks its exact output, exit codes and files.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const char* const kFlags = "-- -std=c++17 -Iinclude -Iexamples/include";

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class TempDir {
public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("opscan-cli-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

private:
  static inline int counter_ = 0;
  fs::path path_;
};

// Runs `opscan <args>` in the repository root.
RunResult opscan(const std::string& args) {
  TempDir io;
  std::string command = "cd '" + kRepo.string() + "' && '" OPSCAN_BINARY "' " + args + " >'" +
                        (io.path() / "out").string() + "' 2>'" + (io.path() / "err").string() + "'";
  int status = std::system(command.c_str());
  RunResult run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read(io.path() / "out");
  run.err = read(io.path() / "err");
  return run;
}

// Every file under `dir` with its content and modification time.
using Snapshot = std::map<std::string, std::pair<std::string, fs::file_time_type>>;
Snapshot snapshot(const fs::path& dir) {
  Snapshot files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), dir).string()] = {read(entry.path()),
                                                         entry.last_write_time()};
    }
  }
  return files;
}

// ---------------------------------------------------------------------------
// Bad input: a located error, exit code 1, and the output directory as it was.

struct BadInput {
  const char* name;
  std::string args;    // after "run"
  std::string stderr_; // exact
};

void PrintTo(const BadInput& input, std::ostream* os) {
  *os << input.name;
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, ReportsLocatedErrorAndWritesNothing) {
  TempDir out;
  // A previous good generation, plus a file of the user's, must survive.
  RunResult good = opscan("run test/cli/inputs/good.cpp --registration named --lib t -o '" +
                          out.path().string() + "' " + kFlags);
  ASSERT_EQ(good.exit_code, 0) << good.err;
  std::ofstream(out.path() / "t" / "user-notes.txt") << "keep me\n";
  Snapshot before = snapshot(out.path());

  RunResult run = opscan("run " + GetParam().args + " --registration named -o '" +
                         out.path().string() + "' " + kFlags);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, GetParam().stderr_);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(snapshot(out.path()), before);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInputTest,
    ::testing::Values(
        BadInput{"SyntaxError", "test/cli/inputs/syntax_error.cpp --lib t",
                 "test/cli/inputs/syntax_error.cpp:10:31: error: expected ';' after top level "
                 "declarator [opscan-clang-error]\n"
                 "OPSCAN_KERNEL(\"demo::abs.out\")\n"
                 "                              ^\n"},
        BadInput{"MissingInclude", "test/cli/inputs/missing_include.cpp --lib t",
                 "test/cli/inputs/missing_include.cpp:3:10: error: 'kernel_utils.h' file not "
                 "found [opscan-clang-error]\n"
                 "#include \"kernel_utils.h\"\n"
                 "         ^\n"},
        BadInput{"InvalidType", "test/cli/inputs/invalid_type.cpp --lib t",
                 "test/cli/inputs/invalid_type.cpp:8:52: error: unknown type name 'Tensr' "
                 "[opscan-clang-error]\n"
                 "Tensor& scale_out(KernelRuntimeContext& ctx, const Tensr& self, double factor, "
                 "Tensor& out);\n"
                 "                                                   ^\n"
                 "test/cli/inputs/invalid_type.cpp:8:59: error: the type of parameter 'self' of "
                 "'scale_out' could not be resolved (see the error above) "
                 "[opscan-scan-invalid-type]\n"
                 "Tensor& scale_out(KernelRuntimeContext& ctx, const Tensr& self, double factor, "
                 "Tensor& out);\n"
                 "                                                          ^\n"
                 "test/cli/inputs/invalid_type.cpp:11:70: error: parameter 'amount' of "
                 "'shift_out': 'int' is not a schema type: use int64_t (schema 'int') "
                 "[opscan-scan-unsupported-type]\n"
                 "Tensor& shift_out(KernelRuntimeContext& ctx, const Tensor& self, int amount, "
                 "Tensor& out);\n"
                 "                                                                     ^\n"},
        BadInput{"MalformedOperatorName", "test/cli/inputs/bad_operator_name.cpp --lib t",
                 "test/cli/inputs/bad_operator_name.cpp:7:25: error: name 'neg_out' ends in "
                 "'_out': name it 'neg' with overload 'out' (neg.out) [opscan-schema-out-suffix]\n"
                 "OPSCAN_KERNEL(\"demo::neg_out\")\n"
                 "                        ^\n"
                 "test/cli/inputs/bad_operator_name.cpp:10:19: error: expected '::' after "
                 "namespace 'abs', found '.' [opscan-schema-syntax]\n"
                 "OPSCAN_KERNEL(\"abs.out\")\n"
                 "                  ^\n"},
        BadInput{"EmptyLibraryName", "test/cli/inputs/good.cpp --lib ''",
                 "opscan: error: library name is empty: give a name or omit the option "
                 "[opscan-libname-empty]\n"},
        BadInput{"LibraryNamedAll", "test/cli/inputs/good.cpp --lib all",
                 "opscan: error: library name 'all' cannot be used: register_all_kernels is the "
                 "registration function of the unnamed default library; omit the option to get "
                 "it, or choose another name [opscan-libname-all]\n"},
        BadInput{"LibraryNameWithDash", "test/cli/inputs/good.cpp --lib foo-bar",
                 "opscan: error: 'foo-bar' is not a valid C++ identifier: U+002D '-' at byte 3 "
                 "cannot appear in an identifier [opscan-ident-invalid-char]\n"
                 "opscan: error: library name 'foo-bar' is not a valid C++ identifier; did you "
                 "mean 'foo_bar'? [opscan-libname-invalid]\n"},
        BadInput{"LibraryNameKeyword", "test/cli/inputs/good.cpp --lib for",
                 "opscan: error: 'for' is a C++ keyword and cannot be used as a name "
                 "[opscan-ident-keyword]\n"
                 "opscan: error: library name 'for' is not a valid C++ identifier; did you mean "
                 "'for_lib'? [opscan-libname-invalid]\n"},
        BadInput{"LibraryNameReservedSymbol", "test/cli/inputs/good.cpp --lib _x",
                 "opscan: error: library name '_x' gives the registration symbol "
                 "'register__x_kernels', which is reserved in C++ (it contains '__'); did you "
                 "mean 'x'? [opscan-libname-symbol]\n"},
        BadInput{"LibraryNameStartsWithDigit", "test/cli/inputs/good.cpp --lib 2d",
                 "opscan: error: '2d' is not a valid C++ identifier: U+0032 '2' at byte 0 cannot "
                 "start an identifier [opscan-ident-invalid-start]\n"
                 "opscan: error: library name '2d' is not a valid C++ identifier; did you mean "
                 "'op_2d'? [opscan-libname-invalid]\n"},
        BadInput{"LibraryNameNotNfc",
                 "test/cli/inputs/good.cpp --lib \"$(printf 'cafe\\314\\201')\"",
                 "opscan: error: 'cafe\xcc\x81' is not in Unicode Normalization Form C (NFC), "
                 "which C++ requires: U+0065 U+0301 at byte 3 should be U+00E9 (NFC spelling: "
                 "'caf\xc3\xa9') [opscan-ident-not-nfc]\n"
                 "opscan: error: library name 'cafe\xcc\x81' is not a valid C++ identifier; did "
                 "you mean 'caf\xc3\xa9'? [opscan-libname-invalid]\n"}),
    [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------
// Usage errors: exit code 2.

TEST(Cli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(opscan("").exit_code, 2);
  EXPECT_EQ(opscan("frobnicate").exit_code, 2);
  EXPECT_EQ(opscan("run test/cli/inputs/good.cpp -o /tmp/x").exit_code, 2); // no --registration
  EXPECT_EQ(opscan("run test/cli/inputs/good.cpp --registration eager -o /tmp/x").exit_code, 2);
  EXPECT_EQ(opscan("run test/cli/inputs/good.cpp --registration named --target tflite -o /tmp/x")
                .exit_code,
            2);
  RunResult missing = opscan("scan -o /tmp/x.json test/cli/inputs/no_such_file.cpp");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no_such_file.cpp"), std::string::npos) << missing.err;
}

TEST(Cli, VersionNamesOpscanAndLibclang) {
  RunResult run = opscan("--version");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out.rfind("opscan 0.1.0\nlibclang: ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("clang version"), std::string::npos) << run.out;
}

TEST(Cli, HelpOfEachCommandHasAnExample) {
  for (const char* command : {"scan", "generate", "run"}) {
    RunResult run = opscan(std::string(command) + " --help");
    EXPECT_EQ(run.exit_code, 0) << command;
    EXPECT_NE(run.out.find("Example:\n  opscan " + std::string(command)), std::string::npos)
        << run.out;
  }
}

// ---------------------------------------------------------------------------
// Generation.

TEST(Cli, SummaryAndRerunWritesNothing) {
  TempDir out;
  const std::string args = "run test/cli/inputs/good.cpp --registration named --lib t -o '" +
                           out.path().string() + "' " + kFlags;
  RunResult first = opscan(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err, "");
  const std::string where = out.path().string() + "/t";
  EXPECT_EQ(first.out,
            "opscan: library 't': 1 operator (1 demo), registration: "
            "torch::executor::register_t_kernels()\n"
            "opscan: " +
                where +
                ": RegisterKernels.h, RegisterKernels.cpp, NativeFunctions.h, ir.json (4 written, "
                "0 unchanged)\n");
  Snapshot before = snapshot(out.path());
  RunResult second = opscan(args);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("(0 written, 4 unchanged)"), std::string::npos) << second.out;
  EXPECT_EQ(snapshot(out.path()), before); // same bytes, same modification times
}

TEST(Cli, ScanThenGenerateEqualsRun) {
  TempDir dir;
  const fs::path ir = dir.path() / "kernels.ir.json";
  ASSERT_EQ(opscan("scan -o '" + ir.string() +
                   "' examples/kernels/elementwise.cpp "
                   "examples/kernels/reduce.cpp " +
                   kFlags)
                .exit_code,
            0);
  RunResult generated = opscan("generate '" + ir.string() + "' --registration named --lib ex -o '" +
                               (dir.path() / "a").string() + "'");
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  RunResult run = opscan("run examples/kernels/elementwise.cpp examples/kernels/reduce.cpp "
                         "--registration named --lib ex -o '" +
                         (dir.path() / "b").string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* file :
       {"RegisterKernels.h", "RegisterKernels.cpp", "NativeFunctions.h", "ir.json"}) {
    EXPECT_EQ(read(dir.path() / "a/ex" / file), read(dir.path() / "b/ex" / file)) << file;
  }
}

TEST(Cli, GenerateFromDamagedIrIsALocatedError) {
  TempDir dir;
  const fs::path ir = dir.path() / "broken.ir.json";
  std::ofstream(ir) << "{\n  \"format\": \"opscan-ir\",\n  \"version\": 1,\n  \"kernels\": [\n";
  RunResult run = opscan("generate '" + ir.string() + "' --registration named -o '" +
                         (dir.path() / "out").string() + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind(ir.string() + ":5:1: error: not valid JSON", 0), 0u) << run.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

TEST(Cli, TemplatesDirectoryOverridesBuiltIns) {
  TempDir dir;
  fs::create_directories(dir.path() / "tpl/executorch");
  std::ofstream(dir.path() / "tpl/executorch/RegisterKernels.h")
      << "// custom header for ${library}\n${declarations}\n";
  RunResult run = opscan("run test/cli/inputs/good.cpp --registration named --lib t --templates '" +
                         (dir.path() / "tpl").string() + "' -o '" + (dir.path() / "out").string() +
                         "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string header = read(dir.path() / "out/t/RegisterKernels.h");
  EXPECT_EQ(header.rfind("// custom header for t\nnamespace torch::executor {", 0), 0u) << header;
  // The other templates are still the built-in ones.
  EXPECT_NE(read(dir.path() / "out/t/RegisterKernels.cpp").find("register_library()"),
            std::string::npos);
}

// ---------------------------------------------------------------------------
// Golden files: the example library in every registration mode. Refresh with
// OPSCAN_UPDATE_GOLDEN=1 after an intended change.

class GoldenTest : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

// The libclang version differs between machines; the golden IR says "<libclang>".
std::string normalized(std::string text) {
  const std::string key = "\"libclang_version\": \"";
  if (size_t at = text.find(key); at != std::string::npos) {
    size_t begin = at + key.size();
    text.replace(begin, text.find('"', begin) - begin, "<libclang>");
  }
  return text;
}

TEST_P(GoldenTest, MatchesGoldenFiles) {
  const auto [mode, lib] = GetParam();
  TempDir out;
  std::string lib_option = std::string(lib) == "all" ? "" : std::string("--lib ") + lib;
  RunResult run =
      opscan("run examples/kernels/elementwise.cpp examples/kernels/reduce.cpp "
             "--registration " +
             std::string(mode) + " " + lib_option + " -o '" + out.path().string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const fs::path golden = kRepo / "test/golden" / mode / lib;
  const bool update = std::getenv("OPSCAN_UPDATE_GOLDEN") != nullptr;
  // Only the registration files differ between modes; the others are
  // compared once, in named mode.
  std::vector<std::string> files = {"RegisterKernels.h", "RegisterKernels.cpp"};
  if (std::string(mode) == "named")
    files.insert(files.end(), {"NativeFunctions.h", "ir.json"});
  for (const std::string& file : files) {
    std::string actual = normalized(read(out.path() / lib / file));
    if (update) {
      fs::create_directories(golden);
      std::ofstream(golden / file, std::ios::binary) << actual;
    }
    EXPECT_EQ(actual, read(golden / file))
        << "differs from " << (golden / file) << " (refresh: OPSCAN_UPDATE_GOLDEN=1)";
  }
}

INSTANTIATE_TEST_SUITE_P(Cli, GoldenTest,
                         ::testing::Values(std::pair{"named", "examples"},
                                           std::pair{"manual", "all"}, std::pair{"static", "all"}),
                         [](const auto& info) { return std::string(info.param.first); });

} // namespace
