#include "audit/allow.h"
#include "audit/diff_cases.h"
#include "audit/render.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using namespace audit_test;
using Json = nlohmann::json;

// In library "ops": ops::f's alpha Scalar -> float (breaking, allowed),
// its dim removed (breaking) and a new C++ function (compatible); library
// "gone" removed (breaking).
audit::DiffResult changed() {
  std::vector<ir::Module> olds = ops("ops::f(Tensor self, Scalar alpha, int dim) -> Tensor");
  olds.push_back(library("gone", {}));
  std::vector<ir::Module> news = {library(
      "ops", {kernel("ops::f(Tensor self, float alpha) -> Tensor", "k::f_v2", "", "", 14)})};
  audit::DiffResult result = audit::diff(inputs_of(olds), inputs_of(news, "new"), test_fields());
  audit::AllowRead allow = audit::parse_allow_list(
      R"({"allow": [{"operator": "ops::f", "change": "argument-type-changed",
         "reason": "callers | updated `now`", "expires": "2030-01-01"}]})",
      "allow.json");
  EXPECT_TRUE(allow.list);
  EXPECT_TRUE(audit::apply(*allow.list, {2026, 1, 1}, result).empty());
  return result;
}

TEST(RenderDiff, Text) {
  EXPECT_EQ(audit::render_text(changed()),
            "opscan diff: 3 breaking changes (1 allowed), 1 compatible\n"
            "library 'gone':\n"
            "  (the library):\n"
            "    breaking library-removed: library 'gone' removed (0 kernels) "
            "[old/gone/ir.json]\n"
            "library 'ops':\n"
            "  ops::f:\n"
            "    breaking argument-removed: argument 'dim' removed (was at position 2: int dim) "
            "[src/kernels.cpp:10]\n"
            "    allowed argument-type-changed: argument 'alpha' (position 1): type 'Scalar' -> "
            "'float' [src/kernels.cpp:14]\n"
            "      allowed until 2030-01-01: callers | updated `now`\n"
            "    compatible cpp-function-changed: ops::f: C++ function k::f -> k::f_v2 "
            "[src/kernels.cpp:14]\n");
  EXPECT_EQ(audit::render_text(audit::DiffResult{}), "opscan diff: no changes\n");
}

TEST(RenderDiff, Json) {
  const Json doc = Json::parse(audit::render_json(changed()));
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["breaking"], 3);
  EXPECT_EQ(doc["compatible"], 1);
  EXPECT_EQ(doc["allowed"], 1);
  ASSERT_EQ(doc["changes"].size(), 4u);
  const Json& removed = doc["changes"][0];
  EXPECT_EQ(removed["library"], "gone");
  EXPECT_EQ(removed["operator"], "");
  EXPECT_TRUE(removed["argument"].is_null());
  EXPECT_TRUE(removed["position"].is_null());
  EXPECT_TRUE(removed["new"].is_null());
  EXPECT_EQ(removed["old"]["file"], "old/gone/ir.json");
  EXPECT_EQ(removed["old"]["line"], 0);
  const Json& type = doc["changes"][2];
  EXPECT_EQ(type, (Json{{"library", "ops"},
                        {"operator", "ops::f"},
                        {"change", "argument-type-changed"},
                        {"compatibility", "breaking"},
                        {"argument", "alpha"},
                        {"position", 1},
                        {"message", "argument 'alpha' (position 1): type 'Scalar' -> 'float'"},
                        {"old",
                         {{"library", "ops"},
                          {"value", "Scalar"},
                          {"file", "src/kernels.cpp"},
                          {"line", 10},
                          {"column", 9}}},
                        {"new",
                         {{"library", "ops"},
                          {"value", "float"},
                          {"file", "src/kernels.cpp"},
                          {"line", 14},
                          {"column", 9}}},
                        {"allowed",
                         {{"reason", "callers | updated `now`"}, {"expires", "2030-01-01"}}}}));
  EXPECT_TRUE(doc["changes"][3]["allowed"].is_null());
}

TEST(RenderDiff, Markdown) {
  EXPECT_EQ(audit::render_markdown(changed()),
            "### opscan diff: 3 breaking changes (1 allowed), 1 compatible\n"
            "\n"
            "**2 breaking changes not allowed.**\n"
            "\n"
            "| | Library | Operator | Change | Details | Location |\n"
            "|---|---|---|---|---|---|\n"
            "| breaking | gone |  | `library-removed` | library 'gone' removed (0 kernels) | "
            "old/gone/ir.json |\n"
            "| breaking | ops | `ops::f` | `argument-removed` | argument 'dim' removed (was at "
            "position 2: int dim) | src/kernels.cpp:10 |\n"
            "| allowed | ops | `ops::f` | `argument-type-changed` | argument 'alpha' (position "
            "1): type 'Scalar' -&gt; 'float' (allowed until 2030-01-01: callers \\| updated "
            "\\`now\\`) | src/kernels.cpp:14 |\n"
            "| compatible | ops | `ops::f` | `cpp-function-changed` | ops::f: C++ function k::f "
            "-&gt; k::f_v2 | src/kernels.cpp:14 |\n");
  EXPECT_EQ(audit::render_markdown(audit::DiffResult{}), "### opscan diff: no changes\n");
}

TEST(RenderDiff, MarkdownCellsCannotBreakTheTable) {
  EXPECT_EQ(audit::markdown_cell("a|b`c<d>&e\\|f\ng"), "a\\|b\\`c&lt;d&gt;&amp;e\\\\\\|f g");
  EXPECT_EQ(audit::markdown_code("ns::f|g"), "`ns::f\\|g`");
  EXPECT_EQ(audit::markdown_code("a`b"), "a\\`b");
}

} // namespace
