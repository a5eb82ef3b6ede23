// Reading operator YAML files (yaml/operator_yaml.h): entries as written and
// located, one located error for anything else, and hostile files read in
// bounded time and memory.
#include "yaml/operator_yaml.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace opscan::yaml {
namespace {

const std::string kPath = "ops.yaml";

std::vector<Entry> read(const std::string& text) {
  diag::Diagnostics diags;
  auto entries = parse_operator_yaml(text, kPath, diags);
  EXPECT_TRUE(entries) << (diags.empty() ? "" : diags[0].message);
  EXPECT_TRUE(diags.empty());
  return entries ? *entries : std::vector<Entry>{};
}

// The one error reading `text` gives.
diag::Diagnostic refused(const std::string& text) {
  diag::Diagnostics diags;
  auto entries = parse_operator_yaml(text, kPath, diags);
  EXPECT_FALSE(entries);
  EXPECT_EQ(diags.size(), 1u);
  return diags.empty() ? diag::Diagnostic{} : diags[0];
}

void expect_at(const diag::Location& where, uint32_t line, uint32_t column) {
  EXPECT_EQ(where.file, kPath);
  EXPECT_EQ(where.line, line);
  EXPECT_EQ(where.column, column);
}

void expect_error(const diag::Diagnostic& d, std::string_view code, uint32_t line, uint32_t column,
                  std::string_view message) {
  EXPECT_EQ(d.severity, diag::Severity::error);
  EXPECT_EQ(d.code, code);
  expect_at(d.location, line, column);
  EXPECT_NE(d.message.find(message), std::string::npos) << d.message;
}

// ---------------------------------------------------------------------------
// Entries

TEST(OperatorYaml, NativeFunctionsEntries) {
  const std::string text = R"yaml(# PyTorch's format
- func: relu_(Tensor(a!) self) -> Tensor(a!)
  device_check: NoCheck   # a comment
  variants: function, method
  dispatch:
    CPU, CUDA: relu_
    QuantizedCPU: [relu_quantized_cpu_]
  autogen: relu.out, relu
  tags: [core, pointwise]

- func: angle(Tensor self) -> Tensor
)yaml";
  const auto entries = read(text);
  ASSERT_EQ(entries.size(), 2u);
  const Entry& relu = entries[0];
  expect_at(relu.where, 2, 3);
  ASSERT_TRUE(relu.func);
  EXPECT_EQ(relu.func->text, "relu_(Tensor(a!) self) -> Tensor(a!)");
  expect_at(relu.func->where, 2, 9);
  EXPECT_TRUE(relu.func->verbatim);
  EXPECT_EQ(relu.func->where.offset, text.find("relu_("));
  EXPECT_FALSE(relu.op);
  ASSERT_EQ(relu.autogen.size(), 2u);
  EXPECT_EQ(relu.autogen[0].text, "relu.out");
  expect_at(relu.autogen[0].where, 8, 12);
  EXPECT_EQ(relu.autogen[1].text, "relu");
  expect_at(relu.autogen[1].where, 8, 22);
  EXPECT_TRUE(relu.kernels.empty());
  ASSERT_TRUE(entries[1].func);
  EXPECT_TRUE(entries[1].autogen.empty());
}

