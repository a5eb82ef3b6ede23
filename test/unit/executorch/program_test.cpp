// ===== ExecuTorch programs (lib/pte/program.h) ===============================
// Programs are made at test time from JSON model descriptions (test/data/pte)
// by flatc with opscan's schema, and, when OPSCAN_EXECUTORCH_SOURCE names an
// ExecuTorch checkout, with ExecuTorch's own schema (wire compatibility).
#include "files.h"
#include "pte.h"
#include "executorch/program.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>

namespace {

using namespace opscan;
using executorch::Call;
using executorch::Position;
using executorch::TensorMeta;

const std::filesystem::path kData = OPSCAN_TEST_DATA;
const std::string kPath = "model.pte";

std::string model_json(const std::string& name = "two_plans.json") {
  return opscan::testing::read_file(kData / "pte" / name);
}

std::string two_plans() {
  static const std::string binary = opscan::testing::flatc_binary(model_json());
  return binary;
}

executorch::Program read_ok(const std::string& bytes) {
  executorch::ReadResult read = executorch::read_program(bytes, kPath);
  EXPECT_TRUE(read.diagnostics.empty())
      << (read.diagnostics.empty() ? "" : read.diagnostics.front().message);
  EXPECT_TRUE(read.program.has_value());
  return read.program.value_or(executorch::Program{});
}

// `text` with its one occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

using Error = std::pair<std::string, std::string>;

// The one error reading `bytes` gives: its code and message.
Error read_error(const std::string& bytes) {
  executorch::ReadResult read = executorch::read_program(bytes, kPath);
  EXPECT_FALSE(read.program.has_value());
  if (read.diagnostics.size() != 1) {
    ADD_FAILURE() << read.diagnostics.size() << " diagnostics";
    return {};
  }
  const diag::Diagnostic& d = read.diagnostics.front();
  EXPECT_EQ(d.severity, diag::Severity::error);
  EXPECT_EQ(d.location.file, kPath);
  EXPECT_TRUE(d.message.starts_with(kPath + ": ")) << d.message;
  return {d.code, d.message};
}

// The program two_plans.json describes, as the reader must see it.
executorch::Program expected_two_plans() {
  const TensorMeta f2{6, {0, 1}};
  executorch::Program program;
  executorch::Plan forward;
  forward.name = "forward";
  forward.operators = {"aten::add.out", "aten::relu"};
  // The Int argument and the tensor list do not count; the 0-dim tensor does.
  // Each tensor's argument position: add.out's alpha (3rd) is not a tensor.
  forward.calls = {Call{0, {f2, f2, f2}, Position{0, 0}, {0, 1, 3}},
                   Call{1, {{3, {}}}, Position{0, 2}, {1}}};
  forward.delegate_calls = {{"XnnpackBackend", Position{0, 3}}};
  executorch::Plan decode;
  decode.name = "decode";
  decode.operators = {"aten::add.out", "demo::seed", "aten::mul.out"};
  const TensorMeta f3{6, {0, 2, 1}};
  decode.calls = {Call{1, {}, Position{0, 0}, {}}, Call{0, {f2, f2, f2}, Position{0, 2}, {0, 1, 3}},
                  Call{2, {f3, f3, f3}, Position{1, 0}, {0, 1, 2}}};
  program.plans = {forward, decode};
  return program;
}

TEST(Program, ReadsPlansOperatorsCallsAndDelegates) {
  EXPECT_EQ(read_ok(two_plans()), expected_two_plans());
}

TEST(Program, KernelKeysAreBuiltAsTheRuntimeBuildsThem) {
  EXPECT_EQ(executorch::kernel_key({{6, {0, 1}}, {6, {0, 1}}}), "v1/6;0,1|6;0,1");
  EXPECT_EQ(executorch::kernel_key({{3, {}}}), "v1/3;");
  EXPECT_EQ(executorch::kernel_key({{6, {0, 2, 1}}, {4, {0}}}), "v1/6;0,2,1|4;0");
  EXPECT_EQ(executorch::kernel_key({}), "");
}

TEST(Program, NeededOperatorsGiveKeysAndPlans) {
  const auto needs = executorch::needed_operators(expected_two_plans());
  ASSERT_EQ(needs.size(), 4u);
  EXPECT_EQ(needs.at("aten::add.out").keys, std::set<std::string>{"v1/6;0,1|6;0,1|6;0,1"});
  EXPECT_EQ(needs.at("aten::add.out").plans, (std::set<std::string>{"decode", "forward"}));
  EXPECT_EQ(needs.at("aten::relu").keys, std::set<std::string>{"v1/3;"});
  EXPECT_EQ(needs.at("demo::seed").keys, std::set<std::string>{""});
  EXPECT_EQ(needs.at("aten::mul.out").keys, std::set<std::string>{"v1/6;0,2,1|6;0,2,1|6;0,2,1"});
  EXPECT_EQ(needs.at("aten::mul.out").plans, std::set<std::string>{"decode"});
  // The first call of each key, for its tensors' argument positions.
  EXPECT_EQ(needs.at("aten::add.out").first_call.at("v1/6;0,1|6;0,1|6;0,1").tensor_args,
            (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(needs.at("aten::relu").first_call.at("v1/3;").tensor_args, std::vector<size_t>{1});
}

TEST(Program, AnExtendedHeaderAndSegmentsAfterTheProgramAreRead) {
  const std::string segments(100, '\xAB');
  const std::string file = opscan::testing::with_extended_header(two_plans(), segments);
  EXPECT_EQ(executorch::program_size(file), two_plans().size() + 24);
  EXPECT_EQ(read_ok(file), expected_two_plans());
  // The program part alone reads the same (what the driver reads of a file).
  EXPECT_EQ(read_ok(file.substr(0, two_plans().size() + 24)), expected_two_plans());
  // A longer header (ExecuTorch's may grow) is skipped by its length.
  EXPECT_EQ(read_ok(opscan::testing::with_extended_header(two_plans(), segments, 32)),
            expected_two_plans());
}

TEST(Program, IsWireCompatibleWithExecuTorchsSchema) {
  const char* source = std::getenv("OPSCAN_EXECUTORCH_SOURCE");
  if (source == nullptr || *source == '\0')
    GTEST_SKIP() << "set OPSCAN_EXECUTORCH_SOURCE to an ExecuTorch checkout to build the test "
                    "models with its schema/program.fbs too";
  const std::filesystem::path schema = std::filesystem::path(source) / "schema";
  ASSERT_TRUE(std::filesystem::exists(schema / "program.fbs")) << schema;
  for (const char* name : {"two_plans.json", "empty_plan.json"}) {
    SCOPED_TRACE(name);
    const std::string theirs = opscan::testing::flatc_binary(
        model_json(name), (schema / "program.fbs").string(), schema.string());
    const std::string ours = opscan::testing::flatc_binary(model_json(name));
    EXPECT_EQ(read_ok(theirs), read_ok(ours));
  }
  const std::string theirs = opscan::testing::flatc_binary(
      model_json(), (schema / "program.fbs").string(), schema.string());
  EXPECT_EQ(read_ok(theirs), expected_two_plans());
}

TEST(Program, APlanWithoutCallsNeedsNothing) {
  const executorch::Program program =
      read_ok(opscan::testing::flatc_binary(model_json("empty_plan.json")));
  ASSERT_EQ(program.plans.size(), 1u);
  EXPECT_EQ(program.plans[0].name, "");
  EXPECT_TRUE(executorch::needed_operators(program).empty());
}

TEST(Program, AWrongIdentifierIsRefused) {
  std::string file = two_plans();
  file.replace(4, 4, "ET11");
  EXPECT_EQ(read_error(file),
            Error("opscan-pte-identifier",
                  "model.pte: not an ExecuTorch program: identifier 'ET11' at byte 4, expected "
                  "'ET12'"));
  EXPECT_EQ(read_error("").first, "opscan-pte-identifier");
  EXPECT_EQ(read_error("1234ET1").first, "opscan-pte-identifier");
}

TEST(Program, TruncatedProgramsAreLocatedErrors) {
  const std::string file = two_plans();
  for (size_t length : {size_t{8}, size_t{9}, size_t{12}, size_t{16}, size_t{24}, size_t{64},
                        file.size() / 2, file.size() - 8, file.size() - 1}) {
    SCOPED_TRACE(length);
    auto [code, message] = read_error(file.substr(0, length));
    EXPECT_EQ(code, "opscan-pte-invalid");
  }
}

TEST(Program, EveryFlippedByteIsReadOrRefusedWithACode) {
  const std::string file = two_plans();
  for (size_t at = 0; at < file.size(); ++at) {
    std::string damaged = file;
    damaged[at] = static_cast<char>(damaged[at] ^ 0xFF);
    executorch::ReadResult read = executorch::read_program(damaged, kPath);
    if (read.program)
      continue;
    ASSERT_EQ(read.diagnostics.size(), 1u) << at;
    EXPECT_TRUE(read.diagnostics[0].code.starts_with("opscan-pte-")) << at;
    EXPECT_EQ(read.diagnostics[0].location.file, kPath);
  }
}

TEST(Program, OutOfRangeIndicesNameThePlanChainAndInstruction) {
  std::string json = model_json();
  json =
      replaced(json, R"("op_index": 2, "args": [0, 0, 0])", R"("op_index": 3, "args": [0, 0, 0])");
  EXPECT_EQ(
      read_error(opscan::testing::flatc_binary(json)),
      Error("opscan-pte-index",
            "model.pte: plan 1 ('decode'), chain 1, instruction 0: the kernel call's operator "
            "index 3 is out of range (the plan has 3 operators)"));
  json = replaced(model_json(), R"("args": [4, 5])", R"("args": [4, 7])");
  EXPECT_EQ(read_error(opscan::testing::flatc_binary(json)),
            Error("opscan-pte-index",
                  "model.pte: plan 0 ('forward'), chain 0, instruction 2: argument 1 of the kernel "
                  "call is value 7, out of range (the plan has 7 values)"));
  json = replaced(model_json(), R"("args": [4, 5])", R"("args": [-1])");
  EXPECT_EQ(read_error(opscan::testing::flatc_binary(json)).first, "opscan-pte-index");
  json = replaced(model_json(), R"("op_index": 1, "args": [4)", R"("op_index": -1, "args": [4)");
  EXPECT_EQ(read_error(opscan::testing::flatc_binary(json)).first, "opscan-pte-index");
}

TEST(Program, BadExtendedHeadersAreRefused) {
  const std::string file = opscan::testing::with_extended_header(two_plans(), "segments");
  // program_size past the end of the file.
  std::string bad = file;
  bad[16] = static_cast<char>(0xFF);
  bad[17] = static_cast<char>(0xFF);
  auto [code, message] = read_error(bad);
  EXPECT_EQ(code, "opscan-pte-header");
  EXPECT_NE(message.find("program's size as"), std::string::npos) << message;
  // Too short a header length.
  bad = file;
  bad[12] = 8;
  EXPECT_EQ(read_error(bad).first, "opscan-pte-header");
  // The header cut off.
  EXPECT_EQ(read_error(file.substr(0, 20)).first, "opscan-pte-header");
}

TEST(Program, EmptyAndNonUtf8OperatorNamesAreRefused) {
  std::string json = replaced(model_json(), R"("name": "aten::relu")", R"("name": "")");
  EXPECT_EQ(
      read_error(opscan::testing::flatc_binary(json)),
      Error("opscan-pte-operator-name", "model.pte: plan 0 ('forward'): operator 1 has no name"));
  // flatc writes UTF-8 only: the bytes are changed in the binary.
  std::string file = two_plans();
  const size_t at = file.find("aten::relu");
  ASSERT_NE(at, std::string::npos);
  file[at + 6] = static_cast<char>(0xFF);
  auto [code, message] = read_error(file);
  EXPECT_EQ(code, "opscan-pte-operator-name");
  EXPECT_NE(message.find("'aten::\\xffelu'"), std::string::npos) << message;
}

TEST(Program, IdentifierIsRecognised) {
  EXPECT_TRUE(executorch::looks_like_program(two_plans()));
  EXPECT_FALSE(executorch::looks_like_program("operators:\n"));
  EXPECT_FALSE(executorch::looks_like_program("1234ET1"));
}

} // namespace
