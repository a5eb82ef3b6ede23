// Tests of lib/scan. The annotation parser, schema inference and the flag
// list are tested directly; everything else scans small inputs under
// test/data/scan/ with the real libclang. Inputs share et_types.h (the
// examples' ExecuTorch stand-ins plus opscan/annotations.h), which they
// include by relative path, so "-std=c++17" is the only argument they need;
// aten_types.h stands in for ATen's types the same way.
#include "ir/ir.h"
#include "scan/annotation.h"
#include "scan/flags.h"
#include "scan/infer.h"
#include "scan/scan.h"
#include "schema/schema.h"
#include "support/cpp_literal.h"
#include "support/files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace opscan::scan {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Helpers

const fs::path kRepo = fs::path(OPSCAN_TEST_DATA "/../..").lexically_normal();
const std::vector<std::string> kArgs = {"-std=c++17"};

std::string data_file(std::string_view name) {
  return (fs::path(OPSCAN_TEST_DATA) / "scan" / name).lexically_normal().string();
}

// How scan() names a file in diagnostics and the IR.
std::string shown(const std::string& path) {
  return support::display_path(path);
}

Result scan_paths(std::vector<std::string> files, std::vector<std::string> args = kArgs,
                  unsigned jobs = 1) {
  Options options;
  options.files = std::move(files);
  options.extra_args = std::move(args);
  options.jobs = jobs;
  return scan(options);
}

// Scans test/data/scan/<name> with kArgs, once per test program.
const Result& scanned(const std::string& name) {
  static std::map<std::string, Result> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, scan_paths({data_file(name)})).first;
  return it->second;
}

std::string describe(const diag::Diagnostics& diags) {
  std::string out;
  for (const diag::Diagnostic& d : diags) {
    out += d.location.file + ":" + std::to_string(d.location.line) + ":" +
           std::to_string(d.location.column) + ": " + diag::to_string(d.severity) + ": " +
           d.message + " [" + d.code + "]\n";
  }
  return out.empty() ? "(no diagnostics)\n" : out;
}

struct ExpectedDiag {
  std::string code;
  uint32_t line;
  uint32_t column;
  std::string message; // a part of the message
};

// The diagnostics are exactly `expected`, in order (scan() sorts them), all
// located in `file`.
void expect_diagnostics(const diag::Diagnostics& diags, const std::string& file,
                        const std::vector<ExpectedDiag>& expected) {
  ASSERT_EQ(diags.size(), expected.size()) << describe(diags);
  for (size_t i = 0; i < expected.size(); ++i) {
    const diag::Diagnostic& d = diags[i];
    const ExpectedDiag& e = expected[i];
    SCOPED_TRACE("diagnostic " + std::to_string(i) + ": " + describe({d}));
    EXPECT_EQ(d.code, e.code);
    EXPECT_EQ(d.location.file, shown(file));
    EXPECT_EQ(d.location.line, e.line);
    EXPECT_EQ(d.location.column, e.column);
    EXPECT_NE(d.message.find(e.message), std::string::npos)
        << "expected in the message: " << e.message;
  }
}

const ir::Kernel* find_kernel(const ir::Module& module, std::string_view op) {
  for (const ir::Kernel& k : module.kernels) {
    if (k.op.str() == op)
      return &k;
  }
  return nullptr;
}

std::vector<std::string> schemas(const ir::Module& module) {
  std::vector<std::string> out;
  for (const ir::Kernel& k : module.kernels)
    out.push_back(k.schema);
  return out;
}

// A directory under the system's temporary directory, removed afterwards.
class TempDir {
public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "opscan-scan-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

  // Writes `content` to path()/relative, creating directories.
  std::string write(const std::string& relative, const std::string& content) const {
    fs::path file = path_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << content;
    return file.string();
  }

private:
  fs::path path_;
};

// ---------------------------------------------------------------------------
// Annotation text (what OPSCAN_KERNEL's arguments stringize to)

TEST(ParseAnnotation, OperatorNameOnly) {
  ParsedAnnotation parsed = parse_annotation(R"("aten::add.out")");
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_FALSE(parsed.error);
  EXPECT_EQ(parsed.annotation->spec, "aten::add.out");
  EXPECT_EQ(parsed.annotation->spec_offset, 1u);
  EXPECT_EQ(parsed.annotation->kernel_key, "");
  EXPECT_EQ(parsed.annotation->dispatch_key, "");
}

TEST(ParseAnnotation, FullSchema) {
  const std::string schema = "my_ops::mul3.out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)";
  ParsedAnnotation parsed = parse_annotation("\"" + schema + "\"");
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->spec, schema);
}

TEST(ParseAnnotation, KeyAndDispatchFields) {
  // As stringized from: "aten::add.out", key = "v1/6;0,1|6;0,1", dispatch = "CPU"
  ParsedAnnotation parsed =
      parse_annotation(R"("aten::add.out", key = "v1/6;0,1|6;0,1", dispatch = "CPU")");
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->spec, "aten::add.out");
  EXPECT_EQ(parsed.annotation->kernel_key, "v1/6;0,1|6;0,1");
  EXPECT_EQ(parsed.annotation->dispatch_key, "CPU");

  // Written without spaces, in the other order.
  parsed = parse_annotation(R"("aten::add.out",dispatch="CUDA",key="k")");
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->kernel_key, "k");
  EXPECT_EQ(parsed.annotation->dispatch_key, "CUDA");
}

TEST(ParseAnnotation, AdjacentLiteralsAreConcatenated) {
  // What a macro writes: OPSCAN_KERNEL("t::" #name ".out").
  const std::string_view text = R"("t::" "neg" ".out", key = "a" "b")";
  ParsedAnnotation parsed = parse_annotation(text);
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  const Annotation& a = *parsed.annotation;
  EXPECT_EQ(a.spec, "t::neg.out");
  EXPECT_EQ(a.kernel_key, "ab");
  // Each byte of the spec maps back to where it is written.
  EXPECT_EQ(a.text_offset(0), text.find('t'));
  EXPECT_EQ(a.text_offset(3), text.find('n'));
  EXPECT_EQ(a.text_offset(6), text.find('.'));
  EXPECT_EQ(a.text_offset(a.spec.size()), text.find(".out") + 4); // the closing quote
}

TEST(ParseAnnotation, EscapesAreDecodedAndOffsetsFollowTheSource) {
  const std::string_view text = R"x("t::f(str s='\"') -> ()")x";
  ParsedAnnotation parsed = parse_annotation(text);
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->spec, R"x(t::f(str s='"') -> ())x");
  const size_t close_paren = parsed.annotation->spec.find(')');
  EXPECT_EQ(parsed.annotation->text_offset(close_paren), text.find(')'));
}

struct AnnotationErrorCase {
  std::string text;
  size_t offset;
  std::string message;
};

TEST(ParseAnnotation, Errors) {
  const std::vector<AnnotationErrorCase> cases = {
      {"", 0, "OPSCAN_KERNEL needs an operator name or schema"},
      {"   ", 3, "OPSCAN_KERNEL needs an operator name or schema"},
      {"aten::add.out", 0,
       "OPSCAN_KERNEL's first argument must be a string literal: expected a string literal"},
      {"key = \"x\"", 0, "first argument must be a string literal"},
      {R"("aten::add.out)", 14, "unterminated string literal"},
      {R"("aten::add.out", key = "v1)", 26, "value of 'key': unterminated string literal"},
      {R"("aten::add\x")", 11, "unsupported escape '\\x' in string"},
      {R"("aten::add.out" key = "x")", 16, "expected ',' before the next field of OPSCAN_KERNEL"},
      {R"("aten::add.out",)", 16, "expected a field name (key or dispatch)"},
      {R"("aten::add.out", colour = "red")", 17,
       "unknown OPSCAN_KERNEL field 'colour' (known fields: key, dispatch)"},
      // The offset is the field name's, whatever the spacing.
      {R"("aten::add.out",colour="red")", 16, "unknown OPSCAN_KERNEL field 'colour'"},
      {R"("aten::add.out", key = "a", key = "b")", 28, "field 'key' given twice"},
      {R"("aten::add.out",key="a",key="b")", 24, "field 'key' given twice"},
      {R"("aten::add.out", dispatch = "CPU", key = "k", dispatch = "CPU")", 46,
       "field 'dispatch' given twice"},
      {R"("aten::add.out", key)", 20, "expected '=' after 'key'"},
      {R"("aten::add.out", key = k)", 23, "value of 'key': expected a string literal"},
      {R"("aten::add.out", key = "")", 25, "'key' is empty"},
  };
  for (const AnnotationErrorCase& c : cases) {
    SCOPED_TRACE(c.text);
    ParsedAnnotation parsed = parse_annotation(c.text);
    EXPECT_FALSE(parsed.annotation);
    ASSERT_TRUE(parsed.error);
    EXPECT_EQ(parsed.error->offset, c.offset);
    EXPECT_NE(parsed.error->message.find(c.message), std::string::npos) << parsed.error->message;
  }
}

// ---------------------------------------------------------------------------
// Schema inference (pure: no libclang)

schema::Type type(std::string_view text) {
  schema::Parsed<schema::Type> parsed = schema::parse_type(text);
  EXPECT_TRUE(parsed) << text;
  return parsed.value.value_or(schema::Type{});
}

CppParam arg(std::string name, std::string_view schema_type) {
  return {std::move(name), type(schema_type), false};
}
// A non-const reference to a tensor (or an optional tensor).
CppParam mut(std::string name, std::string_view schema_type = "Tensor") {
  return {std::move(name), type(schema_type), true};
}
CppParam ret(std::string_view schema_type) {
  return {"", type(schema_type), false};
}
CppParam ret_ref() {
  return {"", type("Tensor"), true};
} // Tensor&

// The inferred schema, or "<code>: <message>".
std::string infer(std::string_view op, const std::vector<CppParam>& params,
                  std::vector<CppParam> returns) {
  schema::Parsed<schema::OperatorName> name = schema::parse_operator_name(op);
  EXPECT_TRUE(name) << op;
  auto result = infer_schema(name.value.value_or(schema::OperatorName{}), params,
                             CppReturn{std::move(returns)});
  if (auto* e = std::get_if<InferError>(&result))
    return e->code + ": " + e->message;
  return std::get<schema::Schema>(result).str();
}

TEST(InferSchema, OutVariant) {
  EXPECT_EQ(
      infer("aten::add.out",
            {arg("self", "Tensor"), arg("other", "Tensor"), arg("alpha", "Scalar"), mut("out")},
            {ret_ref()}),
      "aten::add.out(Tensor self, Tensor other, Scalar alpha, *, Tensor(a!) out) -> "
      "Tensor(a!)");
}

TEST(InferSchema, OnlyTheTrailingMutableTensorsAreTheOutGroup) {
  EXPECT_EQ(
      infer("t::f.out", {mut("buffer"), arg("n", "int"), mut("out"), mut("extra", "Tensor?")}, {}),
      "t::f.out(Tensor(a!) buffer, int n, *, Tensor(b!) out, Tensor(c!)? extra) -> ()");
}

TEST(InferSchema, InPlaceHasNoOutGroup) {
  EXPECT_EQ(infer("aten::relu_", {mut("self")}, {ret_ref()}),
            "aten::relu_(Tensor(a!) self) -> Tensor(a!)");
  EXPECT_EQ(infer("aten::add_.Tensor",
                  {mut("self"), arg("other", "Tensor"), arg("alpha", "Scalar")}, {ret_ref()}),
            "aten::add_.Tensor(Tensor(a!) self, Tensor other, Scalar alpha) -> Tensor(a!)");
}