TEST(OperatorYaml, ExecuTorchEntriesAndKernels) {
  const std::string text = R"yaml(- op: add.out
  type_alias:
    T0: [Double]
  dim_order_alias:
    D0: [0, 1, 2, 3]
  kernels:
    - arg_meta: null
      kernel_name: torch::executor::add_out
    - arg_meta:
        self: [T0, D0]
        out: [T0, D0]
      kernel_name: torch::executor::add_out_double

- func: "my_ns::my_op.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"
  kernels:
    - kernel_name: custom::my_op_out
)yaml";
  const auto entries = read(text);
  ASSERT_EQ(entries.size(), 2u);
  const Entry& add = entries[0];
  ASSERT_TRUE(add.op);
  EXPECT_EQ(add.op->text, "add.out");
  EXPECT_FALSE(add.func);
  ASSERT_EQ(add.kernels.size(), 2u);
  EXPECT_FALSE(add.kernels[0].arg_meta);
  EXPECT_EQ(add.kernels[0].kernel_name.text, "torch::executor::add_out");
  expect_at(add.kernels[0].where, 7, 7);
  ASSERT_TRUE(add.kernels[1].arg_meta);
  const auto& meta = *add.kernels[1].arg_meta;
  ASSERT_EQ(meta.size(), 2u);
  EXPECT_EQ(meta[0].argument.text, "self");
  expect_at(meta[0].argument.where, 10, 9);
  ASSERT_EQ(meta[0].aliases.size(), 2u);
  EXPECT_EQ(meta[0].aliases[0].text, "T0");
  EXPECT_EQ(meta[0].aliases[1].text, "D0");
  expect_at(meta[0].aliases[1].where, 10, 20);
  EXPECT_EQ(meta[1].argument.text, "out");
  EXPECT_EQ(add.kernels[1].kernel_name.text, "torch::executor::add_out_double");
  ASSERT_EQ(add.type_alias.size(), 1u);
  EXPECT_EQ(add.type_alias[0].name.text, "T0");
  expect_at(add.type_alias[0].name.where, 3, 5);
  ASSERT_EQ(add.type_alias[0].values.size(), 1u);
  EXPECT_EQ(add.type_alias[0].values[0].text, "Double");
  expect_at(add.type_alias[0].values[0].where, 3, 10);
  ASSERT_EQ(add.dim_order_alias.size(), 1u);
  EXPECT_EQ(add.dim_order_alias[0].name.text, "D0");
  std::vector<std::string> dims;
  for (const Scalar& d : add.dim_order_alias[0].values)
    dims.push_back(d.text);
  EXPECT_EQ(dims, (std::vector<std::string>{"0", "1", "2", "3"}));
  expect_at(add.dim_order_alias[0].values[3].where, 5, 19);

  const Entry& custom = entries[1];
  ASSERT_TRUE(custom.func);
  EXPECT_EQ(custom.func->text, "my_ns::my_op.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  // Inside its quotes, byte for byte.
  EXPECT_TRUE(custom.func->verbatim);
  expect_at(custom.func->where, 14, 10);
  ASSERT_EQ(custom.kernels.size(), 1u);
  EXPECT_FALSE(custom.kernels[0].arg_meta); // absent: as null
  EXPECT_TRUE(custom.type_alias.empty());
  EXPECT_TRUE(custom.dim_order_alias.empty());
}

TEST(OperatorYaml, AliasesKeepTheirOrderAndNullIsNone) {
  const auto entries = read("- op: f.out\n  type_alias: {T1: [Int, Long], T0: []}\n"
                            "  dim_order_alias: null\n  kernels: []\n");
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(entries[0].type_alias.size(), 2u);
  EXPECT_EQ(entries[0].type_alias[0].name.text, "T1");
  ASSERT_EQ(entries[0].type_alias[0].values.size(), 2u);
  EXPECT_EQ(entries[0].type_alias[0].values[1].text, "Long");
  expect_at(entries[0].type_alias[0].values[1].where, 2, 26);
  EXPECT_EQ(entries[0].type_alias[1].name.text, "T0");
  EXPECT_TRUE(entries[0].type_alias[1].values.empty());
  EXPECT_TRUE(entries[0].dim_order_alias.empty());
}

TEST(OperatorYaml, EmptyFilesHaveNoEntries) {
  EXPECT_TRUE(read("").empty());
  EXPECT_TRUE(read("# only a comment\n\n").empty());
  EXPECT_TRUE(read("---\n...\n").empty());
  EXPECT_TRUE(read("[]\n").empty());
}

TEST(OperatorYaml, FlowStyleIsYamlToo) {
  const auto entries = read("[{func: 'neg(Tensor self) -> Tensor', autogen: neg.out}]");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].func->text, "neg(Tensor self) -> Tensor");
  EXPECT_TRUE(entries[0].func->verbatim);
  expect_at(entries[0].func->where, 1, 10);
  ASSERT_EQ(entries[0].autogen.size(), 1u);
  EXPECT_EQ(entries[0].autogen[0].text, "neg.out");
}

// ---------------------------------------------------------------------------
// Locations inside values

