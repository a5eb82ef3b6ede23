// driver::plan and check_libraries: what generate and check make of IR
// files, and whether libraries can live in one program.
#include "driver_test_helpers.h"

namespace {

using namespace opscan;
using namespace opscan::testing;
using driver::Status;

driver::Request named_request(std::optional<std::string> lib = std::nullopt) {
  driver::Request request;
  request.options.registration = ir::Registration::named;
  request.registration_given = true;
  request.options.library = std::move(lib);
  return request;
}

TEST(Plan, LibraryIrsAreRegeneratedEachAsRecorded) {
  TempDir dir;
  auto files = read_ok({write_ir(dir, "a.json", library({et_kernel("ops", "neg", "neg")}, "alpha")),
                        write_ir(dir, "b.json",
                                 library({torch_kernel("ops", "neg", "neg_cpu")}, "beta", "torch",
                                         ir::Registration::static_init))});
  driver::Plan plan = driver::plan(files, {}, emit::builtin_targets());
  ASSERT_EQ(plan.status, Status::ok) << plan.diagnostics[0].message;
  ASSERT_EQ(plan.libraries.size(), 2u);
  EXPECT_EQ(plan.libraries[0].library.name, "alpha");
  EXPECT_EQ(plan.libraries[0].symbols.registration_function,
            "torch::executor::register_alpha_kernels");
  EXPECT_EQ(plan.libraries[1].library.name, "beta");
  EXPECT_EQ(plan.libraries[1].symbols.link_anchor, "opscan_static_registration_beta");
  // An ExecuTorch and a torch library may register one operator: the
  // runtimes are separate.
  EXPECT_TRUE(plan.diagnostics.empty());
}

TEST(Plan, RegistrationGivenAppliesToEveryLibrary) {
  TempDir dir;
  auto files =
      read_ok({write_ir(dir, "a.json", library({et_kernel("ops", "neg", "neg")}, "alpha"))});
  driver::Request request;
  request.options.registration = ir::Registration::static_init;
  request.registration_given = true;
  driver::Plan plan = driver::plan(files, request, emit::builtin_targets());
  ASSERT_EQ(plan.status, Status::ok);
  EXPECT_EQ(plan.libraries[0].library.registration, ir::Registration::static_init);
  EXPECT_EQ(plan.libraries[0].module.library->link_anchor, "opscan_static_registration_alpha");
}

TEST(Plan, FragmentsAreMergedIntoOneLibrary) {
  TempDir dir;
  auto files = read_ok({write_ir(dir, "1.json", fragment({et_kernel("ops", "neg", "neg")})),
                        write_ir(dir, "2.json", fragment({et_kernel("ops", "abs", "abs")}))});
  driver::Plan plan = driver::plan(files, named_request("both"), emit::builtin_targets());
  ASSERT_EQ(plan.status, Status::ok);
  ASSERT_EQ(plan.libraries.size(), 1u);
  EXPECT_EQ(plan.libraries[0].module.kernels.size(), 2u);
}

TEST(Plan, UsageErrors) {
  TempDir dir;
  const std::string lib = write_ir(dir, "lib.json", library({et_kernel("ops", "neg", "neg")}, "a"));
  const std::string frag = write_ir(dir, "frag.json", fragment({et_kernel("ops", "abs", "abs")}));
  auto expect_usage = [](const driver::Plan& plan, const std::string& says) {
    EXPECT_EQ(plan.status, Status::usage);
    ASSERT_EQ(plan.diagnostics.size(), 1u);
    EXPECT_NE(plan.diagnostics[0].message.find(says), std::string::npos)
        << plan.diagnostics[0].message;
    EXPECT_TRUE(plan.libraries.empty());
  };
  const auto& targets = emit::builtin_targets();
  expect_usage(driver::plan(read_ok({lib, frag}), named_request(), targets), "give --lib");
  expect_usage(driver::plan(read_ok({frag}), {}, targets), "--registration is required");
  driver::Request select;
  select.operators = std::vector<std::string>{"ops::neg"};
  expect_usage(driver::plan(read_ok({lib}), select, targets), "--operators selects");
  driver::Request other_target;
  other_target.options.target = "torch";
  other_target.target_given = true;
  expect_usage(driver::plan(read_ok({lib}), other_target, targets),
               "library IR for target executorch");
}

TEST(CheckLibraries, TwoLibrariesWithOneNameOrOneFunction) {
  TempDir dir;
  auto files = read_ok({write_ir(dir, "a.json", library({et_kernel("ops", "neg", "neg")}, "same")),
                        write_ir(dir, "b.json", library({et_kernel("ops", "abs", "abs")}, "same")),
                        write_ir(dir, "c.json",
                                 library({et_kernel("ops", "exp", "exp")}, "one", "executorch",
                                         ir::Registration::manual)),
                        write_ir(dir, "d.json",
                                 library({et_kernel("ops", "log", "log")}, "two", "executorch",
                                         ir::Registration::manual))});
  diag::Diagnostics diags = driver::check_libraries(files, emit::builtin_targets()).diagnostics;
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags[0].code, "opscan-duplicate-library");
  EXPECT_EQ(diags[0].location.file, dir.file("b.json"));
  EXPECT_EQ(diags[1].code, "opscan-duplicate-registration");
  EXPECT_NE(diags[1].message.find("torch::executor::register_all_kernels"), std::string::npos);
  EXPECT_EQ(diags[1].message.rfind("library.function: ", 0), 0u) << diags[1].message;
}

