// ===== models against libraries (lib/driver/model.h) ========================
// Programs are made by flatc from JSON (test/common/pte.h); libraries are
// IR modules in memory.
#include "driver/model.h"
#include "driver_test_helpers.h"
#include "pte.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <unistd.h>

namespace {

using namespace opscan;
using opscan::testing::et_kernel;
using opscan::testing::TempDir;

const std::filesystem::path kData = OPSCAN_TEST_DATA;

std::string two_plans() {
  static const std::string binary =
      opscan::testing::flatc_binary(opscan::testing::read_file(kData / "pte/two_plans.json"));
  return binary;
}

executorch::Program program() {
  executorch::ReadResult read = executorch::read_program(two_plans(), "m.pte");
  EXPECT_TRUE(read.program.has_value());
  return read.program.value_or(executorch::Program{});
}

ir::Kernel kernel(const std::string& op, const std::string& function, const std::string& key = "") {
  const size_t colon = op.find("::"), dot = op.find('.');
  ir::Kernel k =
      et_kernel(op.substr(0, colon), op.substr(colon + 2, dot - colon - 2), function, key);
  if (dot != std::string::npos)
    k.op.overload = op.substr(dot + 1);
  return k;
}

driver::IrFile library(const std::string& name, std::vector<ir::Kernel> kernels,
                       const std::string& target = "executorch") {
  ir::Module module = opscan::testing::fragment(std::move(kernels));
  module.library = ir::LibraryInfo{name, ir::Registration::named, target, "", ""};
  return {{name + "/ir.json", std::move(module), {}}};
}

// Every kernel two_plans.json needs: add.out by key, the rest by fallbacks.
std::vector<driver::IrFile> full_build() {
  std::vector<driver::IrFile> libs;
  libs.push_back(library("ew", {kernel("aten::add.out", "add_f32", "v1/6;0,1|6;0,1|6;0,1"),
                                kernel("aten::relu", "relu"), kernel("aten::mul.out", "mul")}));
  libs.push_back(library("misc", {kernel("demo::seed", "seed")}));
  return libs;
}

std::vector<std::string> codes(const diag::Diagnostics& diags) {
  std::vector<std::string> out;
  for (const diag::Diagnostic& d : diags)
    out.push_back(d.code);
  return out;
}

TEST(ModelCheck, AFullBuildServesEveryCallAndSaysWhere) {
  const std::vector<driver::IrFile> libs = full_build();
  driver::ModelCheck check = driver::check_model(program(), "m.pte", libs);
  // Only notes: aten::mul.out's fallback serves tensors in dim order 0,2,1
  // (the kernel must handle them), and the delegate.
  EXPECT_EQ(codes(check.diagnostics),
            (std::vector<std::string>{"opscan-model-dim-order-fallback", "opscan-model-delegate"}));
  EXPECT_EQ(check.diagnostics[0].severity, diag::Severity::note);
  EXPECT_EQ(check.diagnostics[0].message,
            "m.pte: operator 'aten::mul.out' is called with argument 'self' in dim order 0,2,1, "
            "return 0 in dim order 0,2,1, argument 2 in dim order 0,2,1 (by plan 'decode'); its "
            "fallback kernel serves every key, so the method loads, and the kernel must handle "
            "that dim order when it runs");
  EXPECT_EQ(check.diagnostics[1].severity, diag::Severity::note);
  EXPECT_EQ(check.diagnostics[1].message,
            "m.pte: plan 'forward' makes 1 delegate call (backend 'XnnpackBackend'): the program "
            "needs that backend linked in; their kernels are not checked here");
  ASSERT_EQ(check.rows.size(), 4u);
  EXPECT_EQ(check.rows[0].op, "aten::add.out");
  EXPECT_EQ(check.rows[0].key, "v1/6;0,1|6;0,1|6;0,1");
  EXPECT_EQ(check.rows[0].library, "ew");
  EXPECT_EQ(check.rows[0].kernel->cpp_function, "add_f32");
  EXPECT_FALSE(check.rows[0].fallback);
  EXPECT_EQ(check.rows[1].op, "aten::mul.out");
  EXPECT_TRUE(check.rows[1].fallback);
  EXPECT_EQ(check.rows[3].op, "demo::seed");
  EXPECT_EQ(check.rows[3].key, "");
  EXPECT_EQ(check.rows[3].library, "misc");
}

TEST(ModelCheck, AMissingOperatorIsNamedWithItsPlansAndACloseName) {
  std::vector<driver::IrFile> libs = full_build();
  libs[1].module.kernels[0] = kernel("demo::seeds", "seeds");
  driver::ModelCheck check = driver::check_model(program(), "m.pte", libs);
  ASSERT_EQ(codes(check.diagnostics),
            (std::vector<std::string>{"opscan-model-dim-order-fallback",
                                      "opscan-model-missing-operator", "opscan-model-delegate"}));
  EXPECT_EQ(check.diagnostics[1].message,
            "m.pte: operator 'demo::seed' (called by plan 'decode') is in none of the libraries; "
            "did you mean 'demo::seeds'?");
  EXPECT_EQ(check.diagnostics[1].location, (diag::Location{"m.pte", 0, 0, 0}));
  EXPECT_EQ(check.missing_operators, std::set<std::string>{"demo::seed"});
}

TEST(ModelCheck, AKeyWithoutItsKernelOrAFallbackIsMissing) {
  std::vector<driver::IrFile> libs = full_build();
  libs[0].module.kernels[0] = kernel("aten::add.out", "add_f64", "v1/7;0,1|7;0,1|7;0,1");
  driver::ModelCheck check = driver::check_model(program(), "m.pte", libs);
  ASSERT_EQ(codes(check.diagnostics),
            (std::vector<std::string>{"opscan-model-missing-kernel-key",
                                      "opscan-model-dim-order-fallback", "opscan-model-delegate"}));
  const diag::Diagnostic& d = check.diagnostics[0];
  EXPECT_EQ(d.message, "m.pte: operator 'aten::add.out' is called with kernel key "
                       "'v1/6;0,1|6;0,1|6;0,1' (by plans 'decode', 'forward'), and no library has "
                       "a kernel with that key or a fallback kernel (one without key)");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].location, libs[0].module.kernels[0].location);
  EXPECT_EQ(check.rows[0].kernel, nullptr);
  // A fallback serves any key.
  libs[0].module.kernels.push_back(kernel("aten::add.out", "add"));
  check = driver::check_model(program(), "m.pte", libs);
  EXPECT_EQ(codes(check.diagnostics),
            (std::vector<std::string>{"opscan-model-dim-order-fallback", "opscan-model-delegate"}));
  EXPECT_TRUE(check.rows[0].fallback);
}

