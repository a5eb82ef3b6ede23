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

TEST(GenerateExecuTorch, NamedModeWritesSixFilesUnderTheLibrary) {
  Output output = generate(module_of({neg_out()}), named("mine"));
  ASSERT_TRUE(output.diagnostics.empty());
  EXPECT_EQ(output.library_dir, "mine");
  EXPECT_EQ(output.registration_function, "torch::executor::register_mine_kernels");
  std::vector<std::string> paths;
  for (const auto& f : output.files)
    paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"mine/RegisterKernels.h", "mine/RegisterKernels.cpp",
                                             "mine/NativeFunctions.h", "mine/Functions.h",
                                             "mine/selected_operators.yaml", "mine/ir.json"}));
  for (const auto& f : output.files) {
    if (f.path.ends_with(".json"))
      continue;
    std::string comment = f.path.ends_with(".yaml") ? "#" : "//";
    EXPECT_EQ(f.content.rfind(comment + " @generated by opscan test: do not edit.\n", 0), 0u)
        << f.path;
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

// ===== Every argument and return type of the ExecuTorch target ==============

// A kernel taking one argument of `schema_type`, declared in C++ with the
// canonical type `canonical` (libclang's spelling), plus an out tensor.
ir::Kernel taking(std::string schema_type, std::string canonical) {
  ir::Argument arg{"x", schema_type, canonical, canonical, false, {}};
  return kernel("demo", "take", "out", "k::take_out", {arg, out("out")}, {{"", "Tensor(a!)"}});
}

struct TypeRow {
  std::string schema_type;
  std::string canonical;   // the kernel's parameter, as libclang reports it
  std::string local;       // the wrapper's conversion line
  std::string declaration; // the parameter in NativeFunctions.h and Functions.h
};

class ArgumentTypeTest : public ::testing::TestWithParam<TypeRow> {};

TEST_P(ArgumentTypeTest, ConvertsTheEValueAndDeclaresTheParameter) {
  const TypeRow& row = GetParam();
  Output output = generate(module_of({taking(row.schema_type, row.canonical)}), named("mine"));
  ASSERT_TRUE(output.diagnostics.empty()) << output.diagnostics[0].message;
  const std::string& cpp = *file(output, "mine/RegisterKernels.cpp");
  EXPECT_NE(cpp.find("  " + row.local + "\n"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("  ::k::take_out(context, x, out);\n"), std::string::npos) << cpp;
  const std::string param = "::executorch::runtime::KernelRuntimeContext& context, " +
                            row.declaration + " x, ::executorch::aten::Tensor& out)";
  EXPECT_NE(file(output, "mine/NativeFunctions.h")->find("take_out(" + param), std::string::npos)
      << *file(output, "mine/NativeFunctions.h");
  EXPECT_NE(file(output, "mine/Functions.h")->find("take_outf(" + param), std::string::npos)
      << *file(output, "mine/Functions.h");
}

const std::string kTensor = "executorch::runtime::etensor::Tensor";
const std::string kArrayRef = "executorch::runtime::ArrayRef";

INSTANTIATE_TEST_SUITE_P(
    GenerateExecuTorch, ArgumentTypeTest,
    ::testing::Values(
        TypeRow{"Tensor", "const " + kTensor + " &",
                "const executorch::aten::Tensor& x = stack[0]->to<executorch::aten::Tensor>();",
                "const ::executorch::aten::Tensor&"},
        TypeRow{"Tensor", kTensor,
                "executorch::aten::Tensor x = stack[0]->to<executorch::aten::Tensor>();",
                "::executorch::aten::Tensor"},
        TypeRow{"Tensor(b!)", kTensor + " &",
                "executorch::aten::Tensor& x = stack[0]->to<executorch::aten::Tensor>();",
                "::executorch::aten::Tensor&"},
        TypeRow{"Tensor?", "const std::optional<" + kTensor + "> &",
                "const std::optional<executorch::aten::Tensor> x = "
                "stack[0]->toOptional<executorch::aten::Tensor>();",
                "const std::optional<::executorch::aten::Tensor>&"},
        // A mutable optional tensor: a non-const copy the kernel can take by
        // reference (ExecuTorch's own generator passes it to a Tensor&).
        TypeRow{"Tensor(b!)?", "std::optional<" + kTensor + "> &",
                "std::optional<executorch::aten::Tensor> x = "
                "stack[0]->toOptional<executorch::aten::Tensor>();",
                "std::optional<::executorch::aten::Tensor>&"},
        TypeRow{"Tensor[]", kArrayRef + "<" + kTensor + ">",
                "executorch::aten::ArrayRef<executorch::aten::Tensor> x = "
                "stack[0]->toTensorList();",
                "::executorch::aten::ArrayRef<::executorch::aten::Tensor>"},
        TypeRow{"Tensor(b!)[]", kArrayRef + "<" + kTensor + ">",
                "executorch::aten::ArrayRef<executorch::aten::Tensor> x = "
                "stack[0]->toTensorList();",
                "::executorch::aten::ArrayRef<::executorch::aten::Tensor>"},
        TypeRow{"Tensor[]?", "std::optional<" + kArrayRef + "<" + kTensor + ">>",
                "std::optional<executorch::aten::ArrayRef<executorch::aten::Tensor>> x = "
                "stack[0]->toOptional<executorch::aten::ArrayRef<executorch::aten::Tensor>>();",
                "std::optional<::executorch::aten::ArrayRef<::executorch::aten::Tensor>>"},
        TypeRow{"Tensor?[]", kArrayRef + "<std::optional<" + kTensor + ">>",
                "executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>> x = "
                "stack[0]->toListOptionalTensor();",
                "::executorch::aten::ArrayRef<std::optional<::executorch::aten::Tensor>>"},
        TypeRow{"Scalar", "const executorch::runtime::etensor::Scalar &",
                "const executorch::aten::Scalar x = stack[0]->to<executorch::aten::Scalar>();",
                "const ::executorch::aten::Scalar&"},
        TypeRow{"Scalar?", "const std::optional<executorch::runtime::etensor::Scalar> &",
                "const std::optional<executorch::aten::Scalar> x = "
                "stack[0]->toOptional<executorch::aten::Scalar>();",
                "const std::optional<::executorch::aten::Scalar>&"},
        TypeRow{"int", "long", "int64_t x = stack[0]->to<int64_t>();", "int64_t"},
        // int64_t is long long on some platforms.
        TypeRow{"int", "long long", "int64_t x = stack[0]->to<int64_t>();", "int64_t"},
        TypeRow{"SymInt", "long", "int64_t x = stack[0]->to<int64_t>();", "int64_t"},
        TypeRow{"int?", "std::optional<long>",
                "std::optional<int64_t> x = stack[0]->toOptional<int64_t>();",
                "std::optional<int64_t>"},
        TypeRow{"int[]", kArrayRef + "<long>",
                "executorch::aten::ArrayRef<int64_t> x = stack[0]->toIntList();",
                "::executorch::aten::ArrayRef<int64_t>"},
        TypeRow{"int[2]", kArrayRef + "<long long>",
                "executorch::aten::ArrayRef<int64_t> x = stack[0]->toIntList();",
                "::executorch::aten::ArrayRef<int64_t>"},
        TypeRow{"SymInt[]", kArrayRef + "<long>",
                "executorch::aten::ArrayRef<int64_t> x = stack[0]->toIntList();",
                "::executorch::aten::ArrayRef<int64_t>"},
        TypeRow{"int[]?", "std::optional<" + kArrayRef + "<long>>",
                "std::optional<executorch::aten::ArrayRef<int64_t>> x = "
                "stack[0]->toOptional<executorch::aten::ArrayRef<int64_t>>();",
                "std::optional<::executorch::aten::ArrayRef<int64_t>>"},
        TypeRow{"float", "double", "double x = stack[0]->to<double>();", "double"},
        TypeRow{"float?", "std::optional<double>",
                "std::optional<double> x = stack[0]->toOptional<double>();",
                "std::optional<double>"},
        TypeRow{"float[]", kArrayRef + "<double>",
                "executorch::aten::ArrayRef<double> x = stack[0]->toDoubleList();",
                "::executorch::aten::ArrayRef<double>"},
        TypeRow{"float[]?", "std::optional<" + kArrayRef + "<double>>",
                "std::optional<executorch::aten::ArrayRef<double>> x = "
                "stack[0]->toOptional<executorch::aten::ArrayRef<double>>();",
                "std::optional<::executorch::aten::ArrayRef<double>>"},
        TypeRow{"bool", "bool", "bool x = stack[0]->to<bool>();", "bool"},
        TypeRow{"bool?", "std::optional<bool>",
                "std::optional<bool> x = stack[0]->toOptional<bool>();", "std::optional<bool>"},
        TypeRow{"bool[]", kArrayRef + "<bool>",
                "executorch::aten::ArrayRef<bool> x = stack[0]->toBoolList();",
                "::executorch::aten::ArrayRef<bool>"},
        TypeRow{"bool[4]", kArrayRef + "<bool>",
                "executorch::aten::ArrayRef<bool> x = stack[0]->toBoolList();",
                "::executorch::aten::ArrayRef<bool>"},
        TypeRow{"bool[]?", "std::optional<" + kArrayRef + "<bool>>",
                "std::optional<executorch::aten::ArrayRef<bool>> x = "
                "stack[0]->toOptional<executorch::aten::ArrayRef<bool>>();",
                "std::optional<::executorch::aten::ArrayRef<bool>>"},
        TypeRow{"str", "std::basic_string_view<char>",
                "std::string_view x = stack[0]->to<std::string_view>();", "std::string_view"},
        TypeRow{"str?", "std::optional<std::basic_string_view<char>>",
                "std::optional<std::string_view> x = stack[0]->toOptional<std::string_view>();",
                "std::optional<std::string_view>"},
        TypeRow{"ScalarType", "executorch::runtime::etensor::ScalarType",
                "executorch::aten::ScalarType x = stack[0]->to<executorch::aten::ScalarType>();",
                "::executorch::aten::ScalarType"},
        TypeRow{"ScalarType?", "std::optional<executorch::runtime::etensor::ScalarType>",
                "std::optional<executorch::aten::ScalarType> x = "
                "stack[0]->toOptional<executorch::aten::ScalarType>();",
                "std::optional<::executorch::aten::ScalarType>"},
        TypeRow{"MemoryFormat", "executorch::runtime::etensor::MemoryFormat",
                "executorch::aten::MemoryFormat x = "
                "stack[0]->to<executorch::aten::MemoryFormat>();",
                "::executorch::aten::MemoryFormat"},
        TypeRow{"MemoryFormat?", "std::optional<executorch::runtime::etensor::MemoryFormat>",
                "std::optional<executorch::aten::MemoryFormat> x = "
                "stack[0]->toOptional<executorch::aten::MemoryFormat>();",
                "std::optional<::executorch::aten::MemoryFormat>"},
        TypeRow{"Layout", "executorch::runtime::etensor::Layout",
                "executorch::aten::Layout x = stack[0]->to<executorch::aten::Layout>();",
                "::executorch::aten::Layout"},
        TypeRow{"Layout?", "std::optional<executorch::runtime::etensor::Layout>",
                "std::optional<executorch::aten::Layout> x = "
                "stack[0]->toOptional<executorch::aten::Layout>();",
                "std::optional<::executorch::aten::Layout>"},
        TypeRow{"Device", "executorch::runtime::etensor::Device",
                "executorch::aten::Device x = stack[0]->to<executorch::aten::Device>();",
                "::executorch::aten::Device"},
        TypeRow{"Device?", "std::optional<executorch::runtime::etensor::Device>",
                "std::optional<executorch::aten::Device> x = "
                "stack[0]->toOptional<executorch::aten::Device>();",
                "std::optional<::executorch::aten::Device>"}),
    [](const auto& info) {
      std::string name;
      for (char c : info.param.schema_type) {
        name += std::isalnum(static_cast<unsigned char>(c)) ? std::string(1, c)
                : c == '?'                                  ? "Opt"
                : c == '['                                  ? "List"
                : c == '!'                                  ? "Mut"
                                                            : "";
      }
      return name + "_" + std::to_string(info.index);
    });

TEST(GenerateExecuTorch, CanonicalTypeMustBeWhatExecuTorchPasses) {
  struct Case {
    std::string schema_type, canonical, message;
  };
  for (const Case& c : std::vector<Case>{
           {"int[]", kArrayRef + "<int>",
            "ExecuTorch passes int[] as executorch::aten::ArrayRef<int64_t>"},
           {"Tensor?", "const " + kTensor + " &",
            "ExecuTorch passes Tensor? as std::optional<executorch::aten::Tensor>"},
           {"str", "const char *", "ExecuTorch passes str as std::string_view"},
           {"Tensor[]", "std::vector<" + kTensor + ">",
            "ExecuTorch passes Tensor[] as executorch::aten::ArrayRef<executorch::aten::Tensor>"},
       }) {
    SCOPED_TRACE(c.schema_type);
    Output output = generate(module_of({taking(c.schema_type, c.canonical)}), named("mine"));
    ASSERT_EQ(output.diagnostics.size(), 1u);
    EXPECT_EQ(output.diagnostics[0].code, "opscan-executorch-unsupported");
    EXPECT_NE(output.diagnostics[0].message.find("parameter 'x' is '" + c.canonical + "', but " +
                                                 c.message),
              std::string::npos)
        << output.diagnostics[0].message;
    EXPECT_TRUE(output.files.empty());
  }
}

TEST(GenerateExecuTorch, RefusesTypesExecuTorchCannotPassNamingThem) {
  struct Case {
    std::string schema_type, reason;
  };
  for (const Case& c : std::vector<Case>{
           {"Generator?", "ExecuTorch has no Generator type"},
           {"Dimname", "ExecuTorch has no Dimname type"},
           {"Dimname[]", "ExecuTorch has no Dimname type"},
           {"Storage", "ExecuTorch has no Storage type"},
           {"Stream", "ExecuTorch has no Stream type"},
           {"QScheme", "ExecuTorch has no QScheme type"},
           {"complex", "ExecuTorch has no complex type"},
           {"SymBool", "ExecuTorch has no SymBool type"},
           {"Scalar[]", "ExecuTorch has no list of Scalar"},
           {"str[]", "ExecuTorch has no list of str"},
           {"ScalarType[]?", "ExecuTorch has no list of ScalarType"},
           {"int?[]", "ExecuTorch has lists of optional Tensors only, not of optional int"},
           {"Tensor?[]?", "ExecuTorch has no value of this shape (nested lists or optionals)"},
       }) {
    SCOPED_TRACE(c.schema_type);
    Output output = generate(module_of({taking(c.schema_type, "whatever")}), named("mine"));
    ASSERT_EQ(output.diagnostics.size(), 1u);
    EXPECT_EQ(output.diagnostics[0].code, "opscan-executorch-unsupported");
    EXPECT_EQ(output.diagnostics[0].location.line, 3u);
    EXPECT_EQ(output.diagnostics[0].message,
              "kernel 'k::take_out' (demo::take.out): argument 'x' of type " + c.schema_type +
                  " is not supported by the ExecuTorch target: " + c.reason);
    EXPECT_TRUE(output.files.empty());
  }
}

// A functional kernel of `self` returning `returns`.
ir::Kernel returning(std::vector<ir::Return> returns, std::string canonical_return = "") {
  ir::Kernel k = kernel("demo", "f", "", "k::f", {tensor("self")}, std::move(returns));
  k.cpp_canonical_return_type = canonical_return;
  k.cpp_return_type = canonical_return;
  return k;
}

TEST(GenerateExecuTorch, ValueReturnsGoToTheReturnSlot) {
  struct Case {
    std::string schema_type, canonical, cpp_type, header_type;
  };
  for (const Case& c : std::vector<Case>{
           {"Tensor", kTensor, "executorch::aten::Tensor", "::executorch::aten::Tensor"},
           {"int", "long", "int64_t", "int64_t"},
           {"SymInt", "long long", "int64_t", "int64_t"},
           {"float", "double", "double", "double"},
           {"bool", "bool", "bool", "bool"},
           {"Scalar", "executorch::runtime::etensor::Scalar", "executorch::aten::Scalar",
            "::executorch::aten::Scalar"},
       }) {
    SCOPED_TRACE(c.schema_type);
    Output output =
        generate(module_of({returning({{"", c.schema_type}}, c.canonical)}), named("m"));
    ASSERT_TRUE(output.diagnostics.empty()) << output.diagnostics[0].message;
    EXPECT_NE(file(output, "m/RegisterKernels.cpp")
                  ->find("  " + c.cpp_type +
                         " result = ::k::f(context, self);\n"
                         "  *stack[1] = EValue(result);\n"),
              std::string::npos)
        << *file(output, "m/RegisterKernels.cpp");
    EXPECT_NE(file(output, "m/Functions.h")->find("inline " + c.header_type + " f("),
              std::string::npos)
        << *file(output, "m/Functions.h");
  }
}

TEST(GenerateExecuTorch, SeveralOutTensorsReturnATupleOfReferences) {
  ir::Kernel k = kernel("demo", "sort", "values", "k::sort_values",
                        {tensor("self"), out("values"), out("indices")},
                        {{"values", "Tensor(a!)"}, {"indices", "Tensor(b!)"}});
  k.arguments[2].schema_type = "Tensor(b!)";
  k.cpp_canonical_return_type = "std::tuple<" + kTensor + " &, " + kTensor + " &>";
  Output output = generate(module_of({k}), named("m"));
  ASSERT_TRUE(output.diagnostics.empty()) << output.diagnostics[0].message;
  // The out tensors are the results: nothing goes to the return slot.
  EXPECT_NE(file(output, "m/RegisterKernels.cpp")
                ->find("  ::k::sort_values(context, self, values, indices);\n}\n"),
            std::string::npos)
      << *file(output, "m/RegisterKernels.cpp");
  EXPECT_NE(file(output, "m/NativeFunctions.h")
                ->find("std::tuple<::executorch::aten::Tensor&, ::executorch::aten::Tensor&> "
                       "sort_values("),
            std::string::npos)
      << *file(output, "m/NativeFunctions.h");
  EXPECT_NE(file(output, "m/Functions.h")
                ->find("std::tuple<::executorch::aten::Tensor&, ::executorch::aten::Tensor&> "
                       "sort_outf("),
            std::string::npos)
      << *file(output, "m/Functions.h");
}

TEST(GenerateExecuTorch, NoReturnShowsTheOutArgumentInTheReturnSlot) {
  ir::Kernel with_out =
      kernel("demo", "fill", "out", "k::fill_out", {tensor("self"), out("out")}, {});
  const std::string& cpp =
      *file(generate(module_of({with_out}), named("m")), "m/RegisterKernels.cpp");
  EXPECT_NE(cpp.find("  ::k::fill_out(context, self, out);\n"
                     "  stack[2] = stack[1];  // the return slot shows the out argument\n"),
            std::string::npos)
      << cpp;

  ir::Kernel no_out =
      kernel("demo", "note", "", "k::note", {{"value", "int", "int64_t", "long", false, {}}}, {});
  Output output = generate(module_of({no_out}), named("m"));
  EXPECT_NE(file(output, "m/RegisterKernels.cpp")->find("  ::k::note(context, value);\n}\n"),
            std::string::npos)
      << *file(output, "m/RegisterKernels.cpp");
  EXPECT_NE(file(output, "m/Functions.h")
                ->find("inline void note(::executorch::runtime::KernelRuntimeContext& context, "
                       "int64_t value) {\n  ::k::note(context, value);\n}\n"),
            std::string::npos)
      << *file(output, "m/Functions.h");
}

TEST(GenerateExecuTorch, RefusesReturnsExecuTorchCannotHold) {
  struct Case {
    std::vector<ir::Return> returns;
    std::string message;
  };
  const std::string slot = "the return slot (an EValue) holds only a Tensor, int, float, bool or "
                           "Scalar";
  for (const Case& c : std::vector<Case>{
           {{{"", "Tensor"}, {"", "Tensor"}},
            "returns 2 values: ExecuTorch has one return slot; write them to out tensors instead"},
           {{{"", "ScalarType"}},
            "return type ScalarType is not supported by the ExecuTorch "
            "target: " +
                slot},
           {{{"", "str"}}, "return type str is not supported by the ExecuTorch target: " + slot},
           {{{"", "Tensor[]"}},
            "return type Tensor[] is not supported by the ExecuTorch target: " + slot},
           {{{"", "Tensor?"}},
            "return type Tensor? is not supported by the ExecuTorch target: " + slot},
           {{{"", "Generator"}},
            "return type Generator is not supported by the ExecuTorch "
            "target: ExecuTorch has no Generator type"},
           {{{"", "Tensor(a!)"}, {"", "Tensor"}},
            "mixes mutable and immutable returns, which ExecuTorch cannot return"},
       }) {
    SCOPED_TRACE(c.message);
    Output output = generate(module_of({returning(c.returns)}), named("m"));
    ASSERT_EQ(output.diagnostics.size(), 1u);
    EXPECT_EQ(output.diagnostics[0].message, "kernel 'k::f' (demo::f): " + c.message);
    EXPECT_TRUE(output.files.empty());
  }
}

TEST(GenerateExecuTorch, ReturnTypeMustBeWhatTheSchemaReturns) {
  ir::Kernel k = neg_out();
  k.cpp_return_type = "void";
  k.cpp_canonical_return_type = "void";
  Output output = generate(module_of({k}), named("m"));
  ASSERT_EQ(output.diagnostics.size(), 1u);
  EXPECT_EQ(output.diagnostics[0].message,
            "kernel 'k::neg_out' (demo::neg.out): returns 'void', but ExecuTorch expects "
            "executorch::aten::Tensor& for the return Tensor(a!)");

  k.cpp_canonical_return_type = kTensor + "&"; // spacing does not matter
  EXPECT_TRUE(generate(module_of({k}), named("m")).diagnostics.empty());
}

TEST(GenerateExecuTorch, HeadersQualifyExecuTorchTypesFromTheGlobalNamespace) {
  // A kernel namespace with an "executorch" in it must not capture the types.
  ir::Kernel k = neg_out();
  k.cpp_function = "mine::executorch::neg_out";
  Output output = generate(module_of({k}), named("m"));
  ASSERT_TRUE(output.diagnostics.empty());
  EXPECT_NE(file(output, "m/NativeFunctions.h")
                ->find("namespace mine::executorch {\n\n"
                       "// demo::neg.out(Tensor self, Tensor(a!) out) -> Tensor(a!)\n"
                       "::executorch::aten::Tensor& neg_out(::executorch::runtime::"
                       "KernelRuntimeContext& context, const ::executorch::aten::Tensor& self, "
                       "::executorch::aten::Tensor& out);\n"),
            std::string::npos)
      << *file(output, "m/NativeFunctions.h");
  EXPECT_NE(file(output, "m/Functions.h")->find("  return ::mine::executorch::neg_out(context, "),
            std::string::npos);
}

// ===== Functions.h ===========================================================

TEST(FunctionsHeader, NamesCallsAsExecuTorchDoes) {
  ir::Kernel inplace = kernel("demo", "relu_", "", "k::relu_", {out("self")}, {{"", "Tensor(a!)"}});
  inplace.arguments[0].kwarg_only = false;
  ir::Kernel functional =
      kernel("demo", "pick", "Tensor", "k::pick", {tensor("self")}, {{"", "Tensor"}});
  ir::Kernel scalar_out = kernel("aten", "add", "Scalar_out", "k::add_scalar_out",
                                 {tensor("self"), out("out")}, {{"", "Tensor(a!)"}});
  scalar_out.arguments[0].name = "other";
  Output output = generate(module_of({neg_out(), inplace, functional, scalar_out}), named("m"));
  ASSERT_TRUE(output.diagnostics.empty()) << output.diagnostics[0].message;
  const std::string& h = *file(output, "m/Functions.h");
  EXPECT_NE(h.find("#include \"NativeFunctions.h\"\n"), std::string::npos);
  // Out variants: "_outf", whatever the overload's name; others: the name.
  EXPECT_NE(h.find("namespace torch::executor::aten {\n\n"
                   "// aten::add.Scalar_out(Tensor self, Tensor(a!) out) -> Tensor(a!)\n"
                   "inline ::executorch::aten::Tensor& add_outf("
                   "::executorch::runtime::KernelRuntimeContext& context, "
                   "const ::executorch::aten::Tensor& other, ::executorch::aten::Tensor& out) {\n"
                   "  return ::k::add_scalar_out(context, other, out);\n"
                   "}\n\n"
                   "}  // namespace torch::executor::aten\n\n"
                   "namespace torch::executor::demo {\n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("inline ::executorch::aten::Tensor& neg_outf("), std::string::npos) << h;
  EXPECT_NE(h.find("inline ::executorch::aten::Tensor pick("), std::string::npos) << h;
  EXPECT_NE(h.find("inline ::executorch::aten::Tensor& relu_("), std::string::npos) << h;
}

TEST(FunctionsHeader, KeyedKernelsHaveNoTypedCallButTheFallbackHas) {
  ir::Kernel keyed = neg_out();
  keyed.kernel_key = "v1/6;0|6;0";
  ir::Kernel keyed2 = keyed;
  keyed2.kernel_key = "v1/3;0|3;0";
  keyed2.cpp_function = "k::neg_out_int";
  keyed2.usr += "_int";
  Output only_keyed = generate(module_of({keyed, keyed2}), named("m"));
  ASSERT_TRUE(only_keyed.diagnostics.empty());
  const std::string& h = *file(only_keyed, "m/Functions.h");
  EXPECT_NE(h.find("namespace torch::executor::demo {\n\n"
                   "// demo::neg.out: no typed call: its kernels are all dtype-specialised (kernel "
                   "keys), and a typed call needs a fallback kernel.\n\n"
                   "}  // namespace torch::executor::demo"),
            std::string::npos)
      << h;

  ir::Kernel fallback = neg_out();
  fallback.cpp_function = "k::neg_out_any";
  fallback.usr += "_any";
  Output with_fallback = generate(module_of({keyed, fallback}), named("m"));
  const std::string& h2 = *file(with_fallback, "m/Functions.h");
  EXPECT_NE(h2.find("  return ::k::neg_out_any(context, self, out);\n"), std::string::npos) << h2;
  EXPECT_EQ(h2.find("no typed call"), std::string::npos) << h2;
}

TEST(FunctionsHeader, OverloadsWithTheSameParametersKeepTheFirst) {
  ir::Kernel other = kernel("demo", "neg", "x_out", "k::neg_x_out", {tensor("self"), out("out")},
                            {{"", "Tensor(a!)"}});
  other.location.line = 9;
  Output output = generate(module_of({neg_out(), other}), named("m"));
  ASSERT_EQ(output.diagnostics.size(), 1u);
  const auto& d = output.diagnostics[0];
  EXPECT_EQ(d.severity, opscan::diag::Severity::warning);
  EXPECT_EQ(d.code, "opscan-functions-skipped");
  EXPECT_EQ(d.location.line, 9u);
  EXPECT_EQ(d.message, "no typed call in Functions.h for demo::neg.x_out: it would be "
                       "torch::executor::demo::neg_outf(const ::executorch::aten::Tensor&, "
                       "::executorch::aten::Tensor&), the typed call of demo::neg.out");
  const std::string& h = *file(output, "m/Functions.h");
  EXPECT_NE(h.find("  return ::k::neg_out(context, self, out);\n"), std::string::npos) << h;
  EXPECT_EQ(h.find("  return ::k::neg_x_out("), std::string::npos) << h;
  EXPECT_NE(h.find("// demo::neg.x_out: no typed call: it would be"), std::string::npos) << h;
}

TEST(FunctionsHeader, KeywordNamesAndTheKernelItselfGetNoCall) {
  ir::Kernel keyword = kernel("demo", "delete", "", "k::erase", {tensor("self")}, {{"", "Tensor"}});
  ir::Kernel itself = kernel("demo", "twice", "", "torch::executor::demo::twice", {tensor("self")},
                             {{"", "Tensor"}});
  Output output = generate(module_of({keyword, itself}), named("m"));
  ASSERT_EQ(output.diagnostics.size(), 2u);
  EXPECT_EQ(output.diagnostics[0].message,
            "no typed call in Functions.h for demo::delete: torch::executor::demo::delete is not "
            "a valid C++ name");
  EXPECT_EQ(output.diagnostics[1].message,
            "no typed call in Functions.h for demo::twice: the kernel itself is "
            "torch::executor::demo::twice");
  EXPECT_FALSE(opscan::diag::has_errors(output.diagnostics));
}

// ===== selected_operators.yaml =================================================

TEST(SelectedOperators, ListsEveryOperatorWithItsKernelKeys) {
  ir::Kernel keyed = neg_out();
  keyed.kernel_key = "v1/6;0,1|6;0,1";
  keyed.cpp_function = "k::neg_out_float";
  keyed.usr += "_float";
  ir::Kernel abs = kernel("aten", "abs", "out", "k::abs_out", {tensor("self"), out("out")},
                          {{"", "Tensor(a!)"}});
  abs.kernel_key = "v1/3;0|3;0";
  Output output = generate(module_of({keyed, neg_out(), abs}), named("m"));
  ASSERT_TRUE(output.diagnostics.empty());
  EXPECT_EQ(*file(output, "m/selected_operators.yaml"),
            "# @generated by opscan test: do not edit.\n"
            "# The operators of kernel library 'm' in ExecuTorch's selective-build\n"
            "# format: each with the kernel keys the library registers for it (\"default\"\n"
            "# for its fallback kernel).\n"
            "operators:\n"
            "  aten::abs.out:\n"
            "    is_root_operator: true\n"
            "    is_used_for_training: true\n"
            "    include_all_overloads: false\n"
            "    debug_info: []\n"
            "  demo::neg.out:\n"
            "    is_root_operator: true\n"
            "    is_used_for_training: true\n"
            "    include_all_overloads: false\n"
            "    debug_info: []\n"
            "custom_classes: []\n"
            "build_features: []\n"
            "include_all_non_op_selectives: false\n"
            "include_all_operators: false\n"
            "kernel_metadata: {}\n"
            "et_kernel_metadata:\n"
            // Keys with ',' are quoted inside [...]; "default" sorts first.
            "  aten::abs.out: [v1/3;0|3;0]\n"
            "  demo::neg.out: [default, 'v1/6;0,1|6;0,1']\n");
}

// ===== The library record and generate_libraries ===============================

using opscan::emit::generate_libraries;
using opscan::emit::Generation;
using opscan::emit::LibraryIr;

TEST(GenerateExecuTorch, TheLibraryIrRecordsTheLibrary) {
  Options manual = named("mine");
  manual.registration = Registration::manual;
  Output output = generate(module_of({neg_out()}), manual);
  auto read = ir::from_json(*file(output, "mine/ir.json"), "ir.json");
  ASSERT_TRUE(read.module.has_value());
  EXPECT_EQ(
      read.module->library,
      (ir::LibraryInfo{"mine", "manual", "torch::executor::register_all_kernels", "executorch"}));

  Options unnamed_static = named("x");
  unnamed_static.library.reset();
  unnamed_static.registration = Registration::static_init;
  read = ir::from_json(*file(generate(module_of({neg_out()}), unnamed_static), "all/ir.json"), "");
  ASSERT_TRUE(read.module.has_value());
  EXPECT_EQ(read.module->library,
            (ir::LibraryInfo{"all", "static", "", "executorch", "opscan_static_registration_all"}));
}

TEST(GenerateExecuTorch, StaticModeDefinesALinkAnchor) {
  Options static_mode = named("mine");
  static_mode.registration = Registration::static_init;
  Output output = generate(module_of({neg_out()}), static_mode);
  ASSERT_TRUE(output.diagnostics.empty());
  EXPECT_EQ(output.link_anchor, "opscan_static_registration_mine");
  const std::string& cpp = *file(output, "mine/RegisterKernels.cpp");
  // At global scope, after the static initializer; the file's last lines.
  EXPECT_TRUE(
      cpp.ends_with("}  // namespace\n"
                    "\n"
                    "// Nothing references this file in static mode, so a linker taking it from a\n"
                    "// static archive would drop it, registration and all. The CMake integration\n"
                    "// links with\n"
                    "//   -Wl,--undefined=opscan_static_registration_mine\n"
                    "// which makes the linker keep this object, and the kernels it references.\n"
                    "extern \"C\" {\n"
                    "extern const int opscan_static_registration_mine;\n"
                    "const int opscan_static_registration_mine = 1;\n"
                    "}\n"))
      << cpp;
  EXPECT_NE(file(output, "mine/RegisterKernels.h")
                ->find("// (static registration): there is nothing to call. Linking them "
                       "from a\n// static archive needs "
                       "-Wl,--undefined=opscan_static_registration_mine\n"
                       "// (RegisterKernels.cpp defines it), or the linker drops them.\n"),
            std::string::npos)
      << *file(output, "mine/RegisterKernels.h");

  // Other modes have a function to call, which keeps the object: no anchor.
  for (Registration mode : {Registration::named, Registration::manual}) {
    Options o = named("mine");
    o.registration = mode;
    Output other = generate(module_of({neg_out()}), o);
    EXPECT_EQ(other.link_anchor, "");
    for (const auto& f : other.files)
      EXPECT_EQ(f.content.find("opscan_static_registration"), std::string::npos) << f.path;
  }
}

// The library IR that generating `kernels` as library `name` in `mode` writes.
LibraryIr library_ir(std::string name, Registration mode, std::vector<ir::Kernel> kernels) {
  Options o = named(name);
  o.registration = mode;
  if (name == "all")
    o.library.reset();
  Output output = generate(module_of(std::move(kernels)), o);
  auto read = ir::from_json(*file(output, name + "/ir.json"), name + "/ir.json");
  EXPECT_TRUE(read.module.has_value());
  return {"out/" + name + "/ir.json", std::move(*read.module)};
}

ir::Kernel abs_out() {
  ir::Kernel k = kernel("demo", "abs", "out", "k::abs_out", {tensor("self"), out("out")},
                        {{"", "Tensor(a!)"}});
  k.location = {"abs.cpp", 5, 9, 70};
  return k;
}

TEST(GenerateLibraries, EachLibraryAsItWasGenerated) {
  std::vector<LibraryIr> inputs = {library_ir("neg", Registration::named, {neg_out()}),
                                   library_ir("abs", Registration::static_init, {abs_out()})};
  Generation generation = generate_libraries(inputs, named("ignored"));
  ASSERT_TRUE(generation.diagnostics.empty()) << generation.diagnostics[0].message;
  ASSERT_EQ(generation.libraries.size(), 2u);
  EXPECT_EQ(generation.libraries[0].library_dir, "neg");
  EXPECT_EQ(generation.libraries[0].registration_function, "torch::executor::register_neg_kernels");
  EXPECT_EQ(generation.libraries[1].library_dir, "abs");
  EXPECT_EQ(generation.libraries[1].registration_function, "");
  // Regenerating gives the same files, the library IR included.
  Output again = generate(inputs[0].module, named("neg"));
  for (size_t i = 0; i < again.files.size(); ++i)
    EXPECT_EQ(generation.libraries[0].files[i].content, again.files[i].content) << i;
}

TEST(GenerateLibraries, TwoLibrariesWithOneNameAreRefused) {
  Generation generation =
      generate_libraries({library_ir("ops", Registration::named, {neg_out()}),
                          library_ir("ops", Registration::static_init, {abs_out()})},
                         named("x"));
  ASSERT_EQ(generation.diagnostics.size(), 1u);
  EXPECT_EQ(generation.diagnostics[0].code, "opscan-duplicate-library");
  EXPECT_EQ(generation.diagnostics[0].message,
            "two libraries named 'ops': out/ops/ir.json and out/ops/ir.json; each library needs "
            "its own name (it names the output directory)");
  EXPECT_TRUE(generation.libraries.empty());
}

TEST(GenerateLibraries, TwoLibrariesWithOneRegistrationFunctionAreRefused) {
  // Manual mode is register_all_kernels() whatever the name, and so is the
  // unnamed library in named mode.
  Generation generation = generate_libraries({library_ir("neg", Registration::manual, {neg_out()}),
                                              library_ir("all", Registration::named, {abs_out()})},
                                             named("x"));
  ASSERT_EQ(generation.diagnostics.size(), 1u);
  EXPECT_EQ(generation.diagnostics[0].code, "opscan-duplicate-registration");
  EXPECT_EQ(generation.diagnostics[0].message,
            "libraries 'neg' (out/neg/ir.json) and 'all' (out/all/ir.json) both define "
            "torch::executor::register_all_kernels(), so they cannot be linked into one program; "
            "give them named registration");
  EXPECT_TRUE(generation.libraries.empty());

  // Static libraries define no function.
  EXPECT_TRUE(generate_libraries({library_ir("a", Registration::static_init, {neg_out()}),
                                  library_ir("b", Registration::static_init, {abs_out()})},
                                 named("x"))
                  .diagnostics.empty());
}

TEST(GenerateLibraries, AnOperatorInTwoLibrariesIsAnErrorAtTheSecond) {
  ir::Kernel again = neg_out();
  again.cpp_function = "other::neg_out";
  again.usr = "c:@N@other@F@neg_out";
  again.location = {"other.cpp", 12, 9, 300};
  ir::Kernel keyed = abs_out();
  keyed.kernel_key = "v1/6;0|6;0";
  Generation generation =
      generate_libraries({library_ir("first", Registration::named, {neg_out(), abs_out()}),
                          library_ir("second", Registration::named, {again, keyed})},
                         named("x"));
  // abs.out with a kernel key is another kernel: no overlap.
  ASSERT_EQ(generation.diagnostics.size(), 1u);
  const auto& d = generation.diagnostics[0];
  EXPECT_EQ(d.code, "opscan-library-overlap");
  EXPECT_EQ(d.location, again.location);
  EXPECT_EQ(d.message, "operator demo::neg.out is registered by library 'first' and by library "
                       "'second'; ExecuTorch registers each operator and kernel key once");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message, "library 'first' registers it here, with 'k::neg_out'");
  EXPECT_EQ(d.notes[0].location, neg_out().location);
  EXPECT_TRUE(generation.libraries.empty());
}

TEST(CheckLibraries, ReportsWhatGenerateLibrariesRefuses) {
  using opscan::emit::check_libraries;
  std::vector<LibraryIr> fine = {library_ir("neg", Registration::named, {neg_out()}),
                                 library_ir("abs", Registration::static_init, {abs_out()})};
  EXPECT_TRUE(check_libraries(fine).empty());
  EXPECT_TRUE(check_libraries({}).empty());

  // One input of each kind of clash: the same errors, in the same order,
  // as generate_libraries gives.
  ir::Kernel again = neg_out();
  again.cpp_function = "other::neg_out";
  again.location = {"other.cpp", 12, 9, 300};
  std::vector<LibraryIr> clashing = {
      library_ir("neg", Registration::manual, {neg_out()}),
      library_ir("neg", Registration::named, {abs_out()}),
      library_ir("all", Registration::named, {abs_out()}),
      library_ir("again", Registration::named, {again}),
      {"kernels.ir.json", module_of({abs_out()})},
  };
  opscan::diag::Diagnostics diags = check_libraries(clashing);
  std::vector<std::string> codes;
  for (const auto& d : diags)
    codes.push_back(d.code);
  // abs.out is in the second 'neg' and in 'all', neg.out in the first 'neg'
  // and in 'again'.
  EXPECT_EQ(codes, (std::vector<std::string>{"opscan-ir-not-library", "opscan-duplicate-library",
                                             "opscan-duplicate-registration",
                                             "opscan-library-overlap", "opscan-library-overlap"}));
  EXPECT_EQ(generate_libraries(clashing, named("x")).diagnostics, diags);

  LibraryIr unknown = library_ir("odd", Registration::named, {neg_out()});
  unknown.module.library->target = "tflite";
  diags = check_libraries({unknown});
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "opscan-ir-invalid");
  EXPECT_EQ(diags[0].message, "out/odd/ir.json: unknown registration 'named' or target 'tflite'");
}

TEST(GenerateLibraries, ErrorsOfOneLibraryLeaveNoOutputForAny) {
  LibraryIr bad = library_ir("bad", Registration::named, {neg_out()});
  bad.module.kernels[0].has_context = false;
  Generation generation =
      generate_libraries({library_ir("good", Registration::named, {abs_out()}), bad}, named("x"));
  ASSERT_EQ(generation.diagnostics.size(), 1u);
  EXPECT_EQ(generation.diagnostics[0].code, "opscan-executorch-unsupported");
  EXPECT_TRUE(generation.libraries.empty());

  LibraryIr fragment{"kernels.ir.json", module_of({abs_out()})};
  generation = generate_libraries({fragment}, named("x"));
  ASSERT_EQ(generation.diagnostics.size(), 1u);
  EXPECT_EQ(generation.diagnostics[0].code, "opscan-ir-not-library");
  EXPECT_TRUE(generation.libraries.empty());
}

// ===== generate, torch target ==============================================

// A kernel written against ATen types, as the scanner records it.
ir::Kernel aten_kernel(std::string ns, std::string name, std::string overload,
                       bool keys_first = false) {
  ir::Kernel k = kernel(std::move(ns), std::move(name), std::move(overload), "t::fn",
                        {{"self", "Tensor", "const at::Tensor &", "const at::Tensor &", false, {}},
                         {"out", "Tensor(a!)", "at::Tensor &", "at::Tensor &", true, {}}},
                        {{"", "Tensor(a!)"}});
  k.has_context = keys_first;
  k.cpp_return_type = k.cpp_canonical_return_type = "at::Tensor &";
  k.schema = k.op.str() + "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)";
  return k;
}

Options torch_options(Registration registration) {
  Options o = named("lib");
  o.target = opscan::emit::Target::torch;
  o.registration = registration;
  return o;
}

TEST(GenerateTorch, NamedRegistrationDefinesCustomOperatorsAndImplementsAll) {
  ir::Kernel custom = aten_kernel("my_ops", "neg", "out");
  ir::Kernel aten = aten_kernel("aten", "neg", "out");
  aten.cpp_function = "t::aten_neg_out";
  aten.usr += "2";
  Output output = generate(module_of({custom, aten}), torch_options(Registration::named));
  ASSERT_TRUE(output.diagnostics.empty()) << output.diagnostics[0].message;
  EXPECT_EQ(output.registration_function, "register_lib_kernels");
  const std::string& cpp = *file(output, "lib/RegisterKernels.cpp");
  // aten's operators are libtorch's to define; custom ones are defined here.
  EXPECT_NE(cpp.find("m.def(\"my_ops::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\");"),
            std::string::npos)
      << cpp;
  EXPECT_EQ(cpp.find("m.def(\"aten::"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("torch::Library::IMPL, \"aten\", c10::DispatchKey::CPU"), std::string::npos);
  EXPECT_NE(cpp.find("m.impl(\"neg.out\", TORCH_FN(wrap_my_ops_neg_out));"), std::string::npos);
  EXPECT_NE(cpp.find("at::Tensor& wrap_my_ops_neg_out(const at::Tensor& self, at::Tensor& out) {\n"
                     "  return ::t::fn(self, out);\n}"),
            std::string::npos)
      << cpp;
  EXPECT_NE(cpp.find("void register_lib_kernels() {"), std::string::npos);
  EXPECT_NE(file(output, "lib/RegisterKernels.h")->find("void register_lib_kernels();"),
            std::string::npos);
}

TEST(GenerateTorch, StaticRegistrationUsesEagerBlocks) {
  Output output = generate(module_of({aten_kernel("my_ops", "neg", "out")}),
                           torch_options(Registration::static_init));
  ASSERT_TRUE(output.diagnostics.empty());
  const std::string& cpp = *file(output, "lib/RegisterKernels.cpp");
  EXPECT_NE(cpp.find("TORCH_LIBRARY_FRAGMENT(my_ops, m) {"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("TORCH_LIBRARY_IMPL(my_ops, CPU, m) {"), std::string::npos) << cpp;
  EXPECT_EQ(cpp.find("register_"), std::string::npos) << cpp;
}

TEST(GenerateTorch, StaticModeDefinesALinkAnchor) {
  Output output = generate(module_of({aten_kernel("my_ops", "neg", "out")}),
                           torch_options(Registration::static_init));
  ASSERT_TRUE(output.diagnostics.empty());
  EXPECT_EQ(output.link_anchor, "opscan_static_registration_lib");
  const std::string& cpp = *file(output, "lib/RegisterKernels.cpp");
  // After the registration blocks, at global scope, the file's last lines.
  EXPECT_NE(cpp.find("  m.impl(\"neg.out\", TORCH_FN(wrap_my_ops_neg_out));\n"
                     "}\n"
                     "\n"
                     "// Nothing references this file in static mode, so a linker"),
            std::string::npos)
      << cpp;
  EXPECT_TRUE(cpp.ends_with("extern \"C\" {\n"
                            "extern const int opscan_static_registration_lib;\n"
                            "const int opscan_static_registration_lib = 1;\n"
                            "}\n"))
      << cpp;
  EXPECT_NE(file(output, "lib/RegisterKernels.h")
                ->find("static archive needs -Wl,--undefined=opscan_static_registration_lib\n"
                       "// (RegisterKernels.cpp defines it), or the linker drops them."),
            std::string::npos);
  auto read = ir::from_json(*file(output, "lib/ir.json"), "lib/ir.json");
  ASSERT_TRUE(read.module.has_value());
  EXPECT_EQ(read.module->library->link_anchor, "opscan_static_registration_lib");

  Output named_output = generate(module_of({aten_kernel("my_ops", "neg", "out")}),
                                 torch_options(Registration::named));
  EXPECT_EQ(named_output.link_anchor, "");
  EXPECT_EQ(file(named_output, "lib/RegisterKernels.cpp")->find("opscan_static_registration"),
            std::string::npos);
}

// The library IR that generating `kernels` for the torch target writes.
LibraryIr torch_library_ir(std::string name, std::vector<ir::Kernel> kernels) {
  Options o = torch_options(Registration::named);
  o.library = name;
  Output output = generate(module_of(std::move(kernels)), o);
  auto read = ir::from_json(*file(output, name + "/ir.json"), name + "/ir.json");
  EXPECT_TRUE(read.module.has_value());
  return {"out/" + name + "/ir.json", std::move(*read.module)};
}

TEST(CheckLibraries, OneOperatorInAnExecuTorchAndATorchLibraryIsFine) {
  using opscan::emit::check_libraries;
  // The runtimes keep separate registries: each library registers it once.
  ir::Kernel for_torch = aten_kernel("demo", "neg", "out");
  LibraryIr et = library_ir("et", Registration::named, {neg_out()});
  LibraryIr pt = torch_library_ir("pt", {for_torch});
  EXPECT_TRUE(check_libraries({et, pt}).empty());
  Generation generation = generate_libraries({et, pt}, named("x"));
  EXPECT_TRUE(generation.diagnostics.empty());
  EXPECT_EQ(generation.libraries.size(), 2u);

  // Two torch libraries do clash, with the dispatcher's reason.
  ir::Kernel again = for_torch;
  again.cpp_function = "t::again";
  again.location = {"again.cpp", 4, 12, 80};
  opscan::diag::Diagnostics diags = check_libraries({et, pt, torch_library_ir("pt2", {again})});
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "opscan-library-overlap");
  EXPECT_EQ(diags[0].location, again.location);
  EXPECT_EQ(diags[0].message, "operator demo::neg.out is registered by library 'pt' and by "
                              "library 'pt2'; PyTorch's dispatcher takes one definition of an "
                              "operator");
}

TEST(GenerateTorch, DispatchKeySetContextIsForwarded) {
  Output output = generate(module_of({aten_kernel("my_ops", "neg", "out", true)}),
                           torch_options(Registration::named));
  ASSERT_TRUE(output.diagnostics.empty());
  EXPECT_NE(file(output, "lib/RegisterKernels.cpp")
                ->find("wrap_my_ops_neg_out(c10::DispatchKeySet keys, const at::Tensor& self, "
                       "at::Tensor& out) {\n  return ::t::fn(keys, self, out);"),
            std::string::npos);
}

TEST(GenerateTorch, DispatchKeysAreValidated) {
  ir::Kernel k = aten_kernel("my_ops", "neg", "out");
  k.dispatch_key = "GPU";
  Output output = generate(module_of({k}), torch_options(Registration::named));
  ASSERT_EQ(output.diagnostics.size(), 1u);
  EXPECT_EQ(output.diagnostics[0].code, "opscan-torch-dispatch-key");
  EXPECT_EQ(output.diagnostics[0].message,
            "kernel 't::fn': 'GPU' is not a dispatch key (e.g. CPU, CUDA, Meta, "
            "CompositeExplicitAutograd)");
  EXPECT_TRUE(output.files.empty());

  k.dispatch_key = "Meta";
  Output meta = generate(module_of({k}), torch_options(Registration::named));
  ASSERT_TRUE(meta.diagnostics.empty());
  EXPECT_NE(file(meta, "lib/RegisterKernels.cpp")->find("c10::DispatchKey::Meta"),
            std::string::npos);
}

TEST(GenerateTorch, ExecuTorchTypesAreRefused) {
  // The ExecuTorch kernel of the other tests, given to the torch target.
  Output output = generate(module_of({neg_out()}), torch_options(Registration::named));
  ASSERT_EQ(output.diagnostics.size(), 1u);
  EXPECT_EQ(output.diagnostics[0].code, "opscan-torch-unsupported");
  EXPECT_NE(output.diagnostics[0].message.find("parameter 'self' is 'const Tensor &', but the "
                                               "dispatcher passes Tensor as const at::Tensor&"),
            std::string::npos)
      << output.diagnostics[0].message;
}

} // namespace
