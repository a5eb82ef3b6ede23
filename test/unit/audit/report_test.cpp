#include "audit/diff_cases.h"
#include "audit/report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using namespace audit_test;
using Json = nlohmann::json;

audit::OperatorList list_of(const std::string& text) {
  audit::ListRead read = audit::parse_operator_list(text, "ops.txt");
  EXPECT_TRUE(read.diagnostics.empty())
      << (read.diagnostics.empty() ? "" : read.diagnostics[0].message);
  return read.list.value_or(audit::OperatorList{});
}

TEST(OperatorList, NamesAndSchemasWithCommentsAndBlankLines) {
  const audit::OperatorList list = list_of("# Core ATen, some of it\n"
                                           "\n"
                                           "aten::add.out   # the out variant\n"
                                           "  aten::abs\r\n"
                                           "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor\n"
                                           "aten::add.out\n"
                                           "aten::neg.out");
  EXPECT_EQ(list.names, (std::vector<std::string>{"aten::add.out", "aten::abs", "aten::mul.Tensor",
                                                  "aten::neg.out"}));
}

TEST(OperatorList, AMalformedNameIsLocated) {
  audit::ListRead read =
      audit::parse_operator_list("aten::add.out\n\n   add.out\naten::f(Tensor self ->\n", "l.txt");
  EXPECT_FALSE(read.list);
  ASSERT_EQ(read.diagnostics.size(), 2u);
  const opscan::diag::Diagnostic& name = read.diagnostics[0];
  EXPECT_EQ(name.code, "opscan-schema-syntax");
  EXPECT_EQ(name.location, (opscan::diag::Location{"l.txt", 3, 7, 21}));
  EXPECT_EQ(name.message, "not an operator name (ns::name.overload) or schema: expected '::' "
                          "after namespace 'add', found '.'");
  EXPECT_EQ(read.diagnostics[1].location.line, 4u);
}

