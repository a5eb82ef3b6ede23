// The opscan binary and ExecuTorch programs: `check --model` against library
// IRs made by real generations, and `--operators-from` (a .pte, or a
// selected_operators.yaml) on generate and run. Programs are made by flatc
// from test/data/pte/two_plans.json, which calls aten::add.out (three 2-D
// float tensors: key v1/6;0,1|6;0,1|6;0,1), aten::relu (a 0-dim int
// tensor), aten::mul.out (dim order 0,2,1) and demo::seed (no tensors), and
// delegates to XnnpackBackend. Kernels: test/cli/inputs/model.
#include "files.h"
#include "pte.h"
#include "run.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

using opscan::testing::read_file;
using opscan::testing::RunResult;
using opscan::testing::TempDir;

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const char* const kFlags = "-- -std=c++17 -Iinclude -Iexamples/include";

RunResult opscan(const std::string& args) {
  return opscan::testing::run_command(kRepo, "'" OPSCAN_BINARY "' " + args);
}

std::string sources(std::initializer_list<const char*> names) {
  std::string out;
  for (const char* name : names)
    out += std::string(" test/cli/inputs/model/") + name + ".cpp";
  return out;
}

std::string model_json() {
  return read_file(kRepo / "test/data/pte/two_plans.json");
}

// The model with its 2-D float tensors made double (ScalarType 7).
std::string f64_model_json() {
  std::string json = model_json();
  for (size_t at = 0;
       (at = json.find("\"scalar_type\": 6, \"sizes\": [2, 3]", at)) != std::string::npos;)
    json[at + 15] = '7';
  return json;
}

// The libraries of a build, generated once for every test: "full" serves the
// whole model but demo::seed, which "seed" has; "keyed" has only the float
// kernel of aten::add.out; "relu" registers aten::relu again; "overloads"
// has aten::add.Scalar_out and aten::abs.out, not aten::add.out; "nchw" has
// aten::add.out for contiguous 4-D tensors only.
class ModelCli : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    for (const auto& [lib, files] :
         {std::pair{"full", sources({"add", "add_f32", "add_f64", "misc"})},
          std::pair{"seed", sources({"seed"})}, std::pair{"keyed", sources({"add_f32", "misc"})},
          std::pair{"relu", sources({"relu_again"})},
          std::pair{"overloads", sources({"overloads", "misc"})},
          std::pair{"nchw", sources({"add_nchw"})}}) {
      RunResult run = opscan(std::string("run") + files + " --registration named --lib " + lib +
                             " -o '" + dir_->file("gen") + "' " + kFlags);
      ASSERT_EQ(run.exit_code, 0) << run.err;
    }
    dir_->write("model.pte", opscan::testing::flatc_binary(model_json()));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static std::string ir(const std::string& lib) {
    return "'" + dir_->file("gen/" + lib + "/ir.json") + "'";
  }
  static std::string model() { return "'" + dir_->file("model.pte") + "'"; }
  static std::string file(const std::string& name) { return dir_->file(name); }

  static TempDir* dir_;
};

TempDir* ModelCli::dir_ = nullptr;

