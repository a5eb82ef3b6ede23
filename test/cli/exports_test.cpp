// Diagnostics for other tools, with the real ones: --export-fixes applied by
// clang-apply-replacements, --format sarif validated by the SARIF
// Multitool (installed by scripts/setup.sh into the build directory's npm/),
// --format json read back; and the fixes file refused where it would
// overwrite an input or could not be written.
#include "files.h"
#include "run.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

namespace fs = std::filesystem;
using nlohmann::json;
using opscan::testing::read_file;
using opscan::testing::snapshot;
using opscan::testing::TempDir;
using opscan::testing::write_file;

namespace {

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const fs::path kNpm = OPSCAN_NPM_DIR;
const char* const kApplyReplacements = "/usr/bin/clang-apply-replacements";

using opscan::testing::run_command;
using opscan::testing::RunResult;

// A kernel library with fixable problems: a declared schema that does not
// fit its signature (src/a.cpp), and an unnamed parameter in a kernel
// declared in a header both sources include (include/k.h).
class Exports : public ::testing::Test {
protected:
  void SetUp() override {
    fs::create_directories(dir() / "src");
    fs::create_directories(dir() / "include");
    write_file(dir() / "include/k.h",
               "#pragma once\n"
               "#include <opscan/annotations.h>\n"
               "#include <opscan_examples/executorch_types.h>\n"
               "\n"
               "using executorch::aten::Tensor;\n"
               "using executorch::runtime::KernelRuntimeContext;\n"
               "\n"
               "OPSCAN_KERNEL(\"demo::neg.out\")\n"
               "Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor&, Tensor& out);\n");
    write_file(dir() / "src/a.cpp",
               "#include \"k.h\"\n"
               "\n"
               "OPSCAN_KERNEL(\"demo::scale.out(Tensor self, float factor, *, Tensor(a!) out) -> "
               "Tensor(a!)\")\n"
               "Tensor& scale_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n");
    write_file(dir() / "src/b.cpp", "#include \"k.h\"\n");
  }

  const fs::path& dir() const { return dir_.path(); }

  // opscan <command> <args> on both sources, in the library's directory.
  RunResult opscan(const std::string& command, const std::string& args) const {
    return run_command(dir(), "'" OPSCAN_BINARY "' " + command + " src/a.cpp src/b.cpp " + args +
                                  " -- -Iinclude -I'" + (kRepo / "include").string() + "' -I'" +
                                  (kRepo / "examples/include").string() + "'");
  }

