// Schema inference from C++ signatures, the check of a declared or known
// schema against the inferred one, and the repair of a declared schema.
// Pure: no libclang.
#include "kernel/infer.h"
#include "kernel_test_helpers.h"
#include "schema/schema.h"

#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace opscan::kernel {
namespace {

using test_support::type;

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

TEST(InferSchema, InPlaceModifiesItsFirstArgumentNamedSelf) {
  // ExecuTorch's kernels call it 'in'; the schema calls it 'self'.
  EXPECT_EQ(infer("aten::copy_", {mut("in"), arg("src", "Tensor"), arg("non_blocking", "bool")},
                  {ret_ref()}),
            "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking) -> Tensor(a!)");
  // A list of tensors cannot say it is written; in-place, it is.
  EXPECT_EQ(infer("aten::_foreach_abs_", {arg("in", "Tensor[]")}, {}),
            "aten::_foreach_abs_(Tensor(a!)[] self) -> ()");
  // Unless 'self' names another argument.
  EXPECT_EQ(infer("t::odd_", {mut("x"), arg("self", "Tensor")}, {ret_ref()}),
            "t::odd_(Tensor(a!) x, Tensor self) -> Tensor(a!)");
}

TEST(InferSchema, OutVariantReturningNothingWritesATrailingTensorList) {
  EXPECT_EQ(infer("aten::unbind_copy.int_out",
                  {arg("input", "Tensor"), arg("dim", "int"), arg("out", "Tensor[]")}, {}),
            "aten::unbind_copy.int_out(Tensor input, int dim, *, Tensor(a!)[] out) -> ()");
  EXPECT_EQ(infer("aten::split_copy.out", {arg("self", "Tensor"), arg("out", "Tensor[]")}, {}),
            "aten::split_copy.out(Tensor self, *, Tensor(a!)[] out) -> ()");
  // Not an out variant, or one with another written tensor: a list it reads.
  EXPECT_EQ(infer("t::log.Tensors", {arg("tensors", "Tensor[]")}, {}),
            "t::log.Tensors(Tensor[] tensors) -> ()");
  EXPECT_EQ(infer("t::f.out", {arg("tensors", "Tensor[]"), mut("out")}, {}),
            "t::f.out(Tensor[] tensors, *, Tensor(a!) out) -> ()");
}

TEST(InferSchema, ReturnedReferencesAliasTheOutGroupAfterOtherMutableTensors) {
  EXPECT_EQ(infer("aten::_native_batch_norm_legit.out",
                  {arg("in", "Tensor"), mut("running_mean"), mut("running_var"),
                   arg("eps", "float"), mut("out"), mut("save_mean"), mut("save_invstd")},
                  {ret_ref(), ret_ref(), ret_ref()}),
            "aten::_native_batch_norm_legit.out(Tensor in, Tensor(a!) running_mean, Tensor(b!) "
            "running_var, float eps, *, Tensor(c!) out, Tensor(d!) save_mean, Tensor(e!) "
            "save_invstd) -> (Tensor(c!), Tensor(d!), Tensor(e!))");
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
  // Neither the out group nor every mutable tensor: the message tells both.
  EXPECT_EQ(infer("t::norm.out",
                  {mut("running_mean"), arg("eps", "float"), mut("out"), mut("mean")}, {ret_ref()}),
            "opscan-infer-return-count: returns 1 tensor reference but takes 3 mutable tensors (2 "
            "of them out tensors): a returned reference must be one of the out tensors, in order "
            "(return std::tuple<Tensor&, ...>)");
  EXPECT_EQ(infer("t::h", {arg("self", "Tensor")}, {ret_ref()}),
            "opscan-infer-return-count: returns 1 tensor reference but takes 0 mutable tensors: a "
            "returned reference must be one of the out tensors, in order");
}

TEST(InferSchema, MixedReturnsAreRefused) {
  EXPECT_EQ(infer("t::m.out", {arg("self", "Tensor"), mut("out")}, {ret_ref(), ret("Tensor")}),
            "opscan-infer-mixed-returns: returns mix references to tensors with values: return "
            "references to all out tensors, or values only");
}

TEST(InferSchema, AliasSetsGoOnPastZ) {
  // a..z, then a1, b1, ...: every written tensor has a set of its own.
  std::vector<CppParam> params;
  for (int i = 0; i < 28; ++i)
    params.push_back(mut("out" + std::to_string(i)));
  auto result = infer_schema({"t", "many", "out"}, params, {});
  ASSERT_TRUE(std::holds_alternative<schema::Schema>(result));
  const schema::Schema& s = std::get<schema::Schema>(result);
  ASSERT_EQ(s.arguments.size(), 28u);
  EXPECT_EQ(s.arguments[0].type.str(), "Tensor(a!)");
  EXPECT_EQ(s.arguments[25].type.str(), "Tensor(z!)");
  EXPECT_EQ(s.arguments[26].type.str(), "Tensor(a1!)");
  EXPECT_EQ(s.arguments[27].type.str(), "Tensor(b1!)");
  EXPECT_TRUE(s.arguments[0].kwarg_only);
}

TEST(InferSchema, NoParametersNoReturns) {
  EXPECT_EQ(infer("t::tick", {}, {}), "t::tick() -> ()");
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

TEST(CrossCheck, CountMessagesSayWhetherAContextComesFirst) {
  CppSpelling no_context;
  no_context.has_context = false;
  auto errors =
      check("t::f(Tensor self, int dim) -> Tensor", "t::f(Tensor self) -> Tensor", no_context);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "schema has 2 arguments, the C++ function takes 1");

  errors = check("aten::f(Tensor self) -> Tensor", "aten::f() -> Tensor", {}, Reference::known);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].code, "opscan-mismatch-count");
  EXPECT_EQ(errors[0].message, "the known schema of aten::f has 1 argument, the C++ function "
                               "takes 0 (after the runtime context)");
}

TEST(CrossCheck, KnownOrderIsOnlyAWarning) {
  // The names of a known schema are its own: C++ names that look swapped
  // are worth a word, never a refusal.
  auto errors = check("aten::sub(Tensor self, Tensor other) -> Tensor",
                      "aten::sub(Tensor other, Tensor self) -> Tensor", {}, Reference::known);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].code, "opscan-mismatch-order");
  EXPECT_TRUE(errors[0].is_warning);
  EXPECT_EQ(errors[0].message, "argument 1: the known schema of aten::sub says 'self', the C++ "
                               "parameter here is 'other', which is argument 2 in the known "
                               "schema of aten::sub");
  errors = check("aten::sub(Tensor self, Tensor other) -> Tensor",
                 "aten::sub(Tensor other, Tensor self) -> Tensor", {}, Reference::declared);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_FALSE(errors[0].is_warning);
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

TEST(Repair, KeepsKeywordOnlyArgumentsKeywordOnly) {
  // dim keeps its '*' and default; what follows it is keyword-only too.
  const std::string fixed =
      repaired("t::f(Tensor self, *, int dim=0) -> Tensor", "t::f(int dim, Tensor self) -> Tensor");
  EXPECT_EQ(fixed, "t::f(*, int dim=0, Tensor self) -> Tensor");
  auto parsed = schema::parse_schema_with_layout(fixed);
  ASSERT_TRUE(parsed);
  for (const schema::Error& e : schema::check_schema(parsed.value->schema, parsed.value->layout))
    ADD_FAILURE() << e.code << ": " << e.message;
}

TEST(Repair, TakesTheDeclaredOperatorName) {
  EXPECT_EQ(repaired("t::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                     "x::y.z(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"),
            "t::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
}

} // namespace
} // namespace opscan::kernel
