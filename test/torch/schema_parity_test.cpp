// opscan's schema checker against libtorch's own parser
// (torch::jit::parseSchema), case by case: what libtorch refuses, opscan
// refuses; what opscan accepts, libtorch reads, from opscan's canonical
// spelling (the text generated code registers). A few cases opscan refuses
// though libtorch reads them, because libtorch reads another value than the
// one written (issue 23, finding 5: a default libtorch refuses is an
// exception thrown from a static initializer, before main).
#include "schema/schema.h"

#include <gtest/gtest.h>
#include <string>
#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/csrc/jit/frontend/lexer.h>
#include <vector>

namespace {

using namespace opscan::schema;

enum class Verdict {
  both_accept,
  both_refuse,
  opscan_stricter, // libtorch reads it, as another value or type than written
};

struct Case {
  std::string schema;
  Verdict verdict;
  std::string why = {}; // for opscan_stricter: what libtorch makes of it
};

bool libtorch_reads(const std::string& text, std::string* what = nullptr) {
  try {
    (void)torch::jit::parseSchema(text);
    return true;
  } catch (const std::exception& e) { // c10::Error, std::out_of_range, std::length_error...
    if (what)
      *what = e.what();
    return false;
  }
}

// opscan's verdict: the parser and every rule of check_schema.
bool opscan_accepts(const std::string& text, std::string* why = nullptr) {
  auto parsed = parse_schema_with_layout(text);
  if (!parsed) {
    if (why)
      *why = parsed.error->code + ": " + parsed.error->message;
    return false;
  }
  const std::vector<Error> errors = check_schema(parsed.value->schema, parsed.value->layout);
  if (!errors.empty() && why)
    *why = errors[0].code + ": " + errors[0].message;
  return errors.empty();
}

std::string f(const std::string& arguments) {
  return "demo::f(Tensor self, " + arguments + ") -> Tensor";
}

const std::vector<Case>& cases() {
  using V = Verdict;
  static const std::vector<Case> table = {
      // Integers: libtorch reads them with std::stoll.
      {f("int by=9223372036854775807"), V::both_accept},
      {f("int by=-9223372036854775808"), V::both_accept},
      {f("int by=9223372036854775808"), V::both_refuse},
      {f("int by=18446744073709551616"), V::both_refuse},
      {f("int by=-9223372036854775809"), V::both_refuse},
      {f("SymInt n=18446744073709551616"), V::both_refuse},
      {f("int? n=18446744073709551616"), V::both_refuse},
      {f("ScalarType t=18446744073709551616"), V::both_refuse},
      {f("MemoryFormat m=18446744073709551616"), V::both_refuse},
      {f("int[] v=[1, 18446744073709551616]"), V::both_refuse},
      {f("int[2] v=18446744073709551616"), V::both_refuse},
      {f("SymInt[2] v=18446744073709551616"), V::both_refuse},
      {f("Scalar v=123456789012345678901234567890"), V::both_refuse},
      {f("Scalar v=99999999999999999999"), V::both_refuse},
      {f("float? v=99999999999999999999"), V::both_refuse},
      {f("Scalar v=-1"), V::both_accept},
      {f("int x=-0"), V::both_accept},
      // Floats: std::stod, which refuses overflow and underflow alike.
      {f("float v=1e308"), V::both_accept},
      {f("float v=1.7976931348623157e308"), V::both_accept},
      {f("float v=1.7976931348623159e308"), V::both_refuse},
      {f("float v=1e309"), V::both_refuse},
      {f("float v=-1e309"), V::both_refuse},
      {f("Scalar v=1e309"), V::both_refuse},
      {f("Scalar? v=1e309"), V::both_refuse},
      {f("float? v=1e309"), V::both_refuse},
      {f("float[] v=[1e309]"), V::both_refuse},
      {f("float v=2.2250738585072014e-308"), V::both_accept},
      {f("float v=1e-310"), V::both_refuse},
      {f("float v=4.9e-324"), V::both_refuse},
      {f("float v=1e-400"), V::both_refuse},
      {f("float[2] v=1e-310"), V::both_refuse},
      {f("float v=0e-500"), V::both_accept},
      {f("float v=-0.0"), V::both_accept},
      {f("float v=99999999999999999999"), V::both_accept},
      {f("float v=1"), V::both_accept},
      // inf and nan: words libtorch's parser does not read.
      {f("float v=nan"), V::both_refuse},
      {f("float v=inf"), V::both_refuse},
      {f("float v=-inf"), V::both_refuse},
      {f("Scalar v=inf"), V::both_refuse},
      {f("Scalar? v=nan"), V::both_refuse},
      {f("float v=NaN"), V::both_refuse},
      {f("float v=Infinity"), V::both_refuse},
      // Exponents and leading zeros.
      {f("float v=1e5"), V::both_accept},
      {f("Scalar v=1E5"), V::opscan_stricter, "libtorch reads 1"},
      {f("int v=1E5"), V::opscan_stricter, "libtorch reads 1"},
      {f("float? v=1E5"), V::opscan_stricter, "libtorch reads 1"},
      {f("int v=010"), V::opscan_stricter, "libtorch reads 10, C++ (torchgen) 8"},
      // complex: libtorch 1.13 refuses an integer and misreads the rest.
      {f("complex c=1"), V::both_refuse},
      {f("complex c=0"), V::both_refuse},
      {f("complex c=2.5"), V::opscan_stricter, "libtorch reads 2j"},
      {f("complex? c=None"), V::both_accept},
      // Identifier defaults: the dtype names libtorch 1.13 knows.
      {f("ScalarType t=float"), V::both_accept},
      {f("ScalarType t=long"), V::both_accept},
      {f("ScalarType t=complex"), V::both_accept},
      {f("ScalarType? t=long"), V::both_accept},
      {f("ScalarType t=int"), V::both_refuse},
      {f("ScalarType t=double"), V::both_refuse},
      {f("ScalarType t=bfloat16"), V::both_refuse},
      {f("ScalarType t=15"), V::both_accept},
      {f("Layout l=strided"), V::both_accept},
      {f("MemoryFormat m=contiguous_format"), V::both_accept},
      {f("int r=Mean"), V::both_accept},
      // Devices: what c10::Device parses.
      {f("Device d=\"cpu\""), V::both_accept},
      {f("Device d=\"cuda:1\""), V::both_accept},
      {f("Device d=\"cuda:127\""), V::both_accept},
      {f("Device d='meta'"), V::both_accept},
      {f("Device d=\"privateuseone\""), V::both_accept},
      {f("Device d=\"gpu\""), V::both_refuse},
      {f("Device d=\"CPU\""), V::both_refuse},
      {f("Device d=\"\""), V::both_refuse},
      {f("Device d=\" cpu\""), V::both_refuse},
      {f("Device d=\"cuda:\""), V::both_refuse},
      {f("Device d=\"cuda:01\""), V::both_refuse},
      {f("Device d=\"cuda:-1\""), V::both_refuse},
      {f("Device d=\"cuda:99999999999\""), V::both_refuse},
      {f("Device d=\"cuda:128\""), V::opscan_stricter, "libtorch reads cuda:-128"},
      {f("Device d=\"c\\160u\""), V::opscan_stricter, "an escape in a device name"},
      // String escapes: parseStringLiteral's.
      {f("str s='\\n'"), V::both_accept},
      {f("str s='\\\\'"), V::both_accept},
      {f("str s='\\''"), V::both_accept},
      {f("str s=\"it's\""), V::both_accept},
      {f("str s='\\a\\b\\f\\v\\t\\\"'"), V::both_accept},
      {f("str s='\\101'"), V::both_accept},
      {f("str s='\\1010'"), V::both_accept},
      {f("str s='a b'"), V::both_accept},
      {f("str s='\\q'"), V::both_refuse},
      {f("str s='\\r'"), V::both_refuse},
      {f("str s='\\x41'"), V::both_refuse},
      {f("str s='\\u1234'"), V::both_refuse},
      {f("str s='\\0'"), V::both_refuse},
      {f("str s='\\10'"), V::both_refuse},
      {f("str s='\\8'"), V::both_refuse},
      {f("str s='\\777'"), V::both_refuse},
      // Lists: libtorch builds lists of int, float and bool only.
      {f("int[] v=[1, 2]"), V::both_accept},
      {f("SymInt[] v=[1, 2]"), V::both_accept},
      {f("SymInt[2] v=1"), V::both_accept},
      {f("bool[] v=[True, False]"), V::both_accept},
      {f("int[1] v=[]"), V::both_accept},
      {f("str[] v=['a']"), V::both_refuse},
      {f("Scalar[] v=[1]"), V::both_refuse},
      {f("Tensor[] v=[]"), V::both_refuse},
      {f("Device[] v=[\"cpu\"]"), V::both_refuse},
      {f("int[][] v=[[1]]"), V::both_refuse},
      {f("int?[] v=[None]"), V::both_refuse},
      {f("int[]? v=[1]"), V::both_refuse},
      {f("int[]? v=None"), V::both_accept},
      {f("int[1]? v=0"), V::opscan_stricter, "libtorch reads an int, not a list"},
      {f("complex[] v=[1.5]"), V::opscan_stricter, "libtorch reads [1j]"},
      {f("int[2147483648] v=1"), V::both_refuse},
      {f("int[99999999999] v"), V::opscan_stricter, "libtorch keeps the size in 32 bits"},
      {f("int[4096] v=1"), V::opscan_stricter, "libtorch builds 4096 items at registration"},
      {f("int[1024] v=1"), V::both_accept},
      // Names: libtorch's lexer keywords (every one: KeywordsOfTheLexer).
      {f("int class"), V::both_refuse},
      {f("int None"), V::both_refuse},
      {f("int lambda"), V::both_accept},
      {f("int from"), V::both_accept},
      {f("int Mean"), V::both_accept},
      {"class::f(Tensor self) -> Tensor", V::both_refuse},
      {"demo::class(Tensor self) -> Tensor", V::both_refuse},
      {"demo::f.in(Tensor self) -> Tensor", V::both_refuse},
      {"demo::f(Tensor self) -> (Tensor if, Tensor b)", V::both_refuse},
      // Operator names: libtorch skips whitespace between their parts.
      {"demo::m .out(Tensor self) -> Tensor", V::opscan_stricter, "libtorch reads demo::m.out"},
      {"demo :: m(Tensor self) -> Tensor", V::opscan_stricter, "libtorch reads demo::m"},
      // Names that are macros where generated code is compiled.
      {f("int NULL"), V::opscan_stricter, "a macro in generated code"},
      {"unix::f(Tensor self) -> Tensor", V::opscan_stricter, "a macro in generated code"},
  };
  return table;
}

TEST(SchemaParity, EachCaseAsTheTableSays) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.schema);
    std::string torch_error, opscan_error;
    const bool torch_ok = libtorch_reads(c.schema, &torch_error);
    const bool opscan_ok = opscan_accepts(c.schema, &opscan_error);
    switch (c.verdict) {
    case Verdict::both_accept:
      EXPECT_TRUE(torch_ok) << torch_error;
      EXPECT_TRUE(opscan_ok) << opscan_error;
      break;
    case Verdict::both_refuse:
      EXPECT_FALSE(torch_ok) << "libtorch reads it";
      EXPECT_FALSE(opscan_ok) << "opscan accepts what libtorch refuses";
      break;
    case Verdict::opscan_stricter:
      EXPECT_TRUE(torch_ok) << torch_error << " (" << c.why << ")";
      EXPECT_FALSE(opscan_ok) << c.why;
      break;
    }
  }
}

