#include "schema/schema.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace opscan::schema {
namespace {

// Canonical schemas as torchgen prints them (native_functions.yaml, with the
// "aten::" namespace added), plus a few synthetic ones for rarer syntax.
const std::vector<std::string> kCanonical = {
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) "
    "max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    "aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] "
    "padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> "
    "Tensor",
    "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, "
    "Tensor(a!)[] out) -> ()",
    "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) "
    "running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, "
    "Tensor, Tensor)",
    "aten::_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool "
    "training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> "
    "Tensor",
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? "
    "dtype=None) -> Tensor",
    "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
    "keepdim=False) -> Tensor",
    "aten::mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    "aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? "
    "bias, float eps) -> (Tensor, Tensor, Tensor)",
    "aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    "aten::set_.source_Storage(Tensor(a!) self, Storage source) -> Tensor(a!)",
    "aten::set_.source_Storage_storage_offset(Tensor(a!) self, Storage source, SymInt "
    "storage_offset, SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)",
    "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    "aten::_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]",
    "aten::gelu(Tensor self, *, str approximate='none') -> Tensor",
    "aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    "aten::_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
    "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] "
    "padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
    "aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, str "
    "padding=\"valid\", SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
    "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] "
    "dilation=1, bool ceil_mode=False) -> Tensor",
    "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? "
    "bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor",
    "aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? "
    "running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
    "aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "aten::transpose.Dimname(Tensor(a) self, Dimname dim0, Dimname dim1) -> Tensor(a)",
    "aten::sum.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, ScalarType? "
    "dtype=None) -> Tensor",
    "aten::randn.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    "aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool "
    "scale_grad_by_freq=False, bool sparse=False) -> Tensor",
    "aten::cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
    "SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor",
    "aten::native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? "
    "running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float "
    "eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "aten::quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) -> "
    "Tensor",
    "aten::qscheme(Tensor self) -> QScheme",
    "aten::record_stream(Tensor(a!) self, Stream s) -> ()",
    "aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
    "device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? "
    "memory_format=None) -> Tensor",
    "aten::std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
    "keepdim=False) -> (Tensor, Tensor)",
    "aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
    "float[]? scale_factors) -> Tensor",
    "aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? "
    "storage_offset=None) -> Tensor(a)",
    "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> "
    "Tensor(a)",
    "aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) "
    "-> Tensor(a!)",
    "aten::bernoulli.p(Tensor self, float p=0.5, *, Generator? generator=None) -> Tensor",
    "aten::sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    "aten::_fused_adam_(Tensor(a!)[] self, Tensor(b!)[] grads, Tensor(c!)[] exp_avgs, "
    "Tensor(d!)[] exp_avg_sqs, Tensor(e!)[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, "
    "float beta1, float beta2, float weight_decay, float eps, bool amsgrad, bool maximize, "
    "Tensor? grad_scale=None, Tensor? found_inf=None) -> ()",
    "aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt "
    "ignore_index) -> (Tensor output, Tensor total_weight)",
    "aten::rrelu_with_noise(Tensor self, Tensor(b!) noise, Scalar lower=0.125, Scalar "
    "upper=0.3333333333333333, bool training=False, Generator? generator=None) -> Tensor",
    "aten::pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
    "aten::eye.m_out(SymInt n, SymInt m, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::sym_size.int(Tensor self, int dim) -> SymInt",
    "aten::item(Tensor self) -> Scalar",
    "aten::_assert_async.msg(Tensor self, str assert_msg) -> ()",
    "aten::is_contiguous.memory_format(Tensor self, MemoryFormat memory_format) -> bool",
    "aten::randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=long, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    // Synthetic: rarer alias forms, named single return, nested list default.
    "test::alias(Tensor(a|b) x, Tensor(a! -> b) y, Tensor(*) z) -> Tensor(a)[](b!)",
    "test::named_single(Tensor(a!) self) -> Tensor(a!) out",
    "test::defaults(int[] a=[0, 1], int[2] b=[1, 2], float c=-1.5e+3, str d='it\\'s', complex? "
    "e=None, SymBool f=True) -> SymBool",
    "test::no_args() -> Tensor",
    "test::only_kwargs(*, Tensor(a!) out) -> Tensor(a!)",
};

TEST(SchemaRoundTrip, CanonicalInputsPrintUnchanged) {
  ASSERT_GE(kCanonical.size(), 40u);
  for (const std::string& s : kCanonical) {
    auto parsed = parse_schema(s);
    ASSERT_TRUE(parsed) << s << "\n" << parsed.error->offset << ": " << parsed.error->message;
    EXPECT_FALSE(parsed.error);
    EXPECT_EQ(parsed.value->str(), s);
  }
}

TEST(SchemaModel, AddOutFields) {
  auto parsed = parse_schema(kCanonical[1]);
  ASSERT_TRUE(parsed);
  const Schema& s = *parsed.value;
  EXPECT_EQ(s.name, (OperatorName{"aten", "add", "out"}));
  ASSERT_EQ(s.arguments.size(), 4u);
  EXPECT_EQ(s.arguments[0].name, "self");
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_EQ(s.arguments[2].default_value, "1");
  EXPECT_TRUE(s.arguments[3].type.is_mutable());
  EXPECT_FALSE(s.arguments[0].type.is_mutable());
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].name, "");
  EXPECT_EQ(s.returns[0].type.str(), "Tensor(a!)");
}

