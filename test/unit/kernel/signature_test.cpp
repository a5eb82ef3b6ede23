// kernel::build_kernel on hand-built Signatures: the pure stage between the
// libclang walk and the IR. No libclang here: every location is made up, as
// if the kernel were written in kernels.cpp as
//
//   5  OPSCAN_KERNEL(<annotation>)       the annotation's text at column 15
//   9  Tensor& f(KernelRuntimeContext& ctx,
//   10            <parameter 1>,          each parameter's name at column 20
//   ...
#include "kernel/known_schemas.h"
#include "kernel/signature.h"
#include "kernel_test_helpers.h"
#include "schema/schema.h"
#include "support/cpp_literal.h"

#include <cctype>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::kernel {
namespace {

using test_support::describe;
using test_support::parsed_schema;
using test_support::test_fields;
using test_support::type;

const std::string kFile = "kernels.cpp";
const diag::Location kFunction{kFile, 9, 9, 360};
const diag::Location kAnnotation{kFile, 5, 15, 100};
const std::string kCanonicalTensor = "executorch::runtime::etensor::Tensor";

diag::Location shifted(diag::Location loc, size_t bytes) {
  loc.column += static_cast<uint32_t>(bytes);
  loc.offset += static_cast<uint32_t>(bytes);
  return loc;
}

// Where byte `offset` of an annotation's text is, written on one line.
diag::Location in_annotation(size_t offset) {
  return shifted(kAnnotation, offset);
}

// The map of an annotation written on one line from `start`, one piece per
// token, as the scan builds it from libclang's tokens.
AnnotationMap one_line(std::string_view text, diag::Location start) {
  std::vector<AnnotationMap::Piece> pieces;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const size_t begin = i;
    if (text[i] == '"') {
      for (++i; i < text.size() && text[i] != '"';)
        i += text[i] == '\\' ? 2 : 1;
      i = std::min(i + 1, text.size());
    } else if (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      while (i < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        ++i;
    } else {
      ++i;
    }
    pieces.push_back({begin, i - begin, shifted(start, begin)});
  }
  return AnnotationMap(start, std::move(pieces));
}

MappedType mapped(std::string_view schema_type, bool is_mutable = false) {
  MappedType m;
  m.type = type(schema_type);
  m.is_mutable = is_mutable;
  return m;
}
MappedType refused(std::string error) {
  MappedType m;
  m.error = std::move(error);
  return m;
}

// A parameter written on `line`, its name at column 20.
Parameter parameter(uint32_t line, std::string name, std::string_view schema_type,
                    std::string cpp_type, std::string canonical, bool is_mutable = false) {
  Parameter p;
  p.location = {kFile, line, 20, 40 * line};
  p.end = shifted(p.location, name.size());
  p.name = std::move(name);
  p.type = std::move(cpp_type);
  p.canonical_type = std::move(canonical);
  p.mapped = mapped(schema_type, is_mutable);
  return p;
}
Parameter tensor(uint32_t line, std::string name) {
  return parameter(line, std::move(name), "Tensor", "const Tensor &",
                   "const " + kCanonicalTensor + " &");
}
Parameter out(uint32_t line, std::string name) {
  return parameter(line, std::move(name), "Tensor", "Tensor &", kCanonicalTensor + " &", true);
}
Parameter scalar(uint32_t line, std::string name) {
  return parameter(line, std::move(name), "Scalar", "const Scalar &",
                   "const executorch::runtime::etensor::Scalar &");
}
Parameter integer(uint32_t line, std::string name) {
  return parameter(line, std::move(name), "int", "int64_t", "long");
}
// A parameter whose type is not a kernel type.
Parameter unsupported(uint32_t line, std::string name, std::string cpp_type, std::string why) {
  Parameter p = parameter(line, std::move(name), "int", cpp_type, cpp_type);
  p.mapped = refused("'" + cpp_type + "' " + why);
  return p;
}

// ns::f(KernelRuntimeContext& ctx, <params>) -> Tensor&, annotated with
// `annotation` (written on one line).
Signature signature(std::string annotation, std::vector<Parameter> params,
                    std::vector<MappedType> returns = {mapped("Tensor", true)}) {
  Signature s;
  s.qualified_name = "ns::f";
  s.usr = "c:@N@ns@F@f#";
  s.location = kFunction;
  s.context = ir::ContextKind::runtime_context;
  s.parameters = std::move(params);
  s.return_type = "Tensor &";
  s.canonical_return_type = kCanonicalTensor + " &";
  s.returns = std::move(returns);
  s.annotation_map = one_line(annotation, kAnnotation);
  s.annotation = std::move(annotation);
  return s;
}

// add.out's parameters: self, other, alpha, out on lines 10 to 13.
std::vector<Parameter> add_parameters() {
  return {tensor(10, "self"), tensor(11, "other"), scalar(12, "alpha"), out(13, "out")};
}

Built build(const Signature& s, const KnownSchemas* known = nullptr,
            const ir::Fields& fields = test_fields()) {
  return build_kernel(s, known, fields);
}

// The one diagnostic of `built` (a copy): an error with `code` at `where`
// whose message contains `message`.
std::optional<diag::Diagnostic> expect_one_error(const Built& built, const std::string& code,
                                                 const diag::Location& where,
                                                 const std::string& message) {
  EXPECT_FALSE(built.kernel) << "no kernel is made when there are errors";
  EXPECT_EQ(built.diagnostics.size(), 1u) << describe(built.diagnostics);
  if (built.diagnostics.size() != 1)
    return std::nullopt;
  const diag::Diagnostic& d = built.diagnostics[0];
  EXPECT_EQ(d.severity, diag::Severity::error);
  EXPECT_EQ(d.code, code);
  EXPECT_EQ(d.location, where) << describe({d});
  EXPECT_NE(d.message.find(message), std::string::npos) << d.message;
  return d;
}

// ---------------------------------------------------------------------------
// Where the schema comes from

TEST(BuildKernel, InferredSchemaAndEverythingTheSignatureSays) {
  Signature s = signature(R"x("t::add.out")x", add_parameters());
  Built built = build(s);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_TRUE(built.diagnostics.empty()) << describe(built.diagnostics);
  const ir::Kernel& k = *built.kernel;
  EXPECT_EQ(k.op.str(), "t::add.out");
  EXPECT_EQ(k.schema().str(),
            "t::add.out(Tensor self, Tensor other, Scalar alpha, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(k.schema_origin, ir::SchemaOrigin::inferred);
  EXPECT_EQ(k.cpp_function, "ns::f");
  EXPECT_TRUE(k.cpp_inline_namespaces.empty());
  EXPECT_EQ(k.cpp_linkage, ir::Linkage::cxx);
  EXPECT_FALSE(k.cpp_noexcept);
  EXPECT_EQ(k.cpp_return_type, "Tensor &");
  EXPECT_EQ(k.cpp_canonical_return_type, kCanonicalTensor + " &");
  EXPECT_EQ(k.usr, "c:@N@ns@F@f#");
  EXPECT_EQ(k.context, ir::ContextKind::runtime_context);
  EXPECT_EQ(k.field("kernel_key"), "");
  EXPECT_EQ(k.field("dispatch_key"), "");
  EXPECT_EQ(k.location, kFunction);
  // The context is not an argument; each argument keeps its C++ types.
  ASSERT_EQ(k.arguments.size(), 4u);
  EXPECT_EQ(k.arguments[2].cpp_type, "const Scalar &");
  EXPECT_EQ(k.arguments[2].cpp_canonical_type, "const executorch::runtime::etensor::Scalar &");
  EXPECT_EQ(k.arguments[3].cpp_type, "Tensor &");
  EXPECT_EQ(k.arguments[3].schema.type.str(), "Tensor(a!)");
  EXPECT_TRUE(k.arguments[3].schema.kwarg_only);
  ASSERT_EQ(k.returns.size(), 1u);
  EXPECT_EQ(k.returns[0].type.str(), "Tensor(a!)");
}

TEST(BuildKernel, LinkageNamespacesNoexceptAndContextAreCopied) {
  Signature s = signature(R"x("t::neg")x", {tensor(10, "self")}, {mapped("Tensor")});
  s.qualified_name = "ns::v1::neg";
  s.inline_namespaces = {"ns::v1"};
  s.linkage = ir::Linkage::c;
  s.is_noexcept = true;
  s.context = ir::ContextKind::dispatch_key_set;
  s.return_type = "at::Tensor";
  s.canonical_return_type = "at::Tensor";
  Built built = build(s);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->cpp_function, "ns::v1::neg");
  EXPECT_EQ(built.kernel->cpp_inline_namespaces, std::vector<std::string>{"ns::v1"});
  EXPECT_EQ(built.kernel->cpp_linkage, ir::Linkage::c);
  EXPECT_TRUE(built.kernel->cpp_noexcept);
  EXPECT_EQ(built.kernel->context, ir::ContextKind::dispatch_key_set);
  EXPECT_EQ(built.kernel->schema().str(), "t::neg(Tensor self) -> Tensor");
}

TEST(BuildKernel, VoidAndTupleReturns) {
  Signature none = signature(R"x("t::fill.out")x", {scalar(10, "value"), out(11, "out")}, {});
  none.return_type = none.canonical_return_type = "void";
  Built built = build(none);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->schema().str(), "t::fill.out(Scalar value, *, Tensor(a!) out) -> ()");