TEST(InferSchema, FunctionalReturnsValues) {
  EXPECT_EQ(infer("t::pick", {arg("self", "Tensor"), arg("fallback", "Tensor?"), arg("i", "int")},
                  {ret("Tensor")}),
            "t::pick(Tensor self, Tensor? fallback, int i) -> Tensor");
  EXPECT_EQ(infer("t::stats", {arg("self", "Tensor")}, {ret("Tensor"), ret("int"), ret("float")}),
            "t::stats(Tensor self) -> (Tensor, int, float)");
}

TEST(InferSchema, VoidReturn) {
  EXPECT_EQ(infer("t::fill.out", {arg("value", "Scalar"), mut("out")}, {}),
            "t::fill.out(Scalar value, *, Tensor(a!) out) -> ()");
  EXPECT_EQ(infer("t::log", {arg("message", "str")}, {}), "t::log(str message) -> ()");
}

TEST(InferSchema, TupleOfReferencesAliasesTheOutsInOrder) {
  EXPECT_EQ(infer("t::min_max.out", {arg("self", "Tensor"), mut("min"), mut("max")},
                  {ret_ref(), ret_ref()}),
            "t::min_max.out(Tensor self, *, Tensor(a!) min, Tensor(b!) max) -> (Tensor(a!), "
            "Tensor(b!))");
}

TEST(InferSchema, ReturnCountMustMatchTheMutableTensors) {
  EXPECT_EQ(infer("t::split.out", {arg("self", "Tensor"), mut("a"), mut("b")}, {ret_ref()}),
            "opscan-infer-return-count: returns 1 tensor reference but takes 2 mutable tensors: a "
            "returned reference must be one of the out tensors, in order (return "
            "std::tuple<Tensor&, ...>)");
  EXPECT_EQ(infer("t::g.out", {arg("self", "Tensor"), mut("out")}, {ret_ref(), ret_ref()}),
            "opscan-infer-return-count: returns 2 tensor references but takes 1 mutable tensor: a "
            "returned reference must be one of the out tensors, in order");
  EXPECT_EQ(infer("t::h", {arg("self", "Tensor")}, {ret_ref()}),
            "opscan-infer-return-count: returns 1 tensor reference but takes 0 mutable tensors: a "
            "returned reference must be one of the out tensors, in order");
}

TEST(InferSchema, MixedReturnsAreRefused) {
  EXPECT_EQ(infer("t::m.out", {arg("self", "Tensor"), mut("out")}, {ret_ref(), ret("Tensor")}),
            "opscan-infer-mixed-returns: returns mix references to tensors with values: return "
            "references to all out tensors, or values only");
}

// cross_check(declared, inferred), both given as schema strings; the C++
// spellings are the inferred types unless given.
std::vector<InferError> check(std::string_view declared, std::string_view inferred,
                              CppSpelling cpp = {}, Reference kind = Reference::declared) {
  schema::Parsed<schema::Schema> d = schema::parse_schema(declared);
  schema::Parsed<schema::Schema> i = schema::parse_schema(inferred);
  EXPECT_TRUE(d) << declared;
  EXPECT_TRUE(i) << inferred;
  if (!d || !i)
    return {};
  if (cpp.params.empty()) {
    for (const auto& a : i.value->arguments)
      cpp.params.push_back(a.type.str());
  }
  if (cpp.ret.empty())
    cpp.ret = "R";
  return cross_check(*d.value, *i.value, cpp, kind);
}

TEST(CrossCheck, ArgumentCountMismatch) {
  auto errors = check("t::f(Tensor self, int dim, bool keepdim) -> Tensor",
                      "t::f(Tensor self, int dim) -> Tensor");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].param, -1);
  EXPECT_EQ(errors[0].code, "opscan-mismatch-count");
  EXPECT_EQ(errors[0].message,
            "schema has 3 arguments, the C++ function takes 2 (after the runtime context)");

  errors = check("t::f(Tensor self) -> Tensor", "t::f() -> Tensor");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message,
            "schema has 1 argument, the C++ function takes 0 (after the runtime context)");
}

TEST(CrossCheck, TypeMismatchNamesTheArgumentAndTheCppType) {
  auto errors =
      check("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
            "Tensor(a!)",
            "aten::add.out(Tensor self, Tensor other, int alpha, *, Tensor(a!) out) -> Tensor(a!)",
            {{"const Tensor &", "const Tensor &", "int64_t", "Tensor &"}, "Tensor &"});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].param, 2);
  EXPECT_EQ(errors[0].code, "opscan-mismatch-type");
  EXPECT_EQ(errors[0].message,
            "argument 3 'alpha': schema says Scalar, C++ parameter is 'int64_t'");
}

TEST(CrossCheck, EquivalentSpellingsMatch) {
  // SymInt is int in C++, fixed list sizes and alias set names are not part
  // of the signature, and neither are names, defaults or keyword-only markers.
  EXPECT_TRUE(check("t::f(SymInt n, SymInt[] sizes, SymBool b) -> SymInt",
                    "t::f(int n, int[] sizes, bool b) -> int")
                  .empty());
  EXPECT_TRUE(
      check("t::f(int[1] dim, int[2]? pad) -> ()", "t::f(int[] dim, int[]? pad) -> ()").empty());
  EXPECT_TRUE(check("t::f.out(Tensor x, *, Tensor(out!) out) -> Tensor(out!)",
                    "t::f.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
                  .empty());
  EXPECT_TRUE(check("t::f(Tensor input, *, int dim=0) -> Tensor", "t::f(Tensor x, int d) -> Tensor")
                  .empty());
  // A view's alias and a list of out tensors, which C++ cannot spell.
  EXPECT_TRUE(check("t::v(Tensor(a) self) -> Tensor(a)", "t::v(Tensor self) -> Tensor").empty());
  EXPECT_TRUE(check("t::s.out(Tensor self, *, Tensor(a!)[] out) -> ()",
                    "t::s.out(Tensor self, Tensor[] out) -> ()")
                  .empty());
}

TEST(CrossCheck, MutabilityMismatch) {
  // The schema's out tensor is not writable, but the C++ takes Tensor&.
  auto errors = check("t::f.out(Tensor self, *, Tensor out) -> Tensor(a!)",
                      "t::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                      {{"const Tensor &", "Tensor &"}, "Tensor &"});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].param, 1);
  EXPECT_EQ(errors[0].code, "opscan-mismatch-mutability");
  EXPECT_EQ(errors[0].message,
            "argument 2 'out': schema says Tensor (read-only), C++ parameter is 'Tensor &' "
            "(written by the kernel): take it as a const reference");

  // The schema writes self, but the C++ takes const Tensor&.
  errors = check("t::f_(Tensor(a!) self) -> Tensor(a!)", "t::f_(Tensor self) -> Tensor",
                 {{"const Tensor &"}, "Tensor"});
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].message,
            "argument 1 'self': schema says Tensor(a!) (written by the kernel), C++ parameter is "
            "'const Tensor &' (read-only): take it as a non-const reference");
  EXPECT_EQ(errors[1].param, -1);
  EXPECT_EQ(errors[1].code, "opscan-mismatch-returns");
  EXPECT_EQ(
      errors[1].message,
      "schema returns Tensor(a!), the C++ function returns 'Tensor', which is Tensor in a schema");
}

TEST(CrossCheck, SameTypesInAnotherOrderAreCaughtByName) {
  auto errors = check("t::sub.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                      "t::sub.out(Tensor other, Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].code, "opscan-mismatch-order");
  EXPECT_EQ(errors[0].param, 0);
  EXPECT_EQ(errors[0].message, "argument 1: schema says 'self', the C++ parameter here is "
                               "'other', which is argument 2 in the schema");
}

TEST(CrossCheck, KnownSchemaMessagesNameTheOperator) {
  auto errors =
      check("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) "
            "-> Tensor(a!)",
            "aten::add.out(Tensor self, Scalar alpha, Tensor other, *, Tensor(a!) out) "
            "-> Tensor(a!)",
            {{"const Tensor &", "const Scalar &", "const Tensor &", "Tensor &"}, "Tensor &"},
            Reference::known);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].message, "argument 2 'other': the known schema of aten::add.out says Tensor, "
                               "C++ parameter is 'const Scalar &'");
  EXPECT_EQ(errors[1].message, "argument 3 'alpha': the known schema of aten::add.out says "
                               "Scalar, C++ parameter is 'const Tensor &'");
}

TEST(CrossCheck, ReturnMismatch) {
  auto errors = check("t::f(Tensor self) -> (Tensor, Tensor)", "t::f(Tensor self) -> Tensor",
                      {{"const Tensor &"}, "Tensor"});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(
      errors[0].message,
      "schema returns (Tensor, Tensor), the C++ function returns 'Tensor', which is Tensor in a "
      "schema");
  errors = check("t::f(Tensor self) -> ()", "t::f(Tensor self) -> int", {{"Tensor"}, "int64_t"});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message,
            "schema returns (), the C++ function returns 'int64_t', which is int in a schema");
}

std::string repaired(std::string_view declared, std::string_view inferred) {
  return repair(*schema::parse_schema(declared).value, *schema::parse_schema(inferred).value).str();
}

TEST(Repair, KeepsDeclaredNamesAndDefaultsWhereTheyFit) {
  // alpha's type changed: it takes the C++ type and loses its default.
  EXPECT_EQ(repaired("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(o!) out) "
                     "-> Tensor(o!)",
                     "aten::add.out(Tensor x, Tensor y, int alpha, *, Tensor(a!) out) -> "
                     "Tensor(a!)"),
            "aten::add.out(Tensor self, Tensor other, *, int alpha, Tensor(o!) out) -> Tensor(o!)");
  // A missing argument comes from the C++ side.
  EXPECT_EQ(repaired("t::f(Tensor self, int dim=0) -> Tensor",
                     "t::f(Tensor self, int dim, bool keepdim) -> Tensor"),
            "t::f(Tensor self, int dim, bool keepdim) -> Tensor");
  // Returns follow the signature, keeping the declared names that still fit.
  EXPECT_EQ(repaired("t::m.out(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> "
                     "(Tensor(a!) values, Tensor(b!) indices)",
                     "t::m.out(Tensor self, *, Tensor(a!) v, Tensor(b!) i) -> (Tensor(a!), "
                     "Tensor(b!))"),
            "t::m.out(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) "
            "values, Tensor(b!) indices)");
}

TEST(Repair, PairsArgumentsByNameThenPositionThenType) {
  // Too few declared: the C++ names find theirs; the new one is the C++'s.
  EXPECT_EQ(repaired("t::c.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                     "t::c.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)"),
            "t::c.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)");
  // Too many declared, named otherwise: the rest pair up by type, in order.
  EXPECT_EQ(repaired("t::c.out(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor(a!) "
                     "result) -> Tensor(a!)",
                     "t::c.out(Tensor self, Scalar? min, *, Tensor(a!) out) -> Tensor(a!)"),
            "t::c.out(Tensor input, Scalar? min=None, *, Tensor(a!) result) -> Tensor(a!)");
  // Moved arguments keep their defaults, as far as the order allows.
  EXPECT_EQ(repaired("t::k(Tensor self, int k, int dim=-1, bool largest=True) -> Tensor",
                     "t::k(Tensor self, bool largest, int k, int dim) -> Tensor"),
            "t::k(Tensor self, bool largest, int k, int dim=-1) -> Tensor");
}