TEST(SchemaModel, DefaultsKeptAsWritten) {
  auto parsed = parse_schema(
      "x::f(float a=1e-05, str b=\"valid\", str c='none', int d=-1, int e=Mean, int[2] f=1) -> ()");
  ASSERT_TRUE(parsed);
  std::vector<std::string> defaults;
  for (const Argument& a : parsed.value->arguments)
    defaults.push_back(*a.default_value);
  EXPECT_EQ(defaults,
            (std::vector<std::string>{"1e-05", "\"valid\"", "'none'", "-1", "Mean", "1"}));
  EXPECT_TRUE(parsed.value->returns.empty());
}

TEST(SchemaPrint, NonCanonicalInputsPrintCanonically) {
  const std::pair<std::string, std::string> cases[] = {
      {"  aten::add.Tensor ( Tensor  self ,Tensor other,*,Scalar alpha = 1 )->Tensor  ",
       "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"},
      {"aten::max.dim(Tensor self,int dim)->(Tensor values , Tensor indices)",
       "aten::max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)"},
      {"x::f(int[] a=[0,1], int[] b=[ ], int[][] c=[ [1] ,[ 2,3 ] ]) -> ( )",
       "x::f(int[] a=[0, 1], int[] b=[], int[][] c=[[1], [2, 3]]) -> ()"},
      // Whitespace around the operator name, not inside it.
      {"\n\tx::f (Tensor a) -> ()", "x::f(Tensor a) -> ()"},
      {"x::f(Tensor( a ! -> * ) x, Tensor(a | b) y) -> Tensor ( a )",
       "x::f(Tensor(a! -> *) x, Tensor(a|b) y) -> Tensor(a)"},
      {"x::f(Tensor(a!)out) -> (Tensor(a!))", "x::f(Tensor(a!) out) -> Tensor(a!)"},
      {"x::f(Tensor(a!) self) -> (Tensor(a!) out)", "x::f(Tensor(a!) self) -> Tensor(a!) out"},
      {"x::f(int [ 02 ] ? a, float b = - 1.5)\n->\tTensor",
       "x::f(int[2]? a, float b=-1.5) -> Tensor"},
  };
  for (const auto& [input, canonical] : cases) {
    auto parsed = parse_schema(input);
    ASSERT_TRUE(parsed) << input << "\n" << parsed.error->message;
    EXPECT_EQ(parsed.value->str(), canonical);
  }
}

TEST(SchemaPrint, BuiltSchemaAndOperatorName) {
  Schema s;
  s.name = {"ns", "op", ""};
  EXPECT_EQ(s.str(), "ns::op() -> ()");
  EXPECT_EQ(s.name.unqualified(), "op");
  s.name.overload = "ov";
  EXPECT_EQ(s.name.str(), "ns::op.ov");
  EXPECT_EQ(s.name.unqualified(), "op.ov");
}

// Parses `text`, expects failure, and returns the error for inspection.
Error parse_error(std::string_view text) {
  auto parsed = parse_schema(text);
  EXPECT_FALSE(parsed) << text;
  EXPECT_FALSE(parsed.value);
  return parsed.error.value_or(Error{});
}

void expect_error(std::string_view text, size_t offset, std::string_view code,
                  std::string_view message) {
  Error e = parse_error(text);
  EXPECT_EQ(e.offset, offset) << text;
  EXPECT_EQ(e.code, code) << text;
  EXPECT_EQ(e.message, message) << text;
}

TEST(SchemaErrors, Syntax) {
  const char* kSyntax = "opscan-schema-syntax";
  expect_error("aten::add(Tensor self x) -> Tensor", 22, kSyntax,
               "expected ')' or ',' after argument 'self', found 'x'");
  expect_error("", 0, kSyntax, "expected operator namespace, found end of input");
  expect_error("aten:add() -> ()", 4, kSyntax, "expected '::' after namespace 'aten', found ':'");
  expect_error("aten::add.() -> ()", 10, kSyntax, "expected overload name after '.', found '('");
  expect_error("aten::add -> ()", 10, kSyntax,
               "expected '(' after operator name 'aten::add', found '->'");
  expect_error("aten::f(Tensor) -> ()", 14, kSyntax,
               "expected argument name after type 'Tensor', found ')'");
  expect_error("aten::f(Tensor a,) -> ()", 17, kSyntax, "expected argument type, found ')'");
  expect_error("aten::f(Tensor a) Tensor", 18, kSyntax,
               "expected '->' after the argument list, found 'Tensor'");
  expect_error("aten::f(Tensor a) -> Tensor b c", 30, kSyntax,
               "expected end of input after returns, found 'c'");
  expect_error("aten::f(Tensor a) -> (Tensor b Tensor)", 31, kSyntax,
               "expected ')' or ',' after return 'Tensor', found 'Tensor'");
  expect_error("aten::f(Tensor a) ->", 20, kSyntax, "expected return type, found end of input");
  expect_error("aten::f(str a='abc) -> ()", 14, kSyntax,
               "expected default value, found unterminated string ''abc) -> ()'");
  expect_error("aten::f(int a=$) -> ()", 14, kSyntax, "expected default value, found '$'");
  expect_error("aten::f(int a=-x) -> ()", 15, kSyntax, "expected number after '-', found 'x'");
  expect_error("aten::f(int[] a=[1 2]) -> ()", 19, kSyntax,
               "expected ',' or ']' in list default, found '2'");
  expect_error("aten::f(Tensor(a a) x) -> ()", 17, kSyntax,
               "expected ')' to close the alias annotation, found 'a'");
  expect_error("aten::f(Tensor(!) x) -> ()", 15, kSyntax,
               "expected alias set name or '*', found '!'");
  expect_error("aten::f(int[x] a) -> ()", 12, kSyntax, "expected list size or ']', found 'x'");
  expect_error("aten::f(int[1.5] a) -> ()", 12, kSyntax, "list size '1.5' is not an integer");
  expect_error(
      "aten::f(int[99999999999999999999] a) -> ()", 12, kSyntax,
      "list size '99999999999999999999' is too large: libtorch keeps list sizes in 32 bits "
      "(at most 2147483647)");
  expect_error("aten::f(Tensor\xc3\xa9 a) -> ()", 14, kSyntax,
               "expected argument name after type 'Tensor', found byte 0xc3");
}