TEST(ModelCheck, AKernelTwoLibrariesRegisterIsServedTwice) {
  std::vector<driver::IrFile> libs = full_build();
  libs[1].module.kernels.push_back(kernel("aten::relu", "other_relu"));
  driver::ModelCheck check = driver::check_model(program(), "m.pte", libs);
  ASSERT_EQ(codes(check.diagnostics),
            (std::vector<std::string>{"opscan-model-dim-order-fallback",
                                      "opscan-model-served-twice", "opscan-model-delegate"}));
  EXPECT_EQ(check.diagnostics[1].message,
            "m.pte: operator 'aten::relu' (its fallback kernel) is registered by 2 libraries: the "
            "runtime aborts at the second registration; keep it in one");
  EXPECT_EQ(check.diagnostics[1].notes.size(), 2u);
}

TEST(ModelCheck, LibrariesOfAnotherTargetDoNotCount) {
  std::vector<driver::IrFile> libs = full_build();
  libs[1].module.library->target = "torch";
  driver::ModelCheck check = driver::check_model(program(), "m.pte", libs);
  EXPECT_EQ(
      codes(check.diagnostics),
      (std::vector<std::string>{"opscan-model-library-target", "opscan-model-dim-order-fallback",
                                "opscan-model-missing-operator", "opscan-model-delegate"}));
}

// One plan making one call of `op` with `tensors`.
executorch::Program one_call(const std::string& op, std::vector<executorch::TensorMeta> tensors,
                             std::vector<size_t> positions) {
  executorch::Plan plan;
  plan.name = "forward";
  plan.operators = {op};
  plan.calls = {{0, std::move(tensors), {0, 0}, std::move(positions)}};
  executorch::Program program;
  program.plans = {plan};
  return program;
}

TEST(ModelCheck, PrimOpsAreTheRuntimesToServe) {
  const std::vector<driver::IrFile> libs = full_build();
  driver::ModelCheck check =
      driver::check_model(one_call("aten::sym_size.int", {{6, {0, 1}}}, {0}), "m.pte", libs);
  EXPECT_TRUE(check.diagnostics.empty());
  ASSERT_EQ(check.rows.size(), 1u);
  EXPECT_EQ(check.rows[0].library, driver::kPrimOps);
  EXPECT_TRUE(check.missing_operators.empty());
}