// Generated code registers opscan's canonical spelling: libtorch reads it,
// with the same arguments, for every case opscan accepts.
TEST(SchemaParity, WhatOpscanAcceptsLibtorchReadsAsSpelled) {
  size_t accepted = 0;
  for (const Case& c : cases()) {
    auto parsed = parse_schema(c.schema);
    if (!parsed || !opscan_accepts(c.schema))
      continue;
    ++accepted;
    const std::string canonical = parsed.value->str();
    SCOPED_TRACE(canonical);
    try {
      const c10::FunctionSchema schema = torch::jit::parseSchema(canonical);
      EXPECT_EQ(schema.name(), parsed.value->name.ns + "::" + parsed.value->name.name);
      EXPECT_EQ(schema.overload_name(), parsed.value->name.overload);
      ASSERT_EQ(schema.arguments().size(), parsed.value->arguments.size());
      for (size_t i = 0; i < schema.arguments().size(); ++i) {
        EXPECT_EQ(schema.arguments()[i].name(), parsed.value->arguments[i].name);
        EXPECT_EQ(schema.arguments()[i].default_value().has_value(),
                  parsed.value->arguments[i].default_value.has_value());
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "libtorch refuses opscan's canonical spelling: " << e.what();
    }
  }
  EXPECT_GT(accepted, 40u);
}

// Every keyword of libtorch's lexer (TC_FORALL_TOKEN_KINDS, read from its
// own header) that is spelled like an identifier: libtorch refuses it as a
// name, and opscan refuses it as an argument, return, namespace, operator
// and overload name.
TEST(SchemaParity, KeywordsOfTheLexer) {
  std::vector<std::string> words;
#define OPSCAN_TOKEN(kind, name, spelling) words.emplace_back(spelling);
  TC_FORALL_TOKEN_KINDS(OPSCAN_TOKEN)
#undef OPSCAN_TOKEN
  size_t keywords = 0;
  for (const std::string& word : words) {
    const bool identifier = !word.empty() && std::all_of(word.begin(), word.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    });
    if (!identifier)
      continue;
    ++keywords;
    SCOPED_TRACE(word);
    EXPECT_TRUE(is_reserved_word(word));
    for (const std::string& schema :
         {f("int " + word), "demo::f(Tensor self) -> (Tensor " + word + ", Tensor b)",
          word + "::f(Tensor self) -> Tensor", "demo::" + word + "(Tensor self) -> Tensor",
          "demo::f." + word + "(Tensor self) -> Tensor"}) {
      SCOPED_TRACE(schema);
      EXPECT_FALSE(libtorch_reads(schema));
      EXPECT_FALSE(opscan_accepts(schema));
    }
  }
  EXPECT_EQ(keywords, 28u);
}

} // namespace
