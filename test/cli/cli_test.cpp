// Runs the opscan binary the way users do, from the repository root, and
// checks its exact output, exit codes and files.
#include "files.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const char* const kFlags = "-- -std=c++17 -Iinclude -Iexamples/include";
const char* const kExamples = "examples/kernels/elementwise.cpp examples/kernels/reduce.cpp";

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using opscan::testing::read_file;
using opscan::testing::snapshot;
using opscan::testing::Snapshot;
using opscan::testing::TempDir;

// Runs `opscan <args>` in the repository root.
RunResult opscan(const std::string& args) {
  TempDir io;
  std::string command = "cd '" + kRepo.string() + "' && '" OPSCAN_BINARY "' " + args + " >'" +
                        (io.path() / "out").string() + "' 2>'" + (io.path() / "err").string() + "'";
  int status = std::system(command.c_str());
  RunResult run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file(io.path() / "out");
  run.err = read_file(io.path() / "err");
  return run;
}

// Two generated ExecuTorch libraries have the same files.
void expect_same_library(const fs::path& a, const fs::path& b) {
  for (const char* file : {"RegisterKernels.h", "RegisterKernels.cpp", "NativeFunctions.h",
                           "Functions.h", "selected_operators.yaml", "ir.json"}) {
    EXPECT_EQ(read_file(a / file), read_file(b / file)) << file;
  }
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
                 "                                                                     ^\n"
                 "                                                                 int64_t\n"},
        BadInput{"MalformedOperatorName", "test/cli/inputs/bad_operator_name.cpp --lib t",
                 "test/cli/inputs/bad_operator_name.cpp:7:25: error: name 'neg_out' ends in "
                 "'_out': name it 'neg' with overload 'out' (neg.out) [opscan-schema-out-suffix]\n"
                 "OPSCAN_KERNEL(\"demo::neg_out\")\n"
                 "                        ^\n"
                 "               demo::neg.out\n"
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
        // Each target takes only kernels of its runtime: neither passes its
        // own context to a kernel that takes the other's.
        BadInput{"ExecuTorchKernelForTorch",
                 "test/cli/inputs/context_twice.cpp --lib t --target torch",
                 "test/cli/inputs/context_twice.cpp:9:9: error: kernel 'twice' (demo::twice): "
                 "takes ExecuTorch's KernelRuntimeContext first; kernels for PyTorch's "
                 "dispatcher take c10::DispatchKeySet first, or nothing "
                 "[opscan-torch-unsupported]\n"
                 "int64_t twice(KernelRuntimeContext& ctx, int64_t x);\n"
                 "        ^\n"},
        BadInput{"TorchKernelForExecuTorch", "test/cli/inputs/keyset_twice.cpp --lib t",
                 "test/cli/inputs/keyset_twice.cpp:6:9: error: kernel 'twice' (demo::twice): "
                 "ExecuTorch kernels take 'executorch::runtime::KernelRuntimeContext&' as their "
                 "first parameter [opscan-executorch-unsupported]\n"
                 "int64_t twice(c10::DispatchKeySet keys, int64_t x);\n"
                 "        ^\n"},
        // The torch target tells kernels apart by dispatch key: ExecuTorch's
        // kernel keys do not make two kernels of one operator two.
        BadInput{"TorchKernelsDifferingOnlyByKernelKey",
                 "test/cli/inputs/torch_keyed.cpp --lib t --target torch",
                 "test/cli/inputs/torch_keyed.cpp:6:12: error: the annotation sets key = "
                 "'v1/6;0', which the torch target does not read: remove it, or generate for a "
                 "target that does [opscan-unsupported-field]\n"
                 "at::Tensor neg_float(const at::Tensor& self);\n"
                 "           ^\n"
                 "test/cli/inputs/torch_keyed.cpp:9:12: error: two kernels for demo::neg "
                 "(dispatch key CPU): 'neg_float' and 'neg_int'; the torch target registers one "
                 "kernel there [opscan-duplicate-kernel]\n"
                 "at::Tensor neg_int(const at::Tensor& self);\n"
                 "           ^\n"
                 "test/cli/inputs/torch_keyed.cpp:6:12: note: 'neg_float' is annotated here\n"
                 "at::Tensor neg_float(const at::Tensor& self);\n"
                 "           ^\n"
                 "test/cli/inputs/torch_keyed.cpp:9:12: error: the annotation sets key = "
                 "'v1/3;0', which the torch target does not read: remove it, or generate for a "
                 "target that does [opscan-unsupported-field]\n"
                 "at::Tensor neg_int(const at::Tensor& self);\n"
                 "           ^\n"},
        // Schema text reaches generated code: a line break in it is refused
        // where it is written.
        BadInput{"LineBreakInASchemaString", "test/cli/inputs/newline_default.cpp --lib t",
                 "test/cli/inputs/newline_default.cpp:9:46: error: string default holds byte "
                 "0x0a: schema strings are printable ASCII (write it with an escape, such as "
                 "\\n, or leave it out) [opscan-schema-syntax]\n"
                 "OPSCAN_KERNEL(\"demo::tag(int x, str label=\\\"x\\n#define INJECTED 1 "
                 "//\\\") -> int\")\n"
                 "                                             ^\n"},
        BadInput{"UnknownOperatorSelected",
                 "test/cli/inputs/good.cpp --lib t --operators demo::neg,demo::abs.out",
                 "opscan: error: no kernel implements operator 'demo::neg'; did you mean "
                 "'demo::neg.out'? [opscan-unknown-operator]\n"
                 "opscan: error: no kernel implements operator 'demo::abs.out' "
                 "[opscan-unknown-operator]\n"},
        BadInput{"MalformedOperatorSelected",
                 "test/cli/inputs/good.cpp --lib t --operators demo::neg.out --operators neg.out",
                 "opscan: error: operator name 'neg.out' is malformed: expected '::' after "
                 "namespace 'neg', found '.' (write namespace::name.overload, or namespace::name "
                 "without overload) [opscan-schema-syntax]\n"},
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
  RunResult unknown = opscan("frobnicate");
  EXPECT_EQ(unknown.err, "opscan: error: unknown command 'frobnicate' (commands: scan, pch, "
                         "generate, check, run, import-yaml, lsp, diff, report); see opscan --help "
                         "[opscan-usage]\n");
  RunResult no_output = opscan("scan test/cli/inputs/good.cpp");
  EXPECT_EQ(no_output.exit_code, 2);
  EXPECT_EQ(no_output.err,
            "opscan: error: --output is required; see opscan --help [opscan-usage]\n");
}