TEST(OperatorYamlLocations, OffsetsMapIntoVerbatimValuesOnly) {
  const auto entries = read("- func: 'neg(Tensor self) -> Tensor'\n"
                            "- func: \"neg.a(Tensor self,\\tint x) -> Tensor\"\n"
                            "- func: >\n    neg.b(Tensor self)\n    -> Tensor\n"
                            "- func:   plain(Tensor self) -> Tensor   \n");
  ASSERT_EQ(entries.size(), 4u);
  const Scalar& quoted = *entries[0].func;
  EXPECT_TRUE(quoted.verbatim);
  expect_at(quoted.at(4), 1, 14); // "Tensor"
  EXPECT_EQ(quoted.at(4).offset, 13u);
  const Scalar& escaped = *entries[1].func;
  EXPECT_EQ(escaped.text, "neg.a(Tensor self,\tint x) -> Tensor");
  EXPECT_FALSE(escaped.verbatim);
  expect_at(escaped.at(10), 2, 9); // the opening quote: offsets do not map
  const Scalar& folded = *entries[2].func;
  EXPECT_EQ(folded.text, "neg.b(Tensor self) -> Tensor\n");
  EXPECT_FALSE(folded.verbatim);
  const Scalar& plain = *entries[3].func;
  EXPECT_EQ(plain.text, "plain(Tensor self) -> Tensor");
  EXPECT_TRUE(plain.verbatim);
  expect_at(plain.at(6), 6, 17);
}

TEST(OperatorYamlLocations, ColumnsCountBytes) {
  const auto entries = read("- note: \"é\"\n  func: f(Tensor self) -> Tensor # é\n  é: x\n");
  ASSERT_EQ(entries.size(), 1u);
  expect_at(entries[0].func->where, 2, 9);
  const auto later = read("- {é: 1, func: g(Tensor self) -> Tensor}\n");
  ASSERT_EQ(later.size(), 1u);
  expect_at(later[0].func->where, 1, 17); // é is two bytes
  // After a byte-order mark, still bytes of the file.
  const std::string bom = "\xEF\xBB\xBF- func: f(Tensor self) -> Tensor\n";
  const auto marked = read(bom);
  ASSERT_EQ(marked.size(), 1u);
  expect_at(marked[0].func->where, 1, 12);
  EXPECT_EQ(marked[0].func->where.offset, 11u);
  EXPECT_TRUE(marked[0].func->verbatim);
}

TEST(OperatorYamlLocations, AutogenNamesAreTrimmedAndLocated) {
  const auto entries = read("- func: f_(Tensor(a!) self) -> Tensor(a!)\n"
                            "  autogen: f.out,f ,  g.out\n");
  ASSERT_EQ(entries[0].autogen.size(), 3u);
  EXPECT_EQ(entries[0].autogen[0].text, "f.out");
  EXPECT_EQ(entries[0].autogen[1].text, "f");
  expect_at(entries[0].autogen[1].where, 2, 18);
  EXPECT_EQ(entries[0].autogen[2].text, "g.out");
  expect_at(entries[0].autogen[2].where, 2, 23);
  EXPECT_TRUE(read("- func: f(Tensor self) -> Tensor\n  autogen: ''\n")[0].autogen.empty());
}

// ---------------------------------------------------------------------------
// Schema text and operator names

TEST(OperatorYamlNames, FuncWithoutNamespaceIsAten) {
  Scalar plain{"add.Tensor(Tensor self, Tensor other) -> Tensor", {}, true};
  auto parsed = parse_func(plain);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed.value->str(), "aten::add.Tensor(Tensor self, Tensor other) -> Tensor");
  Scalar custom{"my_ns::op(Tensor x) -> Tensor", {}, true};
  EXPECT_EQ(parse_func(custom).value->name.ns, "my_ns");
}

TEST(OperatorYamlNames, FuncErrorsIndexTheText) {
  Scalar plain{"add(Tensor self, t other) -> Tensor", {}, true};
  auto parsed = parse_func(plain);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error->offset, plain.text.find("t other"));
  Scalar bad_start{"(Tensor self) -> Tensor", {}, true};
  EXPECT_EQ(parse_func(bad_start).error->offset, 0u);
  Scalar two_levels{"a::b::c(Tensor self) -> Tensor", {}, true};
  EXPECT_FALSE(parse_func(two_levels));
}

TEST(OperatorYamlNames, OperatorNamesTakeTheGivenNamespace) {
  EXPECT_EQ(parse_operator(Scalar{"add.out", {}, true}, "aten").value->str(), "aten::add.out");
  EXPECT_EQ(parse_operator(Scalar{"foo", {}, true}, "custom").value->str(), "custom::foo");
  EXPECT_EQ(parse_operator(Scalar{"q::foo.out", {}, true}, "custom").value->str(), "q::foo.out");
  auto bad = parse_operator(Scalar{"foo.out bar", {}, true}, "aten");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error->offset, 8u);
}

// ---------------------------------------------------------------------------
// Refused, at the place