TEST_F(ModelCli, CheckModelPrintsWhatServesEachCall) {
  RunResult run = opscan("check --model " + model() + " " + ir("full") + " " + ir("seed"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  // The exact key's kernel, else the fallback.
  EXPECT_EQ(run.out, "operator       kernel key                  library  kernel\n"
                     "aten::add.out  v1/6;0,1|6;0,1|6;0,1        full     "
                     "test/cli/inputs/model/add_f32.cpp:12 model::add_out_f32\n"
                     "aten::mul.out  v1/6;0,2,1|6;0,2,1|6;0,2,1  full     "
                     "test/cli/inputs/model/misc.cpp:12 model::mul_out (fallback)\n"
                     "aten::relu     v1/3;                       full     "
                     "test/cli/inputs/model/misc.cpp:15 model::relu (fallback)\n"
                     "demo::seed     (no tensors)                seed     "
                     "test/cli/inputs/model/seed.cpp:11 model::seed (fallback)\n"
                     "opscan: " +
                         file("model.pte") +
                         ": 4 operators, 4 kernel keys needed; all served by 2 libraries\n");
  // The delegate is a note.
  EXPECT_NE(run.err.find("note: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("'XnnpackBackend'"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("[opscan-model-delegate]"), std::string::npos) << run.err;
}

TEST_F(ModelCli, CheckModelNamesAMissingOperator) {
  RunResult run = opscan("check --model " + model() + " " + ir("full"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("error: " + file("model.pte") +
                         ": operator 'demo::seed' (called by plan 'decode') is in none of the "
                         "libraries [opscan-model-missing-operator]"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("demo::seed     (no tensors)                -        MISSING\n"),
            std::string::npos)
      << run.out;
}

TEST_F(ModelCli, ASuggestionPrefersAnotherOverloadOfTheOperator) {
  // aten::abs.out is two edits from aten::add.out, aten::add.Scalar_out
  // seven: the other overload of the same operator is the better guess.
  RunResult run = opscan("check --model " + model() + " " + ir("overloads") + " " + ir("seed"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find(": operator 'aten::add.out' (called by plans 'decode', 'forward') is in "
                         "none of the libraries; did you mean 'aten::add.Scalar_out'? "
                         "[opscan-model-missing-operator]"),
            std::string::npos)
      << run.err;
}

TEST_F(ModelCli, TheSummaryCountsOperatorsAndKernelKeysApart) {
  // The model with double tensors against "keyed" (a float add.out, no
  // fallback) alone: demo::seed is in no library (an operator), and
  // add.out's double key is not served (a kernel key).
  TempDir dir;
  dir.write("f64.pte", opscan::testing::flatc_binary(f64_model_json()));
  RunResult run = opscan("check --model '" + dir.file("f64.pte") + "' " + ir("keyed"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "operator       kernel key                  library  kernel\n"
                     "aten::add.out  v1/7;0,1|7;0,1|7;0,1        -        MISSING\n"
                     "aten::mul.out  v1/6;0,2,1|6;0,2,1|6;0,2,1  keyed    "
                     "test/cli/inputs/model/misc.cpp:12 model::mul_out (fallback)\n"
                     "aten::relu     v1/3;                       keyed    "
                     "test/cli/inputs/model/misc.cpp:15 model::relu (fallback)\n"
                     "demo::seed     (no tensors)                -        MISSING\n"
                     "opscan: " +
                         dir.file("f64.pte") +
                         ": 4 operators, 4 kernel keys needed; 1 library checked: 1 operator not "
                         "implemented, 1 kernel key not served\n");
  // Only operators missing: no kernel key is counted for them.
  RunResult ops = opscan("check --model " + model() + " " + ir("overloads"));
  EXPECT_EQ(ops.exit_code, 1);
  EXPECT_NE(ops.out.find(": 4 operators, 4 kernel keys needed; 1 library checked: 2 operators "
                         "not implemented\n"),
            std::string::npos)
      << ops.out;
}

// A program that adds a channels-last float tensor to a contiguous one
// into a channels-last one (4-D, as a convolution's activations are).
std::string channels_last_json() {
  return R"({"version": 0, "execution_plan": [{"name": "forward",
  "values": [
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [1, 3, 4, 4], "dim_order": [0, 2, 3, 1]}},
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [1, 3, 4, 4], "dim_order": [0, 1, 2, 3]}},
    {"val_type": "Int", "val": {}},
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [1, 3, 4, 4], "dim_order": [0, 2, 3, 1]}}],
  "chains": [{"instructions": [
    {"instr_args_type": "KernelCall", "instr_args": {"op_index": 0, "args": [0, 1, 2, 3]}}]}],
  "operators": [{"name": "aten::add", "overload": "out"}]}]})";
}