// A missing input is an I/O failure, like any file that cannot be read.
TEST(Cli, AMissingInputExitsWithThree) {
  RunResult missing = opscan("scan -o /tmp/x.json test/cli/inputs/no_such_file.cpp");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_EQ(missing.err, "opscan: error: cannot read test/cli/inputs/no_such_file.cpp (a source): "
                         "No such file or directory [opscan-io]\n");
}

TEST(Cli, VersionNamesOpscanLibclangAndTheResourceDirectory) {
  RunResult run = opscan("--version");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out.rfind("opscan " OPSCAN_VERSION "\nlibclang: ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("clang version"), std::string::npos) << run.out;
  // The last line names a directory holding clang's builtin headers.
  const std::string prefix = "\nclang resource directory: ";
  const size_t at = run.out.find(prefix);
  ASSERT_NE(at, std::string::npos) << run.out;
  std::string dir = run.out.substr(at + prefix.size());
  while (!dir.empty() && dir.back() == '\n')
    dir.pop_back();
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/include/stddef.h")) << dir;
}

TEST(Cli, HelpOfEachCommandHasAnExample) {
  for (const char* command : {"scan", "generate", "run", "check", "pch", "diff", "report"}) {
    RunResult run = opscan(std::string(command) + " --help");
    EXPECT_EQ(run.exit_code, 0) << command;
    EXPECT_NE(run.out.find("Example:\n  opscan " + std::string(command)), std::string::npos)
        << run.out;
  }
}

// ---------------------------------------------------------------------------
// Generation.

// Profiling is on by default; --no-profiling leaves every trace of it out.
TEST(Cli, NoProfilingLeavesOutTheProfilingCalls) {
  for (const bool profiling : {true, false}) {
    TempDir out;
    RunResult run =
        opscan("run test/cli/inputs/good.cpp --registration named --lib t -o '" +
               out.path().string() + "' " + (profiling ? "" : "--no-profiling ") + kFlags);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string cpp = read_file(out.path() / "t" / "RegisterKernels.cpp");
    EXPECT_EQ(cpp.find("EXECUTORCH_SCOPE_PROF(") != std::string::npos, profiling) << cpp;
    EXPECT_EQ(cpp.find("event_tracer") != std::string::npos, profiling) << cpp;
  }
}

TEST(Cli, SummaryAndRerunWritesNothing) {
  TempDir out;
  const std::string args = "run test/cli/inputs/good.cpp --registration named --lib t -o '" +
                           out.path().string() + "' " + kFlags;
  RunResult first = opscan(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err, "");
  const std::string where = out.path().string() + "/t";
  EXPECT_EQ(
      first.out,
      "opscan: library 't': 1 operator (1 demo), registration: "
      "torch::executor::register_t_kernels()\n"
      "opscan: " +
          where +
          ": RegisterKernels.h, RegisterKernels.cpp, KernelSources.cpp, NativeFunctions.h, "
          "Functions.h, "
          "selected_operators.yaml, selected_max_kernel_num.h, ir.json (8 written, 0 unchanged)\n");
  Snapshot before = snapshot(out.path());
  RunResult second = opscan(args);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("(0 written, 8 unchanged)"), std::string::npos) << second.out;
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
  expect_same_library(dir.path() / "a/ex", dir.path() / "b/ex");
}

TEST(Cli, GenerateFromDamagedIrIsALocatedError) {
  TempDir dir;
  const fs::path ir = dir.path() / "broken.ir.json";
  opscan::testing::write_file(
      ir, "{\n  \"format\": \"opscan-ir\",\n  \"version\": 1,\n  \"kernels\": [\n");
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
  std::string header = read_file(dir.path() / "out/t/RegisterKernels.h");
  EXPECT_EQ(header.rfind("// custom header for t\nnamespace torch::executor {", 0), 0u) << header;
  // The other templates are still the built-in ones.
  EXPECT_NE(read_file(dir.path() / "out/t/RegisterKernels.cpp").find("register_library()"),
            std::string::npos);
}

// ---------------------------------------------------------------------------
// --operators: only the kernels of the operators named.

TEST(Cli, OperatorsSelectsKernelsInRunAndGenerate) {
  TempDir dir;
  // Comma-separated and repeated, before and after the positional files.
  RunResult run = opscan("run --operators aten::mul.out,demo::relu_ " + std::string(kExamples) +
                         " --operators demo::total.out --registration named --lib ex -o '" +
                         (dir.path() / "run").string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out.substr(0, run.out.find('\n') + 1),
            "opscan: library 'ex': 3 operators (1 aten, 2 demo), registration: "
            "torch::executor::register_ex_kernels()\n");
  std::string cpp = read_file(dir.path() / "run/ex/RegisterKernels.cpp");
  EXPECT_NE(cpp.find("    Kernel(\"aten::mul.out\", aten_mul_out),\n"
                     "    Kernel(\"demo::relu_\", demo_relu_),\n"
                     "    Kernel(\"demo::total.out\", demo_total_out),\n"
                     "};"),
            std::string::npos)
      << cpp;
  EXPECT_EQ(cpp.find("aten::add.out"), std::string::npos);

  // generate from scan output selects the same way.
  const fs::path ir = dir.path() / "kernels.ir.json";
  ASSERT_EQ(opscan("scan -o '" + ir.string() + "' " + kExamples + " " + kFlags).exit_code, 0);
  RunResult generated = opscan("generate '" + ir.string() +
                               "' --operators demo::total.out,aten::mul.out,demo::relu_ "
                               "--registration named --lib ex -o '" +
                               (dir.path() / "gen").string() + "'");
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  expect_same_library(dir.path() / "gen/ex", dir.path() / "run/ex");
}

