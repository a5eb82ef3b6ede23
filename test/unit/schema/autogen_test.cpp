// torchgen's out= and functional variants (schema/autogen.h). Where PyTorch
// has the operator, the expected schema is the one it registers.
#include "schema/autogen.h"

#include <gtest/gtest.h>
#include <string>
#include <string_view>

namespace opscan::schema {
namespace {

Schema parsed(std::string_view text) {
  auto p = parse_schema(text);
  EXPECT_TRUE(p) << text << ": " << (p.error ? p.error->message : "");
  return p ? *p.value : Schema{};
}

OperatorName op(std::string_view text) {
  auto p = parse_operator_name(text);
  EXPECT_TRUE(p) << text;
  return p ? *p.value : OperatorName{};
}

// The derived schema's canonical spelling, or "error: <why>". A derived
// schema must print as text that parses back to it.
std::string shown(const Derived& d) {
  if (!d)
    return "error: " + d.error;
  auto again = parse_schema(d.schema->str());
  EXPECT_TRUE(again) << d.schema->str();
  if (again) {
    EXPECT_EQ(*again.value, *d.schema);
  }
  return d.schema->str();
}

std::string autogen(std::string_view from, std::string_view name) {
  return shown(autogen_variant(parsed(from), op(name)));
}

// ---------------------------------------------------------------------------
// out= variants of functional operators

TEST(AutogenOut, FunctionalOneReturnDropsTensorOptions) {
  EXPECT_EQ(autogen("aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
                    "Device? device=None, bool? pin_memory=None, bool non_blocking=False, "
                    "MemoryFormat? memory_format=None) -> Tensor",
                    "aten::_to_copy.out"),
            "aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? "
            "memory_format=None, Tensor(a!) out) -> Tensor(a!)");
}

TEST(AutogenOut, OverloadGetsOutSuffix) {
  EXPECT_EQ(autogen("aten::native_norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, "
                    "bool keepdim, ScalarType? dtype) -> Tensor",
                    "aten::native_norm.ScalarOpt_dim_dtype_out"),
            "aten::native_norm.ScalarOpt_dim_dtype_out(Tensor self, Scalar? p, int[1] dim, bool "
            "keepdim, ScalarType? dtype, *, Tensor(a!) out) -> Tensor(a!)");
}

TEST(AutogenOut, FunctionalSeveralReturnsAreOut0Out1) {
  EXPECT_EQ(autogen("aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)",
                    "aten::native_dropout.out"),
            "aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0, "
            "Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))");
}

TEST(AutogenOut, NamedReturnsDoNotNameTheOuts) {
  EXPECT_EQ(autogen("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, "
                    "Tensor indices)",
                    "aten::max.dim_out"),
            "aten::max.dim_out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out0, "
            "Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))");
}

TEST(AutogenOut, TensorListReturnReturnsNothing) {
  EXPECT_EQ(autogen("aten::_foreach_abs(Tensor[] self) -> Tensor[]", "aten::_foreach_abs.out"),
            "aten::_foreach_abs.out(Tensor[] self, *, Tensor(a!)[] out) -> ()");
}

TEST(AutogenOut, OptionalTensorReturnReturnsNothing) {
  EXPECT_EQ(autogen("demo::maybe(Tensor self) -> Tensor?", "demo::maybe.out"),
            "demo::maybe.out(Tensor self, *, Tensor(a!)? out) -> ()");
}

TEST(AutogenOut, NonTensorReturnsStayAndKeepTheirLetterIndex) {
  // Return 1 is the tensor: its out is named out1 and takes the second
  // free letter, as torchgen indexes both by return.
  EXPECT_EQ(autogen("demo::count_and_mask(Tensor self) -> (int count, Tensor mask)",
                    "demo::count_and_mask.out"),
            "demo::count_and_mask.out(Tensor self, *, Tensor(b!) out1) -> int count");
}

TEST(AutogenOut, AliasLettersUsedByArgumentsAreSkippedAndAnnotationsDropped) {
  EXPECT_EQ(
      autogen("demo::pair(Tensor(a) self, Tensor(c) other) -> (Tensor, Tensor)", "demo::pair.out"),
      "demo::pair.out(Tensor self, Tensor other, *, Tensor(b!) out0, Tensor(d!) out1) -> "
      "(Tensor(b!), Tensor(d!))");
}

TEST(AutogenOut, CustomNamespaceIsKept) {
  EXPECT_EQ(autogen("custom::scale(Tensor x, float factor=1.0) -> Tensor", "custom::scale.out"),
            "custom::scale.out(Tensor x, float factor=1.0, *, Tensor(a!) out) -> Tensor(a!)");
}

// ---------------------------------------------------------------------------
// out= variants of in-place and mutable operators

TEST(AutogenOut, InplaceSelfBecomesOut) {
  EXPECT_EQ(autogen("aten::_add_relu_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> "
                    "Tensor(a!)",
                    "aten::_add_relu.Scalar_out"),
            "aten::_add_relu.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) "
            "out) -> Tensor(a!)");
}

TEST(AutogenOut, InplaceTensorListSelfReturnsNothing) {
  EXPECT_EQ(autogen("aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar "
                    "alpha=1) -> ()",
                    "aten::_foreach_add.List_out"),
            "aten::_foreach_add.List_out(Tensor[] self, Tensor[] other, *, Scalar alpha=1, "
            "Tensor(a!)[] out) -> ()");
}

TEST(AutogenOut, InplaceDunderIsAugmentedAssignment) {
  EXPECT_EQ(autogen("aten::__ilshift__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
                    "aten::__lshift__.Scalar_out"),
            "aten::__lshift__.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> "
            "Tensor(a!)");
  EXPECT_EQ(autogen("aten::__ilshift__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
                    "aten::__ilshift__.Scalar_out"),
            "error: aten::__ilshift__.Scalar: torchgen derives aten::__lshift__.Scalar_out (out=) "
            "and aten::__lshift__.Scalar (functional), not aten::__ilshift__.Scalar_out");
  // Not an augmented assignment: not in place.
  EXPECT_EQ(autogen("demo::__iadd2__(Tensor self) -> Tensor", "demo::__iadd2__.out"),
            "demo::__iadd2__.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
}

TEST(AutogenOut, MutableKeepsItsWrittenArgumentsAndTakesFreshLetters) {
  EXPECT_EQ(autogen("aten::_fused_moving_avg_obs_fq_helper(Tensor self, Tensor observer_on, Tensor "
                    "fake_quant_on, Tensor(a!) running_min, Tensor(b!) running_max, Tensor(c!) "
                    "scale, Tensor(d!) zero_point, float averaging_const, int quant_min, int "
                    "quant_max, int ch_axis, bool per_row_fake_quant=False, bool "
                    "symmetric_quant=False) -> (Tensor output, Tensor mask)",
                    "aten::_fused_moving_avg_obs_fq_helper.out"),
            "aten::_fused_moving_avg_obs_fq_helper.out(Tensor self, Tensor observer_on, Tensor "
            "fake_quant_on, Tensor(a!) running_min, Tensor(b!) running_max, Tensor(c!) scale, "
            "Tensor(d!) zero_point, float averaging_const, int quant_min, int quant_max, int "
            "ch_axis, bool per_row_fake_quant=False, bool symmetric_quant=False, *, Tensor(e!) "
            "out0, Tensor(f!) out1) -> (Tensor(e!), Tensor(f!))");
}

// ---------------------------------------------------------------------------
// Functional variants

TEST(AutogenFunctional, MutableGetsFunctionalNameAndReturnsItsWrittenArguments) {
  EXPECT_EQ(autogen("aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, "
                    "Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float "
                    "momentum, float eps) -> (Tensor, Tensor, Tensor)",
                    "aten::_native_batch_norm_legit_functional"),
            "aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? "
            "bias, Tensor running_mean, Tensor running_var, bool training, float momentum, float "
            "eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)");
}

TEST(AutogenFunctional, InplaceReturningSelfReturnsAPlainTensor) {
  const std::string resize = "aten::resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? "
                             "memory_format=None) -> Tensor(a!)";
  EXPECT_EQ(autogen(resize, "aten::resize"),
            "aten::resize(Tensor self, SymInt[] size, *, MemoryFormat? memory_format=None) -> "
            "Tensor");
  EXPECT_EQ(autogen(resize, "aten::resize.out"),
            "aten::resize.out(Tensor self, SymInt[] size, *, MemoryFormat? memory_format=None, "
            "Tensor(a!) out) -> Tensor(a!)");
}

TEST(AutogenFunctional, InplaceReturningNothingReturnsSelfOut) {
  EXPECT_EQ(autogen("aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar "
                    "alpha=1) -> ()",
                    "aten::_foreach_add.List"),
            "aten::_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[] "
            "self_out");
}

TEST(AutogenFunctional, ReturnedWrittenArgumentIsNotReturnedTwice) {
  EXPECT_EQ(
      shown(functional_variant(
          parsed("demo::fill(Tensor self, Tensor(a!) buffer, Tensor(b!) other) -> Tensor(a!)"),
          op("demo::fill_functional"))),
      "demo::fill_functional(Tensor self, Tensor buffer, Tensor other) -> (Tensor, Tensor "
      "other_out)");
}

// ---------------------------------------------------------------------------
// The entry points agree, and name what they expect

TEST(AutogenNames, OutAndFunctionalVariantEntryPoints) {
  const Schema relu = parsed("aten::relu_(Tensor(a!) self) -> Tensor(a!)");
  EXPECT_EQ(shown(out_variant(relu, op("aten::relu.out"))),
            "aten::relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(shown(functional_variant(relu, op("aten::relu"))), "aten::relu(Tensor self) -> Tensor");
  EXPECT_EQ(shown(out_variant(relu, op("aten::relu"))),
            "error: aten::relu_: torchgen names its out= variant aten::relu.out, not aten::relu");
  EXPECT_EQ(shown(functional_variant(relu, op("aten::relu.out"))),
            "error: aten::relu_: torchgen names its functional variant aten::relu, not "
            "aten::relu.out");
}

TEST(AutogenNames, AWrongNameSaysWhatTorchgenDerives) {
  EXPECT_EQ(autogen("aten::_add_relu_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> "
                    "Tensor(a!)",
                    "aten::_add_relu.out"),
            "error: aten::_add_relu_.Scalar: torchgen derives aten::_add_relu.Scalar_out (out=) "
            "and aten::_add_relu.Scalar (functional), not aten::_add_relu.out");
  EXPECT_EQ(autogen("aten::angle(Tensor self) -> Tensor", "aten::angle.Tensor_out"),
            "error: aten::angle: torchgen derives aten::angle.out (out=), not "
            "aten::angle.Tensor_out");
  EXPECT_EQ(autogen("aten::angle(Tensor self) -> Tensor", "other::angle.out"),
            "error: aten::angle: torchgen derives aten::angle.out (out=), not other::angle.out");
}

TEST(AutogenNames, FunctionalOfAFunctionalOperatorIsRefused) {
  EXPECT_EQ(
      shown(functional_variant(parsed("aten::angle(Tensor self) -> Tensor"), op("aten::angle"))),
      "error: aten::angle: functional already: torchgen derives no functional variant");
}

// ---------------------------------------------------------------------------
// What torchgen derives nothing from

TEST(AutogenRefused, Views) {
  EXPECT_EQ(autogen("aten::alias(Tensor(a) self) -> Tensor(a)", "aten::alias.out"),
            "error: aten::alias: a view (a return aliases an argument): torchgen derives no "
            "variants of views");
  EXPECT_EQ(
      autogen("demo::split_all(Tensor(a -> *) self, int dim=0) -> Tensor[]", "demo::split_all.out"),
      "error: demo::split_all: a view (argument 'self' aliases into '*'): torchgen derives "
      "no variants of views");
}

TEST(AutogenRefused, OutAndScratchVariants) {
  EXPECT_EQ(autogen("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) "
                    "-> Tensor(a!)",
                    "aten::add.out_out"),
            "error: aten::add.out: an out= variant already: torchgen derives nothing from it");
  EXPECT_EQ(autogen("aten::linear.scratch_example(Tensor input, Tensor weight, Tensor? bias=None, "
                    "*, Tensor(a!) out, Tensor(b!) _scratch_tensor) -> Tensor(a!)",
                    "aten::linear.scratch_example_out"),
            "error: aten::linear.scratch_example: an out= variant already: torchgen derives "
            "nothing from it");
}

TEST(AutogenRefused, NoTensorReturn) {
  EXPECT_EQ(autogen("aten::_nnz(Tensor self) -> int", "aten::_nnz.out"),
            "error: aten::_nnz: no tensor is returned: torchgen derives no out= variant");
  EXPECT_EQ(autogen("demo::check(Tensor self) -> ()", "demo::check.out"),
            "error: demo::check: no tensor is returned: torchgen derives no out= variant");
}

TEST(AutogenRefused, WhatTorchgenCannotWrite) {
  EXPECT_EQ(autogen("demo::nested(Tensor self) -> Tensor?[]", "demo::nested.out"),
            "error: demo::nested: return 0 is a 'Tensor?[]': torchgen annotates only Tensor, "
            "Tensor? and Tensor[] outs");
  EXPECT_EQ(autogen("demo::clash(Tensor self, Tensor out) -> Tensor", "demo::clash.out"),
            "error: demo::clash: the derived argument 'out' would repeat an argument's name");
  EXPECT_EQ(autogen("demo::late_(Tensor[](a!) self) -> ()", "demo::late.out"),
            "error: demo::late_: argument 'self': torchgen reads no alias annotation after '[]'");
  EXPECT_EQ(autogen("demo::gen(Generator(a!) g) -> Tensor", "demo::gen.out"),
            "error: demo::gen: argument 'g': torchgen reads alias annotations on Tensor, Tensor? "
            "and Tensor[] only");
  EXPECT_EQ(autogen("demo::mut(Tensor self, Tensor(a!) buf) -> Tensor(a!)", "demo::mut.out"),
            "error: demo::mut: a return is written: torchgen derives no out= variant");
  EXPECT_EQ(autogen("demo::odd_(Tensor self) -> Tensor", "demo::odd.out"),
            "error: demo::odd_: an in-place operator without a written 'self' is outside "
            "torchgen's model");
}

} // namespace
} // namespace opscan::schema