  Signature two = signature(R"x("t::stats")x", {tensor(10, "self")},
                            {mapped("Tensor"), mapped("int"), mapped("float")});
  built = build(two);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->schema().str(), "t::stats(Tensor self) -> (Tensor, int, float)");
}

TEST(BuildKernel, DeclaredSchemaIsKeptWithItsNamesAndDefaults) {
  // The C++ names differ from the schema's: the schema's are recorded.
  Signature s = signature(R"x("t::add.out(Tensor input, Tensor other, *, Scalar alpha=1, )x"
                          R"x(Tensor(o!) result) -> Tensor(o!)")x",
                          add_parameters());
  Built built = build(s);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_TRUE(built.diagnostics.empty());
  const ir::Kernel& k = *built.kernel;
  EXPECT_EQ(k.schema_origin, ir::SchemaOrigin::declared);
  EXPECT_EQ(k.schema().str(), "t::add.out(Tensor input, Tensor other, *, Scalar alpha=1, "
                              "Tensor(o!) result) -> Tensor(o!)");
  ASSERT_EQ(k.arguments.size(), 4u);
  EXPECT_EQ(k.arguments[0].schema.name, "input");
  EXPECT_EQ(k.arguments[0].cpp_type, "const Tensor &"); // the C++ side stays
  EXPECT_EQ(k.arguments[2].schema.default_value, "1");
  EXPECT_TRUE(k.arguments[2].schema.kwarg_only);
}

KnownSchemas known_schemas(const std::vector<std::string>& lines) {
  KnownSchemas known;
  uint32_t line = 0;
  for (const std::string& text : lines) {
    schema::Schema s = parsed_schema(text);
    schema::OperatorName name = s.name;
    known.insert_or_assign(name, KnownSchema{std::move(s), {"known.txt", ++line, 1, 0}});
  }
  return known;
}

TEST(BuildKernel, KnownSchemaOfTheOperatorIsUsed) {
  const KnownSchemas known = known_schemas(
      {"t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"});
  std::vector<Parameter> params = add_parameters();
  params[0].name = "a"; // names need not match
  Built built = build(signature(R"x("t::add.out")x", params), &known);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->schema_origin, ir::SchemaOrigin::known);
  EXPECT_EQ(
      built.kernel->schema().str(),
      "t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(built.kernel->arguments[0].schema.name, "self");
}