// What a generation writes and defines, for build files, without input.
TEST(Cli, ListOutputsNamesEveryFileAndSymbol) {
  RunResult et = opscan("generate --list-outputs --registration named --lib ops");
  EXPECT_EQ(et.exit_code, 0) << et.err;
  EXPECT_EQ(et.out, "header ops/RegisterKernels.h\n"
                    "source ops/RegisterKernels.cpp\n"
                    "source ops/KernelSources.cpp\n"
                    "header ops/NativeFunctions.h\n"
                    "header ops/Functions.h\n"
                    "data ops/selected_operators.yaml\n"
                    "header ops/kernel_count/executorch/runtime/kernel/selected_max_kernel_num.h\n"
                    "data ops/ir.json\n"
                    "registration-function torch::executor::register_ops_kernels\n");
  RunResult torch =
      opscan("generate --list-outputs --target torch --registration static --lib ops");
  EXPECT_EQ(torch.out, "header ops/RegisterKernels.h\n"
                       "source ops/RegisterKernels.cpp\n"
                       "source ops/KernelSources.cpp\n"
                       "header ops/NativeFunctions.h\n"
                       "data ops/ir.json\n"
                       "link-anchor opscan_static_registration_ops\n");

  // Exactly the files a generation writes.
  TempDir dir;
  RunResult run = opscan("run test/cli/inputs/good.cpp --registration named --lib ops -o '" +
                         dir.path().string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string written;
  for (const auto& [path, file] : snapshot(dir.path()))
    written += path + "\n";
  std::string listed;
  std::istringstream lines(et.out);
  std::vector<std::string> files;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("registration-function "))
      files.push_back(line.substr(line.find(' ') + 1));
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files)
    listed += file + "\n";
  EXPECT_EQ(listed, written);

  // Checked as generate checks them.
  RunResult keyword = opscan("generate --list-outputs --registration named --lib for");
  EXPECT_EQ(keyword.exit_code, 1);
  EXPECT_EQ(keyword.out, "");
  RunResult unknown = opscan("generate --list-outputs --target tflite --registration named");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "opscan: error: unknown target 'tflite' (targets: executorch, "
                         "executorch-aot, torch, torch-stable) "
                         "[opscan-usage]\n");
  RunResult dispatch =
      opscan("generate --list-outputs --registration named --lib ops --dispatch-key CUDA");
  EXPECT_EQ(dispatch.exit_code, 1);
  EXPECT_NE(dispatch.err.find("the executorch target reads no dispatch_key"), std::string::npos)
      << dispatch.err;
}

TEST(Cli, OperatorsNeedsOneLibrary) {
  // Library IRs regenerated as recorded keep all their operators.
  TempDir dir;
  const std::string in = " -o '" + (dir.path() / "in").string() + "' " + kFlags;
  ASSERT_EQ(opscan("run test/cli/inputs/good.cpp --registration named --lib t" + in).exit_code, 0);
  const std::string ir = (dir.path() / "in/t/ir.json").string();
  const std::string out = " -o '" + (dir.path() / "out").string() + "'";
  RunResult run = opscan("generate '" + ir + "' --operators demo::neg.out" + out);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "opscan: error: --operators selects the operators of one new library: give "
                     "--lib to merge the library IRs into one (without --lib each library is "
                     "generated again with all its operators) [opscan-usage]\n");
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  // With --lib it is one library again.
  RunResult merged =
      opscan("generate '" + ir + "' --operators demo::neg.out --lib u --registration static" + out);
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_TRUE(fs::exists(dir.path() / "out/u/RegisterKernels.cpp"));
}

// ---------------------------------------------------------------------------
// --stamp: touched after success, even when no output changed; not on failure.

const auto kLongAgo = fs::file_time_type::clock::now() - std::chrono::hours(48);

TEST(Cli, GenerateStampIsTouchedOnSuccessOnly) {
  TempDir dir;
  const fs::path ir = dir.path() / "kernels.ir.json";
  ASSERT_EQ(opscan("scan -o '" + ir.string() + "' test/cli/inputs/good.cpp " + kFlags).exit_code,
            0);
  const fs::path stamp = dir.path() / "stamps" / "generate.stamp";
  const std::string args = "generate '" + ir.string() + "' --registration named --lib t -o '" +
                           (dir.path() / "out").string() + "' --stamp '" + stamp.string() + "'";
  RunResult first = opscan(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_TRUE(fs::is_regular_file(stamp));

  // Nothing generated changes, the stamp still moves.
  fs::last_write_time(stamp, kLongAgo);
  Snapshot generated = snapshot(dir.path() / "out");
  RunResult again = opscan(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("(0 written, 8 unchanged)"), std::string::npos) << again.out;
  EXPECT_EQ(snapshot(dir.path() / "out"), generated);
  EXPECT_GT(fs::last_write_time(stamp), kLongAgo + std::chrono::hours(24));

  // A failed generation leaves it alone.
  fs::last_write_time(stamp, kLongAgo);
  RunResult failed = opscan(args + " --operators demo::nope");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(fs::last_write_time(stamp), kLongAgo);
}

TEST(Cli, StampThatCannotBeWrittenIsAnIoFailure) {
  TempDir dir;
  const fs::path ir = dir.path() / "kernels.ir.json";
  ASSERT_EQ(opscan("scan -o '" + ir.string() + "' test/cli/inputs/good.cpp " + kFlags).exit_code,
            0);
  fs::create_directories(dir.path() / "a-directory");
  RunResult run = opscan("generate '" + ir.string() + "' --registration named -o '" +
                         (dir.path() / "out").string() + "' --stamp '" +
                         (dir.path() / "a-directory").string() + "'");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "opscan: error: cannot touch " + (dir.path() / "a-directory").string() +
                         ": Is a directory (no output was changed) [opscan-io]\n");
  EXPECT_FALSE(fs::exists(dir.path() / "out")); // checked before anything was written
}

// ---------------------------------------------------------------------------
// scan for build tools: --flags-file, --depfile, --stamp.

// Each line of a --flags-file is one argument; empty lines and a CR before
// the newline are ignored; they come before the arguments after --.
// A flags file in `dir` with kFlags' arguments, written as `text`.
fs::path flags_file(const TempDir& dir,
                    const char* text = "-std=c++17\n-Iinclude\n-Iexamples/include\n") {
  const fs::path flags = dir.path() / "flags.txt";
  std::ofstream(flags) << text;
  return flags;
}