TEST_F(ModelCli, ADimOrderNoKernelServesNamesTheArgumentsAndTheClosestKey) {
  TempDir dir;
  dir.write("nhwc.pte", opscan::testing::flatc_binary(channels_last_json()));
  RunResult run = opscan("check --model '" + dir.file("nhwc.pte") + "' " + ir("nchw"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "operator       kernel key                        library  kernel\n"
                     "aten::add.out  v1/6;0,2,3,1|6;0,1,2,3|6;0,2,3,1  -        MISSING\n"
                     "opscan: " +
                         dir.file("nhwc.pte") +
                         ": 1 operator, 1 kernel key needed; 1 library checked: 1 kernel key not "
                         "served (1 for its dim order)\n");
  // The arguments by their schema names, the closest key (the float one,
  // not the int one), a note at its kernel.
  EXPECT_NE(run.err.find("error: " + dir.file("nhwc.pte") +
                         ": operator 'aten::add.out' is called with argument 'self' in dim order "
                         "0,2,3,1 (channels-last), argument 'out' in dim order 0,2,3,1 "
                         "(channels-last) (kernel key 'v1/6;0,2,3,1|6;0,1,2,3|6;0,2,3,1', by plan "
                         "'forward'), and no library has a kernel for that dim order or a "
                         "fallback kernel (one without key); the closest key is "
                         "'v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3' [opscan-model-dim-order]"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("test/cli/inputs/model/add_nchw.cpp:13:9: note: library 'nchw' has the "
                         "closest: aten::add.out (kernel key 'v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3')"),
            std::string::npos)
      << run.err;

  // A fallback serves it when the method loads; whether the kernel handles
  // channels-last is known only when it runs: a note, not an error.
  RunResult fallback = opscan("check --model '" + dir.file("nhwc.pte") + "' " + ir("full"));
  EXPECT_EQ(fallback.exit_code, 0) << fallback.err;
  EXPECT_NE(fallback.err.find("note: " + dir.file("nhwc.pte") +
                              ": operator 'aten::add.out' is called with argument 'self' in dim "
                              "order 0,2,3,1 (channels-last), argument 'out' in dim order 0,2,3,1 "
                              "(channels-last) (by plan 'forward'); its fallback kernel serves "
                              "every key, so the method loads, and the kernel must handle that "
                              "dim order when it runs [opscan-model-dim-order-fallback]"),
            std::string::npos)
      << fallback.err;
}

// A program adding two 2-D float tensors as ExecuTorch's exporter writes
// the call: self, other, alpha, out, and out again in the return slot, so
// the runtime's kernel key has 4 entries.
std::string out_returned_json() {
  return R"({"version": 0, "execution_plan": [{"name": "forward",
  "values": [
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [2, 3], "dim_order": [0, 1]}},
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [2, 3], "dim_order": [0, 1]}},
    {"val_type": "Int", "val": {}},
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [2, 3], "dim_order": [0, 1]}}],
  "chains": [{"instructions": [
    {"instr_args_type": "KernelCall", "instr_args": {"op_index": 0, "args": [0, 1, 2, 3, 3]}}]}],
  "operators": [{"name": "aten::add", "overload": "out"}]}]})";
}

