// derive_kernel_keys: ExecuTorch's kernel keys of a functions.yaml kernel
// with arg_meta, as its generator derives them, and a located warning for
// an arg_meta none derive from.
#include "migrate/kernel_keys.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace opscan::migrate {
namespace {

struct Derived {
  std::optional<KernelKeys> keys;
  diag::Diagnostics diags;
};

// The keys of the first kernel of the one entry in `yaml`.
Derived derive(const std::string& yaml) {
  Derived d;
  auto entries = yaml::parse_operator_yaml(yaml, "functions.yaml", d.diags);
  EXPECT_TRUE(entries && entries->size() == 1 && (*entries)[0].kernels.size() == 1 &&
              (*entries)[0].kernels[0].arg_meta)
      << (d.diags.empty() ? "" : d.diags[0].message);
  if (!entries || entries->empty() || (*entries)[0].kernels.empty() ||
      !(*entries)[0].kernels[0].arg_meta)
    return d;
  const yaml::Entry& e = (*entries)[0];
  d.keys = derive_kernel_keys(e, e.kernels[0], "'k' (aten::f.out)", d.diags);
  return d;
}

std::string entry(const std::string& type_alias, const std::string& dim_order_alias,
                  const std::string& arg_meta) {
  return "- op: f.out\n  type_alias: " + type_alias + "\n  dim_order_alias: " + dim_order_alias +
         "\n  kernels:\n    - arg_meta: " + arg_meta + "\n      kernel_name: k\n";
}

TEST(KernelKeys, OneDtypeAliasIsOneKey) {
  // ExecuTorch's runtime/kernel/test/functions.yaml.
  Derived d = derive(entry("{T0: [Double]}", "{D0: [0, 1, 2, 3]}",
                           "{self: [T0, D0], other: [T0 , D0], out: [T0, D0]}"));
  ASSERT_TRUE(d.keys) << d.diags[0].message;
  EXPECT_TRUE(d.diags.empty());
  EXPECT_EQ(d.keys->count, 1u);
  EXPECT_EQ(d.keys->keys, (std::vector<std::string>{"v1/7;0,1,2,3|7;0,1,2,3|7;0,1,2,3"}));
}

TEST(KernelKeys, ArgumentsInTheOrderWrittenEachWithItsAliases) {
  Derived d = derive(entry("{T0: [Float], T1: [Bool]}", "{D0: [0, 1], D1: [1, 0], D2: []}",
                           "{out: [T1, D1], self: [T0, D0], scalar: [T0, D2]}"));
  ASSERT_TRUE(d.keys);
  EXPECT_EQ(d.keys->keys, (std::vector<std::string>{"v1/11;1,0|6;0,1|6;"}));
}

TEST(KernelKeys, OneDimensionIsTheRuntimesKey) {
  // ExecuTorch's generator would write "6;0," (a key never looked up).
  Derived d = derive(entry("{T0: [Float]}", "{D0: [0]}", "{self: [T0, D0], out: [T0, D0]}"));
  ASSERT_TRUE(d.keys);
  EXPECT_EQ(d.keys->keys, (std::vector<std::string>{"v1/6;0|6;0"}));
}

TEST(KernelKeys, EveryDtypeCombinationIsAKey) {
  // An alias used twice has one dtype in a key; the first alias varies slowest.
  Derived d = derive(entry("{T0: [Byte, Char, Short], T1: [Int, Long]}", "{D0: [0, 1]}",
                           "{self: [T1, D0], other: [T0, D0], out: [T1, D0]}"));
  ASSERT_TRUE(d.keys);
  EXPECT_EQ(d.keys->count, 6u);
  EXPECT_EQ(d.keys->keys,
            (std::vector<std::string>{"v1/3;0,1|0;0,1|3;0,1", "v1/3;0,1|1;0,1|3;0,1",
                                      "v1/3;0,1|2;0,1|3;0,1", "v1/4;0,1|0;0,1|4;0,1",
                                      "v1/4;0,1|1;0,1|4;0,1", "v1/4;0,1|2;0,1|4;0,1"}));
}

TEST(KernelKeys, ManyCombinationsAreCountedAndTheFirstListed) {
  const std::string all = "[Byte, Char, Short, Int, Long, Float, Double, Bool]";
  Derived d =
      derive(entry("{A: " + all + ", B: " + all + "}", "{D: [0]}", "{self: [A, D], out: [B, D]}"));
  ASSERT_TRUE(d.keys);
  EXPECT_EQ(d.keys->count, 64u);
  ASSERT_EQ(d.keys->keys.size(), kListedKeys);
  EXPECT_EQ(d.keys->keys[0], "v1/0;0|0;0");
  EXPECT_EQ(d.keys->keys[9], "v1/1;0|1;0");
}

// The one warning derive gives for `yaml`, at line:column.
void expect_refused(const std::string& yaml, uint32_t line, uint32_t column,
                    const std::string& message) {
  Derived d = derive(yaml);
  EXPECT_FALSE(d.keys) << yaml;
  ASSERT_EQ(d.diags.size(), 1u) << yaml;
  const diag::Diagnostic& w = d.diags[0];
  EXPECT_EQ(w.severity, diag::Severity::warning);
  EXPECT_EQ(w.code, "opscan-import-arg-meta");
  EXPECT_EQ(w.location.line, line) << w.message;
  EXPECT_EQ(w.location.column, column) << w.message;
  EXPECT_NE(w.message.find(message), std::string::npos) << w.message;
  EXPECT_NE(w.message.find("'k' (aten::f.out): "), std::string::npos) << w.message;
}

TEST(KernelKeys, BadArgMetaIsAWarningAtItsPlace) {
  // Line 2 is type_alias, 3 dim_order_alias, 5 arg_meta.
  expect_refused(entry("{T0: [Float]}", "{D0: [0]}", "{self: [T9, D0]}"), 5, 25,
                 "type alias 'T9' is not defined in the entry's type_alias (defined: T0)");
  expect_refused(entry("{T0: [Float]}", "{D0: [0]}", "{self: [T0, D1]}"), 5, 29,
                 "dim order alias 'D1' is not defined in the entry's dim_order_alias (defined: "
                 "D0)");
  expect_refused(entry("null", "null", "{self: [T0, D0]}"), 5, 25, "(defined: none)");
  expect_refused(entry("{T0: [Float, Half]}", "{D0: [0]}", "{self: [T0, D0]}"), 2, 28,
                 "type alias 'T0': 'Half' is not a dtype ExecuTorch's generator knows");
  expect_refused(entry("{T0: [float]}", "{D0: [0]}", "{self: [T0, D0]}"), 2, 21,
                 "'float' is not a dtype");
  expect_refused(entry("{T0: []}", "{D0: [0]}", "{self: [T0, D0]}"), 2, 16,
                 "type alias 'T0' lists no dtype");
  expect_refused(entry("{T0: [Float]}", "{D0: [0, -1]}", "{self: [T0, D0]}"), 3, 29,
                 "dim order alias 'D0': '-1' is not a dimension");
  expect_refused(
      entry("{T0: [Float]}", "{D0: [0, 1], D1: [1, 1]}", "{self: [T0, D0], out: [T0, D1]}"), 5, 44,
      "kernel key 'v1/6;0,1|6;1,1': the dim order of entry 2 is not a permutation");
  expect_refused(entry("{T0: [Float]}", "{D0: [0]}", "{self: [T0]}"), 5, 18,
                 "arg_meta of 'self' lists 1 alias, not [type alias, dim order alias]");
  expect_refused(entry("{T0: [Float]}", "{D0: [0]}", "{}"), 5, 7, "arg_meta names no argument");
}

} // namespace
} // namespace opscan::migrate