TEST(Cli, FlagsFileGivesTheSameScanAsArgumentsAfterDashes) {
  TempDir dir;
  const fs::path flags = flags_file(dir, "-std=c++17\n\n-Iinclude\r\n-Iexamples/include\n");
  const fs::path from_file = dir.path() / "from_file.json";
  const fs::path from_args = dir.path() / "from_args.json";
  RunResult a = opscan("scan test/cli/inputs/good.cpp -o '" + from_file.string() +
                       "' --flags-file '" + flags.string() + "'");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  RunResult b = opscan("scan test/cli/inputs/good.cpp -o '" + from_args.string() + "' " + kFlags);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(read_file(from_file), read_file(from_args));
}

TEST(Cli, FlagsFileMustExist) {
  RunResult run = opscan("scan --flags-file test/cli/inputs/no_such_flags.txt -o /tmp/x.json "
                         "test/cli/inputs/good.cpp");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "opscan: error: cannot read test/cli/inputs/no_such_flags.txt: No such file "
                     "or directory [opscan-io]\n");
}

// The prerequisites of a depfile, unescaped (the test paths have no spaces).
std::vector<std::string> prerequisites(const std::string& depfile, std::string* target) {
  std::istringstream in(depfile);
  std::vector<std::string> found;
  for (std::string word; in >> word;) {
    if (word == "\\")
      continue;
    if (target && target->empty() && word.back() == ':')
      *target = word.substr(0, word.size() - 1);
    else
      found.push_back(word);
  }
  return found;
}