// Schema text reaches generated code and other readers: a string default
// holds printable ASCII only, and the error points at the offending byte.
TEST(SchemaErrors, StringDefaultsArePrintableAscii) {
  const char* kSyntax = "opscan-schema-syntax";
  const char* kWhy = ": schema strings are printable ASCII (write it with an escape, such as "
                     "\\n, or leave it out)";
  expect_error("ns::f(str s=\"a\n#define X\") -> ()", 14, kSyntax,
               std::string("string default holds byte 0x0a") + kWhy);
  expect_error("ns::f(str s='tab\there') -> ()", 16, kSyntax,
               std::string("string default holds byte 0x09") + kWhy);
  expect_error("ns::f(str s=\"caf\xc3\xa9\") -> ()", 16, kSyntax,
               std::string("string default holds byte 0xc3") + kWhy);
  expect_error("ns::f(str s=\"del\x7f\") -> ()", 16, kSyntax,
               std::string("string default holds byte 0x7f") + kWhy);
  // Escapes and everything else printable stay as written.
  auto parsed = parse_schema("ns::f(str s=\"*/ ?\?/ \\n \\\"\") -> ()");
  ASSERT_TRUE(parsed) << parsed.error->message;
  EXPECT_EQ(parsed.value->arguments[0].default_value, "\"*/ ?\?/ \\n \\\"\"");
}

TEST(SchemaErrors, UnknownType) {
  expect_error("aten::f(Tensr self) -> Tensor", 8, "opscan-schema-unknown-type",
               "unknown type 'Tensr'; did you mean 'Tensor'?");
  expect_error("aten::f(Tensor self) -> tensor", 24, "opscan-schema-unknown-type",
               "unknown type 'tensor'; did you mean 'Tensor'?");
  expect_error("aten::f(Tensor a, Widget w) -> ()", 18, "opscan-schema-unknown-type",
               "unknown type 'Widget'; expected a base type such as 'Tensor', 'Scalar', 'int', "
               "'float' or 'bool'");
}

TEST(SchemaErrors, DuplicateArgument) {
  expect_error("aten::f(Tensor a, *, Tensor a) -> ()", 28, "opscan-schema-duplicate-argument",
               "duplicate argument 'a' (first declared at offset 15)");
}

TEST(SchemaErrors, KwargMarker) {
  expect_error("aten::f(*, Tensor a, *, Tensor b) -> ()", 21, "opscan-schema-kwarg-marker",
               "'*' given twice; keyword-only arguments already start at offset 8");
  expect_error("aten::f(Tensor a, *) -> ()", 18, "opscan-schema-kwarg-marker",
               "'*' must be followed by at least one keyword-only argument");
  expect_error("aten::f(*) -> ()", 8, "opscan-schema-kwarg-marker",
               "'*' must be followed by at least one keyword-only argument");
  expect_error("aten::f(*  Tensor a) -> ()", 11, "opscan-schema-syntax",
               "expected ',' after '*', found 'Tensor'");
}