// ExecuTorch's portable kernels call the in-place tensor 'in' and have out
// tensors besides the mutable inputs: a known schema decides, the rules of
// inference (which would refuse these signatures) do not.
TEST(BuildKernel, KnownSchemaDecidesWhereInferenceWouldRefuse) {
  const KnownSchemas known = known_schemas(
      {"aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
       "aten::_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) "
       "running_mean, Tensor(b!) running_var, bool training, float momentum, float eps, *, "
       "Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd) -> (Tensor(d!), Tensor(e!), "
       "Tensor(f!))"});
  Built copy = build(
      signature(R"x("aten::copy_")x", {out(10, "in"), tensor(11, "src"),
                                       parameter(12, "non_blocking", "bool", "bool", "bool")}),
      &known);
  ASSERT_TRUE(copy.kernel) << describe(copy.diagnostics);
  EXPECT_EQ(copy.kernel->schema_origin, ir::SchemaOrigin::known);
  EXPECT_EQ(copy.kernel->schema().str(),
            "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)");

  auto optional_tensor = [](uint32_t line, std::string name) {
    return parameter(line, std::move(name), "Tensor?", "optional<Tensor>",
                     "std::optional<" + kCanonicalTensor + ">");
  };
  auto f64 = [](uint32_t line, std::string name) {
    return parameter(line, std::move(name), "float", "double", "double");
  };
  Built norm =
      build(signature(R"x("aten::_native_batch_norm_legit.out")x",
                      {tensor(10, "in"), optional_tensor(11, "weight"), optional_tensor(12, "bias"),
                       out(13, "running_mean"), out(14, "running_var"),
                       parameter(15, "training", "bool", "bool", "bool"), f64(16, "momentum"),
                       f64(17, "eps"), out(18, "out"), out(19, "mean"), out(20, "invstd")},
                      {mapped("Tensor", true), mapped("Tensor", true), mapped("Tensor", true)}),
            &known);
  ASSERT_TRUE(norm.kernel) << describe(norm.diagnostics);
  EXPECT_EQ(norm.kernel->schema_origin, ir::SchemaOrigin::known);
  EXPECT_EQ(norm.kernel->arguments[0].schema.name, "input");
  EXPECT_EQ(norm.kernel->arguments[10].schema.name, "save_invstd");
}

TEST(BuildKernel, KnownSchemaNamesNeverDecideTheOrder) {
  // Two tensors whose C++ names are the known schema's, swapped: the types
  // fit, and C++ names are the kernel author's, not a claim on the schema.
  const KnownSchemas known =
      known_schemas({"t::sub(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"});
  Built built =
      build(signature(R"x("t::sub")x", {tensor(10, "other"), tensor(11, "self"), out(12, "out")}),
            &known);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->arguments[0].schema.name, "self");
  ASSERT_EQ(built.diagnostics.size(), 2u) << describe(built.diagnostics);
  EXPECT_EQ(built.diagnostics[0].severity, diag::Severity::warning);
  EXPECT_EQ(built.diagnostics[0].code, "opscan-mismatch-order");
}

TEST(BuildKernel, DeclaredSchemaWinsOverAKnownOne) {
  const KnownSchemas known = known_schemas(
      {"t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"});
  Built built = build(signature(R"x("t::add.out(Tensor x, Tensor y, Scalar z, *, Tensor(a!) out) )x"
                                R"x(-> Tensor(a!)")x",
                                add_parameters()),
                      &known);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->schema_origin, ir::SchemaOrigin::declared);
  EXPECT_EQ(built.kernel->arguments[0].schema.name, "x");
}

TEST(BuildKernel, OperatorsTheKnownSchemasLackAreInferred) {
  const KnownSchemas known = known_schemas({"t::sub.out(Tensor self, *, Tensor(a!) out) -> ()"});
  Built built = build(signature(R"x("t::add.out")x", add_parameters()), &known);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->schema_origin, ir::SchemaOrigin::inferred);
  // Said, at the kernel, with the schema inferred.
  ASSERT_EQ(built.diagnostics.size(), 1u) << describe(built.diagnostics);
  const diag::Diagnostic& d = built.diagnostics[0];
  EXPECT_EQ(d.severity, diag::Severity::warning);
  EXPECT_EQ(d.code, "opscan-schema-unknown");
  EXPECT_EQ(d.location, built.kernel->location);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message,
            "schema inferred from the signature: " + built.kernel->schema().str());
  // Not without known schemas, nor for a declared schema.
  EXPECT_TRUE(build(signature(R"x("t::add.out")x", add_parameters()), nullptr).diagnostics.empty());
  Built declared = build(signature(R"x("t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, )x"
                                   R"x(Tensor(a!) out) -> Tensor(a!)")x",
                                   add_parameters()),
                         &known);
  ASSERT_TRUE(declared.kernel) << describe(declared.diagnostics);
  EXPECT_TRUE(declared.diagnostics.empty()) << describe(declared.diagnostics);
}

TEST(BuildKernel, AnUnknownOperatorWhoseInferenceFailsIsSaidToo) {
  // Inference refuses 'in' (a schema keyword); the file that knows the
  // operator would have named it: both are said.
  const KnownSchemas known = known_schemas({"t::sub.out(Tensor self, *, Tensor(a!) out) -> ()"});
  Built built = build(signature(R"x("t::neg.out")x", {tensor(10, "in"), out(11, "out")}), &known);
  EXPECT_FALSE(built.kernel);
  ASSERT_EQ(built.diagnostics.size(), 2u) << describe(built.diagnostics);
  EXPECT_EQ(built.diagnostics[0].code, "opscan-schema-reserved-word");
  EXPECT_EQ(built.diagnostics[1].code, "opscan-schema-unknown");
  EXPECT_EQ(built.diagnostics[1].severity, diag::Severity::warning);
  EXPECT_TRUE(built.diagnostics[1].notes.empty()); // no schema was inferred
}