TEST(Repair, WrittenTensorsNeverShareAnAliasSet) {
  // self is written now; out keeps the declared 'a', so self takes another.
  EXPECT_EQ(repaired("t::r.out(Tensor self, *, Tensor(a!) out) -> ()",
                     "t::r.out(Tensor(a!) self, *, Tensor(b!) out) -> ()"),
            "t::r.out(Tensor(b!) self, *, Tensor(a!) out) -> ()");
  // Swapped outs: each return keeps the name of the declared return of its
  // alias set.
  EXPECT_EQ(repaired("t::s.out(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> "
                     "(Tensor(a!) values, Tensor(b!) indices)",
                     "t::s.out(Tensor self, *, Tensor(a!) indices, Tensor(b!) values) -> "
                     "(Tensor(a!), Tensor(b!))"),
            "t::s.out(Tensor self, *, Tensor(b!) indices, Tensor(a!) values) -> (Tensor(b!) "
            "indices, Tensor(a!) values)");
  // A view's return keeps its alias set while the argument has it.
  EXPECT_EQ(
      repaired("t::v(Tensor(a) self, int i) -> Tensor(a)", "t::v(Tensor self, float i) -> Tensor"),
      "t::v(Tensor(a) self, float i) -> Tensor(a)");
  EXPECT_EQ(repaired("t::v(Tensor(a) self) -> Tensor(a)", "t::v(Tensor[] self) -> Tensor"),
            "t::v(Tensor[] self) -> Tensor");
}

// ---------------------------------------------------------------------------
// Compiler flags

TEST(GccOnlyFlags, RejectedByClangAreDropped) {
  // Each one makes libclang 14 fail with "unknown argument".
  for (const char* flag : {"-fconcepts",
                           "-fcoroutines",
                           "-fno-gnu-unique",
                           "-fconserve-stack",
                           "-fno-canonical-system-headers",
                           "-fno-var-tracking-assignments",
                           "-mno-direct-extern-access",
                           "-fno-ipa-cp-clone",
                           "-fno-tree-loop-distribute-patterns",
                           "-fimplicit-constexpr",
                           "-fext-numeric-literals",
                           "-fno-lifetime-dse",
                           "-fno-reorder-blocks-and-partition",
                           "-fconcepts-diagnostics-depth=3",
                           "-flto-partition=none",
                           "-flto-compression-level=3",
                           "-mpreferred-stack-boundary=4",
                           "-fdiagnostics-urls=never",
                           "-fdiagnostics-format=json",
                           "-fopt-info-vec-missed",
                           "-mindirect-branch=thunk-extern"}) {
    EXPECT_TRUE(is_gcc_only_flag(flag)) << flag;
  }
}

TEST(GccOnlyFlags, AcceptedByClangAreKept) {
  // Clang accepts these, or ignores them with a warning at most.
  for (const char* flag : {"-std=c++17", "-O2", "-fPIC", "-Wall", "-fdiagnostics-color=always",
                           "-fstack-usage", "-fno-fat-lto-objects", "-fno-semantic-interposition",
                           "-fno-tree-vectorize", "-fmax-errors=5", "-fno-plt", "-flto=auto",
                           "-fdiagnostics-format=clang", "-fconcepts-ts", "-fno-strict-aliasing"}) {
    EXPECT_FALSE(is_gcc_only_flag(flag)) << flag;
  }
}

// ---------------------------------------------------------------------------
// Scanning: the type table

struct TypeRow {
  std::string op; // kernel "t::<op>" takes the type as `x`
  std::string schema_type;
  std::string cpp_canonical_type;
};

TEST(ScanTypes, EveryTableTypeMaps) {
  const Result& result = scanned("types.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const std::string et = "executorch::runtime::etensor::";
  const std::vector<TypeRow> rows = {
      {"tensor", "Tensor", et + "Tensor"},
      {"const_tensor_ref", "Tensor", "const " + et + "Tensor &"},
      {"tensor_ref", "Tensor(a!)", et + "Tensor &"},
      {"scalar", "Scalar", et + "Scalar"},
      {"const_scalar_ref", "Scalar", "const " + et + "Scalar &"},
      {"int64", "int", "long"},
      {"f64", "float", "double"},
      {"boolean", "bool", "bool"},
      {"optional_tensor", "Tensor?", "std::optional<" + et + "Tensor>"},
      {"optional_scalar", "Scalar?", "std::optional<" + et + "Scalar>"},
      {"optional_int", "int?", "std::optional<long>"},
      {"int_list", "int[]", "executorch::runtime::ArrayRef<long>"},
      {"optional_int_list", "int[]?", "std::optional<executorch::runtime::ArrayRef<long>>"},
      {"tensor_list", "Tensor[]", "executorch::runtime::ArrayRef<" + et + "Tensor>"},
      {"optional_tensor_list", "Tensor?[]",
       "executorch::runtime::ArrayRef<std::optional<" + et + "Tensor>>"},
      {"float_list", "float[]", "executorch::runtime::ArrayRef<double>"},
      {"bool_list", "bool[]", "executorch::runtime::ArrayRef<bool>"},
      {"scalar_type", "ScalarType", et + "ScalarType"},
      {"optional_scalar_type", "ScalarType?", "std::optional<" + et + "ScalarType>"},
      {"string_view", "str", "std::basic_string_view<char>"},
      {"layout", "Layout", et + "Layout"},
      {"device", "Device", et + "Device"},
      {"memory_format", "MemoryFormat", et + "MemoryFormat"},
  };
  EXPECT_EQ(result.module.kernels.size(), rows.size());
  for (const TypeRow& row : rows) {
    SCOPED_TRACE(row.op);
    const ir::Kernel* k = find_kernel(result.module, "t::" + row.op);
    ASSERT_NE(k, nullptr);
    const bool out = row.schema_type == "Tensor(a!)"; // the trailing mutable tensor
    EXPECT_EQ(k->schema, "t::" + row.op + "(" + (out ? "*, " : "") + row.schema_type + " x) -> ()");
    ASSERT_EQ(k->arguments.size(), 1u);
    EXPECT_EQ(k->arguments[0].name, "x");
    EXPECT_EQ(k->arguments[0].schema_type, row.schema_type);
    EXPECT_EQ(k->arguments[0].kwarg_only, out);
    EXPECT_EQ(k->arguments[0].cpp_canonical_type, row.cpp_canonical_type);
    EXPECT_FALSE(k->has_context);
    EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::inferred);
    EXPECT_TRUE(k->returns.empty());
    EXPECT_EQ(k->cpp_return_type, "void");
    EXPECT_EQ(k->cpp_function, "types::" + row.op);
  }
}