TEST(SchemaErrors, NestingDepthIsBounded) {
  auto nested = [](int depth) {
    return "x::f(int[] a=" + std::string(depth, '[') + std::string(depth, ']') + ") -> ()";
  };
  auto ok = parse_schema(nested(32));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok.value->str(), nested(32));
  expect_error(nested(33), 13 + 32, "opscan-schema-syntax",
               "list default nested more than 32 levels deep");
  // Far deeper input must fail the same way rather than exhaust the stack.
  Error e = parse_error("x::f(int[] a=" + std::string(1'000'000, '[') + ") -> ()");
  EXPECT_EQ(e.offset, 13u + 32u);
  // Long suffix chains are iterative and simply parse.
  auto many = parse_type("Tensor" + std::string(100'000, '?'));
  ASSERT_TRUE(many);
  EXPECT_EQ(many.value->suffixes.size(), 100'000u);
}

TEST(OperatorNameParse, Basic) {
  auto n = parse_operator_name("aten::add.Tensor");
  ASSERT_TRUE(n);
  EXPECT_EQ(*n.value, (OperatorName{"aten", "add", "Tensor"}));
  auto bare = parse_operator_name(" aten::relu ");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare.value->str(), "aten::relu");
  EXPECT_EQ(bare.value->overload, "");
}

TEST(OperatorNameParse, Errors) {
  auto e1 = parse_operator_name("aten::add.");
  ASSERT_FALSE(e1);
  EXPECT_EQ(e1.error->offset, 10u);
  EXPECT_EQ(e1.error->message, "expected overload name after '.', found end of input");
  auto e2 = parse_operator_name("aten::add(Tensor a)");
  ASSERT_FALSE(e2);
  EXPECT_EQ(e2.error->offset, 9u);
  EXPECT_EQ(e2.error->code, "opscan-schema-syntax");
  EXPECT_EQ(e2.error->message, "expected end of input after operator name, found '('");
  auto e3 = parse_operator_name("add");
  ASSERT_FALSE(e3);
  EXPECT_EQ(e3.error->offset, 3u);
  EXPECT_EQ(e3.error->message, "expected '::' after namespace 'add', found end of input");
}

TEST(TypeParse, OptionalMutable) {
  auto t = parse_type("Tensor(a!)?");
  ASSERT_TRUE(t);
  EXPECT_EQ(t.value->base, "Tensor");
  ASSERT_TRUE(t.value->alias);
  EXPECT_EQ(t.value->alias->before, std::vector<std::string>{"a"});
  EXPECT_TRUE(t.value->alias->is_write);
  EXPECT_TRUE(t.value->alias->after.empty());
  EXPECT_TRUE(t.value->is_optional());
  EXPECT_FALSE(t.value->is_list());
  EXPECT_TRUE(t.value->is_mutable());
  EXPECT_EQ(t.value->str(), "Tensor(a!)?");
}

TEST(TypeParse, Lists) {
  auto fixed = parse_type("int[2]");
  ASSERT_TRUE(fixed);
  ASSERT_EQ(fixed.value->suffixes.size(), 1u);
  EXPECT_EQ(fixed.value->suffixes[0].size, 2);
  EXPECT_TRUE(fixed.value->is_list());

  auto opt_list = parse_type("Tensor?[]");
  ASSERT_TRUE(opt_list);
  EXPECT_TRUE(opt_list.value->is_list());
  EXPECT_FALSE(opt_list.value->is_optional());
  EXPECT_FALSE(opt_list.value->suffixes[1].size);

  auto list_opt = parse_type("int[1]?");
  ASSERT_TRUE(list_opt);
  EXPECT_TRUE(list_opt.value->is_optional());
  EXPECT_FALSE(list_opt.value->is_list());

  auto mut_list = parse_type("Tensor(a!)[]");
  ASSERT_TRUE(mut_list);
  EXPECT_TRUE(mut_list.value->is_list());
  EXPECT_TRUE(mut_list.value->is_mutable());

  auto suffix_alias = parse_type("Tensor(a)[](b!)");
  ASSERT_TRUE(suffix_alias);
  EXPECT_TRUE(suffix_alias.value->is_mutable());
  EXPECT_EQ(suffix_alias.value->suffixes[0].alias->before, std::vector<std::string>{"b"});

  auto view_out = parse_type("Tensor(a -> *)");
  ASSERT_TRUE(view_out);
  EXPECT_FALSE(view_out.value->is_mutable());
  EXPECT_EQ(view_out.value->alias->after, std::vector<std::string>{"*"});
}

TEST(TypeParse, Errors) {
  auto trailing = parse_type("Tensor x");
  ASSERT_FALSE(trailing);
  EXPECT_EQ(trailing.error->offset, 7u);
  EXPECT_EQ(trailing.error->message, "expected end of input after type, found 'x'");
  auto unknown = parse_type("Int[]");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error->offset, 0u);
  EXPECT_EQ(unknown.error->code, "opscan-schema-unknown-type");
  EXPECT_EQ(unknown.error->message, "unknown type 'Int'; did you mean 'int'?");
}

TEST(BaseTypes, Membership) {
  for (const char* t : {"Tensor", "Scalar", "ScalarType", "Layout", "MemoryFormat", "Device",
                        "Generator", "Dimname", "Storage", "Stream", "QScheme", "str", "int",
                        "SymInt", "float", "bool", "SymBool", "complex"})
    EXPECT_TRUE(is_base_type(t)) << t;
  EXPECT_FALSE(is_base_type("tensor"));
  EXPECT_FALSE(is_base_type(""));
}

TEST(ClosestMatch, SmallEditsOnlyAndTheClosestWins) {
  const std::vector<std::string_view> names = {"aten::add.out", "aten::add.Tensor",
                                               "demo::neg.out"};
  EXPECT_EQ(closest_match("aten::ad.out", names), std::optional<std::string_view>("aten::add.out"));
  EXPECT_EQ(closest_match("aten::add_out", names),
            std::optional<std::string_view>("aten::add.out"));
  // Case differences are free, so the closest is the one with fewer other edits.
  EXPECT_EQ(closest_match("ATEN::ADD.TENSR", names),
            std::optional<std::string_view>("aten::add.Tensor"));
  EXPECT_EQ(closest_match("demo::neg.out", names),
            std::optional<std::string_view>("demo::neg.out"));
  // Three edits or more, or as many as the text has characters: no suggestion.
  EXPECT_EQ(closest_match("aten::mul.out", names), std::nullopt);
  EXPECT_EQ(closest_match("ab", std::vector<std::string_view>{"xy"}), std::nullopt);
  EXPECT_EQ(closest_match("", names), std::nullopt);
  EXPECT_EQ(closest_match("aten::add.out", {}), std::nullopt);
  // Ties: the first candidate.
  EXPECT_EQ(closest_match("ab", std::vector<std::string_view>{"abc", "abd"}),
            std::optional<std::string_view>("abc"));
}

