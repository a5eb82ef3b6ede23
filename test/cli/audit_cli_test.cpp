// `opscan diff` and `opscan report` run as users run them: on libraries the
// real binary generated from kernel sources (and, for each change class, on
// IR files of the cases the unit tests use), checking exit codes, the
// reports in every format and the diagnostics of bad input.
#include "audit/diff_cases.h"
#include "files.h"
#include "ir/json.h"
#include "run.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

namespace fs = std::filesystem;
namespace audit = opscan::audit;

namespace {

using Json = nlohmann::json;
using opscan::testing::read_file;
using opscan::testing::run_command;
using opscan::testing::RunResult;
using opscan::testing::snapshot;
using opscan::testing::Snapshot;
using opscan::testing::TempDir;

const fs::path kRepo = OPSCAN_SOURCE_DIR;

// `opscan ARGS` in `dir`.
RunResult opscan(const fs::path& dir, const std::string& args) {
  return run_command(dir, "'" OPSCAN_BINARY "' " + args);
}

std::string dump(const RunResult& run) {
  return "exit code " + std::to_string(run.exit_code) + "\nstdout:\n" + run.out + "\nstderr:\n" +
         run.err;
}

// ----- One run per change class ---------------------------------------------

// Writes `modules` as a generation would: <dir>/<library>/ir.json (scan
// output in <dir>/fragment<i>/ir.json).
void write_side(const TempDir& dir, const std::string& side,
                const std::vector<audit_test::ir::Module>& modules) {
  fs::create_directories(dir.path() / side);
  for (const audit_test::ir::File& input : audit_test::inputs_of(modules, side))
    dir.write(input.path, audit_test::ir::to_json(input.module, audit_test::test_fields()));
}

class DiffClassCli : public ::testing::TestWithParam<audit_test::Case> {};

TEST_P(DiffClassCli, ExitCodeFollowsTheCompatibility) {
  const audit_test::Case& c = GetParam();
  TempDir dir;
  write_side(dir, "old", c.olds);
  write_side(dir, "new", c.news);
  RunResult run = opscan(dir.path(), "diff old new --format json");
  const bool breaking = c.compatibility == audit::Compatibility::breaking;
  ASSERT_EQ(run.exit_code, breaking ? 1 : 0) << dump(run);
  EXPECT_EQ(run.err.find("[opscan-diff-breaking]") != std::string::npos, breaking) << run.err;
  const Json doc = Json::parse(run.out);
  bool found = false;
  for (const Json& change : doc["changes"]) {
    if (change["change"] == c.change) {
      found = true;
      EXPECT_EQ(change["compatibility"], breaking ? "breaking" : "compatible");
    }
  }
  EXPECT_TRUE(found) << run.out;
}

INSTANTIATE_TEST_SUITE_P(Audit, DiffClassCli, ::testing::ValuesIn(audit_test::cases()),
                         [](const auto& info) { return info.param.name; });

// ----- Libraries the binary generated -----------------------------------------

// A kernel source of demo::NAME.out taking `extra` parameters before `out`.
std::string kernel_source(const std::vector<std::pair<std::string, std::string>>& kernels) {
  std::string text = "#include <opscan/annotations.h>\n"
                     "#include <opscan_examples/executorch_types.h>\n"
                     "using executorch::aten::Tensor;\n"
                     "using executorch::runtime::KernelRuntimeContext;\n";
  for (const auto& [name, extra] : kernels) {
    text += "OPSCAN_KERNEL(\"demo::" + name + ".out\")\nTensor& " + name +
            "_out(KernelRuntimeContext& ctx, const Tensor& self, " + extra + "Tensor& out);\n";
  }
  return text;
}

// Four generations of two libraries, made once with the real binary:
//   base/       elementwise {abs.out, neg.out}, reduce {sum.out}
//   added/      elementwise also has sign.out (compatible only)
//   breaking/   neg.out takes `double alpha` before out (argument-inserted)
//   moved/      reduce is gone, stats {sum.out} is new
class AuditCli : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    generate("base", {{"abs", ""}, {"neg", ""}}, "reduce");
    generate("added", {{"abs", ""}, {"neg", ""}, {"sign", ""}}, "reduce");
    generate("breaking", {{"abs", ""}, {"neg", "double alpha, "}}, "reduce");
    generate("moved", {{"abs", ""}, {"neg", ""}}, "stats");
  }
  static void TearDownTestSuite() { delete dir_; }

  static void generate(const std::string& name,
                       const std::vector<std::pair<std::string, std::string>>& elementwise,
                       const std::string& reduce_library) {
    dir_->write("src/" + name + "/elementwise.cpp", kernel_source(elementwise));
    dir_->write("src/" + name + "/reduce.cpp", kernel_source({{"sum", ""}}));
    const std::string flags = " -- -std=c++17 -I'" + (kRepo / "include").string() + "' -I'" +
                              (kRepo / "examples/include").string() + "'";
    for (const auto& [file, library] :
         {std::pair<std::string, std::string>{"elementwise", "elementwise"},
          {"reduce", reduce_library}}) {
      RunResult run =
          opscan(dir_->path(), "run src/" + name + "/" + file + ".cpp --registration named --lib " +
                                   library + " -o " + name + flags);
      ASSERT_EQ(run.exit_code, 0) << dump(run);
    }
  }

  RunResult diff(const std::string& args) { return opscan(dir_->path(), "diff " + args); }
  RunResult report(const std::string& args) { return opscan(dir_->path(), "report " + args); }
  const TempDir& dir() { return *dir_; }

  static TempDir* dir_;
};

