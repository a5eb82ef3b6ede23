// ===== render_sarif (lib/diag/sarif.h) ======================================
// Shape and content; the cli tests validate whole logs with the SARIF
// Multitool.

#include "diag/codes.h"
#include "diag/sarif.h"
#include "support/sha256.h"
#include "files.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using namespace opscan::diag;
using nlohmann::json;
using opscan::testing::TempDir;
using opscan::testing::write_file;

class RenderSarif : public ::testing::Test {
protected:
  json render(const Diagnostics& diags) {
    return json::parse(render_sarif(
        diags,
        {.source_root = dir_.path(), .working_dir = dir_.path(), .source_files = std::nullopt}));
  }
  const json& run(const json& log) { return log["runs"][0]; }

  TempDir dir_;
};

TEST_F(RenderSarif, OneRunOfOpscanWithARulePerCodeUsed) {
  const json log = render({make_error("opscan-usage", {}, "a"), make_error("opscan-io", {}, "b"),
                           make_error("opscan-usage", {}, "c")});
  EXPECT_EQ(log["version"], "2.1.0");
  ASSERT_EQ(log["runs"].size(), 1u);
  const json& driver = run(log)["tool"]["driver"];
  EXPECT_EQ(driver["name"], "opscan");
  EXPECT_FALSE(driver["version"].get<std::string>().empty());
  ASSERT_EQ(driver["rules"].size(), 2u);
  EXPECT_EQ(driver["rules"][0]["id"], "opscan-usage");
  EXPECT_EQ(driver["rules"][0]["shortDescription"]["text"], find_code("opscan-usage")->summary);
  EXPECT_EQ(driver["rules"][0]["helpUri"], help_url("opscan-usage"));
  EXPECT_EQ(driver["rules"][0]["name"], "Usage");
  EXPECT_EQ(driver["rules"][1]["id"], "opscan-io");
  const json& results = run(log)["results"];
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2]["ruleId"], "opscan-usage");
  EXPECT_EQ(results[2]["ruleIndex"], 0);
  EXPECT_EQ(results[1]["ruleIndex"], 1);
  EXPECT_EQ(results[0]["level"], "error");
  EXPECT_EQ(results[0]["message"]["text"], "a");
  EXPECT_FALSE(results[0].contains("locations")); // no place in a file
}

TEST_F(RenderSarif, PathsInsideTheRootAreRelativeToSrcroot) {
  const json log = render({make_error("opscan-io", {"sub dir/k.cpp", 0, 0, 0}, "x"),
                           make_error("opscan-io", {"/elsewhere/k#1.cpp", 0, 0, 0}, "y")});
  std::string root = "file://" + uri_path(dir_.path().string()) + "/";
  EXPECT_EQ(run(log)["originalUriBaseIds"]["%SRCROOT%"]["uri"], root);
  const json& inside = run(log)["results"][0]["locations"][0]["physicalLocation"];
  EXPECT_EQ(inside["artifactLocation"],
            json({{"uri", "sub%20dir/k.cpp"}, {"uriBaseId", "%SRCROOT%"}}));
  EXPECT_FALSE(inside.contains("region")); // a whole file
  const json& outside = run(log)["results"][1]["locations"][0]["physicalLocation"];
  EXPECT_EQ(outside["artifactLocation"], json({{"uri", "file:///elsewhere/k%231.cpp"}}));
}

TEST_F(RenderSarif, ColumnsCountCodePointsOfTheLine) {
  // "é" is two bytes: byte column 7 of "  é = x;" (the blank before x) is
  // its sixth character.
  write_file(dir_.path() / "k.cpp", "int a;\n  \xC3\xA9 = x;\n");
  const json log = render({make_error("opscan-clang-error", {"k.cpp", 2, 7, 13}, "x")});
  EXPECT_EQ(run(log)["columnKind"], "unicodeCodePoints");
  const json& region = run(log)["results"][0]["locations"][0]["physicalLocation"]["region"];
  EXPECT_EQ(region["startLine"], 2);
  EXPECT_EQ(region["startColumn"], 6);
  EXPECT_EQ(region["byteOffset"], 13);
}

TEST_F(RenderSarif, AnOffsetTheFileDoesNotConfirmIsLeftOut) {
  write_file(dir_.path() / "t.cpp", "line one\nline two\n");
  const json log = render({make_error("opscan-template", {"t.cpp", 2, 3, 0}, "x"),
                           make_error("opscan-template", {"gone.cpp", 2, 3, 0}, "x")});
  const json& region = run(log)["results"][0]["locations"][0]["physicalLocation"]["region"];
  EXPECT_EQ(region["startColumn"], 3);
  EXPECT_FALSE(region.contains("byteOffset"));
  // An unreadable file: the line only (its column's unit is unknown).
  const json& unread = run(log)["results"][1]["locations"][0]["physicalLocation"]["region"];
  EXPECT_EQ(unread, json({{"startLine", 2}}));
}