TEST(CheckOperatorName, Valid) {
  EXPECT_TRUE(check_operator_name({"aten", "add", "Tensor"}).empty());
  EXPECT_TRUE(check_operator_name({"aten", "_foreach_add_", ""}).empty());
  EXPECT_TRUE(check_operator_name({"aten", "add", "out"}).empty());
}

TEST(CheckOperatorName, Errors) {
  auto out = check_operator_name({"aten", "add_out", ""});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].code, "opscan-schema-out-suffix");
  EXPECT_EQ(out[0].offset, 9u); // "_out" in "aten::add_out"
  EXPECT_EQ(out[0].message,
            "name 'add_out' ends in '_out': name it 'add' with overload 'out' (add.out)");

  auto scalar_out = check_operator_name({"aten", "add_out", "Scalar"});
  ASSERT_EQ(scalar_out.size(), 1u);
  EXPECT_EQ(scalar_out[0].message, "name 'add_out' ends in '_out': name it 'add' with overload "
                                   "'Scalar_out' (add.Scalar_out)");

  auto dflt = check_operator_name({"aten", "add", "default"});
  ASSERT_EQ(dflt.size(), 1u);
  EXPECT_EQ(dflt[0].code, "opscan-schema-reserved-overload");
  EXPECT_EQ(dflt[0].offset, 10u);

  auto dunder = check_operator_name({"aten", "__add", "__x"});
  ASSERT_EQ(dunder.size(), 2u);
  EXPECT_EQ(dunder[0].code, "opscan-schema-reserved-name");
  EXPECT_EQ(dunder[0].offset, 6u);
  EXPECT_EQ(dunder[1].code, "opscan-schema-reserved-name");
  EXPECT_EQ(dunder[1].offset, 12u);

  auto bad = check_operator_name({"my-ns", "add", "1x"});
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].code, "opscan-schema-syntax");
  EXPECT_EQ(bad[0].offset, 2u);
  EXPECT_EQ(bad[0].message, "namespace 'my-ns' is not an ASCII identifier: '-' at position 2");
  EXPECT_EQ(bad[1].offset, 11u); // "1x" in "my-ns::add.1x"

  auto empty = check_operator_name({"aten", "", ""});
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].offset, 6u);
  EXPECT_EQ(empty[0].message, "name is empty");
}

TEST(RepairedOperatorName, TheRepairTheMessagesPrescribe) {
  auto repaired = [](OperatorName name) {
    std::optional<OperatorName> r = repaired_operator_name(name);
    return r ? r->str() : std::string("(none)");
  };
  EXPECT_EQ(repaired({"aten", "add_out", ""}), "aten::add.out");
  EXPECT_EQ(repaired({"aten", "add_out", "Scalar"}), "aten::add.Scalar_out");
  EXPECT_EQ(repaired({"aten", "add", "default"}), "aten::add");
  EXPECT_EQ(repaired({"aten", "add_out", "default"}), "aten::add.out");
  // Nothing to repair.
  EXPECT_EQ(repaired({"aten", "add", "out"}), "(none)");
  EXPECT_EQ(repaired({"aten", "_out", ""}), "(none)");
  // No obvious repair: the result would still be refused.
  EXPECT_EQ(repaired({"aten", "__add_out", ""}), "(none)");
  EXPECT_EQ(repaired({"aten", "add_out", "__x"}), "(none)");
  EXPECT_EQ(repaired({"aten", "add_out_out", ""}), "(none)");
  EXPECT_EQ(repaired({"my-ns", "add_out", ""}), "(none)");
}

// ---------------------------------------------------------------------------
// Invariants (check_schema) and layouts

std::filesystem::path data_dir() {
  return std::filesystem::path(OPSCAN_TEST_DATA) / "schema";
}

// The lines of a data file, without comments and empty lines, with their
// 1-based line numbers.
std::vector<std::pair<int, std::string>> read_lines(const std::string& file) {
  std::ifstream in(data_dir() / file);
  EXPECT_TRUE(in) << "cannot read " << (data_dir() / file);
  std::vector<std::pair<int, std::string>> lines;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line[0] != '#')
      lines.emplace_back(number, line);
  }
  return lines;
}

// Splits "a | b | c" into at most `max` fields; the last one keeps the rest.
std::vector<std::string> fields(const std::string& line, size_t max) {
  std::vector<std::string> out;
  size_t start = 0;
  while (out.size() + 1 < max) {
    const size_t bar = line.find(" | ", start);
    if (bar == std::string::npos)
      break;
    out.push_back(line.substr(start, bar - start));
    start = bar + 3;
  }
  out.push_back(line.substr(start));
  return out;
}

std::string describe(const std::vector<Error>& errors) {
  std::string out;
  for (const Error& e : errors)
    out += "\n  " + std::to_string(e.offset) + " " + e.code + ": " + e.message;
  return out;
}

