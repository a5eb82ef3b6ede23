// ir::Field and ir::Fields (ir/fields.h): one definition per field, lookups,
// how a field shows in messages, and each set field checked by its own check.
#include "ir/fields.h"
#include "ir_test_helpers.h"

#include <gtest/gtest.h>
#include <string>
#include <string_view>

namespace {

using namespace opscan;
using namespace opscan::ir;

Field field(std::string annotation, std::string key, std::string code = "opscan-f") {
  return {std::move(annotation), std::move(key), std::move(code), "f", "f '{}'", "", {}};
}

TEST(IrFields, OneDefinitionPerKeyAndName) {
  Fields fields;
  EXPECT_TRUE(fields.add(field("key", "kernel_key")));
  // The same field again (two targets reading it) is kept once.
  EXPECT_TRUE(fields.add(field("key", "kernel_key")));
  EXPECT_EQ(fields.annotation_names(), "key");
  // Another field under its key, or its name, or its key with another code.
  EXPECT_FALSE(fields.add(field("other", "kernel_key")));
  EXPECT_FALSE(fields.add(field("key", "other_key")));
  EXPECT_FALSE(fields.add(field("key", "kernel_key", "opscan-other")));
  EXPECT_TRUE(fields.add(field("dispatch", "dispatch_key")));
  EXPECT_EQ(fields.annotation_names(), "key, dispatch");

  ASSERT_NE(fields.by_key("dispatch_key"), nullptr);
  EXPECT_EQ(fields.by_key("dispatch_key")->annotation, "dispatch");
  ASSERT_NE(fields.by_annotation("key"), nullptr);
  EXPECT_EQ(fields.by_annotation("key")->key, "kernel_key");
  EXPECT_EQ(fields.by_key("key"), nullptr);
  EXPECT_EQ(fields.by_annotation("kernel_key"), nullptr);

  // The constructor leaves out what add() refuses.
  const Fields built({field("a", "a_key"), field("b", "a_key"), field("c", "c_key")});
  EXPECT_EQ(built.annotation_names(), "a, c");
}

TEST(IrFields, NamesForMessages) {
  EXPECT_EQ(Fields().annotation_names(" or "), "");
  EXPECT_EQ(Fields({field("a", "a")}).annotation_names(" or "), "a");
  EXPECT_EQ(Fields({field("a", "a"), field("b", "b")}).annotation_names(" or "), "a or b");
  EXPECT_EQ(Fields({field("a", "a"), field("b", "b"), field("c", "c")}).annotation_names(" or "),
            "a, b or c");
}

TEST(IrFields, ShownAndDescribedInTheFieldsOrder) {
  Field quoted = field("key", "kernel_key");
  Field plain = field("dispatch", "dispatch_key");
  plain.shown = "dispatch key {}";
  EXPECT_EQ(quoted.show("v1/6;0"), "f 'v1/6;0'");
  EXPECT_EQ(plain.show("CPU"), "dispatch key CPU");
  const Fields fields({quoted, plain});

  Kernel k;
  k.op = {"aten", "add", "out"};
  EXPECT_EQ(describe(k, fields), "aten::add.out");
  k.set_field("dispatch_key", "CPU");
  k.set_field("kernel_key", "v1/6;0");
  k.set_field("unknown_key", "x"); // not among `fields`: not shown
  EXPECT_EQ(describe(k, fields), "aten::add.out (f 'v1/6;0') (dispatch key CPU)");
  // An empty value unsets.
  k.set_field("kernel_key", "");
  EXPECT_FALSE(k.fields.contains("kernel_key"));
  EXPECT_EQ(k.field("kernel_key"), "");
}

TEST(IrFields, EachSetFieldIsCheckedByItsOwnCheck) {
  Field checked = field("key", "kernel_key", "opscan-kernel-key");
  checked.check = [](std::string_view value, const Kernel&) -> std::optional<FieldProblem> {
    if (value.starts_with("v1/"))
      return std::nullopt;
    return FieldProblem{0, "not a v1 key"};
  };
  const Fields fields({checked, field("dispatch", "dispatch_key")}); // the second: no check
  Kernel k;
  EXPECT_TRUE(check_fields(k, fields).empty());
  k.set_field("dispatch_key", "anything");
  k.set_field("unknown_key", "x"); // no definition: not checked here
  EXPECT_TRUE(check_fields(k, fields).empty());
  k.set_field("kernel_key", "v2/6");
  const std::vector<FieldFinding> found = check_fields(k, fields);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].field->code, "opscan-kernel-key");
  EXPECT_EQ(found[0].problem.message, "not a v1 key");
}

} // namespace