TEST(ScanTypes, AtenSpellingsWithDispatchKeySetContext) {
  const Result& result = scanned("aten_types.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const ir::Kernel* k = find_kernel(result.module, "t::aten_types");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->has_context); // c10::DispatchKeySet
  EXPECT_EQ(k->schema, "t::aten_types(Tensor self, Scalar alpha, SymInt size, int[] dims, SymInt[] "
                       "sizes, int[]? maybe_dims, int[] shape, Tensor?[] indices, Tensor[] others, "
                       "complex z, str name, ScalarType? dtype) -> Tensor");
  EXPECT_EQ(k->cpp_canonical_return_type, "at::Tensor");
}

TEST(ScanTypes, TypedefsAndUsingDeclarationsMapByCanonicalType) {
  const Result& result = scanned("aliases.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const ir::Kernel* k = find_kernel(result.module, "t::aliased.out");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(
      k->schema,
      "t::aliased.out(Tensor self, Tensor other, int[] dims, Tensor[] others, Tensor? weight, "
      "int dim, float factor, str name, *, Tensor(a!) out) -> Tensor(a!)");
  // The C++ types as written, and canonical.
  EXPECT_EQ(k->cpp_return_type, "aliases::MutableTensor");
  EXPECT_EQ(k->cpp_canonical_return_type, "executorch::runtime::etensor::Tensor &");
  const std::vector<std::pair<std::string, std::string>> written = {
      {"const aliases::MyTensor &", "const executorch::runtime::etensor::Tensor &"},
      {"aliases::TensorCRef", "const executorch::runtime::etensor::Tensor &"},
      {"aliases::IntList", "executorch::runtime::ArrayRef<long>"},
      {"aliases::Tensors", "executorch::runtime::ArrayRef<executorch::runtime::etensor::Tensor>"},
      {"aliases::MaybeTensor", "std::optional<executorch::runtime::etensor::Tensor>"},
      {"aliases::Dim", "long"},
      {"aliases::Factor", "double"},
      {"aliases::Name", "std::basic_string_view<char>"},
      {"aliases::MutableTensor", "executorch::runtime::etensor::Tensor &"},
  };
  ASSERT_EQ(k->arguments.size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) {
    SCOPED_TRACE(k->arguments[i].name);
    EXPECT_EQ(k->arguments[i].cpp_type, written[i].first);
    EXPECT_EQ(k->arguments[i].cpp_canonical_type, written[i].second);
  }
}

TEST(ScanTypes, Returns) {
  const Result& result = scanned("returns.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(schemas(result.module),
            (std::vector<std::string>{
                "t::fill.out(Scalar value, *, Tensor(a!) out) -> ()",
                "t::functional(Tensor self, int dim) -> Tensor",
                "t::min_max.out(Tensor self, *, Tensor(a!) min, Tensor(b!) max) -> (Tensor(a!), "
                "Tensor(b!))",
            }));

  const ir::Kernel* functional = find_kernel(result.module, "t::functional");
  ASSERT_NE(functional, nullptr);
  EXPECT_TRUE(functional->has_context);
  EXPECT_EQ(functional->cpp_canonical_return_type, "executorch::runtime::etensor::Tensor");
  ASSERT_EQ(functional->returns.size(), 1u);
  EXPECT_EQ(functional->returns[0].schema_type, "Tensor");
  EXPECT_EQ(functional->location.file, shown(data_file("returns.cpp")));
  EXPECT_EQ(functional->location.line, 7u);
  EXPECT_EQ(functional->location.column, 8u);

  const ir::Kernel* min_max = find_kernel(result.module, "t::min_max.out");
  ASSERT_NE(min_max, nullptr);
  EXPECT_EQ(min_max->cpp_canonical_return_type,
            "std::tuple<executorch::runtime::etensor::Tensor &, "
            "executorch::runtime::etensor::Tensor &>");
  ASSERT_EQ(min_max->returns.size(), 2u);
  EXPECT_EQ(min_max->returns[1].schema_type, "Tensor(b!)");
  ASSERT_EQ(min_max->arguments.size(), 3u); // the context is not one
  EXPECT_TRUE(min_max->arguments[2].kwarg_only);

  const ir::Kernel* fill = find_kernel(result.module, "t::fill.out");
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(fill->cpp_return_type, "void");
  EXPECT_TRUE(fill->returns.empty());
}

TEST(ScanTypes, UnsupportedTypesSayWhatToUse) {
  const std::string file = data_file("unsupported.cpp");
  const std::string code = "opscan-scan-unsupported-type";
  expect_diagnostics(
      scanned("unsupported.cpp").diagnostics, file,
      {
          {code, 8, 50,
           "parameter 'x' of 'unsupported::plain_int': 'int' is not a schema type: "
           "use int64_t (schema 'int')"},
          {code, 9, 56, "'float' is not a schema type: use double (schema 'float')"},
          {code, 10, 56,
           "'const char *' is not a schema type: use std::string_view (schema 'str')"},
          {code, 11, 50, "'executorch::aten::Tensor *' is a pointer"},
          {code, 12, 51, "'int64_t &' is a non-const reference to a value the kernel cannot write"},
          {code, 13, 68, "'std::vector<bool>' is not a schema type: use ArrayRef<bool>"},
      });
  EXPECT_TRUE(scanned("unsupported.cpp").module.kernels.empty());
}

// ---------------------------------------------------------------------------
// Scanning: errors in the source

TEST(ScanErrors, SyntaxErrorIsReportedAndTheRestScanned) {
  const Result& result = scanned("syntax_error.cpp");
  expect_diagnostics(result.diagnostics, data_file("syntax_error.cpp"),
                     {{"opscan-clang-error", 9, 21, "expected expression"}});
  EXPECT_EQ(schemas(result.module),
            std::vector<std::string>{"t::good.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"});
}

TEST(ScanErrors, MissingInclude) {
  const Result& result = scanned("missing_include.cpp");
  expect_diagnostics(result.diagnostics, data_file("missing_include.cpp"),
                     {{"opscan-clang-error", 3, 10, "'no_such_header.h' file not found"}});
  EXPECT_NE(find_kernel(result.module, "t::after_missing.out"), nullptr);
}

TEST(ScanErrors, UnknownParameterType) {
  const Result& result = scanned("invalid_type.cpp");
  expect_diagnostics(
      result.diagnostics, data_file("invalid_type.cpp"),
      {
          {"opscan-clang-error", 7, 51, "unknown type name 'Tensr'"},
          {"opscan-scan-invalid-type", 7, 58,
           "the type of parameter 'self' of 'invalid::typo_out' could not be resolved"},
      });
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST(ScanErrors, KernelsMustBeFreeNonTemplateFunctionsWithExternalLinkage) {
  const std::string file = data_file("linkage.cpp");
  expect_diagnostics(
      scanned("linkage.cpp").diagnostics, file,
      {
          {"opscan-scan-internal-linkage", 7, 16,
           "kernel 'linkage::file_static_out' has internal linkage"},
          {"opscan-scan-internal-linkage", 11, 9,
           "kernel 'linkage::(anonymous namespace)::anonymous_out' has internal linkage"},
          {"opscan-scan-template", 16, 9, "kernel 'linkage::templated_out' is a function template"},
          {"opscan-scan-method", 20, 11,
           "kernel 'linkage::Ops::method_out' is a member function: kernels must be free "
           "functions"},
      });
  EXPECT_TRUE(scanned("linkage.cpp").module.kernels.empty());
}

TEST(ScanErrors, BadOperatorNamesPointIntoTheLiteral) {
  // Each OPSCAN_KERNEL(" starts at column 1: the spec starts at column 16.
  expect_diagnostics(
      scanned("bad_names.cpp").diagnostics, data_file("bad_names.cpp"),
      {
          {"opscan-schema-syntax", 7, 19, "expected '::' after namespace 'add', found '.'"},
          {"opscan-schema-out-suffix", 8, 25,
           "name 'add_out' ends in '_out': name it 'add' with overload 'out'"},
          {"opscan-schema-reserved-overload", 9, 26, "overload name 'default' is reserved"},
          {"opscan-schema-reserved-name", 10, 22, "name '__x' starts with '__'"},
          // Two spaces before this literal; "->" is at offset 61 of the spec.
          {"opscan-schema-syntax", 11, 79, "expected ')' or ',' after argument 'out', found '->'"},
          {"opscan-schema-out-suffix", 13, 26, "name 'mul_out' ends in '_out'"},
      });
  EXPECT_TRUE(scanned("bad_names.cpp").module.kernels.empty());
}

TEST(ScanErrors, AnnotationSyntaxPointsAtTheToken) {
  expect_diagnostics(
      scanned("annotation_syntax.cpp").diagnostics, data_file("annotation_syntax.cpp"),
      {
          {"opscan-annotation-syntax", 7, 15, "first argument must be a string literal"},
          {"opscan-annotation-syntax", 10, 38, "field 'key' given twice"},
          {"opscan-annotation-syntax", 13, 35, "unknown OPSCAN_KERNEL field 'colour'"},
          // On the third line of the annotation.
          {"opscan-annotation-syntax", 18, 23, "unknown OPSCAN_KERNEL field 'wrong'"},
          // In the second of two adjacent literals.
          {"opscan-schema-out-suffix", 21, 27, "name 'split_out' ends in '_out'"},
      });
}

TEST(ScanErrors, UnnamedParameter) {
  const Result& result = scanned("parameters.cpp");
  expect_diagnostics(result.diagnostics, data_file("parameters.cpp"),
                     {{"opscan-scan-unnamed-parameter", 7, 61,
                       "parameter 2 of 'parameters::unnamed_out' has no name"}});
  EXPECT_EQ(find_kernel(result.module, "t::unnamed.out"), nullptr);
}

TEST(ScanErrors, DeclaredSchemaMismatchAndReturnCount) {
  const Result& result = scanned("declared.cpp");
  const std::string file = data_file("declared.cpp");
  expect_diagnostics(
      result.diagnostics, file,
      {
          // At the C++ parameter.
          {"opscan-mismatch-type", 13, 25,
           "argument 3 'alpha': schema says Scalar, C++ parameter is 'int64_t'"},
          // At the function's name.
          {"opscan-infer-return-count", 16, 9,
           "kernel 'declared::split_out': returns 1 tensor reference but takes 2 mutable tensors"},
      });
  ASSERT_EQ(result.diagnostics.size(), 2u);
  ASSERT_EQ(result.diagnostics[0].notes.size(), 1u);
  const diag::Note& note = result.diagnostics[0].notes[0];
  EXPECT_EQ(note.message,
            "schema declared here; to fit the signature: \"aten::sub.out(Tensor self, "
            "Tensor other, *, int alpha, Tensor(a!) out) -> Tensor(a!)\"");
  EXPECT_EQ(note.location.file, shown(file));
  EXPECT_EQ(note.location.line, 11u);
  EXPECT_EQ(note.location.column, 16u); // the spec's first character
  // The fix-it rewrites the annotation's string to fit the signature.
  ASSERT_EQ(result.diagnostics[0].fixits.size(), 1u);
  const diag::FixIt& fix = result.diagnostics[0].fixits[0];
  EXPECT_EQ(fix.file, shown(file));
  EXPECT_EQ(fix.replacement, "\"aten::sub.out(Tensor self, Tensor other, *, int alpha, Tensor(a!) "
                             "out) -> Tensor(a!)\"");
}

TEST(ScanErrors, ConflictingAnnotationsOfOneFunction) {
  const Result& result = scanned("conflict.cpp");
  const std::string file = data_file("conflict.cpp");
  expect_diagnostics(result.diagnostics, file,
                     {{"opscan-kernel-conflict", 9, 1,
                       "kernel 'conflict::conflict_out' is annotated as \"t::second.out\" here and "
                       "as \"t::first.out\" elsewhere"}});
  ASSERT_EQ(result.diagnostics[0].notes.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].notes[0].location.line, 6u);
}

// ---------------------------------------------------------------------------
// Scanning: good kernels and their IR

TEST(ScanKernels, DeclaredSchemaIsKept) {
  const ir::Kernel* k = find_kernel(scanned("declared.cpp").module, "aten::add.out");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->schema,
            "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
            "Tensor(a!)");
  EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::declared);
  EXPECT_EQ(k->cpp_function, "declared::add_out");
  EXPECT_TRUE(k->has_context);
  ASSERT_EQ(k->arguments.size(), 4u);
  const ir::Argument& alpha = k->arguments[2];
  EXPECT_EQ(alpha.name, "alpha");
  EXPECT_EQ(alpha.schema_type, "Scalar");
  EXPECT_TRUE(alpha.kwarg_only);
  EXPECT_EQ(alpha.default_value, "1");
  EXPECT_EQ(alpha.cpp_type, "const executorch::aten::Scalar &");
  EXPECT_EQ(alpha.cpp_canonical_type, "const executorch::runtime::etensor::Scalar &");
  EXPECT_FALSE(k->arguments[0].default_value);
}

TEST(ScanKernels, NoRuntimeContextKeyAndDispatch) {
  const ir::Module& module = scanned("parameters.cpp").module;
  const ir::Kernel* plain = find_kernel(module, "t::no_context.out");
  ASSERT_NE(plain, nullptr);
  EXPECT_FALSE(plain->has_context);
  EXPECT_EQ(plain->schema, "t::no_context.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(plain->kernel_key, "");
  EXPECT_EQ(plain->dispatch_key, "");

  const ir::Kernel* keyed = find_kernel(module, "t::keyed.out");
  ASSERT_NE(keyed, nullptr);
  EXPECT_TRUE(keyed->has_context);
  EXPECT_EQ(keyed->kernel_key, "v1/6;0,1|6;0,1");
  EXPECT_EQ(keyed->dispatch_key, "CPU");
  EXPECT_EQ(keyed->op.ns, "t");
  EXPECT_EQ(keyed->op.name, "keyed");
  EXPECT_EQ(keyed->op.overload, "out");
  EXPECT_EQ(keyed->location.line, 13u);
  EXPECT_EQ(keyed->location.column, 9u);
  EXPECT_FALSE(keyed->usr.empty());
}

TEST(ScanKernels, MacroGeneratedKernelsAreAtTheExpansion) {
  const Result& result = scanned("macro.cpp");
  const std::string file = data_file("macro.cpp");
  const ir::Kernel* neg = find_kernel(result.module, "t::neg.out");
  const ir::Kernel* exp = find_kernel(result.module, "t::exp.out");
  ASSERT_NE(neg, nullptr);
  ASSERT_NE(exp, nullptr);
  EXPECT_EQ(neg->schema, "t::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(neg->cpp_function, "macro::neg_out");
  EXPECT_EQ(neg->location.file, shown(file));
  EXPECT_EQ(neg->location.line, 10u);
  EXPECT_EQ(neg->location.column, 1u);
  EXPECT_EQ(exp->location.line, 11u);
  EXPECT_EQ(exp->location.column, 3u);
  // An error in a generated annotation is at the expansion too.
  expect_diagnostics(result.diagnostics, file,
                     {{"opscan-schema-out-suffix", 12, 1, "name 'log_out' ends in '_out'"}});
}

TEST(ScanKernels, DeclarationAndDefinitionAreOneKernel) {
  const Result& result = scanned("decl_def.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const std::string header = shown(data_file("include/decl_kernels.h"));
  const std::string source = shown(data_file("decl_def.cpp"));
  struct Row {
    std::string op;
    std::string file;
    uint32_t line, column;
  };
  const std::vector<Row> rows = {
      {"t::both.out", header, 15, 9},     // annotated twice: the first
      {"t::declared.out", header, 10, 9}, // on the declaration
      {"t::defined.out", source, 10, 9},  // on the definition
      {"t::in_header", header, 18, 15},   // declared and defined in the header
  };
  ASSERT_EQ(result.module.kernels.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].op);
    const ir::Kernel& k = result.module.kernels[i];
    EXPECT_EQ(k.op.str(), rows[i].op);
    EXPECT_EQ(k.location.file, rows[i].file);
    EXPECT_EQ(k.location.line, rows[i].line);
    EXPECT_EQ(k.location.column, rows[i].column);
  }
  EXPECT_EQ(result.module.kernels[0].kernel_key, "v1/6;0|6;0");
  ASSERT_EQ(result.module.sources.size(), 2u);
  EXPECT_EQ(result.module.sources[0].path, source);
  EXPECT_EQ(result.module.sources[1].path, header);
  EXPECT_EQ(result.module.sources[1].sha256.size(), 64u);
}

TEST(ScanKernels, HeaderKernelsSeenByTwoFilesAreOneKernel) {
  Result result = scan_paths({data_file("decl_def.cpp"), data_file("also_includes.cpp")});
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 4u);
  EXPECT_EQ(result.module.sources.size(), 3u);
}

TEST(ScanKernels, SystemHeadersAreSkipped) {
  const std::string file = data_file("uses_system.cpp");
  const std::string dir = data_file("system");
  Result as_system = scan_paths({file}, {"-std=c++17", "-isystem", dir});
  EXPECT_TRUE(as_system.diagnostics.empty()) << describe(as_system.diagnostics);
  EXPECT_EQ(schemas(as_system.module),
            std::vector<std::string>{"t::local.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"});
  ASSERT_EQ(as_system.module.sources.size(), 1u);
  EXPECT_EQ(as_system.module.sources[0].path, shown(file));

  // The same header through -I is the library's own.
  Result as_user = scan_paths({file}, {"-std=c++17", "-I" + dir});
  EXPECT_TRUE(as_user.diagnostics.empty()) << describe(as_user.diagnostics);
  ASSERT_EQ(as_user.module.kernels.size(), 2u);
  EXPECT_EQ(as_user.module.kernels[0].op.str(), "t::from_system.out");
  EXPECT_EQ(as_user.module.kernels[0].location.file, shown(data_file("system/system_kernels.h")));
}

