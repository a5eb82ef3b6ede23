#include <gtest/gtest.h>

// ===== CodeTemplate (lib/emit/code_template.h) ==============================
// Tests of the template engine only; keep other emit tests outside this block.

#include "emit/code_template.h"

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

// ===== end of CodeTemplate tests ============================================

// ===== generate (lib/emit/emit.h), ExecuTorch target ========================

#include "emit/emit.h"

#include <filesystem>
#include <fstream>

namespace {

using opscan::emit::generate;
using opscan::emit::Options;
using opscan::emit::Output;
using opscan::emit::Registration;
namespace ir = opscan::ir;

// A kernel as the scanner would record it.
ir::Kernel kernel(std::string ns, std::string name, std::string overload, std::string function,
                  std::vector<ir::Argument> args, std::vector<ir::Return> returns) {
  ir::Kernel k;
  k.op = {std::move(ns), std::move(name), std::move(overload)};
  k.cpp_function = std::move(function);
  k.usr = "c:@F@" + k.cpp_function;
  k.has_context = true;
  k.arguments = std::move(args);
  k.returns = std::move(returns);
  k.location = {"k.cpp", 3, 9, 40};
  std::string schema = k.op.str() + "(";
  for (size_t i = 0; i < k.arguments.size(); ++i) {
    schema += (i ? ", " : "") + k.arguments[i].schema_type + " " + k.arguments[i].name;
  }
  schema += ") -> " + (k.returns.empty() ? std::string("()") : k.returns[0].schema_type);
  k.schema = schema;
  return k;
}

ir::Argument tensor(std::string name) {
  return {name,  "Tensor", "const Tensor &", "const executorch::runtime::etensor::Tensor &",
          false, {}};
}
ir::Argument out(std::string name) {
  return {name, "Tensor(a!)", "Tensor &", "executorch::runtime::etensor::Tensor &", true, {}};
}

ir::Module module_of(std::vector<ir::Kernel> kernels) {
  ir::Module m;
  m.generator = "opscan test";
  m.libclang_version = "clang";
  m.kernels = std::move(kernels);
  return m;
}

const std::string* file(const Output& output, const std::string& path) {
  for (const auto& f : output.files) {
    if (f.path == path)
      return &f.content;
  }
  return nullptr;
}

Options named(std::string lib) {
  Options o;
  o.registration = Registration::named;
  o.library = std::move(lib);
  o.generator = "opscan test";
  return o;
}

ir::Kernel neg_out() {
  return kernel("demo", "neg", "out", "k::neg_out", {tensor("self"), out("out")},
                {{"", "Tensor(a!)"}});
}

TEST(GenerateExecuTorch, NamedModeWritesFourFilesUnderTheLibrary) {
  Output output = generate(module_of({neg_out()}), named("mine"));
  ASSERT_TRUE(output.diagnostics.empty());
  EXPECT_EQ(output.library_dir, "mine");
  EXPECT_EQ(output.registration_function, "torch::executor::register_mine_kernels");
  std::vector<std::string> paths;
  for (const auto& f : output.files)
    paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"mine/RegisterKernels.h", "mine/RegisterKernels.cpp",
                                             "mine/NativeFunctions.h", "mine/ir.json"}));
  for (const auto& f : output.files) {
    if (f.path.ends_with(".json"))
      continue;
    EXPECT_EQ(f.content.rfind("// @generated by opscan test: do not edit.\n", 0), 0u) << f.path;
  }
  EXPECT_NE(file(output, "mine/RegisterKernels.h")
                ->find("::executorch::runtime::Error register_mine_kernels();"),
            std::string::npos);
}

TEST(GenerateExecuTorch, WrapperChecksStackConvertsAndCallsWithContext) {
  Output output = generate(module_of({neg_out()}), named("mine"));
  const std::string& cpp = *file(output, "mine/RegisterKernels.cpp");
  EXPECT_NE(cpp.find("void demo_neg_out(KernelRuntimeContext& context, Span<EValue*> stack) {\n"
                     "  if (stack.size() != 3) {\n"),
            std::string::npos)
      << cpp;
  EXPECT_NE(
      cpp.find(
          "  const executorch::aten::Tensor& self = stack[0]->to<executorch::aten::Tensor>();\n"
          "  executorch::aten::Tensor& out = stack[1]->to<executorch::aten::Tensor>();\n"
          "  ::k::neg_out(context, self, out);\n"),
      std::string::npos)
      << cpp;
  EXPECT_NE(cpp.find("Kernel(\"demo::neg.out\", demo_neg_out),"), std::string::npos);
}

TEST(GenerateExecuTorch, ModesShareFileNamesAndDifferInRegistration) {
  Options manual = named("mine");
  manual.registration = Registration::manual;
  Output m = generate(module_of({neg_out()}), manual);
  EXPECT_EQ(m.registration_function, "torch::executor::register_all_kernels");
  EXPECT_NE(file(m, "mine/RegisterKernels.h")->find("register_all_kernels();"), std::string::npos);

  Options static_mode = named("mine");
  static_mode.registration = Registration::static_init;
  Output s = generate(module_of({neg_out()}), static_mode);
  EXPECT_EQ(s.registration_function, "");
  EXPECT_NE(file(s, "mine/RegisterKernels.cpp")->find("kRegisteredAtLoad = register_library();"),
            std::string::npos);
  EXPECT_EQ(file(s, "mine/RegisterKernels.h")->find("register_"), std::string::npos);

  Options unnamed = named("");
  unnamed.library.reset();
  Output u = generate(module_of({neg_out()}), unnamed);
  EXPECT_EQ(u.library_dir, "all");
  EXPECT_EQ(u.registration_function, "torch::executor::register_all_kernels");
}

