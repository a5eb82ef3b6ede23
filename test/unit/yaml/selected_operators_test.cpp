// ===== selected_operators.yaml (lib/yaml/selected_operators.h) ==============
#include "yaml/selected_operators.h"

#include <gtest/gtest.h>

namespace {

using namespace opscan;

const std::string kPath = "selected_operators.yaml";

yaml::SelectedOperators read_ok(const std::string& text) {
  diag::Diagnostics diags;
  auto read = yaml::parse_selected_operators(text, kPath, diags);
  EXPECT_TRUE(diags.empty()) << diags.at(0).message;
  return read.value_or(yaml::SelectedOperators{});
}

diag::Diagnostic read_error(const std::string& text) {
  diag::Diagnostics diags;
  EXPECT_FALSE(yaml::parse_selected_operators(text, kPath, diags));
  EXPECT_EQ(diags.size(), 1u);
  return diags.empty() ? diag::Diagnostic{} : diags[0];
}

// What opscan's executorch target writes, and ExecuTorch's tools.
TEST(SelectedOperators, ReadsOperatorsFlagsAndKeys) {
  const yaml::SelectedOperators read = read_ok(R"(operators:
  aten::add.out:
    is_root_operator: true
    is_used_for_training: true
    include_all_overloads: false
    debug_info: []
  "aten::mul":
    include_all_overloads: True
custom_classes: []
build_features: []
include_all_non_op_selectives: false
include_all_operators: false
kernel_metadata: {}
et_kernel_metadata:
  aten::add.out: [default, 'v1/6;0,1|6;0,1']
  demo::extra: [default]
)");
  EXPECT_FALSE(read.include_all_operators);
  ASSERT_EQ(read.operators.size(), 3u);
  EXPECT_EQ(read.operators[0].name, "aten::add.out");
  EXPECT_EQ(read.operators[0].where, (diag::Location{kPath, 2, 3, 13}));
  ASSERT_TRUE(read.operators[0].keys);
  ASSERT_EQ(read.operators[0].keys->size(), 2u);
  EXPECT_EQ((*read.operators[0].keys)[0].key, ""); // default: the fallback
  EXPECT_EQ((*read.operators[0].keys)[1].key, "v1/6;0,1|6;0,1");
  EXPECT_EQ((*read.operators[0].keys)[1].where.line, 15u);
  EXPECT_EQ(read.operators[1].name, "aten::mul");
  EXPECT_TRUE(read.operators[1].include_all_overloads);
  EXPECT_FALSE(read.operators[1].keys); // every kernel
  // Named by et_kernel_metadata only: selected too.
  EXPECT_EQ(read.operators[2].name, "demo::extra");
  EXPECT_TRUE(read_ok("include_all_operators: true\n").include_all_operators);
  EXPECT_TRUE(read_ok("operators: {}\net_kernel_metadata: {}\n").operators.empty());
}

TEST(SelectedOperators, OtherShapesAreLocatedErrors) {
  struct Case {
    const char* text;
    const char* code;
    uint32_t line;
  };
  for (const Case& c :
       {Case{"", "opscan-selected-operators", 1},
        Case{"- aten::add.out\n", "opscan-selected-operators", 1},
        Case{"operators: [aten::add.out]\n", "opscan-selected-operators", 1},
        Case{"operators:\n  [a]: {}\n", "opscan-selected-operators", 2},
        Case{"operators:\n  a: {include_all_overloads: 2}\n", "opscan-selected-operators", 2},
        Case{"et_kernel_metadata:\n  a: [[v1/6;0]]\n", "opscan-selected-operators", 2},
        Case{"operators: {a: [}\n", "opscan-yaml-syntax", 1}}) {
    SCOPED_TRACE(c.text);
    const diag::Diagnostic d = read_error(c.text);
    EXPECT_EQ(d.code, c.code);
    EXPECT_EQ(d.location.file, kPath);
    EXPECT_EQ(d.location.line, c.line);
  }
}

TEST(SelectedOperators, RepeatedAliasesAreBounded) {
  // A list aliased a million times: refused, not walked a million times over.
  std::string text = "et_kernel_metadata:\n  a: &k [";
  for (int i = 0; i < 1000; ++i)
    text += "v1/6;0,";
  text += "v1/6;0]\n";
  for (int i = 0; i < 2000; ++i)
    text += "  b" + std::to_string(i) + ": *k\n";
  EXPECT_EQ(read_error(text).code, "opscan-selected-operators");
}

} // namespace
