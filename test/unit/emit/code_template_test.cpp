// The template engine (emit/code_template.h).
#include "emit/code_template.h"

#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <vector>

namespace {

using opscan::emit::CodeTemplate;
using opscan::emit::TemplateEnv;
using opscan::emit::TemplateError;
using List = std::vector<std::string>;

CodeTemplate parse_ok(std::string_view text) {
  auto parsed = CodeTemplate::parse("test.cpp", text);
  if (const auto* error = std::get_if<TemplateError>(&parsed))
    ADD_FAILURE() << error->line << ":" << error->column << ": " << error->message;
  return std::get<CodeTemplate>(std::move(parsed));
}

std::string render_ok(std::string_view text, const TemplateEnv& env) {
  auto rendered = parse_ok(text).render(env);
  if (const auto* error = std::get_if<TemplateError>(&rendered)) {
    ADD_FAILURE() << error->line << ":" << error->column << ": " << error->message;
    return {};
  }
  return std::get<std::string>(std::move(rendered));
}

TemplateError parse_error(std::string_view text) {
  auto parsed = CodeTemplate::parse("bad.cpp", text);
  EXPECT_TRUE(std::holds_alternative<TemplateError>(parsed)) << text;
  return std::holds_alternative<TemplateError>(parsed) ? std::get<TemplateError>(parsed)
                                                       : TemplateError{};
}

TEST(CodeTemplate, TextWithoutPlaceholdersIsUnchanged) {
  EXPECT_EQ(render_ok("", {}), "");
  EXPECT_EQ(render_ok("int x = 1;\n", {}), "int x = 1;\n");
  EXPECT_EQ(render_ok("no final newline", {}), "no final newline");
}

TEST(CodeTemplate, InlineStringIsInsertedAsIs) {
  EXPECT_EQ(render_ok("int ${name} = ${value};\n", {{"name", "x"}, {"value", "4"}}),
            "int x = 4;\n");
  EXPECT_EQ(render_ok("a${x}b", {{"x", "1\n  2 "}}), "a1\n  2 b");
  EXPECT_EQ(render_ok("${a}${b}", {{"a", "1"}, {"b", "2"}}), "12");
}

TEST(CodeTemplate, InlineListIsJoinedWithCommas) {
  TemplateEnv env{{"args", List{"int a", "float b", "Tensor& out"}}};
  EXPECT_EQ(render_ok("void f(${args});\n", env), "void f(int a, float b, Tensor& out);\n");
  EXPECT_EQ(render_ok("f(${args});", {{"args", List{"x"}}}), "f(x);");
  EXPECT_EQ(render_ok("f(${args});", {{"args", List{}}}), "f();");
}

TEST(CodeTemplate, BlockListExpandsOneItemPerLineWithIndentation) {
  TemplateEnv env{{"stmts", List{"a();", "b();"}}};
  EXPECT_EQ(render_ok("{\n  ${stmts}\n}\n", env), "{\n  a();\n  b();\n}\n");
  EXPECT_EQ(render_ok("{\n\t  ${stmts}\n}\n", env), "{\n\t  a();\n\t  b();\n}\n");
  EXPECT_EQ(render_ok("${stmts}\n", env), "a();\nb();\n");
}

TEST(CodeTemplate, BlockIndentsEveryLineOfMultiLineItems) {
  TemplateEnv env{{"fns", List{"void f() {\n  g();\n}", "void h() {}"}}};
  EXPECT_EQ(render_ok("namespace n {\n    ${fns}\n}\n", env), "namespace n {\n"
                                                              "    void f() {\n"
                                                              "      g();\n"
                                                              "    }\n"
                                                              "    void h() {}\n"
                                                              "}\n");
}

TEST(CodeTemplate, BlockKeepsEmptyLinesOfItemsEmpty) {
  TemplateEnv env{{"fns", List{"a();\n\nb();", "", "c();"}}};
  std::string out = render_ok("  ${fns}\n", env);
  EXPECT_EQ(out, "  a();\n\n  b();\n\n  c();\n");
  EXPECT_EQ(out.find(" \n"), std::string::npos);
}

TEST(CodeTemplate, BlockIgnoresOneTrailingNewlineOfAnItem) {
  TemplateEnv env{{"fns", List{"a();\n", "b();\n"}}};
  EXPECT_EQ(render_ok("  ${fns}\nend\n", env), "  a();\n  b();\nend\n");
}

TEST(CodeTemplate, BlockEmptyListRemovesTheLine) {
  TemplateEnv env{{"none", List{}}};
  EXPECT_EQ(render_ok("begin\n    ${none}\nend\n", env), "begin\nend\n");
  EXPECT_EQ(render_ok("${none}\n${none}\nend\n", env), "end\n");
  EXPECT_EQ(render_ok("begin\n  ${none}", env), "begin\n");
}

TEST(CodeTemplate, BlockTrailingWhitespaceAfterPlaceholderIsDropped) {
  EXPECT_EQ(render_ok("  ${x} \t\nend\n", {{"x", List{"a;"}}}), "  a;\nend\n");
}

TEST(CodeTemplate, BlockStringIsLikeOneItemList) {
  EXPECT_EQ(render_ok("  ${body}\n", {{"body", "if (x) {\n  y();\n}"}}),
            "  if (x) {\n    y();\n  }\n");
  EXPECT_EQ(render_ok("  ${body}\n", {{"body", "one"}}), "  one\n");
}

TEST(CodeTemplate, PlaceholderWithOtherTextOnItsLineIsInline) {
  TemplateEnv env{{"x", List{"a", "b"}}};
  EXPECT_EQ(render_ok("  ${x};\n", env), "  a, b;\n");
  EXPECT_EQ(render_ok("  ${x}${x}\n", env), "  a, ba, b\n");
  EXPECT_EQ(render_ok("  ${x}}\n", env), "  a, b}\n");
}

TEST(CodeTemplate, DoubleDollarIsALiteralDollar) {
  EXPECT_EQ(render_ok("cost: $$5, $${x}, $$$$\n", {}), "cost: $5, ${x}, $$\n");
  EXPECT_EQ(render_ok("  $${x}\n", {}), "  ${x}\n");
  EXPECT_EQ(render_ok("$$${x}", {{"x", "1"}}), "$1");
}

TEST(CodeTemplate, LoneDollarIsLiteral) {
  EXPECT_EQ(render_ok("$x $ $1 a$\n$", {}), "$x $ $1 a$\n$");
}

TEST(CodeTemplate, UnterminatedPlaceholderIsAnError) {
  TemplateError e = parse_error("line one\n  int ${name = 1;\n}\n");
  EXPECT_EQ(e.template_name, "bad.cpp");
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.column, 7u);
  EXPECT_NE(e.message.find("unterminated"), std::string::npos) << e.message;

