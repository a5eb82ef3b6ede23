// --schemas with operator YAML files (test/data/schemas_yaml/): the schemas
// each entry's func and autogen give, what is skipped, the errors, and how the
// format is chosen (a scan with them: scan/known_schemas_scan_test.cpp).
#include "kernel/known_schemas.h"
#include "kernel_test_helpers.h"

#include <map>

namespace opscan::kernel {
namespace {

using namespace test_support;

std::string yaml_data(std::string_view name) {
  return (fs::path(OPSCAN_TEST_DATA) / "schemas_yaml" / name).lexically_normal().string();
}

// Every known schema by operator name, as printed.
std::map<std::string, std::string> printed(const KnownSchemas& known) {
  std::map<std::string, std::string> out;
  for (const auto& [name, k] : known)
    out[name.str()] = k.schema.str();
  return out;
}

TEST(KnownSchemasYaml, NativeFunctionsFuncsAndAutogenVariants) {
  diag::Diagnostics diags;
  const auto known = load_known_schemas(yaml_data("native_functions.yaml"), diags);
  ASSERT_TRUE(known);
  const std::map<std::string, std::string> expected = {
      // Written out.
      {"aten::_to_copy",
       "aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
       "device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? "
       "memory_format=None) -> Tensor"},
      {"aten::native_dropout",
       "aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)"},
      {"aten::_add_relu_.Scalar",
       "aten::_add_relu_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)"},
      {"aten::_foreach_add_.List", "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, "
                                   "*, Scalar alpha=1) -> ()"},
      {"aten::_foreach_abs", "aten::_foreach_abs(Tensor[] self) -> Tensor[]"},
      {"aten::_native_batch_norm_legit",
       "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) "
       "running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) -> "
       "(Tensor, Tensor, Tensor)"},
      {"aten::_fused_moving_avg_obs_fq_helper",
       "aten::_fused_moving_avg_obs_fq_helper(Tensor self, Tensor observer_on, Tensor "
       "fake_quant_on, Tensor(a!) running_min, Tensor(b!) running_max, Tensor(c!) scale, "
       "Tensor(d!) zero_point, float averaging_const, int quant_min, int quant_max, int ch_axis, "
       "bool per_row_fake_quant=False, bool symmetric_quant=False) -> (Tensor output, Tensor "
       "mask)"},
      {"aten::resize_", "aten::resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? "
                        "memory_format=None) -> Tensor(a!)"},
      {"aten::_test_pair",
       "aten::_test_pair(Tensor self, int dim=0) -> (Tensor first, Tensor second)"},
      {"aten::_test_maybe", "aten::_test_maybe(Tensor self) -> Tensor?"},
      {"quantized_decomposed::requant",
       "quantized_decomposed::requant(Tensor input, float scale, int zero_point) -> Tensor"},
      {"aten::add.Tensor",
       "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"},
      {"aten::add.out", "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) "
                        "out) -> Tensor(a!)"},
      {"aten::_test_written", "aten::_test_written(Tensor self) -> Tensor"},
      {"aten::_test_written.out",
       "aten::_test_written.out(Tensor self, *, Tensor(a!) result) -> Tensor(a!)"},
      {"aten::alias", "aten::alias(Tensor(a) self) -> Tensor(a)"},
      {"aten::relu_", "aten::relu_(Tensor(a!) self) -> Tensor(a!)"},
      {"aten::_nnz", "aten::_nnz(Tensor self) -> int"},
      // Derived. Functional, one return: the tensor options dropped.
      {"aten::_to_copy.out",
       "aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? "
       "memory_format=None, Tensor(a!) out) -> Tensor(a!)"},
      // Functional, several returns (named or not): out0, out1.
      {"aten::native_dropout.out",
       "aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0, "
       "Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))"},
      {"aten::_test_pair.out",
       "aten::_test_pair.out(Tensor self, int dim=0, *, Tensor(a!) out0, Tensor(b!) out1) -> "
       "(Tensor(a!), Tensor(b!))"},
      // Functional returning a list or an optional tensor: outs, no returns.
      {"aten::_foreach_abs.out",
       "aten::_foreach_abs.out(Tensor[] self, *, Tensor(a!)[] out) -> ()"},
      {"aten::_test_maybe.out", "aten::_test_maybe.out(Tensor self, *, Tensor(a!)? out) -> ()"},
      // In-place: self becomes the out.
      {"aten::_add_relu.Scalar_out", "aten::_add_relu.Scalar_out(Tensor self, Scalar other, "
                                     "Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)"},
      // In-place on a list, returning (): a list out, still ().
      {"aten::_foreach_add.List_out",
       "aten::_foreach_add.List_out(Tensor[] self, Tensor[] other, *, Scalar alpha=1, "
       "Tensor(a!)[] out) -> ()"},
      {"aten::resize.out", "aten::resize.out(Tensor self, SymInt[] size, *, MemoryFormat? "
                           "memory_format=None, Tensor(a!) out) -> Tensor(a!)"},
      // Functional variants of in-place and mutable operators.
      {"aten::resize",
       "aten::resize(Tensor self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor"},
      {"aten::_native_batch_norm_legit_functional",
       "aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, "
       "Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> "
       "(Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)"},
      {"aten::_fused_moving_avg_obs_fq_helper_functional",
       "aten::_fused_moving_avg_obs_fq_helper_functional(Tensor self, Tensor observer_on, Tensor "
       "fake_quant_on, Tensor running_min, Tensor running_max, Tensor scale, Tensor zero_point, "
       "float averaging_const, int quant_min, int quant_max, int ch_axis, bool "
       "per_row_fake_quant=False, bool symmetric_quant=False) -> (Tensor output, Tensor mask, "
       "Tensor running_min_out, Tensor running_max_out, Tensor scale_out, Tensor "
       "zero_point_out)"},
      // Mutable: its written arguments kept, fresh letters for the outs.
      {"aten::_fused_moving_avg_obs_fq_helper.out",
       "aten::_fused_moving_avg_obs_fq_helper.out(Tensor self, Tensor observer_on, Tensor "
       "fake_quant_on, Tensor(a!) running_min, Tensor(b!) running_max, Tensor(c!) scale, "
       "Tensor(d!) zero_point, float averaging_const, int quant_min, int quant_max, int ch_axis, "
       "bool per_row_fake_quant=False, bool symmetric_quant=False, *, Tensor(e!) out0, "
       "Tensor(f!) out1) -> (Tensor(e!), Tensor(f!))"},
      // A custom namespace carries over to its variants.
      {"quantized_decomposed::requant.out",
       "quantized_decomposed::requant.out(Tensor input, float scale, int zero_point, *, "
       "Tensor(a!) out) -> Tensor(a!)"},
  };
  EXPECT_EQ(printed(*known), expected);

  // A derived schema is where its name is, under autogen:.
  const std::string path = yaml_data("native_functions.yaml");
  const std::string text = text_of(path);
  const KnownSchema& to_copy_out = known->at(parsed_schema("aten::_to_copy.out() -> ()").name);
  EXPECT_EQ(to_copy_out.where.offset, text.find("_to_copy.out"));
  EXPECT_EQ(to_copy_out.where.line, 12u);
  EXPECT_EQ(to_copy_out.where.column, 12u);
  const KnownSchema& to_copy = known->at(parsed_schema("aten::_to_copy() -> ()").name);
  EXPECT_EQ(to_copy.where.line, 6u);
  EXPECT_EQ(to_copy.where.column, 9u);

  // One note for what was skipped, at the first.
  ASSERT_EQ(diags.size(), 1u) << describe(diags);
  const diag::Diagnostic& note = diags[0];
  EXPECT_EQ(note.severity, diag::Severity::note);
  EXPECT_EQ(note.code, "opscan-known-schemas-skipped");
  EXPECT_EQ(note.location.offset, text.find("t self) -> t"));
  EXPECT_EQ(note.location.line, 86u);
  EXPECT_EQ(note.location.column, 23u);
  EXPECT_EQ(note.message,
            "5 schemas skipped: 1 outside the operator grammar, 4 autogen variants not derived "
            "(the first: unknown type 't'; expected a base type such as 'Tensor', 'Scalar', "
            "'int', 'float' or 'bool')");
}

TEST(KnownSchemasYaml, SkippedAutogenReasons) {
  // Each reason, as the first of its file.
  TempDir dir;
  auto first_reason = [&](const std::string& yaml) {
    diag::Diagnostics diags;
    EXPECT_TRUE(load_known_schemas(dir.write("ops.yaml", yaml), diags));
    EXPECT_EQ(diags.size(), 1u);
    return diags.empty() ? std::string() : diags[0].message;
  };
  EXPECT_EQ(first_reason("- func: alias(Tensor(a) self) -> Tensor(a)\n  autogen: alias.out\n"),
            "1 schema skipped: 1 autogen variant not derived (the first: autogen 'alias.out': "
            "aten::alias: a view (a return aliases an argument): torchgen derives no variants of "
            "views)");
  EXPECT_EQ(first_reason("- func: relu_(Tensor(a!) self) -> Tensor(a!)\n"
                         "  autogen: relu.out, relu.Scalar_out\n"),
            "1 schema skipped: 1 autogen variant not derived (the first: autogen "
            "'relu.Scalar_out': aten::relu_: torchgen derives aten::relu.out (out=) and "
            "aten::relu (functional), not aten::relu.Scalar_out)");
  EXPECT_EQ(first_reason("- func: neg(Tensor self) -> Tensor\n  autogen: neg.out neg\n"),
            "1 schema skipped: 1 autogen variant not derived (the first: autogen 'neg.out neg': "
            "expected end of input after operator name, found 'neg')");
  EXPECT_EQ(first_reason("- func: g(t self) -> t\n  autogen: g.out\n"),
            "2 schemas skipped: 1 outside the operator grammar, 1 autogen variant not derived "
            "(the first: unknown type 't'; expected a base type such as 'Tensor', 'Scalar', "
            "'int', 'float' or 'bool')");
}

TEST(KnownSchemasYaml, ExecuTorchFunctionsNameOperatorsOnly) {
  diag::Diagnostics diags;
  const auto known = load_known_schemas(yaml_data("functions.yaml"), diags);
  ASSERT_TRUE(known);
  EXPECT_TRUE(known->empty());
  EXPECT_TRUE(diags.empty()) << describe(diags);
}

TEST(KnownSchemasYaml, ExecuTorchCustomOps) {
  diag::Diagnostics diags;
  const auto known = load_known_schemas(yaml_data("custom_ops.yaml"), diags);
  ASSERT_TRUE(known);
  EXPECT_TRUE(diags.empty()) << describe(diags);
  const std::map<std::string, std::string> expected = {
      {"aten::allclose.out",
       "aten::allclose.out(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool "
       "equal_nan=False, bool dummy_param=False, *, Tensor(a!) out) -> Tensor(a!)"},
      {"my_ns::scale.out",
       "my_ns::scale.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)"},
      {"my_ns::gain", "my_ns::gain(Tensor self, float factor=1.0) -> Tensor"},
      {"my_ns::gain.out",
       "my_ns::gain.out(Tensor self, float factor=1.0, *, Tensor(a!) out) -> Tensor(a!)"},
  };
  EXPECT_EQ(printed(*known), expected);
  // Inside its quotes.
  const KnownSchema& scale = known->at(parsed_schema("my_ns::scale.out() -> ()").name);
  EXPECT_EQ(scale.where.line, 9u);
  EXPECT_EQ(scale.where.column, 10u);
}

TEST(KnownSchemasYaml, MalformedYamlIsOneLocatedError) {
  diag::Diagnostics diags;
  const std::string path = yaml_data("malformed.yaml");
  EXPECT_FALSE(load_known_schemas(path, diags));
  ASSERT_EQ(diags.size(), 1u) << describe(diags);
  EXPECT_EQ(diags[0].severity, diag::Severity::error);
  EXPECT_EQ(diags[0].code, "opscan-yaml-syntax");
  EXPECT_EQ(diags[0].location.file, path);
  EXPECT_EQ(diags[0].location.line, 3u);
  EXPECT_EQ(diags[0].location.column, 11u);
  EXPECT_EQ(diags[0].message, "malformed YAML: illegal map value");
}

TEST(KnownSchemasYaml, FormatByNameOrFirstCharacter) {
  TempDir dir;
  const std::string entry = "- func: neg(Tensor self) -> Tensor\n";
  const std::string line = "aten::neg(Tensor self) -> Tensor\n";
  auto load = [&](const std::string& name, const std::string& content, diag::Diagnostics& diags) {
    return load_known_schemas(dir.write(name, content), diags);
  };
  for (const auto& [name, content] : std::vector<std::pair<std::string, std::string>>{
           {"a.yaml", entry},
           {"b.YML", entry},
           {"c.txt", "# YAML after comments and blank lines\n\n  " + entry},
           {"d", "[{func: 'neg(Tensor self) -> Tensor'}]"},
           {"e.txt", line},
           {"f.txt", "# a list\n" + line},
       }) {
    SCOPED_TRACE(name);
    diag::Diagnostics diags;
    const auto known = load(name, content, diags);
    ASSERT_TRUE(known);
    EXPECT_TRUE(diags.empty()) << describe(diags);
    EXPECT_EQ(printed(*known), (std::map<std::string, std::string>{
                                   {"aten::neg", "aten::neg(Tensor self) -> Tensor"}}));
  }
  // Named YAML, it is read as YAML: a list of schemas is not.
  diag::Diagnostics diags;
  EXPECT_FALSE(load("g.yaml", line, diags));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "opscan-yaml-format");
  EXPECT_EQ(diags[0].message,
            "the top level of an operator file is a sequence of entries, not a string");
  // Empty either way.
  for (const char* name : {"h.yaml", "h.txt"}) {
    diag::Diagnostics none;
    const auto known = load(name, "# nothing\n", none);
    ASSERT_TRUE(known);
    EXPECT_TRUE(known->empty());
    EXPECT_TRUE(none.empty());
  }
}

// Several files (--schemas given more than once): one set.
TEST(KnownSchemasFiles, EveryFileCountsAndTheSameSchemaTwiceIsFine) {
  TempDir dir;
  const std::string neg = "aten::neg(Tensor self) -> Tensor\n";
  const std::string a = dir.write("a.txt", neg);
  const std::string b = dir.write("b.yaml", "- func: neg(Tensor self) -> Tensor\n"
                                            "- func: my::scale.out(Tensor self, float f=1.0, *, "
                                            "Tensor(a!) out) -> Tensor(a!)\n");
  diag::Diagnostics diags;
  const auto known = load_known_schemas(std::vector<std::string>{a, b}, diags);
  ASSERT_TRUE(known);
  EXPECT_TRUE(diags.empty()) << describe(diags);
  EXPECT_EQ(printed(*known),
            (std::map<std::string, std::string>{
                {"aten::neg", "aten::neg(Tensor self) -> Tensor"},
                {"my::scale.out",
                 "my::scale.out(Tensor self, float f=1.0, *, Tensor(a!) out) -> Tensor(a!)"}}));
  // Known where the first file gives it.
  EXPECT_EQ(known->at(parsed_schema("aten::neg() -> ()").name).where.file, a);
}

TEST(KnownSchemasFiles, TwoSchemasOfOneOperatorAreAnErrorNamingBoth) {
  TempDir dir;
  const std::string a = dir.write("a.txt", "# mine\naten::neg(Tensor self) -> Tensor\n"
                                           "aten::abs(Tensor self) -> Tensor\n");
  const std::string b = dir.write("b.yaml", "- func: abs(Tensor self) -> Tensor\n"
                                            "- func: neg(Tensor input) -> Tensor\n");
  diag::Diagnostics diags;
  EXPECT_FALSE(load_known_schemas(std::vector<std::string>{a, b}, diags));
  ASSERT_EQ(diags.size(), 1u) << describe(diags);
  const diag::Diagnostic& d = diags[0];
  EXPECT_EQ(d.severity, diag::Severity::error);
  EXPECT_EQ(d.code, "opscan-known-schemas-conflict");
  EXPECT_EQ(d.location.file, b);
  EXPECT_EQ(d.location.line, 2u);
  EXPECT_EQ(d.location.column, 9u);
  EXPECT_EQ(d.message, "the schemas files disagree on aten::neg: " + b +
                           ":2 gives 'aten::neg(Tensor input) -> Tensor', " + a +
                           ":2 gives 'aten::neg(Tensor self) -> Tensor'");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message, "the other schema of aten::neg");
  EXPECT_EQ(d.notes[0].location.file, a);
  EXPECT_EQ(d.notes[0].location.line, 2u);
}