TEST(ModelCheck, AKeyOfTheArgumentsOnlyIsNamedAsLackingTheReturnedTensor) {
  const executorch::TensorMeta f32{6, {0, 1}};
  std::vector<driver::IrFile> libs = full_build();
  // Keyed as ExecuTorch's YAML keys add.out: its three tensor arguments.
  libs[0].module.kernels = {kernel("aten::add.out", "add_f32", "v1/6;0,1|6;0,1|6;0,1")};
  // A program passes the out tensor again in the return slot (position 4).
  driver::ModelCheck check = driver::check_model(
      one_call("aten::add.out", {f32, f32, f32, f32}, {0, 1, 3, 4}), "m.pte", libs);
  ASSERT_EQ(codes(check.diagnostics), std::vector<std::string>{"opscan-model-missing-kernel-key"});
  const diag::Diagnostic& d = check.diagnostics[0];
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[1].message,
            "its key 'v1/6;0,1|6;0,1|6;0,1' has no entry for the returned tensor: the call passes "
            "one in its return slot, and ExecuTorch's runtime keys every tensor of a call, so the "
            "key it looks up is 'v1/6;0,1|6;0,1|6;0,1|6;0,1'");
  EXPECT_EQ(d.notes[1].location, libs[0].module.kernels[0].location);
  // A key that differs otherwise gets no such note.
  libs[0].module.kernels = {kernel("aten::add.out", "add_f64", "v1/7;0,1|7;0,1|7;0,1")};
  check = driver::check_model(one_call("aten::add.out", {f32, f32, f32, f32}, {0, 1, 3, 4}),
                              "m.pte", libs);
  ASSERT_EQ(codes(check.diagnostics), std::vector<std::string>{"opscan-model-missing-kernel-key"});
  EXPECT_EQ(check.diagnostics[0].notes.size(), 1u);
}

TEST(ModelCheck, AKeyOnlyOtherDimOrdersCouldServeNamesTheArgumentsAndTheClosestKey) {
  const executorch::TensorMeta nhwc{6, {0, 2, 3, 1}}, nchw{6, {0, 1, 2, 3}};
  std::vector<driver::IrFile> libs = full_build();
  libs[0].module.kernels = {kernel("aten::add.out", "add_i32", "v1/3;0,1,2,3|3;0,1,2,3|3;0,1,2,3"),
                            kernel("aten::add.out", "add_f32", "v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3")};
  // The tensors are arguments 0, 1 and 3; the test kernels' schema has one
  // argument (self) and one return: argument 3 is past both, named by its
  // position.
  driver::ModelCheck check =
      driver::check_model(one_call("aten::add.out", {nhwc, nchw, nhwc}, {0, 1, 3}), "m.pte", libs);
  ASSERT_EQ(codes(check.diagnostics), std::vector<std::string>{"opscan-model-dim-order"});
  const diag::Diagnostic& d = check.diagnostics[0];
  EXPECT_EQ(d.message,
            "m.pte: operator 'aten::add.out' is called with argument 'self' in dim order 0,2,3,1 "
            "(channels-last), argument 3 in dim order 0,2,3,1 (channels-last) (kernel key "
            "'v1/6;0,2,3,1|6;0,1,2,3|6;0,2,3,1', by plan 'forward'), and no library has a kernel "
            "for that dim order or a fallback kernel (one without key); the closest key is "
            "'v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3'");
  // The note is at the closest (float) kernel, not the int one.
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].location, libs[0].module.kernels[1].location);
  ASSERT_EQ(check.rows.size(), 1u);
  EXPECT_TRUE(check.rows[0].dim_order);
  // A dtype no kernel has is a missing key, not a dim order.
  check = driver::check_model(one_call("aten::add.out",
                                       {{7, {0, 2, 3, 1}}, {7, {0, 1, 2, 3}}, {7, {0, 2, 3, 1}}},
                                       {0, 1, 3}),
                              "m.pte", libs);
  EXPECT_EQ(codes(check.diagnostics), std::vector<std::string>{"opscan-model-missing-kernel-key"});
}