TEST(OperatorYamlErrors, MalformedYaml) {
  expect_error(refused("- func: f(Tensor self) -> Tensor\n  tags: [core\n- op: x\n"),
               "opscan-yaml-syntax", 3, 5, "malformed YAML: end of sequence flow not found");
  expect_error(refused("- func: f(Tensor self) -> Tensor\n\tautogen: x\n"), "opscan-yaml-syntax", 2,
               1, "malformed YAML: illegal tab");
  expect_error(refused("- func: a\n   bad: indentation\n"), "opscan-yaml-syntax", 2, 7,
               "malformed YAML: illegal map value");
  expect_error(refused("- func: *undefined\n"), "opscan-yaml-syntax", 1, 9,
               "malformed YAML: the referenced anchor is not defined");
}

TEST(OperatorYamlErrors, NotAnOperatorFile) {
  expect_error(refused("func: f(Tensor self) -> Tensor\n"), "opscan-yaml-format", 1, 1,
               "the top level of an operator file is a sequence of entries, not a mapping");
  expect_error(refused("aten::add(Tensor self) -> Tensor\n"), "opscan-yaml-format", 1, 1,
               "not a string");
  expect_error(refused("- f(Tensor self) -> Tensor\n"), "opscan-yaml-format", 1, 3,
               "an operator entry is a mapping (func: ... or op: ...), not a string");
  expect_error(refused("- func: [a, b]\n"), "opscan-yaml-format", 1, 9,
               "expected a schema, found a sequence");
  expect_error(refused("- func:\n"), "opscan-yaml-format", 2, 1,
               "expected a schema, found nothing (null)");
  expect_error(refused("- dispatch: {CPU: f}\n"), "opscan-yaml-format", 1, 3,
               "an operator entry needs 'func' (a schema) or 'op' (an operator name)");
  expect_error(refused("- func: f(Tensor self) -> Tensor\n  op: f\n"), "opscan-yaml-format", 2, 7,
               "'func' or 'op', not both");
  expect_error(refused("- func: f(Tensor self) -> Tensor\n  func: g(Tensor self) -> Tensor\n"),
               "opscan-yaml-format", 2, 3, "key 'func' is given twice");
  expect_error(refused("- op: f.out\n  kernels: torch::executor::f_out\n"), "opscan-yaml-format", 2,
               12, "kernels: expected a sequence of kernels, found a string");
  expect_error(refused("- op: f.out\n  kernels:\n    - arg_meta: null\n"), "opscan-yaml-format", 3,
               7, "a kernel needs 'kernel_name'");
  expect_error(refused("- op: f.out\n  kernels:\n    - arg_meta: [T0]\n      kernel_name: k\n"),
               "opscan-yaml-format", 3, 17,
               "arg_meta: expected null or a mapping of arguments, found a sequence");
  expect_error(refused("- op: f.out\n  kernels:\n    - arg_meta: {self: T0}\n      kernel_name: "
                       "k\n"),
               "opscan-yaml-format", 3, 24, "arg_meta of 'self': expected a list of alias names");
  expect_error(refused("- op: f.out\n  type_alias: [T0]\n"), "opscan-yaml-format", 2, 15,
               "type_alias: expected a mapping of aliases, found a sequence");
  expect_error(refused("- op: f.out\n  type_alias: {T0: Float}\n"), "opscan-yaml-format", 2, 20,
               "alias 'T0': expected a list such as [Float, Double], found a string");
  expect_error(refused("- op: f.out\n  dim_order_alias: {D0: [[0, 1]]}\n"), "opscan-yaml-format", 2,
               26, "expected a dtype name or dimension, found a sequence");
  expect_error(refused("- op: f.out\n  dim_order_alias: {D0: [0], D0: [1]}\n"),
               "opscan-yaml-format", 2, 30, "key 'D0' is given twice");
  expect_error(refused("- func: f_(Tensor(a!) self) -> Tensor(a!)\n  autogen: f.out, , f\n"),
               "opscan-yaml-format", 2, 19, "autogen: an empty operator name between commas");
  expect_error(refused("- func: f_(Tensor(a!) self) -> Tensor(a!)\n  autogen: [f.out]\n"),
               "opscan-yaml-format", 2, 12,
               "expected comma-separated operator names, found a sequence");
  expect_error(refused("- op: a.out\n---\n- op: b.out\n"), "opscan-yaml-format", 2, 1,
               "more than one YAML document");
  expect_error(refused("- {? [x] : y, op: a.out}\n"), "opscan-yaml-format", 1, 6,
               "a key is a string, not a sequence");
}