TEST(CheckLibraries, OverlapIsByEachTargetsIdentity) {
  TempDir dir;
  const auto& targets = emit::builtin_targets();
  // ExecuTorch: operator and kernel key.
  {
    auto files = read_ok(
        {write_ir(dir, "a.json", library({et_kernel("ops", "neg", "neg", "v1/6;0")}, "a")),
         write_ir(dir, "b.json", library({et_kernel("ops", "neg", "neg_f16", "v1/5;0")}, "b")),
         write_ir(dir, "c.json", library({et_kernel("ops", "neg", "neg_again", "v1/6;0")}, "c"))});
    diag::Diagnostics diags = driver::check_libraries(files, targets).diagnostics;
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, "opscan-library-overlap");
    EXPECT_EQ(diags[0].location.file, dir.file("c.json"));
    EXPECT_EQ(diags[0].message.rfind("kernels[0]: ", 0), 0u) << diags[0].message;
    ASSERT_EQ(diags[0].notes.size(), 2u);
    EXPECT_EQ(diags[0].notes[0].message, "'neg_again' is declared here");
    EXPECT_NE(diags[0].notes[1].message.find("library 'a'"), std::string::npos);
  }
  // torch: operator and dispatch key. CPU in one library and CUDA in
  // another is two registrations; CPU twice is one too many.
  {
    auto files = read_ok(
        {write_ir(dir, "t1.json", library({torch_kernel("aten", "neg", "neg_cpu")}, "t1", "torch")),
         write_ir(dir, "t2.json",
                  library({torch_kernel("aten", "neg", "neg_cuda", "CUDA")}, "t2", "torch")),
         write_ir(dir, "t3.json",
                  library({torch_kernel("aten", "neg", "neg_cpu2", "CPU")}, "t3", "torch"))});
    diag::Diagnostics diags = driver::check_libraries(files, targets).diagnostics;
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, "opscan-library-overlap");
    EXPECT_EQ(diags[0].location.file, dir.file("t3.json"));
    EXPECT_NE(diags[0].message.find("aten::neg (dispatch key CPU) is registered"),
              std::string::npos)
        << diags[0].message;
  }
  // ... and each library defines the schemas of its operators outside aten:
  // two libraries cannot both define one, whatever their dispatch keys.
  {
    auto files = read_ok(
        {write_ir(dir, "m1.json", library({torch_kernel("my", "neg", "neg_cpu")}, "m1", "torch")),
         write_ir(dir, "m2.json",
                  library({torch_kernel("my", "neg", "neg_cuda", "CUDA")}, "m2", "torch"))});
    diag::Diagnostics diags = driver::check_libraries(files, targets).diagnostics;
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, "opscan-library-overlap");
    EXPECT_NE(diags[0].message.find("kernels[0]: the schema of my::neg is registered by library "
                                    "'m1' and by library 'm2'"),
              std::string::npos)
        << diags[0].message;
  }
}