TEST(KnownSchemasFiles, TheFirstTwentyDisagreementsAreShownAndTheRestCounted) {
  TempDir dir;
  std::string mine, theirs;
  for (int i = 0; i < 25; ++i) {
    mine += "aten::op" + std::to_string(i) + "(Tensor self) -> Tensor\n";
    theirs += "aten::op" + std::to_string(i) + "(Tensor input) -> Tensor\n";
  }
  const std::string a = dir.write("a.txt", mine);
  const std::string b = dir.write("b.txt", theirs);
  diag::Diagnostics diags;
  EXPECT_FALSE(load_known_schemas(std::vector<std::string>{a, b}, diags));
  ASSERT_EQ(diags.size(), 21u) << describe(diags);
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(diags[i].code, "opscan-known-schemas-conflict");
    EXPECT_EQ(diags[i].location.line, i + 1); // in the file's order
  }
  EXPECT_EQ(diags[20].code, "opscan-known-schemas-more");
  EXPECT_EQ(diags[20].severity, diag::Severity::note);
  EXPECT_EQ(diags[20].location.line, 21u);
  EXPECT_EQ(diags[20].message,
            "5 more opscan-known-schemas-conflict like those above are not shown, from here on");
}

TEST(KnownSchemasFiles, AFileThatCannotBeReadStopsTheSet) {
  TempDir dir;
  const std::string a = dir.write("a.txt", "aten::neg(Tensor self) -> Tensor\n");
  diag::Diagnostics diags;
  EXPECT_FALSE(load_known_schemas(std::vector<std::string>{a, dir.file("missing.txt")}, diags));
  ASSERT_EQ(diags.size(), 1u) << describe(diags);
  EXPECT_EQ(diags[0].code, "opscan-io");
}

} // namespace
} // namespace opscan::kernel