TEST_F(RenderSarif, NotesAreRelatedLocationsAndFixItsAFix) {
  write_file(dir_.path() / "k.cpp", "void f(int);\n");
  Diagnostic d = make_error("opscan-scan-unnamed-parameter", {"k.cpp", 1, 8, 7}, "unnamed");
  d.notes.push_back({"see here", {"k.cpp", 1, 1, 0}});
  d.notes.push_back({"and this", {}});
  d.fixits.push_back({"k.cpp", 10, 0, " x"});
  const json log = render({d});
  const json& result = run(log)["results"][0];
  ASSERT_EQ(result["relatedLocations"].size(), 2u);
  EXPECT_EQ(result["relatedLocations"][0]["message"]["text"], "see here");
  EXPECT_EQ(result["relatedLocations"][0]["physicalLocation"]["region"]["startColumn"], 1);
  EXPECT_EQ(result["relatedLocations"][1]["message"]["text"], "and this");
  EXPECT_FALSE(result["relatedLocations"][1].contains("physicalLocation"));
  const json& change = result["fixes"][0]["artifactChanges"][0];
  EXPECT_EQ(change["artifactLocation"]["uri"], "k.cpp");
  EXPECT_EQ(change["replacements"][0],
            json({{"deletedRegion", {{"byteOffset", 10}, {"byteLength", 0}}},
                  {"insertedContent", {{"text", " x"}}}}));
}

TEST_F(RenderSarif, AFingerprintSurvivesLinesInsertedAbove) {
  write_file(dir_.path() / "k.cpp", "void f(int);\n");
  const json before =
      render({make_error("opscan-scan-unnamed-parameter", {"k.cpp", 1, 8, 7}, "m")});
  write_file(dir_.path() / "k.cpp", "// new\n\nvoid f(int);\n");
  const json after =
      render({make_error("opscan-scan-unnamed-parameter", {"k.cpp", 3, 8, 15}, "m")});
  const json& a = run(before)["results"][0]["partialFingerprints"]["opscanFingerprint/v1"];
  const json& b = run(after)["results"][0]["partialFingerprints"]["opscanFingerprint/v1"];
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.get<std::string>().size(), 64u);
  // A different line text, message or code is another problem.
  write_file(dir_.path() / "k.cpp", "void g(int);\n");
  const json other = render({make_error("opscan-scan-unnamed-parameter", {"k.cpp", 1, 8, 7}, "m")});
  EXPECT_NE(run(other)["results"][0]["partialFingerprints"]["opscanFingerprint/v1"], a);
}

// v1 is the SHA-256 of "code\nuri\ntrimmed line\nmessage": kept to the
// byte while many diagnostics on one line share the hash of its text (so
// that 20,000 of them on a minified line take linear time), and columns on
// a long line count code points from the line's start.
TEST_F(RenderSarif, ManyDiagnosticsOnOneLongLineKeepTheirFingerprintAndColumn) {
  std::string line = "  ";
  for (int i = 0; i < 3000; ++i)
    line += "int f" + std::to_string(i) + "(\xc3\xa9); ";
  write_file(dir_.path() / "k.cpp", line + "\n");
  Diagnostics diags;
  for (size_t at = line.find("(\xc3"), i = 0; at != std::string::npos;
       at = line.find("(\xc3", at + 1), ++i) {
    diags.push_back(make_error(i % 2 ? "opscan-scan-unnamed-parameter" : "opscan-clang-error",
                               {"k.cpp", 1, static_cast<unsigned>(at + 2), static_cast<unsigned>(at + 1)},
                               "m" + std::to_string(i)));
  }
  const json results = run(render(diags))["results"];
  ASSERT_EQ(results.size(), diags.size());
  size_t accents_before = 0;
  for (size_t i = 0; i < diags.size(); ++i) {
    const Diagnostic& d = diags[i];
    const std::string key =
        d.code + "\nk.cpp\n" + line.substr(2, line.size() - 3) + "\n" + d.message;
    EXPECT_EQ(results[i]["partialFingerprints"]["opscanFingerprint/v1"],
              opscan::support::sha256_hex(key))
        << i;
    // Each earlier "\xc3\xa9" is two bytes and one code point.
    EXPECT_EQ(results[i]["locations"][0]["physicalLocation"]["region"]["startColumn"],
              d.location.column - accents_before)
        << i;
    ++accents_before;
  }
}

TEST_F(RenderSarif, OnlyTheSourceFilesGivenAreRead) {
  write_file(dir_.path() / "k.cpp", "abc\n");
  const json log = json::parse(render_sarif(
      {make_error("opscan-clang-error", {"k.cpp", 1, 2, 1}, "x")},
      {.source_root = dir_.path(), .working_dir = dir_.path(), .source_files = {{"other.json"}}}));
  EXPECT_EQ(run(log)["results"][0]["locations"][0]["physicalLocation"]["region"],
            json({{"startLine", 1}}));
}

TEST(UriPath, EncodesAllButUnreservedCharactersAndSlashes) {
  EXPECT_EQ(uri_path("a/b-c_d.e~f"), "a/b-c_d.e~f");
  EXPECT_EQ(uri_path("a b%#?\xC3\xA9"), "a%20b%25%23%3F%C3%A9");
}

} // namespace
