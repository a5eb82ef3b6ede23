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
        BadInput{"ExecuTorchCannotPassIt", "test/cli/inputs/executorch_unsupported.cpp --lib t",
                 "test/cli/inputs/executorch_unsupported.cpp:19:9: error: kernel 'rotate_out' "
                 "(demo::rotate.out): argument 'angle' of type complex is not supported by the "
                 "ExecuTorch target: ExecuTorch has no complex type "
                 "[opscan-executorch-unsupported]\n"
                 "Tensor& rotate_out(KernelRuntimeContext& ctx, const Tensor& self, "
                 "c10::complex<double> angle,\n"
                 "        ^\n"
                 "test/cli/inputs/executorch_unsupported.cpp:24:28: error: kernel 'minmax' "
                 "(demo::minmax): returns 2 values: ExecuTorch has one return slot; write them to "
                 "out tensors instead [opscan-executorch-unsupported]\n"
                 "std::tuple<Tensor, Tensor> minmax(KernelRuntimeContext& ctx, const Tensor& "
                 "self);\n"
                 "                           ^\n"},
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
                ": RegisterKernels.h, RegisterKernels.cpp, NativeFunctions.h, Functions.h, "
                "selected_operators.yaml, ir.json (6 written, 0 unchanged)\n");
  Snapshot before = snapshot(out.path());
  RunResult second = opscan(args);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("(0 written, 6 unchanged)"), std::string::npos) << second.out;
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
  for (const char* file : {"RegisterKernels.h", "RegisterKernels.cpp", "NativeFunctions.h",
                           "Functions.h", "selected_operators.yaml", "ir.json"}) {
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
// --schemas: known operator schemas for kernels annotated with a name only.

TEST(Cli, SchemasFileMustExist) {
  RunResult run = opscan("scan --schemas test/cli/inputs/no_such_schemas.txt -o /tmp/x.json "
                         "test/cli/inputs/good.cpp");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--schemas: File does not exist: test/cli/inputs/no_such_schemas.txt"),
            std::string::npos)
      << run.err;
}

TEST(Cli, SchemasFileChecksKernelsNamedOnly) {
  // known_schemas.txt gives demo::neg.out an argument good.cpp's kernel lacks.
  TempDir out;
  const std::string to = " -o '" + (out.path() / "x").string() + "'";
  for (const std::string& command : {"scan" + to, "run --registration named" + to}) {
    RunResult run =
        opscan(command + " --schemas test/cli/inputs/known_schemas.txt test/cli/inputs/good.cpp " +
               kFlags);
    EXPECT_EQ(run.exit_code, 1) << command;
    EXPECT_NE(run.err.find("test/cli/inputs/known_schemas.txt:2:1: note: known schema: "
                           "demo::neg.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)"),
              std::string::npos)
        << command << "\n"
        << run.err;
  }
}

// ---------------------------------------------------------------------------
// Several libraries in one run: `generate` given library IRs (<lib>/ir.json)
// and no --lib regenerates each into its own directory.

class Libraries {
public:
  // Generates `sources` as library `lib` into the input directory; returns
  // the path of its library IR.
  std::string make(const std::string& lib, const std::string& mode, const std::string& sources) {
    RunResult run = opscan("run " + sources + " --registration " + mode + " --lib " + lib +
                           " -o '" + (dir_.path() / "in").string() + "' " + kFlags);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return (dir_.path() / "in" / lib / "ir.json").string();
  }
  fs::path in() const { return dir_.path() / "in"; }
  fs::path out() const { return dir_.path() / "out"; }
  std::string out_option() const { return " -o '" + out().string() + "'"; }

private:
  TempDir dir_;
};

const char* const kFiles = "RegisterKernels.h, RegisterKernels.cpp, NativeFunctions.h, "
                           "Functions.h, selected_operators.yaml, ir.json";