TEST(OperatorYamlErrors, AliasesOfStringsResolveAndOfCollectionsAreRefusedWhereRead) {
  const auto entries = read("- func: &f neg(Tensor self) -> Tensor\n"
                            "  dispatch: &d {CPU: neg}\n"
                            "- func: *f\n"
                            "  dispatch: *d\n");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].func->text, "neg(Tensor self) -> Tensor");
  expect_at(entries[1].func->where, 3, 9); // the alias
  EXPECT_FALSE(entries[1].func->verbatim);

  expect_error(refused("- op: a.out\n  kernels: &k\n    - kernel_name: k\n"
                       "- op: b.out\n  kernels: *k\n"),
               "opscan-yaml-format", 5, 12,
               "kernels: expected a sequence of kernels, found an alias (*k) of a mapping or "
               "sequence");
  expect_error(refused("- &e {op: a.out}\n- *e\n"), "opscan-yaml-format", 2, 3,
               "an alias (*e) of a mapping or sequence");
  expect_error(refused("- &base {func: 'f(Tensor self) -> Tensor'}\n- <<: *base\n  op: g\n"),
               "opscan-yaml-format", 2, 3, "merge keys ('<<') are not read");
}

// ---------------------------------------------------------------------------
// Hostile files: an error or a result, never a crash. (No time limits: a
// sanitized build on a busy machine is many times slower.)

bool reads(const std::string& text) {
  diag::Diagnostics diags;
  return parse_operator_yaml(text, kPath, diags).has_value();
}

TEST(OperatorYamlHostile, DeepNestingIsAnError) {
  // Where opscan reads, the first wrong kind of value is the error; below
  // keys it skips, yaml-cpp's depth limit.
  expect_error(refused("- func: " + std::string(100000, '[') + std::string(100000, ']') + "\n"),
               "opscan-yaml-format", 1, 9, "expected a schema, found a sequence");
  for (const std::string& text :
       {"- dispatch: " + std::string(100000, '[') + std::string(100000, ']') + "\n",
        "- dispatch: " + std::string(100000, '{'), [] {
          std::string t;
          for (int i = 0; i < 5000; ++i)
            t += std::string(2 * static_cast<size_t>(i), ' ') + "- a:\n";
          return t;
        }()}) {
    const diag::Diagnostic d = refused(text);
    EXPECT_EQ(d.code, "opscan-yaml-syntax");
    EXPECT_TRUE(d.location.valid());
  }
}

TEST(OperatorYamlHostile, AliasBombUnderSkippedKeysIsNotExpanded) {
  // 10^40 strings if expanded, under a key nobody reads and in a kernel.
  std::string bomb = "- func: f(Tensor self) -> Tensor\n  tags:\n    a0: &a0 [x, x, x, x, x, x, "
                     "x, x, x, x]\n";
  for (int i = 1; i < 40; ++i) {
    bomb += "    a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k)
      bomb += (k ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  bomb += "  kernels:\n    - kernel_name: k\n      extra: *a39\n  dispatch: *a39\n";
  EXPECT_TRUE(reads(bomb));
}

TEST(OperatorYamlHostile, ManyEntriesAreRead) {
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += "- func: op" + std::to_string(i) +
            ".Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
            "  variants: function, method\n  dispatch:\n    CPU: op_cpu\n  autogen: op" +
            std::to_string(i) + ".Tensor_out\n  tags: [core, pointwise]\n";
  }
  EXPECT_TRUE(reads(text));
  EXPECT_EQ(read(text).size(), 20000u);
}

TEST(OperatorYamlHostile, BinaryBytesAndLongLines) {
  // Whatever the verdict, no crash.
  diag::Diagnostics diags;
  // The literals' own lengths (with the NULs inside them, without the last).
  parse_operator_yaml(std::string("- func: \x01\x02\xff\xfe\0 x\n", 16), kPath, diags);
  parse_operator_yaml(std::string("\xff\xfe- \0f\0u\0n\0c", 12), kPath, diags);
  const auto entries = read("- func: " + std::string(1 << 22, 'a') + "\n");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].func->text.size(), size_t{1} << 22);
  for (char c = 1; c < 32; ++c) {
    diag::Diagnostics diags;
    parse_operator_yaml("- func: a" + std::string(1, c) + "b\n", kPath, diags); // no crash
  }
}

} // namespace
} // namespace opscan::yaml
