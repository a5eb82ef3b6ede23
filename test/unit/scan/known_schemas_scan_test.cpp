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

// Scans autogen_kernels.cpp with --schemas test/data/schemas_yaml/<schemas>.
Result scan_autogen_kernels(std::string_view schemas) {
  Options options;
  options.fields = test_fields();
  options.files = {yaml_data("autogen_kernels.cpp")};
  options.extra_args = kArgs;
  options.jobs = 1;
  options.schemas_file = yaml_data(schemas);
  return scan(options);
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