TEST(MultiLibrary, EachLibraryKeepsItsNameAndRegistration) {
  Libraries libs;
  std::string ew = libs.make("ew", "named", "examples/kernels/elementwise.cpp");
  std::string red = libs.make("red", "static", "examples/kernels/reduce.cpp");
  RunResult run = opscan("generate '" + ew + "' '" + red + "'" + libs.out_option());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out, "opscan: library 'ew': 5 operators (3 aten, 2 demo), registration: "
                     "torch::executor::register_ew_kernels()\n"
                     "opscan: " +
                         (libs.out() / "ew").string() + ": " + kFiles +
                         " (6 written, 0 unchanged)\n"
                         "opscan: library 'red': 4 operators (4 demo), registration: static "
                         "initializer\n"
                         "opscan: " +
                         (libs.out() / "red").string() + ": " + kFiles +
                         " (6 written, 0 unchanged)\n");
  // The same files as when each was generated on its own.
  Snapshot in = snapshot(libs.in()), out = snapshot(libs.out());
  ASSERT_EQ(in.size(), 12u);
  for (const auto& [path, file] : in)
    EXPECT_EQ(out[path].first, file.first) << path;

  // --registration applies to every library.
  RunResult named =
      opscan("generate '" + ew + "' '" + red + "' --registration named" + libs.out_option());
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.out.find("library 'red': 4 operators (4 demo), registration: "
                           "torch::executor::register_red_kernels()"),
            std::string::npos)
      << named.out;
}

// A failed multi-library run: exit code 1, exactly `stderr_`, and the output
// directory (holding an earlier generation) as it was.
void expect_refused(Libraries& libs, const std::vector<std::string>& irs,
                    const std::string& stderr_) {
  std::string good = libs.make("good", "named", "test/cli/inputs/good.cpp");
  ASSERT_EQ(opscan("generate '" + good + "'" + libs.out_option()).exit_code, 0);
  Snapshot before = snapshot(libs.out());
  std::string args;
  for (const std::string& ir : irs)
    args += " '" + ir + "'";
  RunResult run = opscan("generate" + args + libs.out_option());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, stderr_);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(snapshot(libs.out()), before);
}

TEST(MultiLibrary, TwoLibrariesWithOneNameAreRefused) {
  Libraries libs;
  std::string first = libs.make("ops", "named", "examples/kernels/elementwise.cpp");
  TempDir other;
  RunResult run = opscan("run examples/kernels/reduce.cpp --registration named --lib ops -o '" +
                         other.path().string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string second = (other.path() / "ops/ir.json").string();
  expect_refused(libs, {first, second},
                 "opscan: error: two libraries named 'ops': " + first + " and " + second +
                     "; each library needs its own name (it names the output directory) "
                     "[opscan-duplicate-library]\n");
}

TEST(MultiLibrary, TwoLibrariesWithOneRegistrationFunctionAreRefused) {
  Libraries libs;
  std::string ew = libs.make("ew", "manual", "examples/kernels/elementwise.cpp");
  std::string red = libs.make("red", "manual", "examples/kernels/reduce.cpp");
  expect_refused(libs, {ew, red},
                 "opscan: error: libraries 'ew' (" + ew + ") and 'red' (" + red +
                     ") both define torch::executor::register_all_kernels(), so they cannot be "
                     "linked into one program; give them named registration "
                     "[opscan-duplicate-registration]\n");
}

TEST(MultiLibrary, AnOperatorInTwoLibrariesIsRefusedAtTheSecond) {
  Libraries libs;
  std::string one = libs.make("one", "named", "test/cli/inputs/good.cpp");
  std::string two = libs.make("two", "named", "test/cli/inputs/neg_again.cpp");
  expect_refused(libs, {one, two},
                 "test/cli/inputs/neg_again.cpp:10:9: error: operator demo::neg.out is registered "
                 "by library 'one' and by library 'two'; ExecuTorch registers each operator and "
                 "kernel key once [opscan-library-overlap]\n"
                 "Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n"
                 "        ^\n"
                 "test/cli/inputs/good.cpp:8:9: note: library 'one' registers it here, with "
                 "'neg_out'\n"
                 "Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n"
                 "        ^\n");
}

TEST(MultiLibrary, LibraryIrsAndScanOutputNeedLib) {
  Libraries libs;
  std::string ew = libs.make("ew", "named", "examples/kernels/elementwise.cpp");
  const fs::path fragment = libs.in() / "reduce.ir.json";
  ASSERT_EQ(
      opscan("scan -o '" + fragment.string() + "' examples/kernels/reduce.cpp " + kFlags).exit_code,
      0);
  RunResult mixed = opscan("generate '" + ew + "' '" + fragment.string() + "'" + libs.out_option());
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_EQ(mixed.err, "opscan: error: " + ew + " is a library IR and " + fragment.string() +
                           " is scan output: give --lib to merge them into one library, or pass "
                           "only library IRs to regenerate each\n");
  EXPECT_FALSE(fs::exists(libs.out()));

  // Merging into one library needs --registration.
  RunResult unregistered =
      opscan("generate '" + ew + "' '" + fragment.string() + "' --lib both" + libs.out_option());
  EXPECT_EQ(unregistered.exit_code, 2);
  EXPECT_EQ(unregistered.err, "opscan: error: --registration is required when merging IR files "
                              "into one library (only library IRs without --lib keep their "
                              "own)\n");

  // --lib merges library IRs and scan output into one new library.
  RunResult merged = opscan("generate '" + ew + "' '" + fragment.string() +
                            "' --lib both --registration static" + libs.out_option());
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.out.find("opscan: library 'both': 9 operators (3 aten, 6 demo), registration: "
                            "static initializer\n"),
            std::string::npos)
      << merged.out;
  EXPECT_NE(read(libs.out() / "both/ir.json")
                .find("\"library\": {\n    \"name\": \"both\",\n    \"registration\": "
                      "\"static\",\n    \"function\": \"\",\n    \"target\": \"executorch\"\n  }"),
            std::string::npos);
}