TEST(Cli, ScanDepfileListsEveryFileReadAndStampIsTouchedOnSuccessOnly) {
  TempDir dir;
  const fs::path flags = flags_file(dir);
  const fs::path ir = dir.path() / "good.ir.json";
  const fs::path depfile = dir.path() / "good.d";
  const fs::path stamp = dir.path() / "good.stamp";
  const std::string args = "scan test/cli/inputs/good.cpp -o '" + ir.string() + "' --depfile '" +
                           depfile.string() + "' --stamp '" + stamp.string() + "' --flags-file '" +
                           flags.string() + "'";
  RunResult first = opscan(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;

  std::string target;
  std::vector<std::string> inputs = prerequisites(read_file(depfile), &target);
  EXPECT_EQ(target, stamp.string());
  for (const fs::path& expected :
       {kRepo / "test/cli/inputs/good.cpp", kRepo / "include/opscan/annotations.h",
        kRepo / "examples/include/opscan_examples/executorch_types.h", flags}) {
    EXPECT_NE(std::find(inputs.begin(), inputs.end(), expected.string()), inputs.end())
        << expected << " missing from\n"
        << read_file(depfile);
  }
  // Standard headers too, as real paths: a build tool must find every one.
  EXPECT_GT(inputs.size(), 10u);
  for (const std::string& input : inputs) {
    EXPECT_TRUE(fs::path(input).is_absolute()) << input;
    EXPECT_TRUE(fs::is_regular_file(input)) << input;
  }

  // Nothing changed: the IR keeps its time, the stamp moves.
  fs::last_write_time(ir, kLongAgo);
  fs::last_write_time(stamp, kLongAgo);
  RunResult again = opscan(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(fs::last_write_time(ir), kLongAgo);
  EXPECT_GT(fs::last_write_time(stamp), kLongAgo + std::chrono::hours(24));

  // A failed scan touches neither.
  fs::last_write_time(stamp, kLongAgo);
  fs::last_write_time(depfile, kLongAgo);
  RunResult failed = opscan("scan test/cli/inputs/syntax_error.cpp -o '" + ir.string() +
                            "' --depfile '" + depfile.string() + "' --stamp '" + stamp.string() +
                            "' --flags-file '" + flags.string() + "'");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(fs::last_write_time(stamp), kLongAgo);
  EXPECT_EQ(fs::last_write_time(depfile), kLongAgo);
}

TEST(Cli, ScanDepfileWithoutStampNamesTheIr) {
  TempDir dir;
  const fs::path ir = dir.path() / "good.ir.json";
  const fs::path depfile = dir.path() / "good.d";
  RunResult run = opscan("scan test/cli/inputs/good.cpp -o '" + ir.string() + "' --depfile '" +
                         depfile.string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string target;
  prerequisites(read_file(depfile), &target);
  EXPECT_EQ(target, ir.string());
}

// A scan served from the fragment cache lists the same inputs.
TEST(Cli, ScanDepfileFromTheCacheListsTheSameFiles) {
  TempDir dir;
  const fs::path ir = dir.path() / "good.ir.json";
  const std::string args = "scan test/cli/inputs/good.cpp -o '" + ir.string() + "' --cache '" +
                           (dir.path() / "cache").string() + "' --depfile '";
  RunResult parsed = opscan(args + (dir.path() / "parsed.d").string() + "' " + kFlags);
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  RunResult cached = opscan(args + (dir.path() / "cached.d").string() + "' " + kFlags);
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  EXPECT_GT(read_file(dir.path() / "parsed.d").size(), 100u);
  EXPECT_EQ(read_file(dir.path() / "cached.d"), read_file(dir.path() / "parsed.d"));
}

// A precompiled header stands for the headers it was made from: scans that
// load it give the same IR, and list it (it replaces them) in their depfile.
TEST(Cli, PrecompiledHeaderGivesTheSameScan) {
  TempDir dir;
  const fs::path pch = dir.path() / "types.pch";
  const fs::path pch_depfile = dir.path() / "types.d";
  const fs::path pch_stamp = dir.path() / "types.stamp";
  const std::string pch_args = "pch examples/include/opscan_examples/executorch_types.h -o '" +
                               pch.string() + "' --depfile '" + pch_depfile.string() +
                               "' --stamp '" + pch_stamp.string() + "' " + kFlags;
  RunResult made = opscan(pch_args);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(made.out + made.err, "");
  ASSERT_GT(fs::file_size(pch), 1000u);
  std::string target;
  std::vector<std::string> headers = prerequisites(read_file(pch_depfile), &target);
  EXPECT_EQ(target, pch_stamp.string());
  const fs::path types = kRepo / "examples/include/opscan_examples/executorch_types.h";
  EXPECT_NE(std::find(headers.begin(), headers.end(), types.string()), headers.end());

  const fs::path plain = dir.path() / "plain.json";
  const fs::path with_pch = dir.path() / "with_pch.json";
  const fs::path depfile = dir.path() / "with_pch.d";
  ASSERT_EQ(opscan("scan test/cli/inputs/good.cpp -o '" + plain.string() + "' " + kFlags).exit_code,
            0);
  RunResult loaded =
      opscan("scan test/cli/inputs/good.cpp -o '" + with_pch.string() + "' --depfile '" +
             depfile.string() + "' " + kFlags + " -include-pch '" + pch.string() + "'");
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_EQ(read_file(with_pch), read_file(plain));
  std::vector<std::string> inputs = prerequisites(read_file(depfile), nullptr);
  EXPECT_NE(std::find(inputs.begin(), inputs.end(), pch.string()), inputs.end())
      << read_file(depfile);

  // Made again from unchanged headers: the same bytes, so its time stays.
  fs::last_write_time(pch, kLongAgo);
  fs::last_write_time(pch_stamp, kLongAgo);
  ASSERT_EQ(opscan(pch_args).exit_code, 0);
  EXPECT_EQ(fs::last_write_time(pch), kLongAgo);
  EXPECT_GT(fs::last_write_time(pch_stamp), kLongAgo + std::chrono::hours(24));
}

TEST(Cli, PrecompiledHeaderThatCannotBeWrittenIsAnIoFailure) {
  TempDir dir;
  fs::create_directories(dir.path() / "a-directory");
  RunResult run = opscan("pch examples/include/opscan_examples/executorch_types.h -o '" +
                         (dir.path() / "a-directory").string() + "' " + kFlags);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("opscan: error: cannot write " + (dir.path() / "a-directory").string()),
            std::string::npos)
      << run.err;
}

TEST(Cli, PrecompiledHeaderMustExist) {
  RunResult run = opscan("pch include/no_such_header.h -o /tmp/x.pch");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "opscan: error: cannot read include/no_such_header.h (a source): No such "
                     "file or directory [opscan-io]\n");
}

TEST(Cli, PrecompiledHeaderWithErrorsWritesNothing) {
  TempDir dir;
  const fs::path pch = dir.path() / "bad.pch";
  RunResult run =
      opscan("pch test/cli/inputs/syntax_error.cpp -o '" + pch.string() + "' " + kFlags);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("test/cli/inputs/syntax_error.cpp:"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("[opscan-clang-error]"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(pch));
  EXPECT_TRUE(fs::is_empty(dir.path())); // no temporary left behind
}

// ---------------------------------------------------------------------------
// --schemas: known operator schemas for kernels annotated with a name only.

TEST(Cli, SchemasFileMustExist) {
  RunResult run = opscan("scan --schemas test/cli/inputs/no_such_schemas.txt -o /tmp/x.json "
                         "test/cli/inputs/good.cpp");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err,
            "opscan: error: cannot read the schemas file "
            "test/cli/inputs/no_such_schemas.txt: No such file or directory [opscan-io]\n");
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

// Issue 26, finding 2: --schemas once per file, every file counts, and an
// operator none knows is a warning, not silence.
TEST(Cli, SchemasFromEveryFileGiven) {
  const std::string native = " --schemas test/data/schemas_yaml/native_functions.yaml";
  const std::string et = " --schemas test/data/schemas_yaml/et_functions.yaml";
  const std::string source = " test/data/schemas_yaml/dim_order_kernels.cpp ";
  const std::string upstream =
      "dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? "
      "dim_order=None, Tensor(a!) out) -> Tensor(a!)";
  TempDir out;
  const fs::path ir = out.path() / "ir.json";
  for (const std::string& command :
       {"scan -o '" + ir.string() + "'",
        "run --registration named --lib ops -o '" + out.path().string() + "'"}) {
    SCOPED_TRACE(command);
    RunResult alone = opscan(command + native + source + kFlags);
    EXPECT_EQ(alone.exit_code, 0) << alone.err;
    EXPECT_NE(alone.err.find("test/data/schemas_yaml/dim_order_kernels.cpp:11:9: warning: kernel "
                             "'dim_order_kernels::clone_dim_order_out': "
                             "dim_order_ops::_clone_dim_order.out is in none of the schemas files "
                             "given: its schema is inferred from the signature "
                             "[opscan-schema-unknown]"),
              std::string::npos)
        << alone.err;
    RunResult both = opscan(command + native + et + source + kFlags);
    EXPECT_EQ(both.exit_code, 0) << both.err;
    EXPECT_EQ(both.err.find("opscan-schema-unknown"), std::string::npos) << both.err;
  }
  // run wrote its library's IR last: the upstream schema.
  const std::string library = read_file(out.path() / "ops" / "ir.json");
  EXPECT_NE(library.find("\"schema\": \"" + upstream + "\""), std::string::npos) << library;
  EXPECT_NE(read_file(out.path() / "ops" / "NativeFunctions.h").find("// " + upstream + "\n"),
            std::string::npos);
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

// A diagnostic as the command line prints it, located in an IR file at the
// value after `key` (e.g. "\"name\": ") in its `nth` occurrence: the
// header, the JSON line and the caret under the value.
std::string at_json(const std::string& path, const std::string& key, const std::string& rest,
                    int nth = 1) {
  const std::string text = read_file(path);
  size_t at = std::string::npos;
  for (int i = 0; i < nth; ++i)
    at = text.find(key, at == std::string::npos ? 0 : at + 1);
  EXPECT_NE(at, std::string::npos) << key;
  at += key.size();
  const size_t line_start = text.rfind('\n', at) + 1; // npos + 1 is 0
  const size_t line_end = text.find('\n', at);
  const size_t line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
  const size_t column = at - line_start + 1;
  return path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + rest + "\n" +
         text.substr(line_start, line_end - line_start) + "\n" + std::string(column - 1, ' ') +
         "^\n";
}

const char* const kFiles =
    "RegisterKernels.h, RegisterKernels.cpp, KernelSources.cpp, NativeFunctions.h, "
    "Functions.h, selected_operators.yaml, selected_max_kernel_num.h, "
    "ir.json";

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
                         " (8 written, 0 unchanged)\n"
                         "opscan: library 'red': 4 operators (4 demo), registration: static "
                         "initializer\n"
                         "opscan: " +
                         (libs.out() / "red").string() + ": " + kFiles +
                         " (8 written, 0 unchanged)\n");
  // The same files as when each was generated on its own.
  Snapshot in = snapshot(libs.in()), out = snapshot(libs.out());
  ASSERT_EQ(in.size(), 16u);
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
// directory (holding an earlier generation) as it was. `check` refuses the
// same libraries with the same errors.
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

  RunResult check = opscan("check" + args);
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.err, stderr_);
  EXPECT_EQ(check.out, "");
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
                 at_json(second, "\"name\": ",
                         "error: library.name: two libraries named 'ops': " + first + " and " +
                             second +
                             "; each library needs its own name (it names the output directory) "
                             "[opscan-duplicate-library]"));
}