TEST(GenerateExecuTorch, KernelKeysAndFoldedNamesGetDistinctWrappers) {
  ir::Kernel a = neg_out();
  ir::Kernel b = neg_out();
  b.cpp_function = "k::neg_out_float";
  b.usr += "_float";
  b.kernel_key = "v1/6;0|6;0";
  Output output = generate(module_of({a, b}), named("mine"));
  ASSERT_TRUE(output.diagnostics.empty());
  const std::string& cpp = *file(output, "mine/RegisterKernels.cpp");
  EXPECT_NE(cpp.find("Kernel(\"demo::neg.out\", demo_neg_out),"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("Kernel(\"demo::neg.out\", \"v1/6;0|6;0\", demo_neg_out_2),"),
            std::string::npos)
      << cpp;
}

TEST(GenerateExecuTorch, FunctionalOpStoresItsResult) {
  ir::Kernel k = kernel("demo", "first", "", "k::first", {tensor("self")}, {{"", "Tensor"}});
  const std::string& cpp =
      *file(generate(module_of({k}), named("mine")), "mine/RegisterKernels.cpp");
  EXPECT_NE(cpp.find("  executorch::aten::Tensor result = ::k::first(context, self);\n"
                     "  *stack[1] = EValue(result);\n"),
            std::string::npos)
      << cpp;
}

TEST(GenerateExecuTorch, ArgumentNamesThatClashWithTheWrapperAreRenamed) {
  ir::Kernel k = kernel("demo", "f", "out", "k::f",
                        {{"stack", "int", "int64_t", "long", false, {}}, out("context")},
                        {{"", "Tensor(a!)"}});
  const std::string& cpp =
      *file(generate(module_of({k}), named("mine")), "mine/RegisterKernels.cpp");
  EXPECT_NE(cpp.find("  int64_t stack_ = stack[0]->to<int64_t>();\n"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("::k::f(context, stack_, context_);"), std::string::npos) << cpp;
}

TEST(GenerateExecuTorch, RefusesWhatExecuTorchCannotCall) {
  ir::Kernel aten_types = neg_out();
  aten_types.arguments[0].cpp_canonical_type = "const at::Tensor &";
  aten_types.arguments[0].cpp_type = "const at::Tensor &";
  Output output = generate(module_of({aten_types}), named("mine"));
  ASSERT_EQ(output.diagnostics.size(), 1u);
  EXPECT_EQ(output.diagnostics[0].code, "opscan-executorch-unsupported");
  EXPECT_EQ(output.diagnostics[0].location.line, 3u);
  EXPECT_NE(
      output.diagnostics[0].message.find("parameter 'self' is 'const at::Tensor &', but "
                                         "ExecuTorch passes Tensor as executorch::aten::Tensor"),
      std::string::npos)
      << output.diagnostics[0].message;
  EXPECT_TRUE(output.files.empty());

  ir::Kernel no_context = neg_out();
  no_context.has_context = false;
  Output missing = generate(module_of({no_context}), named("mine"));
  ASSERT_EQ(missing.diagnostics.size(), 1u);
  EXPECT_NE(missing.diagnostics[0].message.find("KernelRuntimeContext&"), std::string::npos);
  EXPECT_TRUE(missing.files.empty());

  Output empty = generate(module_of({}), named("mine"));
  ASSERT_EQ(empty.diagnostics.size(), 1u);
  EXPECT_EQ(empty.diagnostics[0].code, "opscan-no-kernels");
}

TEST(GenerateExecuTorch, InvalidLibraryNameGeneratesNothing) {
  Output output = generate(module_of({neg_out()}), named("foo-bar"));
  EXPECT_TRUE(opscan::diag::has_errors(output.diagnostics));
  EXPECT_TRUE(output.files.empty());
}

TEST(GenerateExecuTorch, OutputIsDeterministic) {
  ir::Kernel a = neg_out();
  ir::Kernel b = kernel("demo", "abs", "out", "k::abs_out", {tensor("self"), out("out")},
                        {{"", "Tensor(a!)"}});
  Output one = generate(module_of({a, b}), named("mine"));
  Output two = generate(module_of({b, a}), named("mine"));
  ASSERT_EQ(one.files.size(), two.files.size());
  for (size_t i = 0; i < one.files.size(); ++i)
    EXPECT_EQ(one.files[i].content, two.files[i].content);
}

TEST(WriteOutputs, WritesOnlyChangedFiles) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("opscan-emit-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto first = opscan::emit::write_outputs(dir, {{"l/a.h", "a\n"}, {"l/b.h", "b\n"}});
  EXPECT_EQ(first.written, (std::vector<std::string>{"l/a.h", "l/b.h"}));
  auto second = opscan::emit::write_outputs(dir, {{"l/a.h", "a\n"}, {"l/b.h", "B\n"}});
  EXPECT_EQ(second.written, (std::vector<std::string>{"l/b.h"}));
  EXPECT_EQ(second.unchanged, (std::vector<std::string>{"l/a.h"}));
  std::ifstream in(dir / "l/b.h");
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "B\n");
  fs::remove_all(dir);
}

} // namespace