TEST(ScanKernels, Examples) {
  const std::string elementwise = (kRepo / "examples/kernels/elementwise.cpp").string();
  const std::string reduce = (kRepo / "examples/kernels/reduce.cpp").string();
  Result result =
      scan_paths({elementwise, reduce}, {"-std=c++17", "-I" + (kRepo / "include").string(),
                                         "-I" + (kRepo / "examples/include").string()});
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 9u);
  EXPECT_EQ(result.module.libclang_version, libclang_version());
  EXPECT_NE(libclang_version().find("clang version"), std::string::npos);
  const ir::Kernel* mean = find_kernel(result.module, "demo::mean.out");
  ASSERT_NE(mean, nullptr);
  EXPECT_EQ(mean->schema, "demo::mean.out(Tensor self, int[]? dims, ScalarType? dtype, *, "
                          "Tensor(a!) out) -> Tensor(a!)");
}

// ---------------------------------------------------------------------------
// Scanning: arguments and compilation databases

TEST(ScanArguments, GccOnlyFlagIsDroppedWithANote) {
  const std::string file = data_file("returns.cpp");
  Result result = scan_paths({file}, {"-std=c++17", "-fconcepts", "-fno-gnu-unique"});
  ASSERT_EQ(result.diagnostics.size(), 2u) << describe(result.diagnostics);
  for (const diag::Diagnostic& d : result.diagnostics) {
    EXPECT_EQ(d.severity, diag::Severity::note);
    EXPECT_EQ(d.code, "opscan-dropped-flag");
    EXPECT_EQ(d.location.file, shown(file));
  }
  EXPECT_EQ(result.diagnostics[0].message, "dropped '-fconcepts', which libclang does not accept");
  EXPECT_EQ(result.module.kernels.size(), 3u);

  // What happens to a flag clang does not know and opscan does not drop.
  Result unknown = scan_paths({file}, {"-std=c++17", "-fno-such-flag"});
  ASSERT_EQ(unknown.diagnostics.size(), 1u) << describe(unknown.diagnostics);
  EXPECT_EQ(unknown.diagnostics[0].code, "opscan-clang-error");
  EXPECT_EQ(unknown.diagnostics[0].message, "unknown argument: '-fno-such-flag'");
}

TEST(ScanArguments, MissingFile) {
  const std::string file = data_file("no_such_file.cpp");
  Result result = scan_paths({file});
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-parse-failed");
  EXPECT_EQ(result.diagnostics[0].location.file, shown(file));
  EXPECT_TRUE(result.module.kernels.empty());
}

// A build tree: build/compile_commands.json for src/*.cpp, with relative
// include paths (resolved against the entry's directory).
class CompilationDatabaseTest : public testing::Test {
protected:
  void SetUp() override {
    const std::string kernel = R"(#include "local.h"
OPSCAN_KERNEL("t::NAME.out")
Tensor& NAME_out(const Tensor& self, Tensor& out);
)";
    auto source = [&](const std::string& name) {
      std::string text = kernel;
      for (size_t at; (at = text.find("NAME")) != std::string::npos;)
        text.replace(at, 4, name);
      return text;
    };
    dir_.write("inc/local.h", "#include \"" + data_file("et_types.h") + "\"\n");
    one_ = dir_.write("src/one.cpp", source("one"));
    two_ = dir_.write("src/two.cpp", source("two"));
    absent_ = dir_.write("src/absent.cpp", source("absent"));
    const std::string build = (dir_.path() / "build").string();
    dir_.write("build/compile_commands.json", R"([
  {"directory": ")" + build + R"(",
   "arguments": ["/usr/bin/g++", "-std=c++17", "-I../inc", "-fconcepts-diagnostics-depth=2",
                 "-o", "one.o", "-c", "../src/one.cpp"],
   "file": "../src/one.cpp"},
  {"directory": ")" + build + R"(",
   "command": "/usr/bin/g++ -std=c++17 -I../inc -DTWO=1 -o two.o -c )" +
                                                  two_ + R"(",
   "file": ")" + two_ + R"("}
])");
  }

  Result scan_with_database(std::vector<std::string> files, unsigned jobs = 1) {
    Options options;
    options.files = std::move(files);
    options.build_dir = (dir_.path() / "build").string();
    options.jobs = jobs;
    return scan(options);
  }

  TempDir dir_;
  std::string one_, two_, absent_;
};