TempDir* AuditCli::dir_ = nullptr;

TEST_F(AuditCli, NoChange) {
  RunResult run = diff("base base");
  EXPECT_EQ(run.exit_code, 0) << dump(run);
  EXPECT_EQ(run.out, "opscan diff: no changes\n");
  EXPECT_EQ(run.err, "");
  // One library's IR file against its directory: the same library.
  run = diff("base/reduce/ir.json base/reduce");
  EXPECT_EQ(run.exit_code, 0) << dump(run);
}

TEST_F(AuditCli, CompatibleOnly) {
  RunResult run = diff("base added");
  EXPECT_EQ(run.exit_code, 0) << dump(run);
  EXPECT_EQ(run.out, "opscan diff: 0 breaking changes, 1 compatible\n"
                     "library 'elementwise':\n"
                     "  demo::sign.out:\n"
                     "    compatible operator-added: operator demo::sign.out added to library "
                     "'elementwise': demo::sign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!) "
                     "[src/added/elementwise.cpp:10]\n");
  EXPECT_EQ(run.err, "");
}

TEST_F(AuditCli, BreakingFailsInEveryFormat) {
  RunResult text = diff("base breaking");
  EXPECT_EQ(text.exit_code, 1) << dump(text);
  EXPECT_EQ(text.out,
            "opscan diff: 1 breaking change, 0 compatible\n"
            "library 'elementwise':\n"
            "  demo::neg.out:\n"
            "    breaking argument-inserted: argument 'alpha' inserted at position 1 "
            "(the arguments after it shift): float alpha [src/breaking/elementwise.cpp:8]\n");
  EXPECT_EQ(text.err, "opscan: error: 1 breaking change that no allow-list entry allows (see the "
                      "report) [opscan-diff-breaking]\n");

  RunResult json = diff("base breaking --format json");
  EXPECT_EQ(json.exit_code, 1);
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["breaking"], 1);
  EXPECT_EQ(doc["compatible"], 0);
  EXPECT_EQ(doc["allowed"], 0);
  ASSERT_EQ(doc["changes"].size(), 1u);
  const Json& change = doc["changes"][0];
  EXPECT_EQ(change["library"], "elementwise");
  EXPECT_EQ(change["operator"], "demo::neg.out");
  EXPECT_EQ(change["change"], "argument-inserted");
  EXPECT_EQ(change["argument"], "alpha");
  EXPECT_EQ(change["position"], 1);
  EXPECT_TRUE(change["old"].is_null());
  EXPECT_EQ(change["new"]["file"], "src/breaking/elementwise.cpp");
  EXPECT_EQ(change["new"]["line"], 8);
  EXPECT_TRUE(change["allowed"].is_null());

  RunResult markdown = diff("base breaking --format markdown");
  EXPECT_EQ(markdown.exit_code, 1);
  EXPECT_EQ(markdown.out,
            "### opscan diff: 1 breaking change, 0 compatible\n\n"
            "**1 breaking change not allowed.**\n\n"
            "| | Library | Operator | Change | Details | Location |\n"
            "|---|---|---|---|---|---|\n"
            "| breaking | elementwise | `demo::neg.out` | `argument-inserted` | argument 'alpha' "
            "inserted at position 1 (the arguments after it shift): float alpha | "
            "src/breaking/elementwise.cpp:8 |\n");
}