TEST(MultiLibrary, TwoLibrariesWithOneRegistrationFunctionAreRefused) {
  Libraries libs;
  std::string ew = libs.make("ew", "manual", "examples/kernels/elementwise.cpp");
  std::string red = libs.make("red", "manual", "examples/kernels/reduce.cpp");
  expect_refused(libs, {ew, red},
                 at_json(red, "\"function\": ",
                         "error: library.function: libraries 'ew' (" + ew + ") and 'red' (" + red +
                             ") both define torch::executor::register_all_kernels(), so they "
                             "cannot be linked into one program; give them named registration "
                             "[opscan-duplicate-registration]"));
}

TEST(MultiLibrary, AnOperatorInTwoLibrariesIsRefusedAtTheSecond) {
  Libraries libs;
  std::string one = libs.make("one", "named", "test/cli/inputs/good.cpp");
  std::string two = libs.make("two", "named", "test/cli/inputs/neg_again.cpp");
  // Located in the input (the second library's IR), with notes at both
  // kernels: their files and lines, but no line of a file the IRs name.
  expect_refused(libs, {one, two},
                 at_json(two, "\"kernels\": [\n    ",
                         "error: kernels[0]: demo::neg.out is registered by library 'one' and by "
                         "library 'two'; the executorch runtime registers it once "
                         "[opscan-library-overlap]") +
                     "test/cli/inputs/neg_again.cpp:10:9: note: 'other::neg_out' is declared here\n"
                     "test/cli/inputs/good.cpp:8:9: note: library 'one' registers it here, with "
                     "'neg_out'\n");
}

TEST(MultiLibrary, CheckAcceptsLibrariesThatFitAndWritesNothing) {
  Libraries libs;
  std::string ew = libs.make("ew", "named", "examples/kernels/elementwise.cpp");
  std::string red = libs.make("red", "static", "examples/kernels/reduce.cpp");
  Snapshot before = snapshot(libs.in());
  const fs::path stamp = libs.out() / "check.stamp";
  RunResult run = opscan("check '" + ew + "' '" + red + "' --stamp '" + stamp.string() + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out, "opscan: 2 libraries (ew, red) can live in one program\n");
  EXPECT_EQ(snapshot(libs.in()), before);
  // Only the stamp: no generated file.
  EXPECT_EQ(snapshot(libs.out()).size(), 1u);
  EXPECT_TRUE(fs::is_regular_file(stamp));

  // Scan output with library IRs and no --lib: refused, and the stamp is
  // left alone.
  const fs::path fragment = libs.in() / "reduce.ir.json";
  ASSERT_EQ(
      opscan("scan -o '" + fragment.string() + "' examples/kernels/reduce.cpp " + kFlags).exit_code,
      0);
  fs::last_write_time(stamp, kLongAgo);
  RunResult refused =
      opscan("check '" + ew + "' '" + fragment.string() + "' --stamp '" + stamp.string() + "'");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, "opscan: error: " + ew + " is a library IR and " + fragment.string() +
                             " is scan output: give --lib to merge them into one library, or "
                             "pass only library IRs to regenerate each [opscan-usage]\n");
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(fs::last_write_time(stamp), kLongAgo);
}