TEST_F(CompilationDatabaseTest, ArgumentsAndCommandEntries) {
  const fs::path cwd = fs::current_path();
  Result result = scan_with_database({one_, two_}, 2);
  // The entries' directory applies to their paths, not to the process.
  EXPECT_EQ(fs::current_path(), cwd);
  // one.cpp's entry has a GCC-only flag.
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-dropped-flag");
  EXPECT_EQ(result.diagnostics[0].location.file, shown(one_));
  EXPECT_EQ(result.diagnostics[0].message,
            "dropped '-fconcepts-diagnostics-depth=2', which libclang does not accept");
  EXPECT_EQ(schemas(result.module),
            (std::vector<std::string>{"t::one.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                                      "t::two.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"}));
  EXPECT_EQ(result.module.kernels[0].location.file, shown(one_));
  EXPECT_EQ(result.module.kernels[0].location.line, 3u);
}

TEST_F(CompilationDatabaseTest, FileMissingFromTheDatabase) {
  // libclang would infer a command from one.cpp's; opscan does not guess.
  Result result = scan_with_database({absent_});
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-no-compile-command");
  EXPECT_EQ(result.diagnostics[0].severity, diag::Severity::error);
  EXPECT_EQ(result.diagnostics[0].location.file, shown(absent_));
  EXPECT_NE(result.diagnostics[0].message.find("no entry for this file in"), std::string::npos);
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST_F(CompilationDatabaseTest, MissingDatabase) {
  Options options;
  options.files = {one_};
  options.build_dir = dir_.path().string(); // no compile_commands.json here
  Result result = scan(options);
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-no-compile-commands");
  EXPECT_EQ(result.diagnostics[0].message,
            "cannot read " + (dir_.path() / "compile_commands.json").string());
  EXPECT_TRUE(result.module.kernels.empty());
}

// ---------------------------------------------------------------------------
// Determinism

TEST(ScanDeterminism, JobsAndFileOrderDoNotChangeTheOutput) {
  std::vector<std::string> files = {
      data_file("decl_def.cpp"), data_file("also_includes.cpp"), data_file("returns.cpp"),
      data_file("declared.cpp"), data_file("macro.cpp"),
  };
  Result serial = scan_paths(files, kArgs, 1);
  Result parallel = scan_paths(files, kArgs, 2);
  std::reverse(files.begin(), files.end());
  Result reversed = scan_paths(files, kArgs, 2);

  const std::string json = ir::to_json(serial.module);
  EXPECT_EQ(serial.module.kernels.size(), 10u);
  EXPECT_EQ(ir::to_json(parallel.module), json);
  EXPECT_EQ(ir::to_json(reversed.module), json);
  EXPECT_EQ(describe(parallel.diagnostics), describe(serial.diagnostics));
  EXPECT_EQ(describe(reversed.diagnostics), describe(serial.diagnostics));
  EXPECT_EQ(serial.diagnostics.size(), 3u) << describe(serial.diagnostics);
}

// ---------------------------------------------------------------------------
// Fragment cache: what a re-scan parses again.

class FragmentCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("opscan-cache-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src");
    write("src/h1.h", "#pragma once\n#include \"" + data_file("et_types.h") + "\"\n");
    write("src/h2.h", "#pragma once\n#include \"" + data_file("et_types.h") + "\"\n");
    for (const char* name : {"a", "b", "c"}) {
      // a and b include h1.h; c includes h2.h.
      const std::string header = std::string(name) == "c" ? "h2.h" : "h1.h";
      write(std::string("src/") + name + ".cpp",
            "#include \"" + header + "\"\nOPSCAN_KERNEL(\"t::" + name + ".out\")\nTensor& " + name +
                "_out(KernelRuntimeContext& ctx, const Tensor& self, "
                "Tensor& out);\n");
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  Result run(std::vector<std::string> args = kArgs, unsigned jobs = 1) {
    Options options;
    for (const char* name : {"a", "b", "c"}) {
      options.files.push_back((dir_ / "src" / (std::string(name) + ".cpp")).string());
    }
    options.extra_args = std::move(args);
    options.jobs = jobs;
    options.cache_dir = (dir_ / "cache").string();
    return scan(options);
  }
  fs::path dir_;
};

TEST_F(FragmentCacheTest, ProgressIsReportedOncePerFileInOrder) {
  Options options;
  for (const char* name : {"a", "b", "c"}) {
    options.files.push_back((dir_ / "src" / (std::string(name) + ".cpp")).string());
  }
  options.extra_args = kArgs;
  options.jobs = 2;
  std::vector<size_t> done;
  std::set<std::string> files;
  options.progress = [&](size_t n, size_t total, const std::string& file) {
    EXPECT_EQ(total, 3u);
    done.push_back(n);
    files.insert(file);
  };
  scan(options);
  EXPECT_EQ(done, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(files.size(), 3u);
}

TEST_F(FragmentCacheTest, NoChangeParsesNothing) {
  Result cold = run();
  ASSERT_TRUE(cold.diagnostics.empty()) << describe(cold.diagnostics);
  EXPECT_EQ(cold.files_parsed, 3u);
  Result warm = run();
  EXPECT_EQ(warm.files_parsed, 0u);
  EXPECT_EQ(ir::to_json(warm.module), ir::to_json(cold.module));
}

TEST_F(FragmentCacheTest, AHeaderChangeReparsesExactlyItsIncluders) {
  Result cold = run();
  write("src/h1.h", "#pragma once\n#include \"" + data_file("et_types.h") + "\"\n// changed\n");
  Result after = run();
  EXPECT_EQ(after.files_parsed, 2u); // a and b, not c
  EXPECT_EQ(ir::to_json(after.module), ir::to_json(cold.module));
  // A changed source: only that file.
  write("src/c.cpp", "#include \"h2.h\"\nOPSCAN_KERNEL(\"t::c2.out\")\nTensor& c_out("
                     "KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n");
  Result changed = run();
  EXPECT_EQ(changed.files_parsed, 1u);
  ASSERT_EQ(changed.module.kernels.size(), 3u);
  EXPECT_EQ(changed.module.kernels[2].op.str(), "t::c2.out");
}

TEST_F(FragmentCacheTest, AFlagChangeReparsesEverything) {
  run();
  EXPECT_EQ(run({"-std=c++17", "-DSOMETHING=1"}).files_parsed, 3u);
  EXPECT_EQ(run({"-std=c++17", "-DSOMETHING=1"}).files_parsed, 0u);
}

TEST_F(FragmentCacheTest, DamagedEntriesAreRebuilt) {
  Result cold = run();
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir_ / "cache"))
    entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 3u);
  std::sort(entries.begin(), entries.end());
  fs::resize_file(entries[0], fs::file_size(entries[0]) / 2); // truncated
  std::ofstream(entries[1], std::ios::binary) << "not a cache entry";
  Result after = run();
  EXPECT_EQ(after.files_parsed, 2u);
  EXPECT_TRUE(after.diagnostics.empty()) << describe(after.diagnostics);
  EXPECT_EQ(ir::to_json(after.module), ir::to_json(cold.module));
  EXPECT_EQ(run().files_parsed, 0u); // and rewritten whole
}

TEST_F(FragmentCacheTest, ConcurrentRunsShareTheCacheSafely) {
  Result results[2];
  std::thread first([&] { results[0] = run(kArgs, 2); });
  std::thread second([&] { results[1] = run(kArgs, 2); });
  first.join();
  second.join();
  EXPECT_TRUE(results[0].diagnostics.empty());
  EXPECT_TRUE(results[1].diagnostics.empty());
  EXPECT_EQ(ir::to_json(results[0].module), ir::to_json(results[1].module));
  Result warm = run();
  EXPECT_EQ(warm.files_parsed, 0u);
  EXPECT_EQ(ir::to_json(warm.module), ir::to_json(results[0].module));
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(dir_ / "cache")) {
    EXPECT_EQ(e.path().extension(), ".entry") << e.path();
  }
}

// ---------------------------------------------------------------------------
// Declared-schema mismatches
//
// Kernels under test/data/scan/mismatch/ whose declared schema does not fit
// their C++ signature, one row each: every error exactly, and the fix-it that
// rewrites the annotation's string literal(s) to the repaired schema. The
// proof that a fix works: each file with its fix-its applied scans without a
// diagnostic, every kernel keeping its repaired schema as declared.

struct MismatchError {
  std::string code;
  uint32_t line;
  uint32_t column;
  std::string message; // all of it
};

struct MismatchCase {
  std::string name; // the C++ function
  std::string file; // in test/data/scan/mismatch/
  // Where the spec's (first) string literal starts, at its opening quote.
  struct {
    uint32_t line;
    uint32_t column;
  } at;
  std::string written;               // the literal(s) as in the file: what the fix-it replaces
  std::string fixed;                 // the repaired schema, which the fix-it writes quoted
  std::vector<MismatchError> errors; // in order
};

const std::vector<MismatchCase> kMismatches = {
    // Argument count: the error is at the function's name.
    {"sum_out",
     "count.cpp",
     {7, 15},
     R"x("t::sum.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::sum.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-count", 8, 9,
       "schema has 4 arguments, the C++ function takes 3 (after the runtime context)"}}},
    {"cumsum_out",
     "count.cpp",
     {11, 15},
     R"x("t::cumsum.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::cumsum.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-count", 12, 9,
       "schema has 2 arguments, the C++ function takes 3 (after the runtime context)"}}},
    {"seed",
     "count.cpp",
     {15, 15},
     R"x("t::seed() -> ()")x",
     R"(t::seed(int value) -> ())",
     {{"opscan-mismatch-count", 16, 6, "schema has 0 arguments, the C++ function takes 1"}}},
    {"now",
     "count.cpp",
     {19, 15},
     R"x("t::now(int unit) -> int")x",
     R"(t::now() -> int)",
     {{"opscan-mismatch-count", 20, 9,
       "schema has 1 argument, the C++ function takes 0 (after the runtime context)"}}},
    {"clamp_out",
     "count.cpp",
     {23, 15},
     R"x("t::clamp.out(Tensor input, Scalar? min=None, Scalar? max=None, Tensor? weight=None, *, Tensor(a!) result) -> Tensor(a!)")x",
     R"(t::clamp.out(Tensor input, Scalar? min=None, *, Tensor(a!) result) -> Tensor(a!))",
     {{"opscan-mismatch-count", 24, 9, "schema has 5 arguments, the C++ function takes 3"}}},
    {"aminmax_out",
     "count.cpp",
     {27, 15},
     R"x("t::aminmax.out(Tensor self, *, Tensor(a!) max) -> Tensor(a!)")x",
     R"(t::aminmax.out(Tensor self, *, Tensor(b!) min, Tensor(a!) max) -> (Tensor(b!), Tensor(a!)))",
     {{"opscan-mismatch-count", 28, 30, "schema has 2 arguments, the C++ function takes 3"}}},
    {"join",
     "count.cpp",
     {31, 15},
     R"x("t::join(Tensor[] parts, str sep=\"-\") -> ()")x",
     R"(t::join(Tensor[] parts, int limit, str sep="-") -> ())",
     {{"opscan-mismatch-count", 32, 6, "schema has 2 arguments, the C++ function takes 3"}}},
    // Argument types: each kind of swap. A changed type loses its default.
    {"add_out",
     "types.cpp",
     {6, 15},
     R"x("t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(o!) out) -> Tensor(o!)")x",
     R"(t::add.out(Tensor self, Tensor other, *, int alpha, Tensor(o!) out) -> Tensor(o!))",
     {{"opscan-mismatch-type", 7, 93,
       "argument 3 'alpha': schema says Scalar, C++ parameter is 'int64_t'"}}},
    {"roll",
     "types.cpp",
     {9, 15},
     R"x("t::roll(Tensor self, int shifts) -> Tensor")x",
     R"(t::roll(Tensor self, Scalar shifts) -> Tensor)",
     {{"opscan-mismatch-type", 10, 47,
       "argument 2 'shifts': schema says int, C++ parameter is 'const executorch::aten::Scalar "
       "&'"}}},
    {"norm_out",
     "types.cpp",
     {12, 15},
     R"x("t::norm.out(Tensor self, float p=2, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::norm.out(Tensor self, Scalar p, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 13, 52,
       "argument 2 'p': schema says float, C++ parameter is 'const executorch::aten::Scalar &'"}}},
    {"fill",
     "types.cpp",
     {15, 15},
     R"x("t::fill.Scalar(Tensor self, Scalar value) -> Tensor")x",
     R"(t::fill.Scalar(Tensor self, float value) -> Tensor)",
     {{"opscan-mismatch-type", 16, 40,
       "argument 2 'value': schema says Scalar, C++ parameter is 'double'"}}},
    {"any",
     "types.cpp",
     {18, 15},
     R"x("t::any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor")x",
     R"(t::any.dim(Tensor self, int dim, int keepdim) -> Tensor)",
     {{"opscan-mismatch-type", 19, 53,
       "argument 3 'keepdim': schema says bool, C++ parameter is 'int64_t'"}}},
    {"tril",
     "types.cpp",
     {21, 15},
     R"x("t::tril(Tensor self, int diagonal) -> Tensor")x",
     R"(t::tril(Tensor self, bool diagonal) -> Tensor)",
     {{"opscan-mismatch-type", 22, 38,
       "argument 2 'diagonal': schema says int, C++ parameter is 'bool'"}}},
    {"dropout",
     "types.cpp",
     {24, 15},
     R"x("t::dropout(Tensor input, Tensor mask) -> Tensor")x",
     R"(t::dropout(Tensor input, Tensor? mask) -> Tensor)",
     {{"opscan-mismatch-type", 25, 66,
       "argument 2 'mask': schema says Tensor, C++ parameter is 'const std::optional<Tensor> &'"}}},
    {"linear",
     "types.cpp",
     {27, 15},
     R"x("t::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")x",
     R"(t::linear(Tensor input, Tensor weight, Tensor bias) -> Tensor)",
     {{"opscan-mismatch-type", 28, 72,
       "argument 3 'bias': schema says Tensor?, C++ parameter is 'const executorch::aten::Tensor "
       "&'"}}},
    {"squeeze",
     "types.cpp",
     {30, 15},
     R"x("t::squeeze.dim(Tensor self, int[1] dim) -> Tensor")x",
     R"(t::squeeze.dim(Tensor self, int dim) -> Tensor)",
     {{"opscan-mismatch-type", 31, 44,
       "argument 2 'dim': schema says int[1], C++ parameter is 'int64_t'"}}},
    {"permute",
     "types.cpp",
     {33, 15},
     R"x("t::permute(Tensor self, int dims) -> Tensor")x",
     R"(t::permute(Tensor self, int[] dims) -> Tensor)",
     {{"opscan-mismatch-type", 34, 54,
       "argument 2 'dims': schema says int, C++ parameter is 'ArrayRef<int64_t>'"}}},
    {"to_dtype",
     "types.cpp",
     {36, 15},
     R"x("t::to_dtype(Tensor self, ScalarType dtype, bool copy=False) -> Tensor")x",
     R"(t::to_dtype(Tensor self, int dtype, bool copy=False) -> Tensor)",
     {{"opscan-mismatch-type", 37, 45,
       "argument 2 'dtype': schema says ScalarType, C++ parameter is 'int64_t'"}}},
    {"cast_out",
     "types.cpp",
     {39, 15},
     R"x("t::cast.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::cast.out(Tensor self, *, ScalarType dtype, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 40, 49,
       "argument 2 'dtype': schema says ScalarType?, C++ parameter is "
       "'executorch::aten::ScalarType'"}}},
    {"reduce",
     "types.cpp",
     {42, 15},
     R"x("t::reduce(Tensor self, str mode) -> Tensor")x",
     R"(t::reduce(Tensor self, Tensor mode) -> Tensor)",
     {{"opscan-mismatch-type", 43, 49,
       "argument 2 'mode': schema says str, C++ parameter is 'const executorch::aten::Tensor &'"}}},
    {"lookup",
     "types.cpp",
     {45, 15},
     R"x("t::lookup(Tensor table, Tensor key) -> Tensor")x",
     R"(t::lookup(Tensor table, str key) -> Tensor)",
     {{"opscan-mismatch-type", 46, 53,
       "argument 2 'key': schema says Tensor, C++ parameter is 'std::string_view'"}}},
    {"stack",
     "types.cpp",
     {48, 15},
     R"x("t::stack(Tensor[] tensors, int dim=0) -> Tensor")x",
     R"(t::stack(Tensor tensors, int dim=0) -> Tensor)",
     {{"opscan-mismatch-type", 49, 28,
       "argument 1 'tensors': schema says Tensor[], C++ parameter is 'const "
       "executorch::aten::Tensor &'"}}},
    {"unbind_sum",
     "types.cpp",
     {51, 15},
     R"x("t::unbind_sum(Tensor self) -> Tensor")x",
     R"(t::unbind_sum(Tensor[] self) -> Tensor)",
     {{"opscan-mismatch-type", 52, 36,
       "argument 1 'self': schema says Tensor, C++ parameter is "
       "'ArrayRef<executorch::aten::Tensor>'"}}},
    {"argmax",
     "types.cpp",
     {54, 15},
     R"x("t::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")x",
     R"(t::argmax(Tensor self, int dim, bool keepdim=False) -> Tensor)",
     {{"opscan-mismatch-type", 55, 43,
       "argument 2 'dim': schema says int?, C++ parameter is 'int64_t'"}}},
    {"index",
     "types.cpp",
     {57, 15},
     R"x("t::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")x",
     R"(t::index.Tensor(Tensor self, Tensor[] indices) -> Tensor)",
     {{"opscan-mismatch-type", 58, 51,
       "argument 2 'indices': schema says Tensor?[], C++ parameter is "
       "'ArrayRef<executorch::aten::Tensor>'"}}},
    {"index_put",
     "types.cpp",
     {60, 15},
     R"x("t::index_put(Tensor self, Tensor[] indices, Tensor values) -> Tensor")x",
     R"(t::index_put(Tensor self, Tensor?[] indices, Tensor values) -> Tensor)",
     {{"opscan-mismatch-type", 61, 70,
       "argument 2 'indices': schema says Tensor[], C++ parameter is "
       "'ArrayRef<std::optional<Tensor>>'"}}},
    {"amax",
     "types.cpp",
     {63, 15},
     R"x("t::amax(Tensor self, int[]? dim=None) -> Tensor")x",
     R"(t::amax(Tensor self, int[] dim) -> Tensor)",
     {{"opscan-mismatch-type", 64, 51,
       "argument 2 'dim': schema says int[]?, C++ parameter is 'ArrayRef<int64_t>'"}}},
    {"upsample",
     "types.cpp",
     {66, 15},
     R"x("t::upsample(Tensor self, float[] scales) -> Tensor")x",
     R"(t::upsample(Tensor self, int[] scales) -> Tensor)",
     {{"opscan-mismatch-type", 67, 55,
       "argument 2 'scales': schema says float[], C++ parameter is 'ArrayRef<int64_t>'"}}},
    {"var",
     "types.cpp",
     {70, 15},
     R"x("t::var(Tensor self, int dim=0, bool unbiased=True) -> Tensor")x",
     R"(t::var(Tensor self, int dim, float unbiased) -> Tensor)",
     {{"opscan-mismatch-type", 71, 52,
       "argument 3 'unbiased': schema says bool, C++ parameter is 'double'"}}},
    {"scatter_reduce_out",
     "types.cpp",
     {74, 15},
     R"x("t::scatter_reduce.out(Tensor self, int dim, Tensor index, Tensor src, str reduce='sum', *, bool include_self=True, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::scatter_reduce.out(Tensor self, int dim, int[] index, Tensor src, str reduce='sum', *, bool include_self=True, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 75, 79,
       "argument 3 'index': schema says Tensor, C++ parameter is 'ArrayRef<int64_t>'"}}},
    // Mutability, both ways, and in-place operators.
    {"neg_out",
     "mutability.cpp",
     {8, 15},
     R"x("t::neg.out(Tensor self, *, Tensor out) -> Tensor(a!)")x",
     R"(t::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-mutability", 9, 45,
       "argument 2 'out': schema says Tensor (read-only), C++ parameter is "
       "'executorch::aten::Tensor &' (written by the kernel): take it as a const reference"}}},
    {"zero_out",
     "mutability.cpp",
     {12, 15},
     R"x("t::zero.out(Scalar value, *, Tensor(a!) out) -> ()")x",
     R"(t::zero.out(Scalar value, *, Tensor out) -> ())",
     {{"opscan-mismatch-mutability", 13, 77,
       "argument 2 'out': schema says Tensor(a!) (written by the kernel), C++ parameter is 'const "
       "executorch::aten::Tensor &' (read-only): take it as a non-const reference"}}},
    {"add_relu_out",
     "mutability.cpp",
     {16, 15},
     R"x("t::add_relu.out(Tensor self, Tensor other, *, Tensor(a!) out) -> ()")x",
     R"(t::add_relu.out(Tensor(b!) self, Tensor other, *, Tensor(a!) out) -> ())",
     {{"opscan-mismatch-mutability", 17, 27,
       "argument 1 'self': schema says Tensor (read-only), C++ parameter is "
       "'executorch::aten::Tensor &' (written by the kernel): take it as a const reference"}}},
    {"bn_update",
     "mutability.cpp",
     {20, 15},
     R"x("t::bn_update(Tensor input, Tensor(a!) running_mean, Tensor(b!) running_var, float momentum) -> ()")x",
     R"(t::bn_update(Tensor input, Tensor running_mean, Tensor(b!) running_var, float momentum) -> ())",
     {{"opscan-mismatch-mutability", 21, 51,
       "argument 2 'running_mean': schema says Tensor(a!) (written by the kernel), C++ parameter "
       "is 'const executorch::aten::Tensor &' (read-only): take it as a non-const reference"}}},
    {"accumulate",
     "mutability.cpp",
     {24, 15},
     R"x("t::accumulate(Tensor self, *, Tensor(a!)? grad) -> ()")x",
     R"(t::accumulate(Tensor self, *, Tensor? grad) -> ())",
     {{"opscan-mismatch-mutability", 25, 66,
       "argument 2 'grad': schema says Tensor(a!)? (written by the kernel), C++ parameter is "
       "'const std::optional<Tensor> &' (read-only): take it as a non-const reference"}}},
    {"relu_",
     "mutability.cpp",
     {28, 15},
     R"x("t::relu_(Tensor self) -> Tensor")x",
     R"(t::relu_(Tensor(a!) self) -> Tensor(a!))",
     {{"opscan-mismatch-returns", 29, 9,
       "schema returns Tensor, the C++ function returns 'executorch::aten::Tensor &', which is "
       "Tensor(a!) in a schema"},
      {"opscan-mismatch-mutability", 29, 23,
       "argument 1 'self': schema says Tensor (read-only), C++ parameter is "
       "'executorch::aten::Tensor &' (written by the kernel): take it as a const reference"}}},
    {"mul_",
     "mutability.cpp",
     {32, 15},
     R"x("t::mul_.Scalar(Tensor(s!) self, Scalar other) -> Tensor(s!)")x",
     R"(t::mul_.Scalar(Tensor(s!) self, float other) -> Tensor(s!))",
     {{"opscan-mismatch-type", 33, 62,
       "argument 2 'other': schema says Scalar, C++ parameter is 'double'"}}},
    // Arguments out of order: only their names tell.
    {"sub_out",
     "order.cpp",
     {6, 15},
     R"x("t::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::sub.out(Tensor other, Tensor self, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-order", 7, 31,
       "argument 1: schema says 'self', the C++ parameter here is 'other', which is argument 2 in "
       "the schema"},
      {"opscan-mismatch-order", 7, 52,
       "argument 2: schema says 'other', the C++ parameter here is 'self', which is argument 1 in "
       "the schema"}}},
    {"sort_values",
     "order.cpp",
     {10, 15},
     R"x("t::sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)")x",
     R"(t::sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(b!) indices, Tensor(a!) values) -> (Tensor(b!) indices, Tensor(a!) values))",
     {{"opscan-mismatch-order", 11, 100,
       "argument 4: schema says 'values', the C++ parameter here is 'indices', which is argument 5 "
       "in the schema"},
      {"opscan-mismatch-order", 11, 117,
       "argument 5: schema says 'indices', the C++ parameter here is 'values', which is argument 4 "
       "in the schema"}}},
    {"addmm",
     "order.cpp",
     {14, 15},
     R"x("t::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")x",
     R"(t::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar alpha=1, Scalar beta=1) -> Tensor)",
     {{"opscan-mismatch-order", 15, 88,
       "argument 4: schema says 'beta', the C++ parameter here is 'alpha', which is argument 5 in "
       "the schema"},
      {"opscan-mismatch-order", 15, 109,
       "argument 5: schema says 'alpha', the C++ parameter here is 'beta', which is argument 4 in "
       "the schema"}}},
    {"topk",
     "order.cpp",
     {18, 15},
     R"x("t::topk(Tensor self, int k, int dim=-1, bool largest=True) -> Tensor")x",
     R"(t::topk(Tensor self, bool largest, int k, int dim=-1) -> Tensor)",
     {{"opscan-mismatch-type", 19, 38, "argument 2 'k': schema says int, C++ parameter is 'bool'"},
      {"opscan-mismatch-order", 19, 55,
       "argument 3: schema says 'dim', the C++ parameter here is 'k', which is argument 2 in the "
       "schema"},
      {"opscan-mismatch-type", 19, 66,
       "argument 4 'largest': schema says bool, C++ parameter is 'int64_t'"}}},
    {"where",
     "order.cpp",
     {22, 15},
     R"x("t::where(Tensor condition, Tensor self, Tensor other) -> Tensor")x",
     R"(t::where(Tensor self, Tensor other, Tensor condition) -> Tensor)",
     {{"opscan-mismatch-order", 23, 28,
       "argument 1: schema says 'condition', the C++ parameter here is 'self', which is argument 2 "
       "in the schema"},
      {"opscan-mismatch-order", 23, 48,
       "argument 2: schema says 'self', the C++ parameter here is 'other', which is argument 3 in "
       "the schema"},
      {"opscan-mismatch-order", 23, 69,
       "argument 3: schema says 'other', the C++ parameter here is 'condition', which is argument "
       "1 in the schema"}}},
    // Returns: the error is at the function's name.
    {"frexp",
     "returns.cpp",
     {6, 15},
     R"x("t::frexp(Tensor self) -> (Tensor mantissa, Tensor exponent)")x",
     R"(t::frexp(Tensor self) -> Tensor)",
     {{"opscan-mismatch-returns", 7, 8,
       "schema returns (Tensor mantissa, Tensor exponent), the C++ function returns "
       "'executorch::aten::Tensor', which is Tensor in a schema"}}},
    {"abs_out",
     "returns.cpp",
     {9, 15},
     R"x("t::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor")x",
     R"(t::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-returns", 10, 9,
       "schema returns Tensor, the C++ function returns 'executorch::aten::Tensor &', which is "
       "Tensor(a!) in a schema"}}},
    {"max_out",
     "returns.cpp",
     {12, 15},
     R"x("t::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> Tensor(a!)")x",
     R"(t::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!), Tensor(b!)))",
     {{"opscan-mismatch-returns", 13, 30,
       "schema returns Tensor(a!), the C++ function returns 'std::tuple<Tensor &, Tensor &>', "
       "which is (Tensor(a!), Tensor(b!)) in a schema"}}},
    {"copy_out",
     "returns.cpp",
     {15, 15},
     R"x("t::copy.out(Tensor self, *, Tensor(a!) out) -> ()")x",
     R"(t::copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-returns", 16, 9,
       "schema returns (), the C++ function returns 'executorch::aten::Tensor &', which is "
       "Tensor(a!) in a schema"}}},
    {"ceil_out",
     "returns.cpp",
     {18, 15},
     R"x("t::ceil.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::ceil.out(Tensor self, *, Tensor(a!) out) -> ())",
     {{"opscan-mismatch-returns", 19, 6,
       "schema returns Tensor(a!), the C++ function returns 'void', which is () in a schema"}}},
    {"numel",
     "returns.cpp",
     {21, 15},
     R"x("t::numel(Tensor self) -> int")x",
     R"(t::numel(Tensor self) -> float)",
     {{"opscan-mismatch-returns", 22, 8,
       "schema returns int, the C++ function returns 'double', which is float in a schema"}}},
    {"item",
     "returns.cpp",
     {24, 15},
     R"x("t::item(Tensor self) -> Scalar")x",
     R"(t::item(Tensor self) -> bool)",
     {{"opscan-mismatch-returns", 25, 6,
       "schema returns Scalar, the C++ function returns 'bool', which is bool in a schema"}}},
    {"mean_count",
     "returns.cpp",
     {27, 15},
     R"x("t::mean_count(Tensor self) -> (Tensor mean, int count)")x",
     R"(t::mean_count(Tensor self) -> (Tensor mean, float count))",
     {{"opscan-mismatch-returns", 28, 28,
       "schema returns (Tensor mean, int count), the C++ function returns 'std::tuple<Tensor, "
       "double>', which is (Tensor, float) in a schema"}}},
    {"norm_value",
     "returns.cpp",
     {30, 15},
     R"x("t::norm_value(Tensor self) -> float")x",
     R"(t::norm_value(Tensor self) -> Tensor)",
     {{"opscan-mismatch-returns", 31, 8,
       "schema returns float, the C++ function returns 'executorch::aten::Tensor', which is Tensor "
       "in a schema"}}},
    {"kthvalue",
     "returns.cpp",
     {34, 15},
     R"x("t::kthvalue(Tensor self, int k, int dim=-1) -> (Tensor values, Tensor indices)")x",
     R"(t::kthvalue(Tensor self, float k, int dim=-1) -> (Tensor values, Tensor indices))",
     {{"opscan-mismatch-type", 35, 64,
       "argument 2 'k': schema says int, C++ parameter is 'double'"}}},
    {"select",
     "returns.cpp",
     {38, 15},
     R"x("t::select.int(Tensor(a) self, int dim, int index) -> Tensor(a)")x",
     R"(t::select.int(Tensor(a) self, int dim, float index) -> Tensor(a))",
     {{"opscan-mismatch-type", 39, 55,
       "argument 3 'index': schema says int, C++ parameter is 'double'"}}},
    // Annotations written in other ways.
    {"pow_out",
     "annotations.cpp",
     {9, 5},
     R"x("t::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::pow.Tensor_Scalar_out(Tensor self, float exponent, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 10, 44,
       "argument 2 'exponent': schema says Scalar, C++ parameter is 'double'"}}},
    {"lerp_out",
     "annotations.cpp",
     {13, 15},
     R"x("t::lerp.Scalar_out(Tensor self, Tensor end, "
              "Scalar weight, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::lerp.Scalar_out(Tensor self, Tensor end, int weight, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 15, 65,
       "argument 3 'weight': schema says Scalar, C++ parameter is 'int64_t'"}}},
    {"elu_out",
     "annotations.cpp",
     {18, 15},
     R"x("t::" "elu.out" "(Tensor self, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::elu.out(Tensor self, float alpha, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 19, 44,
       "argument 2 'alpha': schema says Scalar, C++ parameter is 'double'"}}},
    {"hardtanh_out",
     "annotations.cpp",
     {22, 15},
     R"x("t::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::hardtanh.out(Tensor self, float min_val, float max_val, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 23, 76,
       "argument 2 'min_val': schema says Scalar, C++ parameter is 'double'"},
      {"opscan-mismatch-type", 23, 92,
       "argument 3 'max_val': schema says Scalar, C++ parameter is 'double'"}}},
    {"softmax_out",
     "annotations.cpp",
     {26, 15},
     R"x("t::softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::softmax.out(Tensor self, int dim, int half_to_float, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 28, 62,
       "argument 3 'half_to_float': schema says bool, C++ parameter is 'int64_t'"}}},
    {"gelu_out",
     "annotations.cpp",
     {31, 18},
     R"x("t::gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::gelu.out(Tensor self, *, bool approximate, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 32, 43,
       "argument 2 'approximate': schema says str, C++ parameter is 'bool'"}}},
};