// A valid schema: parses, has no findings with either layout, and its
// canonical spelling parses back to it.
void expect_valid(const std::string& input, const std::string& canonical) {
  auto parsed = parse_schema_with_layout(input);
  ASSERT_TRUE(parsed) << parsed.error->offset << " " << parsed.error->code << ": "
                      << parsed.error->message;
  const Schema& schema = parsed.value->schema;
  EXPECT_EQ(schema.str(), canonical);
  auto errors = check_schema(schema, parsed.value->layout);
  EXPECT_TRUE(errors.empty()) << describe(errors);
  EXPECT_TRUE(check_schema(schema, layout_of(schema)).empty());
  auto again = parse_schema_with_layout(canonical);
  ASSERT_TRUE(again);
  EXPECT_EQ(again.value->schema, schema);
  EXPECT_EQ(again.value->layout, layout_of(schema));
}

// An invalid schema: exactly one problem, with this code, offset and message
// fragment; a check finding keeps its code with the canonical layout.
void expect_invalid(const std::string& schema_text, const std::string& code, size_t offset,
                    const std::string& fragment) {
  auto parsed = parse_schema_with_layout(schema_text);
  std::vector<Error> errors;
  if (!parsed) {
    errors.push_back(*parsed.error);
  } else {
    errors = check_schema(parsed.value->schema, parsed.value->layout);
    auto canonical = check_schema(parsed.value->schema, layout_of(parsed.value->schema));
    ASSERT_EQ(canonical.size(), errors.size());
    if (!canonical.empty()) {
      EXPECT_EQ(canonical[0].code, code);
    }
  }
  ASSERT_EQ(errors.size(), 1u) << describe(errors);
  EXPECT_EQ(errors[0].code, code) << errors[0].message;
  EXPECT_EQ(errors[0].offset, offset) << errors[0].message;
  EXPECT_NE(errors[0].message.find(fragment), std::string::npos)
      << "message: " << errors[0].message << "\nexpected to contain: " << fragment;
}

TEST(SchemaTable, EveryCase) {
  const auto lines = read_lines("schemas.txt");
  size_t valid = 0, invalid = 0;
  std::vector<std::string> codes;
  for (const auto& [number, line] : lines) {
    SCOPED_TRACE("schemas.txt:" + std::to_string(number) + ": " + line);
    const auto f = fields(line, 4);
    if (f[0] == "ok") {
      ASSERT_EQ(f.size(), 2u);
      expect_valid(f[1], f[1]);
      ++valid;
    } else if (f[0] == "canon") {
      const auto g = fields(line, 3);
      ASSERT_EQ(g.size(), 3u);
      EXPECT_NE(g[1], g[2]) << "not a non-canonical input";
      expect_valid(g[1], g[2]);
      ++valid;
    } else {
      ASSERT_EQ(f.size(), 4u);
      ASSERT_TRUE(f[0].starts_with("opscan-schema-"));
      expect_invalid(f[3], f[0], std::stoul(f[1]), f[2]);
      codes.push_back(f[0]);
      ++invalid;
    }
  }
  EXPECT_GE(valid + invalid, 150u);
  EXPECT_GE(valid, 60u);
  EXPECT_GE(invalid, 60u);
  // Every diagnostic code of schema.h is exercised.
  for (const char* code :
       {"syntax",      "unknown-type",      "duplicate-argument", "kwarg-marker",
        "out-suffix",  "reserved-overload", "reserved-name",      "out-group",
        "out-returns", "out-return-alias",  "mixed-returns",      "return-alias",
        "inplace",     "default-order",     "duplicate-alias",    "default-type",
        "alias-type",  "reserved-word",     "macro-name",         "name-whitespace"})
    EXPECT_NE(std::find(codes.begin(), codes.end(), std::string("opscan-schema-") + code),
              codes.end())
        << code;
}

TEST(CheckSchema, CanonicalTableHasNoFindings) {
  for (const std::string& s : kCanonical) {
    auto parsed = parse_schema_with_layout(s);
    ASSERT_TRUE(parsed) << s;
    auto errors = check_schema(parsed.value->schema, parsed.value->layout);
    if (s.starts_with("test::alias(")) {
      // Synthetic syntax test: its mutable return aliases no argument.
      ASSERT_EQ(errors.size(), 1u) << describe(errors);
      EXPECT_EQ(errors[0].code, "opscan-schema-return-alias");
      continue;
    }
    EXPECT_TRUE(errors.empty()) << s << describe(errors);
  }
}

TEST(SchemaLayout, OffsetsIntoTheParsedText) {
  const std::string text = "  aten::f( Tensor(a!) self ,int  dim = -1 , * ,"
                           "Tensor(b!) out) ->  ( Tensor(a!) ,Tensor(b!) )";
  auto parsed = parse_schema_with_layout(text);
  ASSERT_TRUE(parsed);
  const SchemaLayout& l = parsed.value->layout;
  EXPECT_EQ(l.name, text.find("aten"));
  EXPECT_EQ(l.arguments, (std::vector<size_t>{text.find("Tensor(a!) self"), text.find("int"),
                                              text.find("Tensor(b!) out")}));
  EXPECT_EQ(l.defaults,
            (std::vector<std::optional<size_t>>{std::nullopt, text.find("-1"), std::nullopt}));
  EXPECT_EQ(l.return_list, text.rfind("( Tensor"));
  EXPECT_EQ(l.returns, (std::vector<size_t>{text.find("Tensor(a!) ,"), text.find("Tensor(b!) )")}));
}