TEST(MultiLibrary, AnExecuTorchAndATorchLibraryMayShareAnOperator) {
  // They register with different runtimes.
  Libraries libs;
  std::string one = libs.make("one", "named", "test/cli/inputs/good.cpp");
  std::string pt = libs.make("pt", "named --target torch", "test/cli/inputs/torch_neg.cpp");
  RunResult run = opscan("check '" + one + "' '" + pt + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "opscan: 2 libraries (one, pt) can live in one program\n");

  // Two executorch libraries with that operator cannot.
  std::string two = libs.make("two", "named", "test/cli/inputs/neg_again.cpp");
  RunResult overlap = opscan("check '" + one + "' '" + pt + "' '" + two + "'");
  EXPECT_EQ(overlap.exit_code, 1);
  EXPECT_NE(overlap.err.find("error: kernels[0]: demo::neg.out is registered by library 'one' "
                             "and by library 'two'"),
            std::string::npos)
      << overlap.err;
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
                           "only library IRs to regenerate each [opscan-usage]\n");
  EXPECT_FALSE(fs::exists(libs.out()));

  // Merging into one library needs --registration.
  RunResult unregistered =
      opscan("generate '" + ew + "' '" + fragment.string() + "' --lib both" + libs.out_option());
  EXPECT_EQ(unregistered.exit_code, 2);
  EXPECT_EQ(unregistered.err, "opscan: error: --registration is required when merging IR files "
                              "into one library (only library IRs without --lib keep their "
                              "own) [opscan-usage]\n");

  // --lib merges library IRs and scan output into one new library.
  RunResult merged = opscan("generate '" + ew + "' '" + fragment.string() +
                            "' --lib both --registration static" + libs.out_option());
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.out.find("opscan: library 'both': 9 operators (3 aten, 6 demo), registration: "
                            "static initializer\n"),
            std::string::npos)
      << merged.out;
  EXPECT_NE(read_file(libs.out() / "both/ir.json")
                .find("\"library\": {\n    \"name\": \"both\",\n    \"registration\": "
                      "\"static\",\n    \"function\": \"\",\n    \"target\": \"executorch\",\n"
                      "    \"link_anchor\": \"opscan_static_registration_both\"\n  }"),
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
  const char* options; // more generation options
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
  RunResult run =
      opscan("run " + std::string(g.inputs) + " --registration " + g.mode + " " + lib_option + " " +
             g.options + " -o '" + out.path().string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const fs::path golden = kRepo / "test/golden" / g.golden;
  const bool update = std::getenv("OPSCAN_UPDATE_GOLDEN") != nullptr;
  std::vector<std::string> files = {"RegisterKernels.h", "RegisterKernels.cpp",
                                    "KernelSources.cpp"};
  if (g.all_files) {
    files.insert(files.end(),
                 {"NativeFunctions.h", "Functions.h", "selected_operators.yaml", "ir.json"});
  }
  for (const std::string& file : files) {
    std::string actual = normalized(read_file(out.path() / g.lib / file));
    if (update) {
      fs::create_directories(golden);
      std::ofstream(golden / file, std::ios::binary) << actual;
    }
    EXPECT_EQ(actual, read_file(golden / file))
        << "differs from " << (golden / file) << " (refresh: OPSCAN_UPDATE_GOLDEN=1)";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cli, GoldenTest,
    ::testing::Values(Golden{"named", "named", "examples", kExamples, "named/examples", true, ""},
                      Golden{"manual", "manual", "all", kExamples, "manual/all", false, ""},
                      Golden{"static", "static", "all", kExamples, "static/all", false, ""},
                      Golden{"types", "named", "types", "test/cli/inputs/all_types.cpp", "types",
                             true, ""},
                      // The same wrappers, each with its try/catch.
                      Golden{"exception_boundary", "named", "examples", kExamples,
                             "exception_boundary/examples", false, "--exception-boundary"}),
    [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------
// import-yaml: from ExecuTorch's functions.yaml to annotations, in place.

const fs::path kImport = "test/cli/inputs/import";

// kernels.cpp, copied into `dir` (the files import-yaml edits are the user's).
fs::path import_input(const TempDir& dir) {
  const fs::path copy = dir.path() / "kernels.cpp";
  fs::copy_file(kRepo / kImport / "kernels.cpp", copy);
  return copy;
}

// The expected output, without the three lines of comment that say so.
std::string expected_import() {
  std::string text = read_file(kRepo / kImport / "kernels.annotated.cpp");
  std::string original = read_file(kRepo / kImport / "kernels.cpp");
  auto body = [](const std::string& t) {
    size_t at = 0;
    for (int i = 0; i < 3; ++i)
      at = t.find('\n', at) + 1;
    return t.substr(at);
  };
  return original.substr(0, original.size() - body(original).size()) + body(text);
}

TEST(ImportYaml, AnnotatesWhatItCanAndSaysWhatItCannot) {
  TempDir dir;
  const fs::path source = import_input(dir);
  RunResult run = opscan("import-yaml " + (kImport / "functions.yaml").string() + " '" +
                         source.string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_file(source), expected_import());
  // (abs_out, made by the macro call UNARY_KERNEL(abs), is annotated above
  // the call.)
  EXPECT_EQ(run.out, "opscan: " + source.string() +
                         ": 5 annotations\nopscan: 8 kernels: 5 annotated, 0 annotated already, "
                         "3 not placed (see the warnings above)\n");
  for (const std::string& expected :
       {std::string("functions.yaml:25:20: warning: kernel 'torch::executor::mul_out' of "
                    "aten::mul.out is 'torch::executor::native::mul_out', which the files given "
                    "do not declare [opscan-import-not-found]"),
        std::string("functions.yaml:31:7: warning: 'torch::executor::native::mul_out_ints' "
                    "(aten::mul.out) has 2 kernel keys (v1/3;0,1|3;0,1|3;0,1, "
                    "v1/4;0,1|4;0,1|4;0,1): an opscan kernel is one function with one key; write "
                    "one function per key, each annotated OPSCAN_KERNEL(\"aten::mul.out\", key = "
                    "\"...\") [opscan-import-keyed]"),
        std::string("functions.yaml:45:20: warning: 'torch::executor::native::add_out' is named "
                    "for aten::add.out and for custom::scale.out: annotated for aten::add.out "
                    "only [opscan-import-shared]")}) {
    EXPECT_NE(run.err.find(expected), std::string::npos) << expected << "\nin:\n" << run.err;
  }

  // Again: everything is annotated already, nothing changes.
  Snapshot before = snapshot(dir.path());
  RunResult again = opscan("import-yaml " + (kImport / "functions.yaml").string() + " '" +
                           source.string() + "' " + kFlags);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(snapshot(dir.path()), before);
  // (custom::scale.out's kernel, add_out, is annotated now: a note, not a warning.)
  EXPECT_EQ(again.out, "opscan: 8 kernels: 0 annotated, 6 annotated already, 2 not placed (see "
                       "the warnings above)\n");
  EXPECT_NE(again.err.find("is annotated already: left as it is [opscan-import-annotated]"),
            std::string::npos)
      << again.err;
}

// The whole migration: the annotated kernels, scanned with PyTorch's
// native_functions.yaml, get the upstream schemas (unbind_copy.int_out only
// through autogen), and the dtype-specialised one its kernel key.
TEST(ImportYaml, AnnotatedKernelsGetTheUpstreamSchemas) {
  TempDir dir;
  const fs::path source = import_input(dir);
  ASSERT_EQ(opscan("import-yaml " + (kImport / "functions.yaml").string() + " '" + source.string() +
                   "' " + kFlags)
                .exit_code,
            0);
  RunResult run = opscan(
      "run '" + source.string() + "' --schemas " + (kImport / "native_functions.yaml").string() +
      " --registration named --lib portable -o '" + (dir.path() / "gen").string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string declarations = read_file(dir.path() / "gen" / "portable" / "NativeFunctions.h");
  for (const char* schema :
       {"// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
        "Tensor(a!)\n",
        "// aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)\n",
        "// aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n",
        "// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n",
        "// aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()\n"}) {
    EXPECT_NE(declarations.find(schema), std::string::npos) << schema << declarations;
  }
  const std::string registration =
      read_file(dir.path() / "gen" / "portable" / "RegisterKernels.cpp");
  EXPECT_NE(registration.find("\"v1/6;0,1|6;0,1|6;0,1\""), std::string::npos) << registration;
}

TEST(ImportYaml, DryRunWritesNothing) {
  TempDir dir;
  const fs::path source = import_input(dir);
  Snapshot before = snapshot(dir.path());
  RunResult run = opscan("import-yaml --dry-run " + (kImport / "functions.yaml").string() + " '" +
                         source.string() + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find(": 5 annotations (dry run: not written)\n"), std::string::npos) << run.out;
  EXPECT_EQ(snapshot(dir.path()), before);
}

// Kernels made by a macro call, as ExecuTorch's portable library makes
// acos_out and ceil_out (DEFINE_UNARY_UFUNC_...(acos_out, std::acos)): the
// annotation goes above the call, and a scan of the result finds each kernel
// with its operator. A call that declares another function first cannot
// carry its second's: a warning there says why.
TEST(ImportYaml, KernelsMadeByAMacroCallAreAnnotatedAboveTheCall) {
  const fs::path inputs = kRepo / "test/cli/inputs/import_macro";
  TempDir dir;
  for (const char* name : {"pattern.h", "op_acos.cpp", "op_ceil.cpp", "op_pair.cpp"})
    fs::copy_file(inputs / name, dir.path() / name);
  const std::string files = "'" + (dir.path() / "op_acos.cpp").string() + "' '" +
                            (dir.path() / "op_ceil.cpp").string() + "' '" +
                            (dir.path() / "op_pair.cpp").string() + "' ";
  const std::string import =
      "import-yaml '" + (inputs / "functions.yaml").string() + "' " + files + kFlags;
  RunResult run = opscan(import);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto path = [&](const char* name) { return (dir.path() / name).string(); };
  EXPECT_EQ(run.out, "opscan: " + path("op_acos.cpp") + ": 1 annotation\nopscan: " +
                         path("op_ceil.cpp") + ": 1 annotation\nopscan: " + path("op_pair.cpp") +
                         ": 1 annotation\nopscan: 4 kernels: 3 annotated, 0 annotated already, 1 "
                         "not placed (see the warnings above)\n");
  EXPECT_EQ(run.err,
            path("op_pair.cpp") +
                ":9:1: warning: 'torch::executor::native::cos_out' (aten::cos.out) is declared "
                "by a macro call whose first declaration is 'sin_out': an annotation above the "
                "call would be that one's; annotate a declaration of "
                "'torch::executor::native::cos_out' after the call by hand with "
                "OPSCAN_KERNEL(\"aten::cos.out\") [opscan-import-macro]\n"
                "DEFINE_UNARY_PAIR(sin_out, cos_out, std::sin)\n^\n");
  const std::string head = "#include \"pattern.h\"\n\n#include <cmath>\n"
                           "#include <opscan/annotations.h>\n\nnamespace torch {\n"
                           "namespace executor {\nnamespace native {\n\n";
  const std::string tail = "\n} // namespace native\n} // namespace executor\n"
                           "} // namespace torch\n";
  EXPECT_EQ(read_file(dir.path() / "op_acos.cpp"),
            head +
                "OPSCAN_KERNEL(\"aten::acos.out\")\n"
                "DEFINE_UNARY_UFUNC_REALHBBF16_TO_FLOATHBF16(acos_out, std::acos)\n" +
                tail);
  EXPECT_EQ(read_file(dir.path() / "op_ceil.cpp"),
            head +
                "  OPSCAN_KERNEL(\"aten::ceil.out\")\n"
                "  DEFINE_UNARY_UFUNC_REALHBF16(ceil_out, std::ceil)\n" +
                tail);
  EXPECT_EQ(read_file(dir.path() / "op_pair.cpp"),
            head +
                "OPSCAN_KERNEL(\"aten::sin.out\")\n"
                "DEFINE_UNARY_PAIR(sin_out, cos_out, std::sin)\n" +
                tail);

  // The result scanned again, with the upstream schemas as a migration
  // scans it: each annotation is its kernel's.
  const fs::path ir = dir.path() / "ir.json";
  RunResult scan = opscan("scan -o '" + ir.string() + "' --schemas '" +
                          (inputs / "native_functions.yaml").string() + "' " + files + kFlags);
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  std::map<std::string, std::string> found; // C++ function -> operator
  const nlohmann::json document = nlohmann::json::parse(read_file(ir));
  for (const nlohmann::json& kernel : document["kernels"]) {
    const nlohmann::json& op = kernel["operator"];
    found[kernel["cpp_function"].get<std::string>()] = op["namespace"].get<std::string>() +
                                                       "::" + op["name"].get<std::string>() + "." +
                                                       op["overload"].get<std::string>();
  }
  EXPECT_EQ(found, (std::map<std::string, std::string>{
                       {"torch::executor::native::acos_out", "aten::acos.out"},
                       {"torch::executor::native::ceil_out", "aten::ceil.out"},
                       {"torch::executor::native::sin_out", "aten::sin.out"}}));

  // Again: nothing changes, and the summary says why.
  Snapshot before = snapshot(dir.path());
  RunResult again = opscan(import);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(snapshot(dir.path()), before);
  EXPECT_EQ(again.out, "opscan: 4 kernels: 0 annotated, 3 annotated already, 1 not placed (see "
                       "the warnings above)\n");
}

// Bad input: a located error, exit code 1, and no file touched.
TEST(ImportYaml, BadInputChangesNothing) {
  struct Case {
    const char* yaml;
    const char* error;
  };
  for (const Case& c :
       {Case{"- op: add.out\n  kernels: [\n", "[opscan-yaml-syntax]"},
        Case{"- op: 'add out'\n  kernels:\n    - kernel_name: torch::executor::add_out\n",
             "functions.yaml:1:12: error: 'add out' does not name an operator"},
        Case{"op: add.out\n", "[opscan-yaml-format]"}}) {
    TempDir dir;
    const fs::path source = import_input(dir);
    dir.write("functions.yaml", c.yaml);
    Snapshot before = snapshot(dir.path());
    RunResult run = opscan("import-yaml '" + (dir.path() / "functions.yaml").string() + "' '" +
                           source.string() + "' " + kFlags);
    EXPECT_EQ(run.exit_code, 1) << c.yaml;
    EXPECT_NE(run.err.find(c.error), std::string::npos) << c.error << "\nin:\n" << run.err;
    EXPECT_EQ(snapshot(dir.path()), before) << c.yaml;
  }
  // A source that does not compile: libclang's error, nothing written.
  TempDir dir;
  const fs::path source = import_input(dir);
  dir.write("broken.cpp", "namespace torch::executor::native { int add_out( }\n");
  Snapshot before = snapshot(dir.path());
  RunResult run =
      opscan("import-yaml " + (kImport / "functions.yaml").string() + " '" + source.string() +
             "' '" + (dir.path() / "broken.cpp").string() + "' " + kFlags);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("[opscan-clang-error]"), std::string::npos) << run.err;
  EXPECT_EQ(snapshot(dir.path()), before);
}

} // namespace
