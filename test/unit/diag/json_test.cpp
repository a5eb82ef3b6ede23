// ===== render_json (lib/diag/json.h) ========================================

#include "diag/codes.h"
#include "diag/json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using namespace opscan::diag;
using nlohmann::json;

TEST(RenderJson, AnEmptyListIsAVersionedDocumentWithNoDiagnostics) {
  const json document = json::parse(render_json({}));
  EXPECT_EQ(document["version"], 1);
  EXPECT_EQ(document["diagnostics"], json::array());
}

TEST(RenderJson, EveryFieldOfADiagnosticIsThere) {
  Diagnostic d = make_error("opscan-scan-unnamed-parameter", {"src/k.cpp", 3, 9, 40},
                            "parameter 2 of 'f' has no name");
  d.notes.push_back({"declared here", {"include/k.h", 7, 1, 120}});
  d.fixits.push_back({"src/k.cpp", 48, 0, " other"});
  const json document = json::parse(render_json({d}));
  ASSERT_EQ(document["diagnostics"].size(), 1u);
  const json& got = document["diagnostics"][0];
  EXPECT_EQ(got["code"], "opscan-scan-unnamed-parameter");
  EXPECT_EQ(got["severity"], "error");
  EXPECT_EQ(got["message"], "parameter 2 of 'f' has no name");
  EXPECT_EQ(got["location"],
            json({{"file", "src/k.cpp"}, {"line", 3}, {"column", 9}, {"offset", 40}}));
  EXPECT_EQ(got["notes"][0]["message"], "declared here");
  EXPECT_EQ(got["notes"][0]["location"]["file"], "include/k.h");
  EXPECT_EQ(got["notes"][0]["location"]["offset"], 120);
  EXPECT_EQ(
      got["fixes"],
      json::array(
          {{{"file", "src/k.cpp"}, {"offset", 48}, {"length", 0}, {"replacement", " other"}}}));
  EXPECT_EQ(got["help"], help_url("opscan-scan-unnamed-parameter"));
}

TEST(RenderJson, SeveritiesAreSpelledAsInText) {
  const json document = json::parse(render_json({make_warning("opscan-functions-skipped", {}, "w"),
                                                 make_note("opscan-dropped-flag", {}, "n")}));
  EXPECT_EQ(document["diagnostics"][0]["severity"], "warning");
  EXPECT_EQ(document["diagnostics"][1]["severity"], "note");
}

TEST(RenderJson, ALocationIsNullWithoutAFileAndLineZeroForAWholeFile) {
  const json document = json::parse(
      render_json({make_error("opscan-usage", {}, "bad option"),
                   make_error("opscan-io", {"x.json", 0, 0, 0}, "cannot read x.json")}));
  EXPECT_TRUE(document["diagnostics"][0]["location"].is_null());
  EXPECT_EQ(document["diagnostics"][1]["location"]["file"], "x.json");
  EXPECT_EQ(document["diagnostics"][1]["location"]["line"], 0);
}

TEST(RenderJson, TextThatIsNotUtf8StillMakesValidJson) {
  const std::string rendered =
      render_json({make_error("opscan-io", {"bad\xff.cpp", 0, 0, 0}, "cannot read bad\xff.cpp")});
  const json document = json::parse(rendered); // throws on invalid UTF-8
  EXPECT_EQ(document["diagnostics"][0]["location"]["file"], "bad\xEF\xBF\xBD.cpp");
}

} // namespace