// ---------------------------------------------------------------------------
// Golden files: the example library in every registration mode, and one
// kernel per argument and return type the ExecuTorch target supports
// (test/cli/inputs/all_types.cpp). Refresh with OPSCAN_UPDATE_GOLDEN=1 after
// an intended change.

struct Golden {
  const char* name;
  const char* mode;
  const char* lib;    // "all": no --lib
  const char* inputs; // kernel sources
  const char* golden; // directory under test/golden
  bool all_files;     // else only the registration files, which differ between modes
};

void PrintTo(const Golden& golden, std::ostream* os) {
  *os << golden.name;
}

class GoldenTest : public ::testing::TestWithParam<Golden> {};

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
  const Golden& g = GetParam();
  TempDir out;
  std::string lib_option = std::string(g.lib) == "all" ? "" : std::string("--lib ") + g.lib;
  RunResult run = opscan("run " + std::string(g.inputs) + " --registration " + g.mode + " " +
                         lib_option + " -o '" + out.path().string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const fs::path golden = kRepo / "test/golden" / g.golden;
  const bool update = std::getenv("OPSCAN_UPDATE_GOLDEN") != nullptr;
  std::vector<std::string> files = {"RegisterKernels.h", "RegisterKernels.cpp"};
  if (g.all_files) {
    files.insert(files.end(),
                 {"NativeFunctions.h", "Functions.h", "selected_operators.yaml", "ir.json"});
  }
  for (const std::string& file : files) {
    std::string actual = normalized(read(out.path() / g.lib / file));
    if (update) {
      fs::create_directories(golden);
      std::ofstream(golden / file, std::ios::binary) << actual;
    }
    EXPECT_EQ(actual, read(golden / file))
        << "differs from " << (golden / file) << " (refresh: OPSCAN_UPDATE_GOLDEN=1)";
  }
}

const char* const kExamples = "examples/kernels/elementwise.cpp examples/kernels/reduce.cpp";

INSTANTIATE_TEST_SUITE_P(
    Cli, GoldenTest,
    ::testing::Values(Golden{"named", "named", "examples", kExamples, "named/examples", true},
                      Golden{"manual", "manual", "all", kExamples, "manual/all", false},
                      Golden{"static", "static", "all", kExamples, "static/all", false},
                      Golden{"types", "named", "types", "test/cli/inputs/all_types.cpp", "types",
                             true}),
    [](const auto& info) { return std::string(info.param.name); });

} // namespace