TEST_F(ModelCli, AKeyWithAnEntryForTheReturnedTensorServesAProgramsCall) {
  // add_returned.cpp keys aten::add.out "v1/6;0,1|6;0,1|6;0,1|6;0,1": its
  // three tensor arguments, then the returned out tensor.
  TempDir dir;
  RunResult run =
      opscan("run" + sources({"add_returned"}) + " --registration named --lib returned -o '" +
             dir.file("gen") + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  dir.write("returned.pte", opscan::testing::flatc_binary(out_returned_json()));
  const std::string model = "'" + dir.file("returned.pte") + "' ";
  RunResult check = opscan("check --model " + model + "'" + dir.file("gen/returned/ir.json") + "'");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, "operator       kernel key                  library   kernel\n"
                       "aten::add.out  v1/6;0,1|6;0,1|6;0,1|6;0,1  returned  "
                       "test/cli/inputs/model/add_returned.cpp:14 model::add_out_returned\n"
                       "opscan: " +
                           dir.file("returned.pte") +
                           ": 1 operator, 1 kernel key needed; all served by 1 library\n");
  // A key of the arguments only (ExecuTorch's YAML writes such) does not
  // serve that call.
  RunResult three = opscan("check --model " + model + ir("keyed"));
  EXPECT_EQ(three.exit_code, 1);
  EXPECT_NE(three.err.find("[opscan-model-missing-kernel-key]"), std::string::npos) << three.err;

  // One entry more than the arguments and the returned tensor: refused by
  // the scan, at the key.
  const std::string text =
      "#include <opscan/annotations.h>\n#include <opscan_examples/executorch_types.h>\n"
      "using executorch::aten::Scalar;\nusing executorch::aten::Tensor;\n"
      "using executorch::runtime::KernelRuntimeContext;\n"
      "OPSCAN_KERNEL(\"aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) "
      "out) -> Tensor(a!)\",\n"
      "              key = \"v1/6;0,1|6;0,1|6;0,1|6;0,1|6;0,1\")\n"
      "Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,\n"
      "                const Scalar& alpha, Tensor& out);\n";
  const std::string five = dir.write("five.cpp", text);
  RunResult refused = opscan("scan -o '" + dir.file("five.json") + "' '" + five + "' " + kFlags);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find(five + ":7:22: error: kernel key has 5 entries, the operator has 3 "
                                    "tensor arguments and returns 1 tensor: one entry per tensor "
                                    "argument, then one per returned tensor (programs pass it "
                                    "again) [opscan-kernel-key]"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("five.json")));
}