TEST(BuildKernel, KnownSchemaMismatchNotesTheKnownSchemaWithoutFixIt) {
  const std::string known_text =
      "t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)";
  const KnownSchemas known = known_schemas({known_text});
  std::vector<Parameter> params = add_parameters();
  params[2] = integer(12, "alpha");
  Built built = build(signature(R"x("t::add.out")x", params), &known);
  const std::optional<diag::Diagnostic> d =
      expect_one_error(built, "opscan-mismatch-type", params[2].location,
                       "argument 3 'alpha': the known schema of t::add.out says Scalar, C++ "
                       "parameter is 'int64_t'");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->notes.size(), 1u);
  EXPECT_EQ(d->notes[0].message, "known schema: " + known_text);
  EXPECT_EQ(d->notes[0].location, (diag::Location{"known.txt", 1, 1, 0}));
  EXPECT_TRUE(d->fixits.empty()); // the known schema is not the user's to rewrite
}

// ---------------------------------------------------------------------------
// Errors, each where it is

TEST(BuildKernelErrors, AnnotationSyntaxAtTheOffendingToken) {
  const std::string text = R"x("t::f.out", colour = "red")x";
  expect_one_error(build(signature(text, add_parameters())), "opscan-annotation-syntax",
                   in_annotation(text.find("colour")), "unknown OPSCAN_KERNEL field 'colour'");
  expect_one_error(build(signature("t::f.out", add_parameters())), "opscan-annotation-syntax",
                   in_annotation(0), "first argument must be a string literal");
}

TEST(BuildKernelErrors, OperatorNameErrorsPointIntoTheLiteral) {
  // "expected '::'" at the '.' after "add".
  expect_one_error(build(signature(R"x("add.out")x", add_parameters())), "opscan-schema-syntax",
                   in_annotation(4), "expected '::' after namespace 'add', found '.'");
  // A leading space inside the literal moves the name; the error is at '_out'.
  const std::string text = R"x(" aten::mul_out")x";
  expect_one_error(build(signature(text, add_parameters())), "opscan-schema-out-suffix",
                   in_annotation(text.find("_out")), "name 'mul_out' ends in '_out'");
}

// Whitespace inside an operator name is refused, not dropped, with a fix-it
// removing it (issue 23, finding 19): "t::add .out" would register t::add.out.
TEST(BuildKernelFixIts, WhitespaceInsideTheOperatorNameIsRemoved) {
  const std::string text = R"x("t::add .out")x";
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(signature(text, add_parameters())), "opscan-schema-name-whitespace",
                       in_annotation(text.find(' ')),
                       "operator name 't::add.out' is written with a space inside it; operator "
                       "names hold no whitespace: write 't::add.out'");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0], (diag::FixIt{kFile, in_annotation(text.find(' ')).offset, 1, ""}));
  // A line break written as an escape: the fix removes the escape's two bytes.
  const std::string escaped =
      R"x("t::add\n.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")x";
  const std::optional<diag::Diagnostic> e =
      expect_one_error(build(signature(escaped, add_parameters())), "opscan-schema-name-whitespace",
                       in_annotation(escaped.find('\\')), "written with a line break inside it");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->fixits.size(), 1u);
  EXPECT_EQ(e->fixits[0], (diag::FixIt{kFile, in_annotation(escaped.find('\\')).offset, 2, ""}));
  // Across adjacent literals, the removal joins them.
  const std::string split = R"x("t::add " ".out")x";
  const std::optional<diag::Diagnostic> f =
      expect_one_error(build(signature(split, add_parameters())), "opscan-schema-name-whitespace",
                       in_annotation(split.find(' ')), "write 't::add.out'");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->fixits.size(), 1u);
  EXPECT_EQ(f->fixits[0],
            (diag::FixIt{kFile, in_annotation(split.find(' ')).offset,
                         static_cast<uint32_t>(split.find(".out") - split.find(' ')), ""}));
}