TEST_F(AuditCli, BreakingButAllowed) {
  dir().write("allow.json", R"({"allow": [
  {"operator": "demo::neg.out", "change": "argument-inserted", "argument": "alpha",
   "reason": "every caller passes alpha now", "expires": "2030-01-01"}
]}
)");
  RunResult run = diff("base breaking --allow allow.json --today 2029-12-31");
  EXPECT_EQ(run.exit_code, 0) << dump(run);
  EXPECT_EQ(run.err, "");
  EXPECT_NE(run.out.find("    allowed argument-inserted: argument 'alpha'"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("      allowed until 2030-01-01: every caller passes alpha now\n"),
            std::string::npos)
      << run.out;
  RunResult json = diff("base breaking --allow allow.json --today 2030-01-01 --format json");
  EXPECT_EQ(json.exit_code, 0) << dump(json);
  EXPECT_EQ(Json::parse(json.out)["changes"][0]["allowed"],
            (Json{{"reason", "every caller passes alpha now"}, {"expires", "2030-01-01"}}));
  RunResult markdown =
      diff("base breaking --allow allow.json --today 2030-01-01 --format markdown");
  EXPECT_EQ(markdown.exit_code, 0);
  EXPECT_NE(markdown.out.find("| allowed | elementwise | `demo::neg.out` |"), std::string::npos)
      << markdown.out;
}

TEST_F(AuditCli, AnExpiredEntryFailsTheRun) {
  dir().write("expired.json", R"({"allow": [
  {"operator": "demo::neg.out", "change": "argument-inserted",
   "reason": "every caller passes alpha now", "expires": "2030-01-01"}
]}
)");
  RunResult run = diff("base breaking --allow expired.json --today 2030-01-02");
  EXPECT_EQ(run.exit_code, 1) << dump(run);
  EXPECT_EQ(run.err,
            "expired.json:2:3: error: allow[0]: the allowance of argument-inserted for "
            "'demo::neg.out' expired on 2030-01-01 (today is 2030-01-02): look at the change "
            "again, then remove the entry or give a new date [opscan-allow-expired]\n"
            "  {\"operator\": \"demo::neg.out\", \"change\": \"argument-inserted\",\n"
            "  ^\n"
            "opscan: error: 1 breaking change that no allow-list entry allows (see the report) "
            "[opscan-diff-breaking]\n");
  // Expired though nothing it names changed.
  run = diff("base base --allow expired.json --today 2030-01-02");
  EXPECT_EQ(run.exit_code, 1) << dump(run);
  EXPECT_NE(run.err.find("[opscan-allow-expired]"), std::string::npos) << run.err;
}

TEST_F(AuditCli, AnUnusedEntryIsAWarning) {
  dir().write("unused.json",
              R"({"allow": [{"operator": "demo::abs.out", "change": "operator-removed",
  "reason": "r", "expires": "2030-01-01"}]})");
  RunResult run = diff("base added --allow unused.json --today 2029-01-01");
  EXPECT_EQ(run.exit_code, 0) << dump(run);
  EXPECT_NE(
      run.err.find("unused.json:1:12: warning: allow[0]: allows no breaking change of this "
                   "diff (operator-removed 'demo::abs.out'): remove it [opscan-allow-unused]"),
      std::string::npos)
      << run.err;
}