  // "}" on a later line does not close it.
  e = parse_error("${a\n}");
  EXPECT_EQ(e.line, 1u);
  EXPECT_EQ(e.column, 1u);
  e = parse_error("x ${");
  EXPECT_EQ(e.column, 3u);
}

TEST(CodeTemplate, EmptyPlaceholderIsAnError) {
  TemplateError e = parse_error("\n\n\t${}\n");
  EXPECT_EQ(e.line, 3u);
  EXPECT_EQ(e.column, 2u);
  EXPECT_EQ(e.message, "empty placeholder '${}'");
}

TEST(CodeTemplate, InvalidPlaceholderNameIsAnError) {
  TemplateError e = parse_error("ok ${fine}\nf(${a b});\n");
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.column, 3u);
  EXPECT_EQ(e.message.rfind("invalid placeholder '${a b}'", 0), 0u) << e.message;
  EXPECT_EQ(parse_error("${1x}").column, 1u);
  EXPECT_EQ(parse_error("  ${a-b}\n").column, 3u);
}

TEST(CodeTemplate, MissingValueIsAnErrorAtThePlaceholder) {
  auto tmpl = parse_ok("// header\n#include <x>\n\n    ${kernels}\nint ${other};\n");
  auto rendered = tmpl.render({{"other", "y"}});
  ASSERT_TRUE(std::holds_alternative<TemplateError>(rendered));
  const auto& e = std::get<TemplateError>(rendered);
  EXPECT_EQ(e.template_name, "test.cpp");
  EXPECT_EQ(e.line, 4u);
  EXPECT_EQ(e.column, 5u);
  EXPECT_EQ(e.message, "no value for '${kernels}'");

  auto inline_missing = tmpl.render({{"kernels", List{}}});
  ASSERT_TRUE(std::holds_alternative<TemplateError>(inline_missing));
  EXPECT_EQ(std::get<TemplateError>(inline_missing).line, 5u);
  EXPECT_EQ(std::get<TemplateError>(inline_missing).column, 5u);
}