std::vector<audit::Library> two_libraries() {
  const std::string add_out =
      "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)";
  audit::Libraries libraries = audit::group_libraries(
      inputs_of({library("portable",
                         {kernel(add_out, "k::add_out", "v1/6;0|6;0|6;0", "", 12),
                          kernel(add_out, "k::add_out_int", "v1/4;0|4;0|4;0", "", 30),
                          kernel("aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                                 "k::abs_out", "", "", 50)}),
                 library("quantized",
                         {kernel("aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                                 "q::abs_out", "", "", 7)})}),
      test_fields());
  EXPECT_TRUE(libraries.diagnostics.empty());
  return libraries.libraries;
}

TEST(Coverage, CoveredByWhichLibrariesAndMissing) {
  const audit::Coverage coverage = audit::coverage_of(
      two_libraries(), list_of("aten::abs.out\naten::add.out\naten::mul.out\naten::add\n"),
      "core.txt");
  ASSERT_EQ(coverage.covered.size(), 2u);
  EXPECT_EQ(coverage.covered[0].first, "aten::abs.out");
  EXPECT_EQ(coverage.covered[0].second, (std::vector<std::string>{"portable", "quantized"}));
  EXPECT_EQ(coverage.covered[1].second, std::vector<std::string>{"portable"});
  // Names are exact: aten::add is not aten::add.out.
  EXPECT_EQ(coverage.missing, (std::vector<std::string>{"aten::mul.out", "aten::add"}));
  EXPECT_EQ(coverage.total(), 4u);
  EXPECT_DOUBLE_EQ(coverage.percent(), 50.0);
  EXPECT_DOUBLE_EQ(audit::coverage_of({}, {}, "empty.txt").percent(), 100.0);
}

TEST(Report, MarkdownListsEveryKernelAndTheCoverage) {
  const std::vector<audit::Library> libraries = two_libraries();
  const std::string md = audit::render_report_markdown(
      libraries,
      audit::coverage_of(libraries, list_of("aten::abs.out\naten::mul.out\n"), "core.txt"),
      test_fields());
  EXPECT_EQ(md, R"(# opscan report

## Library `portable`

2 operators, 3 kernels; target executorch, registration named: torch::executor::register_portable_kernels(); from `old/portable/ir.json`.

| Operator | Schema | C++ function | Keys | Source |
|---|---|---|---|---|
| `aten::abs.out` | `aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)` | `k::abs_out` |  | src/kernels.cpp:50 |
| `aten::add.out` | `aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)` | `k::add_out_int` | kernel key v1/4;0\|4;0\|4;0 | src/kernels.cpp:30 |
|  |  | `k::add_out` | kernel key v1/6;0\|6;0\|6;0 | src/kernels.cpp:12 |

## Library `quantized`

1 operator, 1 kernel; target executorch, registration named: torch::executor::register_quantized_kernels(); from `old/quantized/ir.json`.

| Operator | Schema | C++ function | Keys | Source |
|---|---|---|---|---|
| `aten::abs.out` | `aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)` | `q::abs_out` |  | src/kernels.cpp:7 |

## Coverage of `core.txt`

1 of 2 operators covered (50.0%), 1 missing.

### Missing

- `aten::mul.out`

### Covered

| Operator | Libraries |
|---|---|
| `aten::abs.out` | `portable`, `quantized` |
)");
}

TEST(Report, ScanOutputIsAnUnnamedLibrary) {
  audit::Libraries libraries = audit::group_libraries(
      inputs_of({fragment({kernel("ops::f(Tensor self) -> Tensor", "k::f")})}), test_fields());
  const std::string md =
      audit::render_report_markdown(libraries.libraries, std::nullopt, test_fields());
  EXPECT_NE(md.find("## Library `(scan output)`\n\n1 operator, 1 kernel; scan output (no library "
                    "record); from `old/fragment0/ir.json`."),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("Coverage"), std::string::npos);
}

TEST(Report, CellsAreEscaped) {
  audit::Libraries libraries = audit::group_libraries(
      inputs_of({library("a", {kernel("ops::f(Tensor self, str s='`|<b>') -> Tensor", "k::f")})}),
      test_fields());
  const std::string md =
      audit::render_report_markdown(libraries.libraries, std::nullopt, test_fields());
  // A schema holding a backtick cannot be a code span: it is escaped text.
  EXPECT_NE(md.find("| ops::f(Tensor self, str s='\\`\\|&lt;b&gt;') -&gt; Tensor |"),
            std::string::npos)
      << md;
}

TEST(Report, Json) {
  const std::vector<audit::Library> libraries = two_libraries();
  const Json doc = Json::parse(audit::render_report_json(
      libraries,
      audit::coverage_of(libraries, list_of("aten::abs.out\naten::mul.out\n"), "core.txt"),
      test_fields()));
  EXPECT_EQ(doc["version"], 1);
  ASSERT_EQ(doc["libraries"].size(), 2u);
  const Json& portable = doc["libraries"][0];
  EXPECT_EQ(portable["name"], "portable");
  EXPECT_EQ(portable["ir"], "old/portable/ir.json");
  EXPECT_EQ(portable["target"], "executorch");
  EXPECT_EQ(portable["registration"], "named");
  EXPECT_EQ(portable["registration_function"], "torch::executor::register_portable_kernels");
  ASSERT_EQ(portable["operators"].size(), 2u);
  const Json& add = portable["operators"][1];
  EXPECT_EQ(add["operator"], "aten::add.out");
  EXPECT_EQ(add["kernels"].size(), 2u);
  EXPECT_EQ(add["kernels"][0], (Json{{"cpp_function", "k::add_out_int"},
                                     {"kernel_key", "v1/4;0|4;0|4;0"},
                                     {"dispatch_key", ""},
                                     {"file", "src/kernels.cpp"},
                                     {"line", 30}}));
  const Json& coverage = doc["coverage"];
  EXPECT_EQ(coverage["list"], "core.txt");
  EXPECT_EQ(coverage["total"], 2);
  EXPECT_EQ(coverage["covered"], 1);
  EXPECT_EQ(coverage["missing"], 1);
  EXPECT_EQ(coverage["percent"], 50.0);
  EXPECT_EQ(coverage["missing_operators"], Json::array({"aten::mul.out"}));
  EXPECT_EQ(coverage["covered_operators"][0]["libraries"], Json::array({"portable", "quantized"}));
  EXPECT_TRUE(
      Json::parse(audit::render_report_json(libraries, std::nullopt, test_fields()))["coverage"]
          .is_null());
}

} // namespace