// torch and executorch-aot libraries register with one runtime, PyTorch's
// dispatcher: an operator both define is one too many.
TEST(CheckLibraries, TorchAndExecuTorchAotLibrariesClaimInOneDispatcher) {
  TempDir dir;
  auto files = read_ok(
      {write_ir(dir, "t.json", library({torch_kernel("my", "neg", "neg_cpu")}, "t", "torch")),
       write_ir(dir, "e.json", library({et_kernel("my", "neg", "neg_et")}, "e", "executorch")),
       write_ir(dir, "a.json",
                library({et_kernel("my", "neg", "neg_et")}, "a", "executorch-aot"))});
  const driver::LibraryCheck check = driver::check_libraries(files, emit::builtin_targets());
  ASSERT_EQ(check.diagnostics.size(), 2u) << check.diagnostics[0].message;
  for (const diag::Diagnostic& d : check.diagnostics) {
    EXPECT_EQ(d.code, "opscan-library-overlap");
    EXPECT_EQ(d.location.file, dir.file("a.json"));
    EXPECT_NE(d.message.find("by library 't' and by library 'a'; the torch runtime registers it "
                             "once"),
              std::string::npos)
        << d.message;
  }
  // ExecuTorch's registry is another runtime.
  EXPECT_TRUE(check.claims.contains({"executorch", "my::neg\n"}));
}

// The result the language server reads too: every claim by runtime and
// key, with the library and kernel making it, and each overlap found.
TEST(CheckLibraries, ReturnsEveryClaimAndTheOverlaps) {
  TempDir dir;
  const auto& targets = emit::builtin_targets();
  auto files = read_ok(
      {write_ir(dir, "a.json", library({et_kernel("ops", "neg", "neg", "v1/6;0")}, "a")),
       write_ir(
           dir, "b.json",
           library({et_kernel("ops", "abs", "abs"), et_kernel("ops", "neg", "neg_f16", "v1/5;0")},
                   "b")),
       write_ir(dir, "c.json", library({et_kernel("ops", "neg", "neg_again", "v1/6;0")}, "c"))});
  const driver::LibraryCheck check = driver::check_libraries(files, targets);
  const emit::Target* et = targets.find("executorch");
  size_t claims = 0;
  for (const auto& [key, claimants] : check.claims) {
    EXPECT_EQ(key.first, "executorch");
    claims += claimants.size();
  }
  EXPECT_EQ(claims, 4u) << "one claim per kernel";
  ASSERT_EQ(check.overlaps.size(), 1u);
  const driver::LibraryCheck::Overlap& o = check.overlaps[0];
  EXPECT_EQ(o.target, et);
  EXPECT_EQ(o.first.library, 0u);
  EXPECT_EQ(o.first.kernel, 0u);
  EXPECT_EQ(o.later.library, 2u);
  EXPECT_EQ(o.later.kernel, 0u);
  EXPECT_NE(o.later.description.find("ops::neg"), std::string::npos) << o.later.description;
  const auto& both =
      check.claims.at({"executorch", et->claims(files[0].module.kernels[0]).at(0).key});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[1].library, 2u);
  ASSERT_EQ(check.diagnostics.size(), 1u);
  EXPECT_EQ(check.diagnostics[0].code, "opscan-library-overlap");
}