TEST(CodeTemplate, UnusedValuesAreNotAnError) {
  EXPECT_EQ(render_ok("x\n", {{"unused", "1"}, {"also", List{}}}), "x\n");
}

TEST(CodeTemplate, PlaceholdersInOrderOfFirstUse) {
  auto tmpl = parse_ok("${b} ${a}\n  ${c}\n${a}${b} $${d}\n");
  EXPECT_EQ(tmpl.placeholders(), (List{"b", "a", "c"}));
  EXPECT_EQ(tmpl.name(), "test.cpp");
  EXPECT_TRUE(parse_ok("none").placeholders().empty());
}

TEST(CodeTemplate, OutputHasNoCarriageReturnsFromCrlfInput) {
  std::string out =
      render_ok("a ${x};\r\n  ${items}\r\n  ${none}\r\nend\r\n",
                {{"x", "1"}, {"items", List{"p();\r\nq();", "r();\r\n"}}, {"none", List{}}});
  EXPECT_EQ(out, "a 1;\n  p();\n  q();\n  r();\nend\n");
  EXPECT_EQ(out.find('\r'), std::string::npos);
}

TEST(CodeTemplate, RenderIsRepeatableAndDeterministic) {
  auto tmpl = parse_ok("${a}\n  ${b}\n");
  TemplateEnv env{{"a", "x"}, {"b", List{"1", "2"}}};
  auto first = tmpl.render(env);
  auto second = tmpl.render(env);
  ASSERT_TRUE(std::holds_alternative<std::string>(first));
  ASSERT_TRUE(std::holds_alternative<std::string>(second));
  EXPECT_EQ(std::get<std::string>(first), std::get<std::string>(second));
  EXPECT_EQ(std::get<std::string>(first), "x\n  1\n  2\n");
}

TEST(CodeTemplate, RealisticKernelRegistration) {
  constexpr std::string_view text = R"(// ${generated_comment}
#include <executorch/runtime/kernel/operator_registry.h>

namespace ${namespace} {
namespace {

static Kernel kernels_to_register[] = {
    ${kernels}
};

$${unused_in_cpp} // escaped

} // namespace

void register_all_kernels() {
  register_kernels({${kernel_names}});
  ${extra_registrations}
}

} // namespace ${namespace}
)";
  TemplateEnv env{
      {"generated_comment", "@generated by opscan"},
      {"namespace", "torch::executor"},
      {"kernels", List{"Kernel(\n    \"aten::add.out\",\n    add_out),",
                       "Kernel(\n    \"aten::mul.out\",\n    mul_out),"}},
      {"kernel_names", List{"\"aten::add.out\"", "\"aten::mul.out\""}},
      {"extra_registrations", List{}},
  };
  auto tmpl = parse_ok(text);
  EXPECT_EQ(tmpl.placeholders(), (List{"generated_comment", "namespace", "kernels", "kernel_names",
                                       "extra_registrations"}));
  EXPECT_EQ(render_ok(text, env), R"(// @generated by opscan
#include <executorch/runtime/kernel/operator_registry.h>

namespace torch::executor {
namespace {

static Kernel kernels_to_register[] = {
    Kernel(
        "aten::add.out",
        add_out),
    Kernel(
        "aten::mul.out",
        mul_out),
};

${unused_in_cpp} // escaped

} // namespace

void register_all_kernels() {
  register_kernels({"aten::add.out", "aten::mul.out"});
}

} // namespace torch::executor
)");
}

} // namespace