// Thousands of stale entries are one screen: 20 of each code, then a note
// counting the rest (they printed 40 MB).
TEST_F(AuditCli, ManyUnusedOrExpiredEntriesAreCounted) {
  std::string entries;
  for (int i = 0; i < 1000; ++i) {
    entries += std::string(i ? ",\n" : "") + R"({"operator": "demo::x)" + std::to_string(i) +
               R"(.out", "change": "operator-removed", "reason": "r", "expires": ")" +
               (i % 2 ? "2030-01-01" : "2020-01-01") + "\"}";
  }
  dir().write("many.json", "{\"allow\": [\n" + entries + "\n]}\n");
  RunResult run = diff("base added --allow many.json --today 2029-01-01");
  EXPECT_EQ(run.exit_code, 1) << dump(run);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = run.err.find(what); at != std::string::npos; at = run.err.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("[opscan-allow-unused]"), 20u) << run.err.substr(0, 2000);
  EXPECT_EQ(count("[opscan-allow-expired]"), 20u);
  EXPECT_EQ(count("[opscan-allow-more]"), 2u);
  EXPECT_NE(run.err.find("note: 480 more opscan-allow-unused like those above are not shown, from "
                         "here on [opscan-allow-more]"),
            std::string::npos)
      << run.err.substr(0, 2000);
  EXPECT_LT(run.err.size(), 40000u);
}

TEST_F(AuditCli, LibrariesAddedAndRemoved) {
  RunResult run = diff("base moved --format json");
  EXPECT_EQ(run.exit_code, 1) << dump(run);
  const Json doc = Json::parse(run.out);
  ASSERT_EQ(doc["changes"].size(), 2u) << run.out;
  EXPECT_EQ(doc["changes"][0]["change"], "library-removed");
  EXPECT_EQ(doc["changes"][0]["library"], "reduce");
  EXPECT_EQ(doc["changes"][0]["operator"], "");
  EXPECT_EQ(doc["changes"][0]["old"]["file"], "base/reduce/ir.json");
  EXPECT_EQ(doc["changes"][1]["change"], "library-added");
  EXPECT_EQ(doc["changes"][1]["library"], "stats");
  EXPECT_EQ(doc["changes"][1]["compatibility"], "compatible");
}

TEST_F(AuditCli, BadInput) {
  TempDir bad;
  fs::copy(dir().path() / "base", bad.path() / "damaged", fs::copy_options::recursive);
  std::string ir = read_file(bad.path() / "damaged/reduce/ir.json");
  opscan::testing::write_file(bad.path() / "damaged/reduce/ir.json", ir.substr(0, ir.size() / 2));
  fs::create_directories(bad.path() / "empty/sub");
  fs::copy(dir().path() / "base", bad.path() / "base", fs::copy_options::recursive);
  const Snapshot before = snapshot(bad.path());

  RunResult damaged = opscan(bad.path(), "diff base damaged");
  EXPECT_EQ(damaged.exit_code, 1) << dump(damaged);
  EXPECT_EQ(damaged.out, "");
  EXPECT_TRUE(damaged.err.starts_with("damaged/reduce/ir.json:")) << damaged.err;
  EXPECT_NE(damaged.err.find("[opscan-ir-invalid]"), std::string::npos) << damaged.err;

  RunResult missing = opscan(bad.path(), "diff base nothing-here");
  EXPECT_EQ(missing.exit_code, 3) << dump(missing);
  EXPECT_EQ(missing.err,
            "opscan: error: cannot read 'nothing-here': No such file or directory [opscan-io]\n");

  RunResult empty = opscan(bad.path(), "diff empty base");
  EXPECT_EQ(empty.exit_code, 1) << dump(empty);
  EXPECT_EQ(empty.err, "opscan: error: the directory 'empty' holds no IR file (neither ir.json nor "
                       "*/ir.json, as opscan generate -o DIR writes them) [opscan-audit-no-ir]\n");

  RunResult fifo = opscan(bad.path(), "diff base /dev/null");
  EXPECT_EQ(fifo.exit_code, 3) << dump(fifo);

  RunResult no_allow = opscan(bad.path(), "diff base base --allow nope.json");
  EXPECT_EQ(no_allow.exit_code, 3) << dump(no_allow);
  EXPECT_NE(no_allow.err.find("cannot read the allow-list nope.json"), std::string::npos);

  opscan::testing::write_file(bad.path() / "bad-allow.json", "{\"allow\": [{\"operator\": 1}]}");
  RunResult bad_allow = opscan(bad.path(), "diff base base --allow bad-allow.json");
  EXPECT_EQ(bad_allow.exit_code, 1) << dump(bad_allow);
  EXPECT_TRUE(bad_allow.err.starts_with("bad-allow.json:1:25: error: allow[0].operator: must be a "
                                        "string, not a number [opscan-allow-file]\n"))
      << bad_allow.err;
  std::filesystem::remove(bad.path() / "bad-allow.json");
  EXPECT_EQ(snapshot(bad.path()), before); // nothing written
}