TEST_F(ModelCli, CheckModelNamesAMissingKernelKey) {
  // The model with double tensors: "keyed" has a float kernel and no fallback.
  TempDir dir;
  dir.write("f64.pte", opscan::testing::flatc_binary(f64_model_json()));
  RunResult run =
      opscan("check --model '" + dir.file("f64.pte") + "' " + ir("keyed") + " " + ir("seed"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find(": operator 'aten::add.out' is called with kernel key "
                         "'v1/7;0,1|7;0,1|7;0,1' (by plans 'decode', 'forward'), and no library "
                         "has a kernel with that key or a fallback kernel (one without key) "
                         "[opscan-model-missing-kernel-key]"),
            std::string::npos)
      << run.err;
  // A note at the kernel the library has.
  EXPECT_NE(run.err.find("test/cli/inputs/model/add_f32.cpp:12:9: note: library 'keyed' has"),
            std::string::npos)
      << run.err;
  // The full library's fallback serves it.
  EXPECT_EQ(opscan("check --model '" + dir.file("f64.pte") + "' " + ir("full") + " " + ir("seed"))
                .exit_code,
            0);
}

TEST_F(ModelCli, CheckModelRefusesAKernelServedTwice) {
  RunResult run =
      opscan("check --model " + model() + " " + ir("full") + " " + ir("seed") + " " + ir("relu"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find(": operator 'aten::relu' (its fallback kernel) is registered by 2 "
                         "libraries: the runtime aborts at the second registration; keep it in "
                         "one [opscan-model-served-twice]"),
            std::string::npos)
      << run.err;
}

TEST_F(ModelCli, CheckModelReportsInJson) {
  RunResult run = opscan("check --format json --model " + model() + " " + ir("full"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(run.out.starts_with("{")) << run.out;
  EXPECT_NE(run.out.find("\"code\": \"opscan-model-missing-operator\""), std::string::npos)
      << run.out;
  // The table is on stderr then.
  EXPECT_NE(run.err.find("MISSING"), std::string::npos) << run.err;
}

TEST_F(ModelCli, ADamagedOrMissingModelIsALocatedError) {
  TempDir dir;
  const std::string program = read_file(file("model.pte"));
  dir.write("cut.pte", program.substr(0, program.size() / 2));
  RunResult cut = opscan("check --model '" + dir.file("cut.pte") + "' " + ir("full"));
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_NE(cut.err.find("error: " + dir.file("cut.pte") + ": the program"), std::string::npos)
      << cut.err;
  EXPECT_NE(cut.err.find("[opscan-pte-invalid]"), std::string::npos) << cut.err;
  EXPECT_EQ(cut.out, "");

  dir.write("model.onnx", "\x08\x07\x12\x04onnx");
  RunResult other = opscan("check --model '" + dir.file("model.onnx") + "' " + ir("full"));
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("[opscan-pte-identifier]"), std::string::npos) << other.err;

  RunResult missing = opscan("check --model '" + dir.file("none.pte") + "' " + ir("full"));
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("[opscan-io]"), std::string::npos) << missing.err;
  RunResult directory = opscan("check --model '" + dir.path().string() + "' " + ir("full"));
  EXPECT_EQ(directory.exit_code, 3);

  RunResult with_lib = opscan("check --model " + model() + " " + ir("full") + " --lib x");
  EXPECT_EQ(with_lib.exit_code, 2);
}

// The operators and keys a generated selected_operators.yaml lists, as
// "op: [keys]" lines of its et_kernel_metadata.
std::string kernel_metadata(const std::string& yaml) {
  const size_t at = yaml.find("et_kernel_metadata:\n");
  return at == std::string::npos ? "" : yaml.substr(at);
}

const char* const kModelMetadata = "et_kernel_metadata:\n"
                                   "  aten::add.out: [default, 'v1/6;0,1|6;0,1|6;0,1']\n"
                                   "  aten::mul.out: [default]\n"
                                   "  aten::relu: [default]\n"
                                   "  demo::seed: [default]\n";

TEST_F(ModelCli, GenerateFromAModelKeepsWhatItNeeds) {
  TempDir dir;
  const std::string ir_file = dir.file("all.ir.json");
  ASSERT_EQ(opscan("scan -o '" + ir_file + "'" +
                   sources({"add", "add_f32", "add_f64", "misc", "seed"}) + " " + kFlags)
                .exit_code,
            0);
  RunResult run = opscan("generate '" + ir_file + "' --operators-from " + model() +
                         " --registration named --lib m -o '" + dir.file("gen") + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Not the double kernel of add.out, nor demo::unused.
  EXPECT_EQ(kernel_metadata(read_file(dir.path() / "gen/m/selected_operators.yaml")),
            kModelMetadata);
  const std::string library_ir = read_file(dir.path() / "gen/m/ir.json");
  EXPECT_EQ(library_ir.find("add_out_f64"), std::string::npos);
  EXPECT_EQ(library_ir.find("unused"), std::string::npos);

  // run does the same from the sources.
  RunResult ran =
      opscan("run" + sources({"add", "add_f32", "add_f64", "misc", "seed"}) + " --operators-from " +
             model() + " --registration named --lib m -o '" + dir.file("run") + "' " + kFlags);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(read_file(dir.path() / "run/m/RegisterKernels.cpp"),
            read_file(dir.path() / "gen/m/RegisterKernels.cpp"));

  // With --operators: both.
  RunResult both = opscan("generate '" + ir_file + "' --operators-from " + model() +
                          " --operators demo::unused.out --registration named --lib m -o '" +
                          dir.file("both") + "'");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(read_file(dir.path() / "both/m/selected_operators.yaml").find("demo::unused.out"),
            std::string::npos);

  // The selected_operators.yaml it wrote selects the same again.
  RunResult again = opscan("generate '" + ir_file + "' --operators-from '" +
                           dir.file("gen/m/selected_operators.yaml") +
                           "' --registration named --lib m -o '" + dir.file("again") + "'");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  for (const char* name : {"selected_operators.yaml", "RegisterKernels.cpp", "ir.json"})
    EXPECT_EQ(read_file(dir.path() / "again/m" / name), read_file(dir.path() / "gen/m" / name))
        << name;
  // But never over itself.
  RunResult over = opscan("generate '" + ir_file + "' --operators-from '" +
                          dir.file("gen/m/selected_operators.yaml") +
                          "' --registration named --lib m -o '" + dir.file("gen") + "'");
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_NE(over.err.find("[opscan-output-is-input]"), std::string::npos) << over.err;
}

TEST_F(ModelCli, GenerateFromASelectedOperatorsYaml) {
  TempDir dir;
  const std::string ir_file = dir.file("all.ir.json");
  ASSERT_EQ(opscan("scan -o '" + ir_file + "'" + sources({"add", "add_f32", "add_f64", "misc"}) +
                   " " + kFlags)
                .exit_code,
            0);
  dir.write("selected.yaml", "operators:\n"
                             "  aten::add.out:\n"
                             "    is_root_operator: true\n"
                             "  aten::relu: {}\n"
                             "include_all_operators: false\n"
                             "et_kernel_metadata:\n"
                             "  aten::add.out: [\"v1/7;0,1|7;0,1|7;0,1\"]\n");
  RunResult run =
      opscan("generate '" + ir_file + "' --operators-from '" + dir.file("selected.yaml") +
             "' --registration named --lib s -o '" + dir.file("gen") + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(kernel_metadata(read_file(dir.path() / "gen/s/selected_operators.yaml")),
            "et_kernel_metadata:\n"
            "  aten::add.out: [default, 'v1/7;0,1|7;0,1|7;0,1']\n"
            "  aten::relu: [default]\n");

  // An operator the library lacks, a malformed key: errors, nothing written.
  dir.write("unknown.yaml", "operators:\n  aten::sub.out: {}\n");
  RunResult unknown =
      opscan("generate '" + ir_file + "' --operators-from '" + dir.file("unknown.yaml") +
             "' --registration named --lib u -o '" + dir.file("gen") + "'");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find(dir.file("unknown.yaml") + ":2:3: error: no kernel implements "
                                                        "operator 'aten::sub.out' (needed by "),
            std::string::npos)
      << unknown.err;
  EXPECT_NE(unknown.err.find("[opscan-unknown-operator]"), std::string::npos);
  dir.write("bad_key.yaml", "operators:\n  aten::add.out: {}\net_kernel_metadata:\n"
                            "  aten::add.out: [\"v1/6;0,1|\"]\n");
  RunResult bad_key =
      opscan("generate '" + ir_file + "' --operators-from '" + dir.file("bad_key.yaml") +
             "' --registration named --lib u -o '" + dir.file("gen") + "'");
  EXPECT_EQ(bad_key.exit_code, 1);
  EXPECT_NE(bad_key.err.find("[opscan-kernel-key]"), std::string::npos) << bad_key.err;
  EXPECT_FALSE(fs::exists(dir.path() / "gen/u"));

  // A model calling what the library lacks (demo::seed).
  RunResult lacking = opscan("generate '" + ir_file + "' --operators-from " + model() +
                             " --registration named --lib u -o '" + dir.file("gen") + "'");
  EXPECT_EQ(lacking.exit_code, 1);
  EXPECT_NE(lacking.err.find("no kernel implements operator 'demo::seed' (needed by "),
            std::string::npos)
      << lacking.err;
  // A file that cannot be read.
  EXPECT_EQ(opscan("generate '" + ir_file + "' --operators-from '" + dir.file("none.yaml") +
                   "' --registration named --lib u -o '" + dir.file("gen") + "'")
                .exit_code,
            3);
}

// The prim ops of ExecuTorch's kernels/prim_ops/register_prim_ops.cpp
// (commit cff6f4dd), each with the macro that file tests for it.
const std::pair<const char*, const char*> kPrimOps[] = {
    {"aten::sym_size.int", "INCLUDE_ATEN_SYM_SIZE_INT"},
    {"aten::_local_scalar_dense", "INCLUDE_ATEN_LOCAL_SCALAR_DENSE"},
    {"aten::sym_numel", "INCLUDE_ATEN_SYM_NUMEL"},
    {"executorch_prim::sym_max.Scalar", "INCLUDE_EXECUTORCH_PRIM_SYM_MAX_SCALAR"},
    {"executorch_prim::sym_min.Scalar", "INCLUDE_EXECUTORCH_PRIM_SYM_MIN_SCALAR"},
    {"executorch_prim::add.Scalar", "INCLUDE_EXECUTORCH_PRIM_ADD_SCALAR"},
    {"executorch_prim::sub.Scalar", "INCLUDE_EXECUTORCH_PRIM_SUB_SCALAR"},
    {"executorch_prim::mul.Scalar", "INCLUDE_EXECUTORCH_PRIM_MUL_SCALAR"},
    {"executorch_prim::floordiv.Scalar", "INCLUDE_EXECUTORCH_PRIM_FLOORDIV_SCALAR"},
    {"executorch_prim::truediv.Scalar", "INCLUDE_EXECUTORCH_PRIM_TRUEDIV_SCALAR"},
    {"executorch_prim::sym_float.Scalar", "INCLUDE_EXECUTORCH_PRIM_SYM_FLOAT_SCALAR"},
    {"executorch_prim::sym_int.Scalar", "INCLUDE_EXECUTORCH_PRIM_SYM_INT_SCALAR"},
    {"executorch_prim::eq.Scalar", "INCLUDE_EXECUTORCH_PRIM_EQ_SCALAR"},
    {"executorch_prim::gt.Scalar", "INCLUDE_EXECUTORCH_PRIM_GT_SCALAR"},
    {"executorch_prim::lt.Scalar", "INCLUDE_EXECUTORCH_PRIM_LT_SCALAR"},
    {"executorch_prim::ge.Scalar", "INCLUDE_EXECUTORCH_PRIM_GE_SCALAR"},
    {"executorch_prim::le.Scalar", "INCLUDE_EXECUTORCH_PRIM_LE_SCALAR"},
    {"executorch_prim::neg.Scalar", "INCLUDE_EXECUTORCH_PRIM_NEG_SCALAR"},
    {"executorch_prim::sym_not.Scalar", "INCLUDE_EXECUTORCH_PRIM_SYM_NOT_SCALAR"},
    {"executorch_prim::sym_ite.Scalar", "INCLUDE_EXECUTORCH_PRIM_SYM_ITE_SCALAR"},
    {"executorch_prim::floordiv.int", "INCLUDE_EXECUTORCH_PRIM_FLOORDIV_INT"},
    {"executorch_prim::mod.int", "INCLUDE_EXECUTORCH_PRIM_MOD_INT"},
    {"executorch_prim::mod.Scalar", "INCLUDE_EXECUTORCH_PRIM_MOD_SCALAR"},
    {"executorch_prim::ceil.Scalar", "INCLUDE_EXECUTORCH_PRIM_CEIL_SCALAR"},
    {"executorch_prim::round.Scalar", "INCLUDE_EXECUTORCH_PRIM_ROUND_SCALAR"},
    {"executorch_prim::trunc.Scalar", "INCLUDE_EXECUTORCH_PRIM_TRUNC_SCALAR"},
    {"executorch_prim::et_copy_index.tensor", "INCLUDE_EXECUTORCH_PRIM_ET_COPY_INDEX_TENSOR"},
    {"executorch_prim::et_view.default", "INCLUDE_EXECUTORCH_PRIM_ET_VIEW_DEFAULT"}};

// A model that adds two float tensors (aten::add.out) and calls `prim_ops`
// (without arguments: only their names matter here).
std::string prim_model_json(const std::vector<std::string>& prim_ops) {
  std::string instructions =
      R"({"instr_args_type": "KernelCall", "instr_args": {"op_index": 0, "args": [0, 1, 3, 2]}})";
  std::string operators = R"({"name": "aten::add", "overload": "out"})";
  for (size_t i = 0; i < prim_ops.size(); ++i) {
    const size_t dot = prim_ops[i].find('.');
    instructions += R"(, {"instr_args_type": "KernelCall", "instr_args": {"op_index": )" +
                    std::to_string(i + 1) + R"(, "args": []}})";
    operators += R"(, {"name": ")" + prim_ops[i].substr(0, dot) + R"(", "overload": ")" +
                 (dot == std::string::npos ? "" : prim_ops[i].substr(dot + 1)) + R"("})";
  }
  return R"({"version": 0, "execution_plan": [{"name": "forward", "values": [
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [2, 3], "dim_order": [0, 1]}},
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [2, 3], "dim_order": [0, 1]}},
    {"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [2, 3], "dim_order": [0, 1]}},
    {"val_type": "Int", "val": {}}],
  "chains": [{"instructions": [)" +
         instructions + R"(]}], "operators": [)" + operators + "]}]}";
}

TEST_F(ModelCli, OperatorsFromAModelSelectsItsPrimOps) {
  TempDir dir;
  dir.write("prim.pte", opscan::testing::flatc_binary(
                            prim_model_json({"executorch_prim::add.Scalar", "aten::sym_size.int",
                                             "aten::_local_scalar_dense", "aten::sym_size.int"})));
  const std::string model_pte = "'" + dir.file("prim.pte") + "'";
  RunResult run = opscan("run" + sources({"add", "misc"}) + " --operators-from " + model_pte +
                         " --registration named --lib p -o '" + dir.file("gen") + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The library has aten::add.out only: prim ops are not its to serve.
  EXPECT_NE(run.out.find("opscan: library 'p': 1 operator (1 aten)"), std::string::npos) << run.out;
  const std::string header = read_file(dir.path() / "gen/p/selected_prim_ops.h");
  EXPECT_EQ(header.substr(header.find("#define")), "#define INCLUDE_ATEN_LOCAL_SCALAR_DENSE\n"
                                                   "#define INCLUDE_ATEN_SYM_SIZE_INT\n"
                                                   "#define INCLUDE_EXECUTORCH_PRIM_ADD_SCALAR\n");
  EXPECT_TRUE(header.starts_with("#pragma once\n// @generated by opscan ")) << header;
  EXPECT_NE(header.find("The 3 prim ops the selection of kernel library 'p' calls"),
            std::string::npos)
      << header;
  // Deterministic: the same again, and nothing rewritten.
  RunResult again = opscan("run" + sources({"add", "misc"}) + " --operators-from " + model_pte +
                           " --registration named --lib p -o '" + dir.file("gen") + "' " + kFlags);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("(0 written, 9 unchanged)"), std::string::npos) << again.out;

  // A declared output: --list-outputs knows it from the option alone.
  RunResult listed = opscan("generate --list-outputs --operators-from " + model_pte +
                            " --registration named --lib p");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(
      listed.out.find("data p/selected_operators.yaml\n"
                      "header p/kernel_count/executorch/runtime/kernel/selected_max_kernel_num.h\n"
                      "header p/selected_prim_ops.h\n"
                      "data p/ir.json\n"),
      std::string::npos)
      << listed.out;
  // Not without --operators-from.
  RunResult plain = opscan("generate --list-outputs --registration named --lib p");
  EXPECT_EQ(plain.out.find("selected_prim_ops.h"), std::string::npos) << plain.out;

  // check --model names the runtime as what serves them.
  RunResult check = opscan("check --model " + model_pte + " '" + dir.file("gen/p/ir.json") + "'");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("aten::sym_size.int           (no tensors)          (prim ops)  "
                           "the runtime's (kernels/prim_ops)\n"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find(": 4 operators, 4 kernel keys needed; all served by 1 library\n"),
            std::string::npos)
      << check.out;
}

TEST_F(ModelCli, EveryPrimOpIsNamedAsExecuTorchsRegistrationTestsIt) {
  std::vector<std::string> names;
  std::string expected;
  std::set<std::string> macros;
  for (const auto& [name, macro] : kPrimOps) {
    names.push_back(name);
    macros.insert(macro);
  }
  for (const std::string& macro : macros)
    expected += "#define " + macro + "\n";
  TempDir dir;
  dir.write("all.pte", opscan::testing::flatc_binary(prim_model_json(names)));
  RunResult run = opscan("run" + sources({"add"}) + " --operators-from '" + dir.file("all.pte") +
                         "' --registration named --lib p -o '" + dir.file("gen") + "' " + kFlags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string header = read_file(dir.path() / "gen/p/selected_prim_ops.h");
  EXPECT_EQ(header.substr(header.find("#define")), expected);
}

} // namespace