TEST(BuildKernelErrors, DeclaredSchemaSyntaxErrorInTheLiteral) {
  const std::string text = R"x("t::f.out(Tensor self, *, Tensor(a!) out -> Tensor(a!)")x";
  expect_one_error(build(signature(text, add_parameters())), "opscan-schema-syntax",
                   in_annotation(text.find("->")),
                   "expected ')' or ',' after argument 'out', found '->'");
}

TEST(BuildKernelErrors, DeclaredNamingRuleStandsAloneEvenWhenTheSignatureDiffers) {
  // The signature has four arguments; the naming error (at '_out') is the
  // only report: a fix-it for the count would rewrite the name anyway.
  const std::string text = R"x("t::add_out(Tensor self) -> Tensor")x";
  expect_one_error(build(signature(text, add_parameters())), "opscan-schema-out-suffix",
                   in_annotation(text.find("_out")), "name 'add_out' ends in '_out'");
}

TEST(BuildKernelErrors, DeclaredSchemaRuleOnlyOnceTheSignatureFits) {
  // No '*' before the out tensor: torchgen's return-alias rule.
  const std::string fits = R"x("t::sign.out(Tensor self, Tensor(a!) out) -> Tensor(a!)")x";
  expect_one_error(build(signature(fits, {tensor(10, "self"), out(11, "out")})),
                   "opscan-schema-return-alias", in_annotation(fits.rfind("Tensor(a!)")),
                   "return 0 'Tensor(a!)' aliases argument 'out'");
  // A signature that does not fit: the mismatch only.
  expect_one_error(build(signature(fits, {tensor(10, "self"), integer(11, "n"), out(12, "out")})),
                   "opscan-mismatch-count", kFunction, "schema has 2 arguments");
}

TEST(BuildKernelErrors, InvalidParameterTypeAtTheParameter) {
  std::vector<Parameter> params = add_parameters();
  params[1].invalid = true;
  params[1].mapped = {};
  expect_one_error(build(signature(R"x("t::add.out")x", params)), "opscan-scan-invalid-type",
                   params[1].location,
                   "the type of parameter 'other' of 'ns::f' could not be resolved (see the "
                   "error above)");
}

TEST(BuildKernelErrors, EveryUnsupportedParameterIsReported) {
  std::vector<Parameter> params = {
      unsupported(10, "x", "int", "is not a schema type: use int64_t (schema 'int')"),
      tensor(11, "self"),
      unsupported(12, "y", "float", "is not a schema type: use double (schema 'float')"),
  };
  Built built = build(signature(R"x("t::f")x", params, {}));
  EXPECT_FALSE(built.kernel);
  ASSERT_EQ(built.diagnostics.size(), 2u) << describe(built.diagnostics);
  EXPECT_EQ(built.diagnostics[0].code, "opscan-scan-unsupported-type");
  EXPECT_EQ(built.diagnostics[0].location, params[0].location);
  EXPECT_EQ(built.diagnostics[0].message,
            "parameter 'x' of 'ns::f': 'int' is not a schema type: use int64_t (schema 'int')");
  EXPECT_EQ(built.diagnostics[1].location, params[2].location);
  EXPECT_EQ(built.diagnostics[1].message, "parameter 'y' of 'ns::f': 'float' is not a schema type: "
                                          "use double (schema 'float')");
}

TEST(BuildKernelErrors, UnsupportedReturnAtTheFunction) {
  Signature s = signature(R"x("t::f")x", {tensor(10, "self")},
                          {refused("'const Tensor &' is a const reference")});
  expect_one_error(build(s), "opscan-scan-unsupported-type", kFunction,
                   "return type of 'ns::f': 'const Tensor &' is a const reference");
}

TEST(BuildKernelErrors, InvalidDeclarationAtTheFunctionUnlessAParameterSaysWhy) {
  Signature s = signature(R"x("t::add.out")x", add_parameters());
  s.invalid = true;
  expect_one_error(build(s), "opscan-scan-invalid-type", kFunction,
                   "the declaration of 'ns::f' is invalid (see the error above)");
  // The parameter's error explains the declaration's.
  s.parameters[0].invalid = true;
  expect_one_error(build(s), "opscan-scan-invalid-type", s.parameters[0].location,
                   "the type of parameter 'self'");
}

TEST(BuildKernelErrors, InferenceErrorsAtTheFunction) {
  Signature count =
      signature(R"x("t::split.out")x", {tensor(10, "self"), out(11, "first"), out(12, "second")});
  expect_one_error(build(count), "opscan-infer-return-count", kFunction,
                   "kernel 'ns::f': returns 1 tensor reference but takes 2 mutable tensors");
  Signature mixed = signature(R"x("t::m.out")x", {tensor(10, "self"), out(11, "out")},
                              {mapped("Tensor", true), mapped("Tensor")});
  expect_one_error(build(mixed), "opscan-infer-mixed-returns", kFunction,
                   "kernel 'ns::f': returns mix references to tensors with values");
}

TEST(BuildKernelErrors, InferredSchemaBreakingTorchgenRulesShowsTheSchema) {
  // In-place, but nothing is written.
  Signature s = signature(R"x("t::relu_")x", {tensor(10, "x")}, {mapped("Tensor")});
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(s), "opscan-schema-inplace", kFunction, "kernel 'ns::f': ");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->notes.size(), 1u);
  EXPECT_EQ(d->notes[0].message,
            "schema inferred from the signature: t::relu_(Tensor x) -> Tensor");
  EXPECT_EQ(d->notes[0].location, kFunction);
}

// ---------------------------------------------------------------------------
// Fix-its

TEST(BuildKernelFixIts, DeclaredMismatchRewritesTheLiteralOnly) {
  const std::string literal =
      R"x("t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")x";
  const std::string text = literal + R"x(, key = "v1/6;0")x";
  std::vector<Parameter> params = add_parameters();
  params[2] = integer(12, "alpha");
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(signature(text, params)), "opscan-mismatch-type", params[2].location,
                       "argument 3 'alpha': schema says Scalar, C++ parameter is 'int64_t'");
  ASSERT_TRUE(d);
  const std::string fixed = support::cpp_string_literal(
      "t::add.out(Tensor self, Tensor other, *, int alpha, Tensor(a!) out) -> Tensor(a!)");
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0],
            (diag::FixIt{kFile, kAnnotation.offset, static_cast<uint32_t>(literal.size()), fixed}));
  ASSERT_EQ(d->notes.size(), 1u);
  EXPECT_EQ(d->notes[0].message, "schema declared here; to fit the signature: " + fixed);
  EXPECT_EQ(d->notes[0].location, in_annotation(1)); // the spec's first character
}

TEST(BuildKernelFixIts, AdjacentLiteralsAreReplacedTogether) {
  const std::string text = R"x("t::" "neg.out" "(Tensor self, *, Tensor(a!) out) -> ()")x";
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(signature(text, {tensor(10, "self"), out(11, "out")})),
                       "opscan-mismatch-returns", kFunction, "schema returns ()");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0].offset, kAnnotation.offset);
  EXPECT_EQ(d->fixits[0].length, text.size());
  EXPECT_EQ(
      d->fixits[0].replacement,
      support::cpp_string_literal("t::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"));
}

TEST(BuildKernelFixIts, EveryMismatchCarriesTheSameFix) {
  const std::string text =
      R"x("t::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, )x"
      R"x(*, Tensor(a!) out) -> Tensor(a!)")x";
  std::vector<Parameter> params = {
      tensor(10, "self"),
      parameter(11, "min_val", "float", "double", "double"),
      parameter(12, "max_val", "float", "double", "double"),
      out(13, "out"),
  };
  Built built = build(signature(text, params));
  EXPECT_FALSE(built.kernel);
  ASSERT_EQ(built.diagnostics.size(), 2u) << describe(built.diagnostics);
  EXPECT_EQ(built.diagnostics[0].location, params[1].location);
  EXPECT_EQ(built.diagnostics[1].location, params[2].location);
  ASSERT_EQ(built.diagnostics[0].fixits.size(), 1u);
  EXPECT_EQ(built.diagnostics[0].fixits, built.diagnostics[1].fixits);
  EXPECT_EQ(built.diagnostics[0].fixits[0].replacement,
            support::cpp_string_literal("t::hardtanh.out(Tensor self, float min_val, float "
                                        "max_val, *, Tensor(a!) out) -> Tensor(a!)"));
}