TEST(CheckLibraries, RecordsMustBeWhatTheTargetGives) {
  TempDir dir;
  ir::Module edited = library({et_kernel("ops", "neg", "neg")}, "a");
  edited.library->function = "torch::executor::register_b_kernels";
  ir::Module unknown = library({et_kernel("ops", "abs", "abs")}, "c");
  unknown.library->target = "tvm";
  // As they are: read_irs refuses them (below).
  std::vector<driver::IrFile> files;
  for (auto [name, module] : {std::pair{"a.json", edited}, std::pair{"c.json", unknown},
                              std::pair{"f.json", fragment({et_kernel("ops", "exp", "exp")})}}) {
    ir::ReadResult read =
        ir::from_json(ir::to_json(module, test_fields()), dir.file(name), test_fields());
    files.push_back({{dir.file(name), std::move(*read.module), std::move(read.positions)}});
  }
  diag::Diagnostics diags = driver::check_libraries(files, emit::builtin_targets()).diagnostics;
  ASSERT_EQ(diags.size(), 3u);
  EXPECT_EQ(diags[0].code, "opscan-ir-library");
  EXPECT_EQ(diags[0].message.rfind("library.function: ", 0), 0u) << diags[0].message;
  EXPECT_EQ(diags[0].location.line,
            ir::from_json(ir::to_json(edited, test_fields()), "", test_fields())
                .positions.at("library.function")
                .line);
  EXPECT_EQ(diags[1].code, "opscan-ir-library");
  EXPECT_NE(diags[1].message.find("unknown target 'tvm'"), std::string::npos);
  EXPECT_EQ(diags[2].code, "opscan-ir-not-library");
  // And generate refuses them the same way: one code path.
  files.pop_back(); // with a fragment among them, generate would ask for --lib
  driver::Plan plan = driver::plan(files, {}, emit::builtin_targets());
  EXPECT_EQ(plan.status, Status::errors);
  EXPECT_TRUE(plan.libraries.empty());
  // And so does every command that reads them, with the same diagnostics.
  driver::ReadIrs read =
      driver::read_irs({write_ir(dir, "a.json", edited), write_ir(dir, "c.json", unknown)});
  EXPECT_EQ(read.status, Status::errors);
  EXPECT_TRUE(read.files.empty());
  ASSERT_EQ(read.diagnostics.size(), 2u);
  EXPECT_EQ(read.diagnostics[0].message, diags[0].message);
  EXPECT_EQ(read.diagnostics[0].location, diags[0].location);
  EXPECT_EQ(read.diagnostics[1].message, diags[1].message);
}

TEST(ReadIrs, WhatGenerateRefusesInALibraryIrEveryReaderRefuses) {
  // The target's own refusals, found by regenerating the library as its
  // record says (nothing is written).
  TempDir dir;
  ir::Module no_context = library({et_kernel("ops", "neg", "neg")}, "a");
  no_context.kernels[0].context = ir::ContextKind::none;
  ir::Module long_key = library({torch_kernel("ops", "neg", "neg_cpu")}, "t", "torch");
  long_key.kernels[0].set_field("dispatch_key", std::string(1 << 20, 'A'));
  const std::vector<std::string> paths = {write_ir(dir, "a.json", no_context),
                                          write_ir(dir, "t.json", long_key)};
  driver::ReadIrs read = driver::read_irs(paths);
  EXPECT_EQ(read.status, Status::errors);
  EXPECT_TRUE(read.files.empty());
  std::vector<std::string> codes;
  for (const diag::Diagnostic& d : read.diagnostics)
    codes.push_back(d.code);
  EXPECT_EQ(codes,
            (std::vector<std::string>{"opscan-executorch-unsupported", "opscan-dispatch-key"}));
  EXPECT_EQ(read.diagnostics[0].message.rfind("kernels[0].context: ", 0), 0u);
  EXPECT_EQ(read.diagnostics[1].message.rfind("kernels[0].dispatch_key: ", 0), 0u);
}