TEST(SchemaLayout, LayoutOfPointsIntoStr) {
  Schema s;
  s.name = {"demo", "scale", "out"};
  s.arguments.push_back({*parse_type("Tensor").value, "self", std::nullopt, false});
  s.arguments.push_back({*parse_type("float").value, "factor", "1.5", false});
  s.arguments.push_back({*parse_type("Tensor(a!)").value, "out", std::nullopt, true});
  s.returns.push_back({*parse_type("Tensor(a!)").value, ""});
  const std::string text = s.str();
  ASSERT_EQ(text,
            "demo::scale.out(Tensor self, float factor=1.5, *, Tensor(a!) out) -> Tensor(a!)");
  const SchemaLayout l = layout_of(s);
  EXPECT_EQ(l.name, 0u);
  EXPECT_EQ(l.arguments, (std::vector<size_t>{text.find("Tensor self"), text.find("float"),
                                              text.find("Tensor(a!) out")}));
  EXPECT_EQ(l.defaults[1], text.find("1.5"));
  EXPECT_EQ(l.return_list, text.rfind("Tensor(a!)"));
  EXPECT_EQ(l.returns, std::vector<size_t>{text.rfind("Tensor(a!)")});
  // Single unnamed, named, none, several.
  for (const std::string& c : kCanonical) {
    auto parsed = parse_schema_with_layout(c);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(layout_of(parsed.value->schema), parsed.value->layout) << c;
  }
  Schema empty;
  empty.name = {"x", "f", ""};
  EXPECT_EQ(empty.str(), "x::f() -> ()");
  EXPECT_EQ(layout_of(empty).return_list, std::string("x::f() -> ").size());
}

TEST(CheckSchema, InferredSchemaThroughLayoutOf) {
  // As the scanner would build it from `Tensor& f(const Tensor& self,
  // Tensor& other)`: the returned reference aliases a positional argument.
  Schema s;
  s.name = {"demo", "f", ""};
  s.arguments.push_back({*parse_type("Tensor").value, "self", std::nullopt, false});
  s.arguments.push_back({*parse_type("Tensor(a!)").value, "other", std::nullopt, false});
  s.returns.push_back({*parse_type("Tensor(a!)").value, ""});
  auto errors = check_schema(s, layout_of(s));
  ASSERT_EQ(errors.size(), 1u) << describe(errors);
  EXPECT_EQ(errors[0].code, "opscan-schema-return-alias");
  EXPECT_EQ(errors[0].offset, s.str().rfind("Tensor(a!)"));
}

TEST(CheckSchema, SeveralFindingsSortedByOffset) {
  const std::string text = "aten::f.out(Tensor self, int dim=0, bool keepdim, *, Tensor(a!) v, "
                           "Tensor(b!) i) -> (Tensor(b!) v, Tensor(a!) i)";
  auto parsed = parse_schema_with_layout(text);
  ASSERT_TRUE(parsed);
  auto errors = check_schema(parsed.value->schema, parsed.value->layout);
  ASSERT_EQ(errors.size(), 3u) << describe(errors);
  EXPECT_EQ(errors[0].code, "opscan-schema-default-order");
  EXPECT_EQ(errors[0].offset, text.find("bool keepdim"));
  EXPECT_EQ(errors[1].code, "opscan-schema-out-return-alias");
  EXPECT_EQ(errors[1].offset, text.find("Tensor(b!) v"));
  EXPECT_NE(errors[1].message.find("out argument 'v' is annotated (a!)"), std::string::npos);
  EXPECT_EQ(errors[2].code, "opscan-schema-out-return-alias");
  EXPECT_EQ(errors[2].offset, text.find("Tensor(a!) i)"));
}

TEST(CheckSchema, NameFindingsFollowTheLayout) {
  const std::string text =
      "   aten::add_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)";
  auto parsed = parse_schema_with_layout(text);
  ASSERT_TRUE(parsed);
  auto errors = check_schema(parsed.value->schema, parsed.value->layout);
  ASSERT_EQ(errors.size(), 1u) << describe(errors);
  EXPECT_EQ(errors[0].code, "opscan-schema-out-suffix");
  EXPECT_EQ(errors[0].offset, text.find("_out"));
  // Both the name rules and the in-place rules can fire at once.
  auto both = parse_schema_with_layout("aten::__x_(Tensor self) -> Tensor");
  ASSERT_TRUE(both);
  auto found = check_schema(both.value->schema, both.value->layout);
  ASSERT_EQ(found.size(), 1u) << describe(found); // dunder names are never in-place
  EXPECT_EQ(found[0].code, "opscan-schema-reserved-name");
}

TEST(CheckSchema, MismatchedLayoutIsTolerated) {
  auto parsed = parse_schema("aten::f(Tensor self, int dim=0, bool k) -> Tensor(a!)");
  ASSERT_TRUE(parsed);
  SchemaLayout short_layout;
  short_layout.name = 7;
  auto errors = check_schema(*parsed.value, short_layout);
  ASSERT_EQ(errors.size(), 2u) << describe(errors);
  for (const Error& e : errors)
    EXPECT_EQ(e.offset, 7u) << e.code; // missing offsets fall back to the name's
}