std::string mismatch_file(const std::string& file) {
  return data_file("mismatch/" + file);
}

std::string text_of(const std::string& path) {
  std::optional<std::string> text = support::read_file(path);
  EXPECT_TRUE(text) << "cannot read " << path;
  return text.value_or("");
}

// The byte offset of a 1-based line and column in `text`.
size_t offset_of(std::string_view text, uint32_t line, uint32_t column) {
  size_t at = 0;
  for (uint32_t l = 1; l < line && at != std::string_view::npos; ++l) {
    at = text.find('\n', at);
    at = at == std::string_view::npos ? at : at + 1;
  }
  return at == std::string_view::npos ? at : at + column - 1;
}

std::vector<std::string> mismatch_files() {
  std::vector<std::string> files;
  for (const MismatchCase& c : kMismatches) {
    if (std::find(files.begin(), files.end(), c.file) == files.end())
      files.push_back(c.file);
  }
  return files;
}

// All files with mismatches, scanned together once.
const Result& mismatch_scan() {
  static const Result result = [] {
    std::vector<std::string> paths;
    for (const std::string& file : mismatch_files())
      paths.push_back(mismatch_file(file));
    return scan_paths(paths, kArgs, 0);
  }();
  return result;
}

// The diagnostics of the case's kernel: those in its file after its
// annotation and before the next case's.
diag::Diagnostics diagnostics_of(const MismatchCase& c, const diag::Diagnostics& all) {
  const std::string text = text_of(mismatch_file(c.file));
  const size_t begin = offset_of(text, c.at.line, c.at.column);
  size_t end = text.size();
  for (const MismatchCase& other : kMismatches) {
    const size_t at = offset_of(text, other.at.line, other.at.column);
    if (other.file == c.file && at > begin)
      end = std::min(end, at);
  }
  diag::Diagnostics mine;
  for (const diag::Diagnostic& d : all) {
    if (d.location.file == shown(mismatch_file(c.file)) && d.location.offset >= begin &&
        d.location.offset < end)
      mine.push_back(d);
  }
  return mine;
}