  TempDir dir_;
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST_F(Exports, ExportedFixesAppliedByClangApplyReplacementsMakeTheScanClean) {
  fs::create_directory(dir() / "fixes");
  RunResult scan = opscan("scan", "-o k.ir.json --export-fixes fixes/opscan.yaml");
  ASSERT_EQ(scan.exit_code, 1) << scan.err;
  EXPECT_NE(scan.err.find("[opscan-scan-unnamed-parameter]"), std::string::npos) << scan.err;
  EXPECT_NE(scan.err.find("[opscan-mismatch-count]"), std::string::npos) << scan.err;
  EXPECT_FALSE(fs::exists(dir() / "k.ir.json")); // errors: no IR

  const std::string yaml = read_file(dir() / "fixes/opscan.yaml");
  ASSERT_FALSE(yaml.empty());
  EXPECT_TRUE(yaml.starts_with("---\nMainSourceFile:  '" + (dir() / "src/a.cpp").string() + "'\n"))
      << yaml;
  // The header's kernel is seen from both sources; its fix is listed once.
  const std::string header = "FilePath:        '" + (dir() / "include/k.h").string() + "'";
  EXPECT_EQ(count(yaml, "- " + header), 1u) << yaml;
  EXPECT_EQ(count(yaml, "- FilePath:        '" + (dir() / "src/a.cpp").string() + "'"), 1u) << yaml;

  RunResult apply = run_command(dir(), std::string(kApplyReplacements) + " fixes");
  ASSERT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_NE(read_file(dir() / "include/k.h").find("const Tensor& arg1, Tensor& out"),
            std::string::npos)
      << read_file(dir() / "include/k.h");

  RunResult again = opscan("scan", "-o k.ir.json");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err, "");
  EXPECT_TRUE(fs::exists(dir() / "k.ir.json"));
}

TEST_F(Exports, ACleanScanStillWritesTheFixesFileWithNothingInIt) {
  // A fixes file left from an earlier run must not be applied again.
  write_file(dir() / "include/k.h", "#pragma once\n");
  write_file(dir() / "src/a.cpp", "#include \"k.h\"\n");
  write_file(dir() / "fixes.yaml", "stale\n");
  RunResult scan = opscan("scan", "-o k.ir.json --export-fixes fixes.yaml");
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_NE(read_file(dir() / "fixes.yaml").find("Diagnostics:     []\n"), std::string::npos);
}

// The Multitool's exit code says only that it ran; its findings are in the
// log it writes (-o) and on its output, one line per finding, with the
// level ("error", "warning", "note"). Notes are advice (a snippet, a
// friendly rule id) and are allowed.
void expect_valid_sarif(const fs::path& dir, const std::string& file) {
  const fs::path multitool = kNpm / "node_modules/.bin/sarif-multitool";
  ASSERT_TRUE(fs::exists(multitool))
      << multitool << " is missing: run scripts/setup.sh (with OPSCAN_BUILD_DIR set to this "
      << "build directory) to install the tests' npm packages";
  RunResult validate =
      run_command(dir, "'" + multitool.string() + "' validate " + file + " -o validation.sarif");
  ASSERT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  const json log = json::parse(read_file(dir / "validation.sarif"));
  for (const json& finding : log["runs"][0]["results"]) {
    const std::string level = finding.value("level", "warning");
    EXPECT_TRUE(level == "note" || level == "none") << finding.dump() << "\n" << validate.out;
  }
  EXPECT_EQ(validate.out.find(": error "), std::string::npos) << validate.out;
  EXPECT_EQ(validate.out.find(": warning "), std::string::npos) << validate.out;
}

const json* result_with(const json& log, const std::string& code) {
  for (const json& result : log["runs"][0]["results"])
    if (result["ruleId"] == code)
      return &result;
  return nullptr;
}

TEST_F(Exports, SarifIsValidRelativeToSrcrootAndFingerprintsAreStable) {
  RunResult scan = opscan("scan", "-o k.ir.json --format sarif");
  ASSERT_EQ(scan.exit_code, 1) << scan.err;
  EXPECT_EQ(scan.err, ""); // the report is on stdout, nothing as text
  write_file(dir() / "first.sarif", scan.out);
  expect_valid_sarif(dir(), "first.sarif");

  const json log = json::parse(scan.out);
  const json& run = log["runs"][0];
  EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file://" + fs::canonical(dir()).string() + "/");
  for (const json& rule : run["tool"]["driver"]["rules"]) {
    EXPECT_TRUE(rule["helpUri"].get<std::string>().ends_with("#" + rule["id"].get<std::string>()))
        << rule.dump();
  }
  const json* mismatch = result_with(log, "opscan-mismatch-count");
  ASSERT_NE(mismatch, nullptr) << scan.out;
  EXPECT_EQ((*mismatch)["locations"][0]["physicalLocation"]["artifactLocation"],
            json({{"uri", "src/a.cpp"}, {"uriBaseId", "%SRCROOT%"}}));
  const json* unnamed = result_with(log, "opscan-scan-unnamed-parameter");
  ASSERT_NE(unnamed, nullptr) << scan.out;
  EXPECT_EQ((*unnamed)["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "include/k.h");
  EXPECT_FALSE((*unnamed)["fixes"].empty());

  // A blank line above both problems: other lines, the same fingerprints.
  write_file(dir() / "src/a.cpp", "\n" + read_file(dir() / "src/a.cpp"));
  write_file(dir() / "include/k.h", "\n" + read_file(dir() / "include/k.h"));
  RunResult moved = opscan("scan", "-o k.ir.json --format sarif");
  ASSERT_EQ(moved.exit_code, 1) << moved.err;
  const json after = json::parse(moved.out);
  for (const char* code : {"opscan-mismatch-count", "opscan-scan-unnamed-parameter"}) {
    const json* before_result = result_with(log, code);
    const json* after_result = result_with(after, code);
    ASSERT_NE(after_result, nullptr) << code;
    EXPECT_EQ(
        (*after_result)["locations"][0]["physicalLocation"]["region"]["startLine"],
        (*before_result)["locations"][0]["physicalLocation"]["region"]["startLine"].get<int>() + 1)
        << code;
    EXPECT_EQ((*after_result)["partialFingerprints"], (*before_result)["partialFingerprints"])
        << code;
  }
}

TEST_F(Exports, SrcrootSetsTheBaseOfRelativeUris) {
  RunResult scan = opscan("scan", "-o k.ir.json --format sarif --srcroot src");
  ASSERT_EQ(scan.exit_code, 1) << scan.err;
  const json log = json::parse(scan.out);
  EXPECT_EQ(log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file://" + fs::canonical(dir()).string() + "/src/");
  const json* mismatch = result_with(log, "opscan-mismatch-count");
  ASSERT_NE(mismatch, nullptr);
  EXPECT_EQ((*mismatch)["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "a.cpp");
  // The header is outside the root: an absolute URI.
  const json* unnamed = result_with(log, "opscan-scan-unnamed-parameter");
  ASSERT_NE(unnamed, nullptr);
  EXPECT_EQ((*unnamed)["locations"][0]["physicalLocation"]["artifactLocation"],
            json({{"uri", "file://" + fs::canonical(dir()).string() + "/include/k.h"}}));
  write_file(dir() / "src.sarif", scan.out);
  expect_valid_sarif(dir(), "src.sarif");
}

TEST_F(Exports, JsonListsEachDiagnosticWithItsFixes) {
  RunResult scan = opscan("scan", "-o k.ir.json --format json");
  ASSERT_EQ(scan.exit_code, 1) << scan.err;
  EXPECT_EQ(scan.err, "");
  const json document = json::parse(scan.out);
  EXPECT_EQ(document["version"], 1);
  bool found = false;
  for (const json& d : document["diagnostics"]) {
    if (d["code"] != "opscan-scan-unnamed-parameter")
      continue;
    found = true;
    EXPECT_EQ(d["severity"], "error");
    EXPECT_EQ(d["location"]["file"], "include/k.h");
    EXPECT_EQ(d["location"]["line"], 9);
    EXPECT_EQ(d["fixes"][0]["file"], "include/k.h");
    EXPECT_EQ(d["fixes"][0]["replacement"], " arg1");
    EXPECT_TRUE(d["help"].get<std::string>().ends_with("#opscan-scan-unnamed-parameter"));
  }
  EXPECT_TRUE(found) << scan.out;
}

TEST_F(Exports, TheJsonReportIsAllThatIsOnStdout) {
  // generate prints a summary on success; with --format json it goes to
  // stderr, so stdout stays one document.
  write_file(dir() / "src/a.cpp", "#include \"k.h\"\n");
  write_file(dir() / "include/k.h", "#pragma once\n#include <opscan/annotations.h>\n"
                                    "#include <opscan_examples/executorch_types.h>\n"
                                    "using executorch::aten::Tensor;\n"
                                    "using executorch::runtime::KernelRuntimeContext;\n"
                                    "OPSCAN_KERNEL(\"demo::neg.out\")\n"
                                    "Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& "
                                    "self, Tensor& out);\n");
  ASSERT_EQ(opscan("scan", "-o k.ir.json").exit_code, 0);
  RunResult generate =
      run_command(dir(), "'" OPSCAN_BINARY "' generate k.ir.json --registration named "
                         "--lib k -o gen --format json");
  ASSERT_EQ(generate.exit_code, 0) << generate.err;
  EXPECT_EQ(json::parse(generate.out)["diagnostics"], json::array());
  EXPECT_NE(generate.err.find("library 'k'"), std::string::npos) << generate.err;
  // A missing IR file: the error is in the document.
  RunResult check = run_command(dir(), "'" OPSCAN_BINARY "' check missing.json --format json");
  EXPECT_EQ(check.exit_code, 3);
  EXPECT_EQ(json::parse(check.out)["diagnostics"][0]["code"], "opscan-io");
}

TEST_F(Exports, AnUnknownFormatIsAUsageError) {
  const opscan::testing::Snapshot before = snapshot(dir());
  RunResult scan = opscan("scan", "-o k.ir.json --format bogus");
  EXPECT_EQ(scan.exit_code, 2);
  EXPECT_NE(scan.err.find("--format: bogus not in {text,json,sarif}"), std::string::npos)
      << scan.err;
  EXPECT_NE(scan.err.find("[opscan-usage]"), std::string::npos) << scan.err;
  EXPECT_EQ(snapshot(dir()), before);
}

TEST_F(Exports, AFixesFileInAMissingDirectoryIsRefusedBeforeAnythingIsWritten) {
  const opscan::testing::Snapshot before = snapshot(dir());
  RunResult scan = opscan("scan", "-o k.ir.json --export-fixes missing/fixes.yaml");
  EXPECT_EQ(scan.exit_code, 3) << scan.err;
  EXPECT_NE(scan.err.find("cannot write missing/fixes.yaml (--export-fixes): missing is not a "
                          "directory [opscan-io]"),
            std::string::npos)
      << scan.err;
  EXPECT_EQ(snapshot(dir()), before);
}

TEST_F(Exports, AFixesFileThatIsAnInputIsRefusedAndNothingIsWritten) {
  const opscan::testing::Snapshot before = snapshot(dir());
  // A source, known from the command line.
  RunResult source = opscan("scan", "-o k.ir.json --export-fixes src/b.cpp");
  EXPECT_EQ(source.exit_code, 2) << source.err;
  EXPECT_NE(source.err.find("src/b.cpp is both --export-fixes and a source; opscan does not "
                            "overwrite its inputs [opscan-output-is-input]"),
            std::string::npos)
      << source.err;
  EXPECT_EQ(snapshot(dir()), before);
  // A header, known once the scan has read it; the scan has no errors, and
  // still writes no IR.
  write_file(dir() / "src/a.cpp", "#include \"k.h\"\n");
  write_file(dir() / "include/k.h", "#pragma once\n");
  const opscan::testing::Snapshot clean = snapshot(dir());
  RunResult header = opscan("scan", "-o k.ir.json --export-fixes include/k.h");
  EXPECT_EQ(header.exit_code, 2) << header.err;
  EXPECT_NE(header.err.find("[opscan-output-is-input]"), std::string::npos) << header.err;
  EXPECT_EQ(snapshot(dir()), clean);
  // Another output of the command.
  RunResult twice = opscan("scan", "-o k.ir.json --export-fixes ./k.ir.json");
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_NE(twice.err.find("[opscan-output-twice]"), std::string::npos) << twice.err;
  EXPECT_EQ(snapshot(dir()), clean);
}

} // namespace