TEST(BuildKernelFixIts, NoFixItWhenTheTextIsNotInTheSource) {
  // Made by another macro: no pieces, every offset maps to the macro's use.
  const diag::Location use{kFile, 3, 1, 40};
  Signature s = signature(R"x("t::add.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")x",
                          add_parameters());
  s.annotation_map = AnnotationMap(use, {});
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(s), "opscan-mismatch-count", kFunction,
                       "schema has 2 arguments, the C++ function takes 4");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->notes.size(), 1u);
  EXPECT_EQ(d->notes[0].message, "schema declared here");
  EXPECT_EQ(d->notes[0].location, use);
  EXPECT_TRUE(d->fixits.empty());
  // Errors in the text are at the use too.
  s.annotation = R"x("t::add_out")x";
  expect_one_error(build(s), "opscan-schema-out-suffix", use, "ends in '_out'");
}

TEST(BuildKernelFixIts, UnnamedParameterGetsANameInserted) {
  std::vector<Parameter> params = add_parameters();
  params[1].name = "";
  params[1].end = {kFile, 11, 34, 454}; // after "const Tensor&"
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(signature(R"x("t::add.out")x", params)),
                       "opscan-scan-unnamed-parameter", params[1].location,
                       "parameter 3 of 'ns::f' has no name: name it, the schema argument takes "
                       "its name");
  ASSERT_TRUE(d);
  // Numbered as written (the context is parameter 1); named by position.
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0], (diag::FixIt{kFile, 454, 0, " arg2"}));
}

TEST(BuildKernelFixIts, UnnamedParameterTakesTheDeclaredName) {
  std::vector<Parameter> params = add_parameters();
  params[1].name = "";
  Signature s = signature(
      R"x("t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")x",
      params);
  s.context = ir::ContextKind::none;
  const std::optional<diag::Diagnostic> d = expect_one_error(
      build(s), "opscan-scan-unnamed-parameter", params[1].location, "parameter 2 of 'ns::f'");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0], (diag::FixIt{kFile, params[1].end.offset, 0, " other"}));
}

TEST(BuildKernelFixIts, EveryUnnamedParameterIsReported) {
  std::vector<Parameter> params = add_parameters();
  params[0].name = params[2].name = "";
  Built built = build(signature(R"x("t::add.out")x", params));
  EXPECT_FALSE(built.kernel);
  ASSERT_EQ(built.diagnostics.size(), 2u) << describe(built.diagnostics);
  EXPECT_EQ(built.diagnostics[0].fixits.at(0).replacement, " arg1");
  EXPECT_EQ(built.diagnostics[1].fixits.at(0).replacement, " arg3");
}

TEST(BuildKernelFixIts, NoInsertionWhenTheParameterEndsInAnotherFile) {
  std::vector<Parameter> params = add_parameters();
  params[1].name = "";
  params[1].end.file = "macros.h";
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(signature(R"x("t::add.out")x", params)),
                       "opscan-scan-unnamed-parameter", params[1].location, "has no name");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->fixits.empty());
}

// ---------------------------------------------------------------------------
// Annotation fields: judged by each field's check, which its target defines

struct FieldCall {
  std::string value;
  std::string op;
  friend bool operator==(const FieldCall&, const FieldCall&) = default;
};

// What a check finds wrong, and the code its field reports it with.
struct Fault {
  size_t offset = 0;
  std::string code;
  std::string message;
};

// Fields whose checks record their calls and find fault with values equal
// to `bad`.
ir::Fields recording(std::vector<FieldCall>& calls, std::string bad = "", Fault fault = {}) {
  auto check = [&calls, bad, fault](std::string_view value,
                                    const ir::Kernel& kernel) -> std::optional<ir::FieldProblem> {
    calls.push_back({std::string(value), kernel.op.str()});
    if (!bad.empty() && value == bad)
      return ir::FieldProblem{fault.offset, fault.message};
    return std::nullopt;
  };
  if (fault.code.empty())
    return test_fields(check);
  return test_fields(check, fault.code, fault.code);
}

TEST(BuildKernelFields, CheckedOnlyWhenSet) {
  std::vector<FieldCall> calls;
  const ir::Fields check = recording(calls);
  Built built = build(signature(R"x("t::add.out")x", add_parameters()), nullptr, check);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_TRUE(calls.empty());

  built = build(signature(R"x("t::add.out", dispatch = "CPU")x", add_parameters()), nullptr, check);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(calls, (std::vector<FieldCall>{{"CPU", "t::add.out"}}));

  calls.clear();
  built = build(signature(R"x("t::add.out", dispatch = "CPU", key = "v1/6;0")x", add_parameters()),
                nullptr, check);
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->field("kernel_key"), "v1/6;0");
  EXPECT_EQ(built.kernel->field("dispatch_key"), "CPU");
  EXPECT_EQ(calls, (std::vector<FieldCall>{{"v1/6;0", "t::add.out"}, {"CPU", "t::add.out"}}));
}

TEST(BuildKernelFields, WithoutACheckAnyValueIsRecorded) {
  Built built =
      build(signature(R"x("t::add.out", key = "not a key", dispatch = "?")x", add_parameters()));
  ASSERT_TRUE(built.kernel) << describe(built.diagnostics);
  EXPECT_EQ(built.kernel->field("kernel_key"), "not a key");
  EXPECT_EQ(built.kernel->field("dispatch_key"), "?");
}

TEST(BuildKernelFields, NotCheckedWhenTheKernelHasErrors) {
  std::vector<FieldCall> calls;
  std::vector<Parameter> params = add_parameters();
  params[0] = unsupported(10, "self", "int", "is not a schema type");
  Built built =
      build(signature(R"x("t::add.out", key = "v1/6;0")x", params), nullptr, recording(calls));
  EXPECT_FALSE(built.kernel);
  EXPECT_TRUE(calls.empty());
}