TEST(ReadModel, BadFilesAreLocatedErrors) {
  TempDir dir;
  driver::ReadModel missing = driver::read_model(dir.file("none.pte"));
  EXPECT_EQ(missing.status, driver::Status::failure);
  EXPECT_EQ(codes(missing.diagnostics), std::vector<std::string>{"opscan-io"});
  driver::ReadModel directory = driver::read_model(dir.path().string());
  EXPECT_EQ(directory.status, driver::Status::failure);
  EXPECT_NE(directory.diagnostics.at(0).message.find("directory"), std::string::npos);
  driver::ReadModel empty = driver::read_model(dir.write("empty.pte", ""));
  EXPECT_EQ(empty.status, driver::Status::errors);
  EXPECT_EQ(codes(empty.diagnostics), std::vector<std::string>{"opscan-pte-identifier"});
  const std::string cut = opscan::testing::with_extended_header(two_plans(), "");
  driver::ReadModel truncated = driver::read_model(dir.write("cut.pte", cut.substr(0, 200)));
  EXPECT_EQ(codes(truncated.diagnostics), std::vector<std::string>{"opscan-pte-header"});
}

TEST(ReadModel, OnlyTheProgramOfALargeFileIsRead) {
  TempDir dir;
  const std::string path =
      dir.write("big.pte", opscan::testing::with_extended_header(two_plans(), "weights"));
  // Segments past the input limit (a sparse file): never read.
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(support::kMaxInputBytes) + 4096), 0);
  driver::ReadModel read = driver::read_model(path);
  EXPECT_TRUE(read.diagnostics.empty());
  EXPECT_EQ(read.program, program());
  // Without a header the whole file is the program: refused as too large.
  const std::string plain = dir.write("plain.pte", two_plans());
  ASSERT_EQ(::truncate(plain.c_str(), static_cast<off_t>(support::kMaxInputBytes) + 4096), 0);
  driver::ReadModel refused = driver::read_model(plain);
  EXPECT_EQ(refused.status, driver::Status::failure);
  EXPECT_EQ(codes(refused.diagnostics), std::vector<std::string>{"opscan-io"});
}

TEST(ReadSelection, AModelGivesItsOperatorsAndKeys) {
  TempDir dir;
  driver::ReadSelection read = driver::read_operator_selection(dir.write("m.pte", two_plans()));
  ASSERT_TRUE(read.selection) << read.diagnostics.at(0).message;
  EXPECT_FALSE(read.selection->all_operators);
  ASSERT_EQ(read.selection->operators.size(), 4u);
  const ir::OperatorNeed& add = read.selection->operators[0];
  EXPECT_EQ(add.name, "aten::add.out");
  EXPECT_EQ(add.keys, std::set<std::string>{"v1/6;0,1|6;0,1|6;0,1"});
  EXPECT_EQ(add.from, dir.file("m.pte") + ", plans 'decode', 'forward'");
  EXPECT_EQ(read.selection->operators[3].keys, std::set<std::string>{""});
}

TEST(ReadSelection, ASelectedOperatorsYamlGivesItsOperatorsAndKeys) {
  TempDir dir;
  const std::string path = dir.write("selected_operators.yaml", R"(operators:
  aten::add.out:
    is_root_operator: true
    is_used_for_training: true
    include_all_overloads: false
    debug_info: []
  aten::mul:
    include_all_overloads: true
  demo::seed: {}
custom_classes: []
build_features: []
include_all_non_op_selectives: false
include_all_operators: false
kernel_metadata: {}
et_kernel_metadata:
  aten::add.out: [default, "v1/6;0,1|6;0,1|6;0,1"]
  demo::seed: [default]
)");
  driver::ReadSelection read = driver::read_operator_selection(path);
  ASSERT_TRUE(read.selection) << read.diagnostics.at(0).message;
  ASSERT_EQ(read.selection->operators.size(), 3u);
  EXPECT_EQ(read.selection->operators[0].keys, (std::set<std::string>{"", "v1/6;0,1|6;0,1|6;0,1"}));
  EXPECT_EQ(read.selection->operators[0].location, (diag::Location{path, 2, 3, 13}));
  EXPECT_EQ(read.selection->operators[1].name, "aten::mul");
  EXPECT_TRUE(read.selection->operators[1].all_overloads);
  EXPECT_FALSE(read.selection->operators[1].keys);
  EXPECT_EQ(read.selection->operators[2].keys, std::set<std::string>{""});
}