TEST(DeclaredMismatch, EachErrorHasTheRepairedSchemaAsNoteAndFixIt) {
  ASSERT_GE(kMismatches.size(), 40u);
  for (const MismatchCase& c : kMismatches) {
    SCOPED_TRACE(c.file + ": " + c.name);
    const std::string path = mismatch_file(c.file);
    const std::string text = text_of(path);
    const size_t offset = offset_of(text, c.at.line, c.at.column);
    ASSERT_LT(offset, text.size());
    // The row's literal is in the file where it says.
    ASSERT_EQ(text.substr(offset, c.written.size()), c.written);

    const diag::Diagnostics diags = diagnostics_of(c, mismatch_scan().diagnostics);
    ASSERT_EQ(diags.size(), c.errors.size()) << describe(diags);
    for (size_t i = 0; i < diags.size(); ++i) {
      const diag::Diagnostic& d = diags[i];
      const MismatchError& e = c.errors[i];
      SCOPED_TRACE("error " + std::to_string(i) + ": " + describe({d}));
      EXPECT_EQ(d.severity, diag::Severity::error);
      EXPECT_EQ(d.code, e.code);
      EXPECT_EQ(d.location.file, shown(path));
      EXPECT_EQ(d.location.line, e.line);
      EXPECT_EQ(d.location.column, e.column);
      EXPECT_EQ(d.location.offset, offset_of(text, e.line, e.column));
      EXPECT_EQ(d.message, e.message);
      // The note is at the spec's first character and spells out the fix.
      ASSERT_EQ(d.notes.size(), 1u);
      EXPECT_EQ(d.notes[0].message, "schema declared here; to fit the signature: " +
                                        support::cpp_string_literal(c.fixed));
      EXPECT_EQ(d.notes[0].location.file, shown(path));
      EXPECT_EQ(d.notes[0].location.line, c.at.line);
      EXPECT_EQ(d.notes[0].location.column, c.at.column + 1);
      // The fix-it replaces exactly the literal(s), and nothing after them
      // (fields such as key = "...").
      ASSERT_EQ(d.fixits.size(), 1u);
      const diag::FixIt& fix = d.fixits[0];
      EXPECT_EQ(fix.file, shown(path));
      EXPECT_EQ(fix.offset, offset);
      EXPECT_EQ(fix.length, c.written.size());
      EXPECT_EQ(fix.replacement, support::cpp_string_literal(c.fixed));
    }
  }
}

TEST(DeclaredMismatch, NothingElseIsReported) {
  const Result& result = mismatch_scan();
  size_t expected = 0;
  for (const MismatchCase& c : kMismatches)
    expected += c.errors.size();
  EXPECT_EQ(result.diagnostics.size(), expected) << describe(result.diagnostics);
  // No kernel with a mismatch is extracted.
  EXPECT_TRUE(result.module.kernels.empty()) << result.module.kernels.size() << " kernels";
}

TEST(DeclaredMismatch, RepairedSchemasAreValidAndCanonical) {
  for (const MismatchCase& c : kMismatches) {
    SCOPED_TRACE(c.file + ": " + c.name);
    schema::Parsed<schema::ParsedSchema> parsed = schema::parse_schema_with_layout(c.fixed);
    ASSERT_TRUE(parsed) << parsed.error->message;
    EXPECT_EQ(parsed.value->schema.str(), c.fixed);
    for (const schema::Error& e : schema::check_schema(parsed.value->schema, parsed.value->layout))
      ADD_FAILURE() << e.code << " at " << e.offset << ": " << e.message;
  }
}

// Every file of mismatch/ with its fix-its applied, in a temporary directory
// (its include of "../et_types.h" is found through -I), scanned together.
struct FixedScan {
  TempDir dir;
  std::map<std::string, std::string> paths; // by file name
  Result result;
};

const FixedScan& fixed_scan() {
  static const std::unique_ptr<FixedScan> fixed = [] {
    auto out = std::make_unique<FixedScan>();
    std::vector<std::string> paths;
    for (const std::string& file : mismatch_files()) {
      const std::string path = mismatch_file(file);
      std::vector<diag::FixIt> fixes;
      for (const diag::Diagnostic& d : mismatch_scan().diagnostics) {
        for (const diag::FixIt& f : d.fixits) {
          if (f.file == shown(path) && std::find(fixes.begin(), fixes.end(), f) == fixes.end())
            fixes.push_back(f);
        }
      }
      // From the end, so that earlier offsets stay valid.
      std::sort(fixes.begin(), fixes.end(),
                [](const diag::FixIt& a, const diag::FixIt& b) { return a.offset > b.offset; });
      std::string text = text_of(path);
      size_t limit = text.size();
      for (const diag::FixIt& f : fixes) {
        EXPECT_LE(f.offset + f.length, limit) << "overlapping fix-its in " << file;
        text.replace(f.offset, f.length, f.replacement);
        limit = f.offset;
      }
      out->paths[file] = out->dir.write("mismatch/" + file, text);
      paths.push_back(out->paths[file]);
    }
    out->result = scan_paths(paths, {"-std=c++17", "-I" + data_file("mismatch")}, 0);
    return out;
  }();
  return *fixed;
}

TEST(DeclaredMismatch, FixedFilesScanWithoutErrors) {
  const FixedScan& fixed = fixed_scan();
  EXPECT_TRUE(fixed.result.diagnostics.empty()) << describe(fixed.result.diagnostics);
  EXPECT_EQ(fixed.result.module.kernels.size(), kMismatches.size());
  for (const MismatchCase& c : kMismatches) {
    SCOPED_TRACE(c.file + ": " + c.name);
    const ir::Kernel* k = find_kernel(fixed.result.module, c.fixed.substr(0, c.fixed.find('(')));
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->schema, c.fixed);
    EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::declared);
    EXPECT_EQ(k->location.file, shown(fixed.paths.at(c.file)));
  }
}

TEST(DeclaredMismatch, DifferencesCppCannotExpressAreNotMismatches) {
  const Result& result = scanned("mismatch/accepted.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const std::vector<std::string> declared = {
      "t::alias(Tensor(a) self) -> Tensor(a)",
      "t::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
      "t::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) "
      "-> ()",
      "t::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
      "t::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
      "t::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, *, "
      "Tensor(out!) out) -> Tensor(out!)",
      "t::cumprod(Tensor input, *, int dim=0, ScalarType? dtype=None) -> Tensor",
  };
  EXPECT_EQ(result.module.kernels.size(), declared.size());
  for (const std::string& schema : declared) {
    SCOPED_TRACE(schema);
    const ir::Kernel* k = find_kernel(result.module, schema.substr(0, schema.find('(')));
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->schema, schema);
    EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::declared);
  }
}

// A declared schema that fits the signature but breaks torchgen's rules: the
// rule is reported at the schema (only once the signature fits it, since a
// fix-it for a mismatch rewrites the schema anyway).
TEST(DeclaredMismatch, DeclaredSchemaMustFollowTorchgenRules) {
  const std::string file = data_file("mismatch/rules.cpp");
  const Result& result = scanned("mismatch/rules.cpp");
  expect_diagnostics(result.diagnostics, file,
                     {{"opscan-schema-return-alias", 7, 60,
                       "return 0 'Tensor(a!)' aliases argument 'out', which is neither an out "
                       "argument nor 'self': make 'out' keyword-only (after '*') or do not return "
                       "it"}});
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST(DeclaredMismatch, AnnotationWrittenByAnotherMacroHasNoFixIt) {
  const std::string file = data_file("mismatch/macro.cpp");
  const Result& result = scanned("mismatch/macro.cpp");
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  const diag::Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.code, "opscan-mismatch-count");
  EXPECT_EQ(d.location.file, shown(file));
  EXPECT_EQ(d.location.line, 10u);
  EXPECT_EQ(d.location.column, 9u);
  EXPECT_EQ(d.message, "schema has 2 arguments, the C++ function takes 3");
  // The note is at the macro's use: the literal is not in the file as written.
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message, "schema declared here");
  EXPECT_EQ(d.notes[0].location.file, shown(file));
  EXPECT_EQ(d.notes[0].location.line, 9u);
  EXPECT_EQ(d.notes[0].location.column, 1u);
  EXPECT_TRUE(d.fixits.empty());
}

} // namespace
} // namespace opscan::scan