TEST_F(AuditCli, UsageErrors) {
  for (const char* args : {"base", "base base --format sarif", "base base --today 2027-02-30",
                           "base base --today tomorrow", "base base extra"}) {
    RunResult run = diff(args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << dump(run);
    EXPECT_NE(run.err.find("[opscan-usage]"), std::string::npos) << run.err;
  }
  EXPECT_EQ(diff("base base --today 2027-02-30").err,
            "opscan: error: --today '2027-02-30' is not a date (YYYY-MM-DD) [opscan-usage]\n");
}

// ----- opscan report ---------------------------------------------------------

TEST_F(AuditCli, ReportWithCoverage) {
  dir().write("core.txt", "# what the runtime needs\n"
                          "demo::abs.out\n"
                          "demo::sum.out  # a reduction\n"
                          "demo::mul.out\n");
  RunResult md = report("base --against core.txt");
  EXPECT_EQ(md.exit_code, 0) << dump(md);
  EXPECT_EQ(md.err, "");
  EXPECT_NE(md.out.find("## Library `elementwise`\n\n2 operators, 2 kernels; target executorch, "
                        "registration named: torch::executor::register_elementwise_kernels(); "
                        "from `base/elementwise/ir.json`.\n"),
            std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("| `demo::abs.out` | `demo::abs.out(Tensor self, *, Tensor(a!) out) -> "
                        "Tensor(a!)` | `abs_out` |  | src/base/elementwise.cpp:6 |\n"),
            std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("## Coverage of `core.txt`\n\n2 of 3 operators covered (66.7%), 1 "
                        "missing.\n\n### Missing\n\n- `demo::mul.out`\n"),
            std::string::npos)
      << md.out;

  RunResult json = report("base/elementwise/ir.json base/reduce --against core.txt --format json");
  EXPECT_EQ(json.exit_code, 0) << dump(json);
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["libraries"].size(), 2u);
  EXPECT_EQ(doc["coverage"]["covered"], 2);
  EXPECT_EQ(doc["coverage"]["missing_operators"], Json::array({"demo::mul.out"}));

  RunResult fail = report("base --against core.txt --fail-on-missing");
  EXPECT_EQ(fail.exit_code, 1) << dump(fail);
  EXPECT_EQ(fail.err, "opscan: error: 1 of the 3 operators listed is served by no library "
                      "(--fail-on-missing) [opscan-report-missing]\n");
  EXPECT_EQ(report("base --fail-on-missing").exit_code, 2);
}

TEST_F(AuditCli, ReportOutputAndBadLists) {
  TempDir out;
  RunResult written = report("base -o '" + (out.path() / "r/report.md").string() + "'");
  EXPECT_EQ(written.exit_code, 0) << dump(written);
  EXPECT_EQ(written.out, "");
  EXPECT_TRUE(read_file(out.path() / "r/report.md").starts_with("# opscan report\n"));

  RunResult onto_input = report("base -o base/reduce/ir.json");
  EXPECT_EQ(onto_input.exit_code, 2) << dump(onto_input);
  EXPECT_NE(onto_input.err.find("[opscan-output-is-input]"), std::string::npos);

  dir().write("bad-list.txt", "demo::abs.out\n  demo:abs\n");
  RunResult bad = report("base --against bad-list.txt");
  EXPECT_EQ(bad.exit_code, 1) << dump(bad);
  EXPECT_TRUE(bad.err.starts_with("bad-list.txt:2:")) << bad.err;
  EXPECT_NE(bad.err.find("[opscan-schema-syntax]"), std::string::npos) << bad.err;
  EXPECT_EQ(report("base --against no-list.txt").exit_code, 3);
  EXPECT_EQ(report("base --format text").exit_code, 2);
}

} // namespace
