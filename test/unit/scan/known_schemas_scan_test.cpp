// A scan with --schemas naming an operator YAML file: kernels annotated with
// names only get the derived schemas (the file's reading itself:
// kernel/known_schemas_yaml_test.cpp).
#include "scan_test_helpers.h"

#include <map>

namespace opscan::scan {
namespace {

using namespace test_support;

std::string yaml_data(std::string_view name) {
  return (fs::path(OPSCAN_TEST_DATA) / "schemas_yaml" / name).lexically_normal().string();
}

// Scans test/data/schemas_yaml/<source> with --schemas
// test/data/schemas_yaml/<file> for each file of `schemas`.
Result scan_with(std::string_view source, const std::vector<std::string_view>& schemas) {
  Options options;
  options.fields = test_fields();
  options.files = {yaml_data(source)};
  options.extra_args = kArgs;
  options.jobs = 1;
  for (std::string_view file : schemas)
    options.schemas_files.push_back(yaml_data(file));
  return scan(options);
}

Result scan_autogen_kernels(std::string_view schemas) {
  return scan_with("autogen_kernels.cpp", {schemas});
}

// The diagnostics of `result` but the note about what native_functions.yaml skips.
diag::Diagnostics but_skipped(const Result& result) {
  diag::Diagnostics out;
  for (const diag::Diagnostic& d : result.diagnostics) {
    if (d.code != "opscan-known-schemas-skipped")
      out.push_back(d);
  }
  return out;
}

const char* const kCloneDimOrder = "dim_order_ops::_clone_dim_order.out";
const char* const kUpstreamCloneDimOrder =
    "dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? "
    "dim_order=None, Tensor(a!) out) -> Tensor(a!)";

// Issue 26, finding 2: with native_functions.yaml alone, ExecuTorch's own
// operators silently got inferred schemas.
TEST(KnownSchemasYaml, AnOperatorInNoFileWarnsAtItsKernel) {
  const Result result = scan_with("dim_order_kernels.cpp", {"native_functions.yaml"});
  const diag::Diagnostics diags = but_skipped(result);
  ASSERT_EQ(diags.size(), 1u) << describe(result.diagnostics);
  const ir::Kernel* clone = find_kernel(result.module, kCloneDimOrder);
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(clone->schema_origin, ir::SchemaOrigin::inferred);
  EXPECT_EQ(diags[0].severity, diag::Severity::warning);
  EXPECT_EQ(diags[0].code, "opscan-schema-unknown");
  EXPECT_EQ(diags[0].location, clone->location);
  EXPECT_EQ(diags[0].location.line, 11u);
  EXPECT_EQ(diags[0].message,
            "kernel 'dim_order_kernels::clone_dim_order_out': dim_order_ops::_clone_dim_order.out "
            "is in none of the schemas files given: its schema is inferred from the signature");
  ASSERT_EQ(diags[0].notes.size(), 1u);
  EXPECT_EQ(diags[0].notes[0].message,
            "schema inferred from the signature: dim_order_ops::_clone_dim_order.out(Tensor self, "
            "bool non_blocking, int[]? dim_order, *, Tensor(a!) out) -> Tensor(a!)");
  // The other kernel's operator is known (through an autogen): no word.
  const ir::Kernel* dropout = find_kernel(result.module, "aten::native_dropout.out");
  ASSERT_NE(dropout, nullptr);
  EXPECT_EQ(dropout->schema_origin, ir::SchemaOrigin::known);
}

TEST(KnownSchemasYaml, SchemasFromEveryFileGiven) {
  // et_functions.yaml's func: schemas count, and its native_dropout.out
  // (written out) is the schema native_functions.yaml derives: no conflict.
  for (const auto& order :
       std::vector<std::vector<std::string_view>>{{"native_functions.yaml", "et_functions.yaml"},
                                                  {"et_functions.yaml", "native_functions.yaml"}}) {
    SCOPED_TRACE(order[0]);
    const Result result = scan_with("dim_order_kernels.cpp", order);
    EXPECT_TRUE(but_skipped(result).empty()) << describe(result.diagnostics);
    const ir::Kernel* clone = find_kernel(result.module, kCloneDimOrder);
    ASSERT_NE(clone, nullptr);
    EXPECT_EQ(clone->schema_origin, ir::SchemaOrigin::known);
    EXPECT_EQ(clone->schema().str(), kUpstreamCloneDimOrder);
    const ir::Kernel* dropout = find_kernel(result.module, "aten::native_dropout.out");
    ASSERT_NE(dropout, nullptr);
    EXPECT_EQ(dropout->schema_origin, ir::SchemaOrigin::known);
  }
}

TEST(KnownSchemasYaml, AnAtenOperatorInNoFileWarnsToo) {
  // et_functions.yaml alone: native_dropout.out is known, _clone_dim_order.out
  // too; autogen_kernels.cpp's aten operators are not.
  const Result result = scan_with("autogen_kernels.cpp", {"et_functions.yaml"});
  ASSERT_EQ(result.diagnostics.size(), 4u) << describe(result.diagnostics);
  for (const diag::Diagnostic& d : result.diagnostics) {
    EXPECT_EQ(d.severity, diag::Severity::warning);
    EXPECT_EQ(d.code, "opscan-schema-unknown");
    EXPECT_TRUE(d.message.ends_with(" is in none of the schemas files given: its schema is "
                                    "inferred from the signature (aten's schemas are in "
                                    "PyTorch's native_functions.yaml)"))
        << d.message;
  }
  EXPECT_EQ(find_kernel(result.module, "aten::native_dropout.out")->schema_origin,
            ir::SchemaOrigin::known);
}

TEST(KnownSchemasYaml, ScanGivesNameOnlyKernelsTheirAutogenSchemas) {
  const Result result = scan_autogen_kernels("native_functions.yaml");
  // Only the note about what the file skips.
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-known-schemas-skipped");

  const std::map<std::string, std::string> expected = {
      {"aten::_to_copy.out", "aten::_to_copy.out(Tensor self, *, bool non_blocking=False, "
                             "MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)"},
      {"aten::native_dropout.out",
       "aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0, "
       "Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))"},
      {"aten::_add_relu.Scalar_out", "aten::_add_relu.Scalar_out(Tensor self, Scalar other, "
                                     "Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)"},
      {"aten::_foreach_add.List_out",
       "aten::_foreach_add.List_out(Tensor[] self, Tensor[] other, *, Scalar alpha=1, "
       "Tensor(a!)[] out) -> ()"},
      {"aten::resize",
       "aten::resize(Tensor self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor"},
  };
  ASSERT_EQ(result.module.kernels.size(), expected.size());
  for (const auto& [op, schema] : expected) {
    SCOPED_TRACE(op);
    const ir::Kernel* k = find_kernel(result.module, op);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::known);
    EXPECT_EQ(k->schema().str(), schema);
  }
  // The schema's names, the C++ types.
  const ir::Kernel* dropout = find_kernel(result.module, "aten::native_dropout.out");
  ASSERT_EQ(dropout->arguments.size(), 5u);
  EXPECT_EQ(dropout->arguments[3].schema.name, "out0");
  EXPECT_EQ(dropout->arguments[3].cpp_type, "executorch::aten::Tensor &");
}

TEST(KnownSchemasYaml, ScanWithAMalformedFileStopsAtItsError) {
  const Result result = scan_autogen_kernels("malformed.yaml");
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-yaml-syntax");
  EXPECT_TRUE(result.module.kernels.empty());
}

} // namespace
} // namespace opscan::scan
