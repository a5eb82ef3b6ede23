// parse_annotation: the text of OPSCAN_KERNEL's arguments as the
// preprocessor stringizes them. Pure: no libclang.
#include "kernel/annotation.h"
#include "kernel_test_helpers.h"

#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::kernel {
namespace {

using test_support::test_fields;

TEST(ParseAnnotation, OperatorNameOnly) {
  ParsedAnnotation parsed = parse_annotation(R"("aten::add.out")", test_fields());
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_FALSE(parsed.error);
  EXPECT_EQ(parsed.annotation->spec, "aten::add.out");
  EXPECT_EQ(parsed.annotation->spec_offset, 1u);
  EXPECT_EQ(parsed.annotation->value("key"), "");
  EXPECT_EQ(parsed.annotation->value("dispatch"), "");
}

TEST(ParseAnnotation, FullSchema) {
  const std::string schema = "my_ops::mul3.out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)";
  ParsedAnnotation parsed = parse_annotation("\"" + schema + "\"", test_fields());
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->spec, schema);
}

TEST(ParseAnnotation, LeadingSpaceMovesTheSpec) {
  ParsedAnnotation parsed = parse_annotation(R"(   "t::f")", test_fields());
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->spec_offset, 4u);
  EXPECT_EQ(parsed.annotation->text_offset(0), 4u);
  EXPECT_EQ(parsed.annotation->text_offset(4), 8u); // the closing quote
}

TEST(ParseAnnotation, KeyAndDispatchFields) {
  // As stringized from: "aten::add.out", key = "v1/6;0,1|6;0,1", dispatch = "CPU"
  const std::string_view text = R"("aten::add.out", key = "v1/6;0,1|6;0,1", dispatch = "CPU")";
  ParsedAnnotation parsed = parse_annotation(text, test_fields());
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->spec, "aten::add.out");
  EXPECT_EQ(parsed.annotation->value("key"), "v1/6;0,1|6;0,1");
  EXPECT_EQ(parsed.annotation->value("dispatch"), "CPU");
  // Each field's offset is its value's first character, where problems with
  // the value are reported.
  EXPECT_EQ(parsed.annotation->field("key")->offset, text.find("v1/"));
  EXPECT_EQ(parsed.annotation->field("dispatch")->offset, text.find("CPU"));

  // Written without spaces, in the other order.
  const std::string_view tight = R"("aten::add.out",dispatch="CUDA",key="k")";
  parsed = parse_annotation(tight, test_fields());
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->value("key"), "k");
  EXPECT_EQ(parsed.annotation->value("dispatch"), "CUDA");
  EXPECT_EQ(parsed.annotation->field("key")->offset, tight.rfind('k'));
  EXPECT_EQ(parsed.annotation->field("dispatch")->offset, tight.find("CUDA"));
}

TEST(ParseAnnotation, AdjacentLiteralsAreConcatenated) {
  // What a macro writes: OPSCAN_KERNEL("t::" #name ".out").
  const std::string_view text = R"("t::" "neg" ".out", key = "a" "b")";
  ParsedAnnotation parsed = parse_annotation(text, test_fields());
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  const Annotation& a = *parsed.annotation;
  EXPECT_EQ(a.spec, "t::neg.out");
  EXPECT_EQ(a.value("key"), "ab");
  // Each byte of the spec maps back to where it is written.
  EXPECT_EQ(a.text_offset(0), text.find('t'));
  EXPECT_EQ(a.text_offset(3), text.find('n'));
  EXPECT_EQ(a.text_offset(6), text.find('.'));
  EXPECT_EQ(a.text_offset(a.spec.size()), text.find(".out") + 4); // the closing quote
  // Past the end: the closing quote still.
  EXPECT_EQ(a.text_offset(a.spec.size() + 5), text.find(".out") + 4);
}

TEST(ParseAnnotation, EscapesAreDecodedAndOffsetsFollowTheSource) {
  const std::string_view text = R"x("t::f(str s='\"') -> ()")x";
  ParsedAnnotation parsed = parse_annotation(text, test_fields());
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->spec, R"x(t::f(str s='"') -> ())x");
  const size_t close_paren = parsed.annotation->spec.find(')');
  EXPECT_EQ(parsed.annotation->text_offset(close_paren), text.find(')'));

  parsed = parse_annotation(R"("a\tb\nc\\d\'e")", test_fields());
  ASSERT_TRUE(parsed.annotation) << parsed.error->message;
  EXPECT_EQ(parsed.annotation->spec, "a\tb\nc\\d'e");
}

TEST(ParseAnnotation, TextOffsetWithoutRecordedOffsetsCountsFromTheSpec) {
  // An Annotation made by hand has no per-byte offsets.
  Annotation a;
  a.spec = "t::f";
  a.spec_offset = 7;
  EXPECT_EQ(a.text_offset(0), 7u);
  EXPECT_EQ(a.text_offset(3), 10u);
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
      {R"("aten::add.out\")", 16, "unterminated string literal"},
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
      {R"("aten::add.out", dispatch = "" "")", 33, "'dispatch' is empty"},
      {R"("aten::add.out", dispatch = "\q")", 30, "value of 'dispatch': unsupported escape"},
  };
  for (const AnnotationErrorCase& c : cases) {
    SCOPED_TRACE(c.text);
    ParsedAnnotation parsed = parse_annotation(c.text, test_fields());
    EXPECT_FALSE(parsed.annotation);
    ASSERT_TRUE(parsed.error);
    EXPECT_EQ(parsed.error->offset, c.offset);
    EXPECT_NE(parsed.error->message.find(c.message), std::string::npos) << parsed.error->message;
  }
}

} // namespace
} // namespace opscan::kernel