TEST(CheckSchema, MessagesNameTheArgument) {
  auto check = [](const std::string& text) {
    auto parsed = parse_schema_with_layout(text);
    EXPECT_TRUE(parsed) << text;
    auto errors = check_schema(parsed.value->schema, parsed.value->layout);
    EXPECT_EQ(errors.size(), 1u) << text << describe(errors);
    return errors.empty() ? std::string() : errors[0].message;
  };
  EXPECT_EQ(check("aten::add.out(Tensor self, Tensor other, *, Tensor(a!) out, Scalar alpha=1) "
                  "-> Tensor(a!)"),
            "argument 'alpha' follows out argument 'out' but is not mutable: out arguments come "
            "last; move 'alpha' before 'out'");
  EXPECT_EQ(check("aten::f(Tensor self, Scalar alpha=None) -> Tensor"),
            "default 'None' of argument 'alpha' does not fit its type 'Scalar': None needs an "
            "optional type: declare it 'Scalar?'");
  EXPECT_EQ(check("aten::f(Tensor(a!) self, Tensor(a!) other) -> ()"),
            "arguments 'self' and 'other' both write alias set 'a': give 'other' an alias set of "
            "its own");
  EXPECT_EQ(check("aten::f.out(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> "
                  "(Tensor(a!), Tensor(c!))"),
            "out argument 'indices' is annotated (b!) but return 1 'Tensor(c!)' has (c!): return 1 "
            "must carry the annotation of out argument 1, (b!)");
}

// Large inputs must stay cheap to check: no rule may be worse than about
// linear in the number of arguments times returns.
TEST(CheckSchema, LargeSchemasStayCheap) {
  std::string args = "Tensor self, *", rets;
  for (int i = 0; i < 3000; ++i) {
    const std::string alias = "(a" + std::to_string(i) + "!)";
    args += ", Tensor" + alias + " out" + std::to_string(i);
    rets += std::string(i ? ", " : "") + "Tensor" + alias;
  }
  auto parsed = parse_schema_with_layout("x::f.out(" + args + ") -> (" + rets + ")");
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(check_schema(parsed.value->schema, parsed.value->layout).empty());

  // A long list default: each item is checked once.
  std::string items = "[";
  for (int i = 0; i < 20000; ++i)
    items += i ? ", 1.5" : "1.5";
  items += "]";
  auto list = parse_schema_with_layout("x::f(float[] a=" + items + ") -> ()");
  ASSERT_TRUE(list);
  EXPECT_TRUE(check_schema(list.value->schema, list.value->layout).empty());
  // A long type: libtorch builds no nested list, refused without looking
  // at the items.
  std::string deep = "int";
  for (int i = 0; i < 2000; ++i)
    deep += "[]";
  auto nested = parse_schema_with_layout("x::f(" + deep + " a=[[]]) -> ()");
  ASSERT_TRUE(nested);
  EXPECT_EQ(check_schema(nested.value->schema, nested.value->layout).size(), 1u);
}

// Mutates canonical schemas at random (fixed seed) and checks the parser
// neither crashes nor prints something it cannot read back identically.
TEST(SchemaFuzz, MutationsAreStable) {
  std::mt19937 rng(20240611);
  const std::string alphabet = "()[]?!*,=-> |:.'\"\\abTensorint0123e_\t\xff";
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  int parsed_ok = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    std::string s = kCanonical[pick(kCanonical.size())];
    const size_t edits = 1 + pick(3);
    for (size_t e = 0; e < edits; ++e) {
      const size_t at = pick(s.size() + 1);
      switch (pick(3)) {
      case 0:
        if (at < s.size())
          s.erase(at, 1 + pick(3));
        break;
      case 1:
        s.insert(at, 1, alphabet[pick(alphabet.size())]);
        break;
      default:
        if (!s.empty())
          s.insert(at, s.substr(pick(s.size()), pick(8)));
        break;
      }
    }
    auto first = parse_schema(s);
    if (!first) {
      ASSERT_TRUE(first.error) << s;
      EXPECT_LE(first.error->offset, s.size()) << s;
      EXPECT_FALSE(first.error->code.empty()) << s;
      EXPECT_FALSE(first.error->message.empty()) << s;
      continue;
    }
    ++parsed_ok;
    const std::string printed = first.value->str();
    auto second = parse_schema(printed);
    ASSERT_TRUE(second) << s << "\n" << printed << "\n" << second.error->message;
    EXPECT_EQ(second.value->str(), printed) << s;
    EXPECT_EQ(*second.value, *first.value) << s;
    // The checks see the same schema through either layout.
    auto with_layout = parse_schema_with_layout(s);
    ASSERT_TRUE(with_layout) << s;
    auto codes = [](std::vector<Error> errors) {
      std::vector<std::string> out;
      for (const Error& e : errors)
        out.push_back(e.code);
      std::sort(out.begin(), out.end());
      return out;
    };
    EXPECT_EQ(codes(check_schema(*first.value, with_layout.value->layout)),
              codes(check_schema(*first.value, layout_of(*first.value))))
        << s;
    EXPECT_EQ(layout_of(*first.value), parse_schema_with_layout(printed).value->layout) << s;
  }
  // Sanity: the mutations should leave some inputs valid, or the round-trip
  // half of this test checks nothing.
  EXPECT_GT(parsed_ok, 100);
}

} // namespace
} // namespace opscan::schema