TEST(ReadSelection, PrimOpsAreSelectedApart) {
  TempDir dir;
  const std::string path = dir.write("s.yaml", "operators:\n"
                                               "  executorch_prim::add.Scalar: {}\n"
                                               "  aten::add.out: {}\n"
                                               "  aten::sym_size.int: {}\n");
  driver::ReadSelection read = driver::read_operator_selection(path);
  ASSERT_TRUE(read.selection) << read.diagnostics.at(0).message;
  ASSERT_EQ(read.selection->operators.size(), 1u);
  EXPECT_EQ(read.selection->operators[0].name, "aten::add.out");
  EXPECT_EQ(read.prim_ops,
            (std::vector<std::string>{"aten::sym_size.int", "executorch_prim::add.Scalar"}));
  // two_plans.json calls none.
  EXPECT_TRUE(driver::read_operator_selection(dir.write("m.pte", two_plans())).prim_ops.empty());
}

TEST(ReadSelection, OpscansOwnSelectedOperatorsYamlIsReadBackForAnyNameLength) {
  // YAML limits an implicit key to 1,024 characters; operator names have no
  // bound, so a long one is written as an explicit key.
  std::vector<ir::Kernel> kernels;
  std::vector<std::string> names;
  for (size_t length : {990, 1000, 1001, 1024, 1025, 2000}) {
    const std::string name(length - std::string("ops::").size(), 'n');
    kernels.push_back(
        kernel("ops::" + name, "f" + std::to_string(length), length == 2000 ? "v1/6;0,1" : ""));
    names.push_back("ops::" + name);
  }
  driver::Request request;
  request.options.registration = ir::Registration::named;
  request.registration_given = true;
  request.options.library = "lengths";
  driver::Plan plan = driver::plan({{"lengths.json", opscan::testing::fragment(kernels), {}}},
                                   request, emit::builtin_targets());
  ASSERT_EQ(plan.status, driver::Status::ok) << plan.diagnostics.at(0).message;
  const std::string* yaml = nullptr;
  for (const emit::OutputFile& f : plan.libraries.at(0).files)
    yaml = f.path == "lengths/selected_operators.yaml" ? &f.content : yaml;
  ASSERT_NE(yaml, nullptr);
  EXPECT_NE(yaml->find("\n  ? ops::" + std::string(1995, 'n') + "\n  :\n    is_root_operator"),
            std::string::npos);
  TempDir dir;
  driver::ReadSelection read = driver::read_operator_selection(dir.write("s.yaml", *yaml));
  ASSERT_TRUE(read.selection) << read.diagnostics.at(0).message;
  ASSERT_EQ(read.selection->operators.size(), names.size());
  std::sort(names.begin(), names.end());
  for (size_t i = 0; i < names.size(); ++i) {
    const ir::OperatorNeed& op = read.selection->operators[i];
    EXPECT_EQ(op.name, names[i]);
    EXPECT_EQ(op.keys, op.name.size() == 2000 ? std::set<std::string>{"v1/6;0,1"}
                                              : std::set<std::string>{""});
  }
}

TEST(ReadSelection, BadSelectionFilesAreLocatedErrors) {
  TempDir dir;
  auto read = [&](const std::string& text) {
    return driver::read_operator_selection(dir.write("s.yaml", text));
  };
  driver::ReadSelection bad_key = read("operators:\n  aten::add.out: {}\net_kernel_metadata:\n"
                                       "  aten::add.out: [\"6;0,1\"]\n");
  ASSERT_EQ(codes(bad_key.diagnostics), std::vector<std::string>{"opscan-kernel-key"});
  EXPECT_EQ(bad_key.diagnostics[0].location.line, 4u);
  EXPECT_EQ(bad_key.status, driver::Status::errors);
  for (const char* text :
       {"operators: [aten::add.out]\n", "- a\n", "", "operators:\n  a: []\n",
        "include_all_operators: maybe\n", "et_kernel_metadata:\n  aten::add.out: default\n"}) {
    SCOPED_TRACE(text);
    driver::ReadSelection bad = read(text);
    EXPECT_EQ(codes(bad.diagnostics), std::vector<std::string>{"opscan-selected-operators"});
    EXPECT_EQ(bad.status, driver::Status::errors);
    EXPECT_FALSE(bad.selection);
  }
  EXPECT_EQ(codes(read("operators: {a: [}\n").diagnostics),
            std::vector<std::string>{"opscan-yaml-syntax"});
  EXPECT_EQ(driver::read_operator_selection(dir.path().string()).status, driver::Status::failure);
  EXPECT_TRUE(read("include_all_operators: true\n").selection->all_operators);
}

} // namespace