TEST(BuildKernelFields, ProblemIsAtItsOffsetInTheValueWithTheCheckersCode) {
  std::vector<FieldCall> calls;
  const std::string text = R"x("t::add.out", key = "v1/6;0|9;0")x";
  Built built = build(signature(text, add_parameters()), nullptr,
                      recording(calls, "v1/6;0|9;0", {7, "opscan-kernel-key", "bad dtype 9"}));
  expect_one_error(built, "opscan-kernel-key", in_annotation(text.find("9;0")), "bad dtype 9");

  const std::string dispatch = R"x("t::add.out", dispatch = "CUDA")x";
  built = build(signature(dispatch, add_parameters()), nullptr,
                recording(calls, "CUDA", {0, "some-target-code", "no such key"}));
  expect_one_error(built, "some-target-code", in_annotation(dispatch.find("CUDA")), "no such key");
}

TEST(BuildKernelFields, ProblemOffsetsFollowEscapesAndAdjacentLiterals) {
  // The problem's offset is in the value; the value's bytes are not where
  // the text's are when it is split or escaped.
  std::vector<FieldCall> calls;
  const std::string split = R"x("t::add.out", key = "v1/" "6;x")x";
  Built built = build(signature(split, add_parameters()), nullptr,
                      recording(calls, "v1/6;x", {5, "opscan-kernel-key", "bad dtype x"}));
  expect_one_error(built, "opscan-kernel-key", in_annotation(split.find('x')), "bad dtype x");

  const std::string escaped = R"x("t::add.out", dispatch = "C\tPU")x";
  built = build(signature(escaped, add_parameters()), nullptr,
                recording(calls, "C\tPU", {2, "opscan-dispatch-key", "bad P"}));
  expect_one_error(built, "opscan-dispatch-key", in_annotation(escaped.find('P')), "bad P");
}

// ---------------------------------------------------------------------------
// AnnotationMap: from offsets in the text to the source

TEST(AnnotationMap, PiecesMapTheirBytesAndTheSpaceBeforeThem) {
  // "t::f", key = "k" written over two lines.
  const AnnotationMap map({kFile, 4, 1, 60}, {
                                                 {0, 6, {kFile, 5, 5, 100}},   // "t::f"
                                                 {6, 1, {kFile, 5, 11, 106}},  // ,
                                                 {8, 3, {kFile, 6, 5, 120}},   // key
                                                 {12, 1, {kFile, 6, 9, 124}},  // =
                                                 {14, 3, {kFile, 6, 11, 126}}, // "k"
                                             });
  EXPECT_TRUE(map.exact());
  EXPECT_EQ(map.at(0), (diag::Location{kFile, 5, 5, 100}));
  EXPECT_EQ(map.at(3), (diag::Location{kFile, 5, 8, 103}));
  EXPECT_EQ(map.at(6), (diag::Location{kFile, 5, 11, 106}));
  // The space before "key" stands for the line break: it maps to "key".
  EXPECT_EQ(map.at(7), (diag::Location{kFile, 6, 5, 120}));
  EXPECT_EQ(map.at(9), (diag::Location{kFile, 6, 6, 121}));
  EXPECT_EQ(map.at(15), (diag::Location{kFile, 6, 12, 127}));
  // Past the text: just after its last token.
  EXPECT_EQ(map.at(17), (diag::Location{kFile, 6, 14, 129}));
  EXPECT_EQ(map.at(1000), (diag::Location{kFile, 6, 14, 129}));
}

TEST(AnnotationMap, WithoutPiecesEverythingIsAtTheFallback) {
  const diag::Location use{kFile, 3, 7, 33};
  const AnnotationMap map(use, {});
  EXPECT_FALSE(map.exact());
  EXPECT_EQ(map.at(0), use);
  EXPECT_EQ(map.at(42), use);
  EXPECT_FALSE(AnnotationMap().exact());
}

TEST(AnnotationMap, ErrorsInAMultiLineAnnotationAreOnTheirLine) {
  // OPSCAN_KERNEL(
  //     "t::lines.out",
  //     dispatch = "CPU", wrong = "x")
  const std::string text = R"x("t::lines.out", dispatch = "CPU", wrong = "x")x";
  const diag::Location line17{kFile, 17, 5, 300};
  const diag::Location line18{kFile, 18, 5, 320};
  // Each token: its offset in the text and length, its line and column there.
  auto piece = [](size_t offset, size_t length, const diag::Location& line, size_t column) {
    return AnnotationMap::Piece{offset, length, shifted(line, column)};
  };
  Signature s = signature(text, add_parameters());
  s.annotation_map =
      AnnotationMap({kFile, 16, 1, 280}, {
                                             piece(0, 14, line17, 0),  // "t::lines.out"
                                             piece(14, 1, line17, 14), // ,
                                             piece(16, 8, line18, 0),  // dispatch
                                             piece(25, 1, line18, 9),  // =
                                             piece(27, 5, line18, 11), // "CPU"
                                             piece(32, 1, line18, 16), // ,
                                             piece(34, 5, line18, 18), // wrong
                                             piece(40, 1, line18, 24), // =
                                             piece(42, 3, line18, 26), // "x"
                                         });
  ASSERT_EQ(text.find("wrong"), 34u);
  expect_one_error(build(s), "opscan-annotation-syntax", shifted(line18, 18),
                   "unknown OPSCAN_KERNEL field 'wrong'");
}