TEST(ReadIrs, ScanOutputIsReadWithWhatOnlyAGenerationDecides) {
  // A kernel key no target takes is refused; two kernels of one operator
  // are the target's business (generate refuses them for ExecuTorch).
  TempDir dir;
  ir::Module bad_key = fragment({et_kernel("ops", "neg", "neg", "v9/x")});
  ir::Module two = fragment({et_kernel("ops", "neg", "neg"), et_kernel("ops", "neg", "neg2")});
  driver::ReadIrs refused = driver::read_irs({write_ir(dir, "bad.json", bad_key)});
  ASSERT_EQ(refused.diagnostics.size(), 1u);
  EXPECT_EQ(refused.diagnostics[0].code, "opscan-kernel-key");
  EXPECT_EQ(refused.diagnostics[0].message.rfind("kernels[0].kernel_key: ", 0), 0u);
  driver::ReadIrs read = driver::read_irs({write_ir(dir, "two.json", two)});
  EXPECT_EQ(read.status, Status::ok);
  EXPECT_EQ(read.files.size(), 1u);
}

TEST(Plan, AKernelTwiceInOneLibraryIrIsRefusedAtTheSecond) {
  TempDir dir;
  ir::Module twice = library({et_kernel("ops", "neg", "neg")}, "a");
  twice.kernels.push_back(twice.kernels[0]);
  driver::ReadIrs read = driver::read_irs({write_ir(dir, "twice.json", twice)});
  EXPECT_EQ(read.status, Status::errors);
  ASSERT_EQ(read.diagnostics.size(), 1u);
  EXPECT_EQ(read.diagnostics[0].code, "opscan-duplicate-kernel");
  EXPECT_EQ(read.diagnostics[0].message.rfind("kernels[1]: ", 0), 0u);
}

TEST(ListOutputs, WithoutInputsOrFromRecords) {
  TempDir dir;
  const auto& targets = emit::builtin_targets();
  driver::Listing none = driver::list_outputs({}, named_request("ops"), targets);
  ASSERT_EQ(none.status, Status::ok);
  ASSERT_EQ(none.libraries.size(), 1u);
  EXPECT_EQ(none.libraries[0].files.front().path, "ops/RegisterKernels.h");
  EXPECT_EQ(none.libraries[0].files.back().path, "ops/ir.json");

  auto files = read_ok(
      {write_ir(dir, "t.json", library({torch_kernel("my", "neg", "neg")}, "tl", "torch"))});
  driver::Listing recorded = driver::list_outputs(files, {}, targets);
  ASSERT_EQ(recorded.libraries.size(), 1u);
  EXPECT_EQ(recorded.libraries[0].symbols.registration_function, "register_tl_kernels");
  // What generate writes, file for file.
  driver::Plan plan = driver::plan(files, {}, targets);
  ASSERT_EQ(plan.status, Status::ok);
  ASSERT_EQ(plan.libraries[0].files.size(), recorded.libraries[0].files.size());
  for (size_t i = 0; i < plan.libraries[0].files.size(); ++i)
    EXPECT_EQ(plan.libraries[0].files[i].path, recorded.libraries[0].files[i].path);

  driver::Listing bad = driver::list_outputs({}, named_request("../evil"), targets);
  EXPECT_EQ(bad.status, Status::errors);
}

TEST(FieldCheck, TheTargetsThatReadAFieldJudgeIt) {
  const ir::Fields& fields = emit::builtin_targets().fields();
  ir::Kernel k = et_kernel("ops", "neg", "neg", "v1/6;0");
  EXPECT_TRUE(ir::check_fields(k, fields).empty());
  k.set_field("kernel_key", "v2/6");
  auto problems = ir::check_fields(k, fields);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field->code, "opscan-kernel-key");
  k.set_field("kernel_key", "");
  k.set_field("dispatch_key", "CUDA");
  EXPECT_TRUE(ir::check_fields(k, fields).empty());
  k.set_field("dispatch_key", "Gpu");
  problems = ir::check_fields(k, fields);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field->code, "opscan-dispatch-key");
}

} // namespace