TEST(BuildKernelFixIts, OutSuffixBecomesTheOverloadInTheNameOnly) {
  // Just the name's bytes, in a name-only spec and in a schema.
  const std::optional<diag::Diagnostic> named =
      expect_one_error(build(signature(R"x("t::add_out")x", add_parameters())),
                       "opscan-schema-out-suffix", in_annotation(7), "ends in '_out'");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->fixits,
            (std::vector<diag::FixIt>{{kFile, kAnnotation.offset + 1, 10, "t::add.out"}}));
  const std::optional<diag::Diagnostic> declared = expect_one_error(
      build(signature(R"x("t::add_out(Tensor self, Tensor other, *, Scalar alpha=1, )x"
                      R"x(Tensor(a!) out) -> Tensor(a!)")x",
                      add_parameters())),
      "opscan-schema-out-suffix", in_annotation(7), "ends in '_out'");
  ASSERT_TRUE(declared);
  EXPECT_EQ(declared->fixits,
            (std::vector<diag::FixIt>{{kFile, kAnnotation.offset + 1, 10, "t::add.out"}}));
}

TEST(BuildKernelFixIts, NameSplitAcrossLiteralsRewritesThem) {
  // The source's bytes are not the name's: the literals are written as one,
  // the fields after them kept.
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(signature(R"x("t::add" "_out", key = "k")x", add_parameters())),
                       "opscan-schema-out-suffix", in_annotation(10), "ends in '_out'");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->fixits,
            (std::vector<diag::FixIt>{{kFile, kAnnotation.offset, 15, "\"t::add.out\""}}));
}

TEST(BuildKernelFixIts, ReservedNamesHaveNone) {
  Built built = build(signature(R"x("t::__add_out")x", add_parameters()));
  ASSERT_EQ(built.diagnostics.size(), 2u) << describe(built.diagnostics);
  EXPECT_TRUE(built.diagnostics[0].fixits.empty());
  EXPECT_TRUE(built.diagnostics[1].fixits.empty());
}

TEST(BuildKernelFixIts, RefusedTypeCarriesTheEditTheScanFound) {
  std::vector<Parameter> params = add_parameters();
  params[2] = unsupported(12, "alpha", "int", "is not a schema type: use int64_t");
  params[2].mapped.fix = {{kFile, 470, 3, "int64_t"}};
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(signature(R"x("t::add.out")x", params)),
                       "opscan-scan-unsupported-type", params[2].location, "'int'");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->fixits, params[2].mapped.fix);
  // A return's too.
  MappedType ret = refused("'int' is not a schema type: use int64_t");
  ret.fix = {{kFile, 340, 3, "int64_t"}};
  const std::optional<diag::Diagnostic> r =
      expect_one_error(build(signature(R"x("t::f")x", {tensor(10, "self")}, {ret})),
                       "opscan-scan-unsupported-type", kFunction, "return type");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->fixits, ret.fix);
}

// add.out with `out` taken by const reference, its `const` deletable.
std::vector<Parameter> add_parameters_with_const_out() {
  std::vector<Parameter> params = add_parameters();
  params[3] = tensor(13, "out");
  params[3].const_removal = diag::FixIt{kFile, 13 * 40, 6, ""};
  return params;
}

TEST(BuildKernelFixIts, ConstOutNamedOutIsTakenByReference) {
  const std::vector<Parameter> params = add_parameters_with_const_out();
  const std::optional<diag::Diagnostic> d =
      expect_one_error(build(signature(R"x("t::add.out")x", params)), "opscan-infer-return-count",
                       kFunction, "takes 0 mutable tensors");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->fixits, std::vector<diag::FixIt>{*params[3].const_removal});
  // Without a `const` to delete as written (an alias), or named otherwise:
  // none.
  std::vector<Parameter> aliased = params;
  aliased[3].const_removal.reset();
  EXPECT_TRUE(build(signature(R"x("t::add.out")x", aliased)).diagnostics.at(0).fixits.empty());
  std::vector<Parameter> renamed = params;
  renamed[3].name = "result";
  EXPECT_TRUE(build(signature(R"x("t::add.out")x", renamed)).diagnostics.at(0).fixits.empty());
}

TEST(BuildKernelFixIts, ConstTensorAKnownSchemaWritesIsTakenByReference) {
  const KnownSchemas known = known_schemas(
      {"t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) result) -> "
       "Tensor(a!)"});
  std::vector<Parameter> params = add_parameters_with_const_out();
  params[3].name = "result";
  Built built = build(signature(R"x("t::add.out")x", params), &known);
  EXPECT_FALSE(built.kernel);
  ASSERT_FALSE(built.diagnostics.empty());
  for (const diag::Diagnostic& d : built.diagnostics) {
    SCOPED_TRACE(describe({d}));
    EXPECT_EQ(d.fixits, std::vector<diag::FixIt>{*params[3].const_removal});
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].message, "known schema: " + known.begin()->second.schema.str());
  }
  // With the const deleted, the kernel is the known operator's.
  params[3] = out(13, "result");
  Built fixed = build(signature(R"x("t::add.out")x", params), &known);
  EXPECT_TRUE(fixed.kernel) << describe(fixed.diagnostics);
}

TEST(BuildKernelFixIts, ConstTensorTheDeclaredSchemaWritesIsTakenByReference) {
  const std::vector<Parameter> params = add_parameters_with_const_out();
  Built built = build(signature(R"x("t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, )x"
                                R"x(Tensor(a!) out) -> Tensor(a!)")x",
                                params));
  ASSERT_FALSE(built.diagnostics.empty());
  for (const diag::Diagnostic& d : built.diagnostics) {
    SCOPED_TRACE(describe({d}));
    EXPECT_EQ(d.fixits, std::vector<diag::FixIt>{*params[3].const_removal});
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].message, "schema declared here");
  }
  // When deleting the const would not make it fit, the schema is rewritten.
  std::vector<Parameter> more = params;
  more[2] = integer(12, "alpha");
  Built other = build(signature(R"x("t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, )x"
                                R"x(Tensor(a!) out) -> Tensor(a!)")x",
                                more));
  ASSERT_FALSE(other.diagnostics.empty());
  ASSERT_EQ(other.diagnostics[0].fixits.size(), 1u);
  EXPECT_EQ(other.diagnostics[0].fixits[0].offset, kAnnotation.offset);
}

} // namespace
} // namespace opscan::kernel
