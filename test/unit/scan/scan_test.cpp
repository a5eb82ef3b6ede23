// scan() with the real libclang on small inputs under test/data/scan/: what
// is recorded for each kernel, the errors (each where it is), multi-file
// scans, compiler arguments and compilation databases, and the declared
// schemas that do not fit their signatures.
#include "ir/json.h"
#include "ir/validate.h"
#include "scan/scan.h"
#include "scan_test_helpers.h"
#include "schema/schema.h"
#include "support/cpp_literal.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace opscan::scan {
namespace {

using namespace test_support;

// ---------------------------------------------------------------------------
// Compiler flags

// Seen through scan() here; filter_arguments itself in flags_test.cpp.

TEST(GccOnlyFlags, RejectedByClangAreDroppedWithANote) {
  // Each one makes libclang 14 fail with "unknown argument".
  const std::vector<std::string> flags = {"-fconcepts",
                                          "-fcoroutines",
                                          "-fno-gnu-unique",
                                          "-fconserve-stack",
                                          "-fno-canonical-system-headers",
                                          "-fno-var-tracking-assignments",
                                          "-mno-direct-extern-access",
                                          "-fno-ipa-cp-clone",
                                          "-fno-tree-loop-distribute-patterns",
                                          "-fimplicit-constexpr",
                                          "-fext-numeric-literals",
                                          "-fno-lifetime-dse",
                                          "-fno-reorder-blocks-and-partition",
                                          "-fconcepts-diagnostics-depth=3",
                                          "-flto-partition=none",
                                          "-flto-compression-level=3",
                                          "-mpreferred-stack-boundary=4",
                                          "-fdiagnostics-urls=never",
                                          "-fdiagnostics-format=json",
                                          "-fopt-info-vec-missed",
                                          "-mindirect-branch=thunk-extern"};
  std::vector<std::string> args = kArgs;
  args.insert(args.end(), flags.begin(), flags.end());
  Result result = scan_paths({data_file("returns.cpp")}, args);
  std::vector<std::string> dropped;
  for (const diag::Diagnostic& d : result.diagnostics) {
    EXPECT_EQ(d.severity, diag::Severity::note) << describe({d});
    EXPECT_EQ(d.code, "opscan-dropped-flag");
    dropped.push_back(d.message);
  }
  for (const std::string& flag : flags) {
    EXPECT_NE(std::find(dropped.begin(), dropped.end(),
                        "dropped '" + flag + "', which libclang does not accept"),
              dropped.end())
        << flag;
  }
  EXPECT_EQ(result.module.kernels.size(), 3u);
}

TEST(GccOnlyFlags, AcceptedByClangAreKept) {
  // Clang accepts these, or ignores them with a warning at most.
  std::vector<std::string> args = {"-std=c++17",
                                   "-O2",
                                   "-fPIC",
                                   "-Wall",
                                   "-fdiagnostics-color=always",
                                   "-fstack-usage",
                                   "-fno-fat-lto-objects",
                                   "-fno-semantic-interposition",
                                   "-fno-tree-vectorize",
                                   "-fmax-errors=5",
                                   "-fno-plt",
                                   "-flto=auto",
                                   "-fdiagnostics-format=clang",
                                   "-fno-strict-aliasing"};
  Result result = scan_paths({data_file("returns.cpp")}, args);
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 3u);
}

TEST(GccOnlyFlags, ConceptsTsIsDroppedToo) {
  // GCC takes -fconcepts-ts; libclang 14 fails with "unknown argument".
  Result result = scan_paths({data_file("returns.cpp")}, {"-std=c++17", "-fconcepts-ts"});
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-dropped-flag");
  EXPECT_EQ(result.diagnostics[0].message,
            "dropped '-fconcepts-ts', which libclang does not accept");
  EXPECT_EQ(result.module.kernels.size(), 3u);
}

TEST(ScanningArguments, HeadersAreCxx17UnlessTheArgumentsSayOtherwise) {
  TempDir dir;
  const std::string header = dir.write(
      "kernels.h", "#include \"" + data_file("et_types.h") +
                       "\"\nnamespace h {\n#if __cplusplus == 201703L\nOPSCAN_KERNEL(\"t::cxx17\") "
                       "void cxx17(const Tensor& self);\n#elif __cplusplus > 201703L\n"
                       "OPSCAN_KERNEL(\"t::later\") void later(const Tensor& self);\n#endif\n}\n");
  // A .h file is C++, not C; C++17 unless -std says otherwise.
  Options options;
  options.fields = test_fields();
  options.files = {header};
  Result plain = scan(options);
  EXPECT_TRUE(plain.diagnostics.empty()) << describe(plain.diagnostics);
  EXPECT_EQ(schemas(plain.module), std::vector<std::string>{"t::cxx17(Tensor self) -> ()"});
  Result cxx20 = scan_paths({header}, {"-std=c++20"});
  EXPECT_TRUE(cxx20.diagnostics.empty()) << describe(cxx20.diagnostics);
  EXPECT_EQ(schemas(cxx20.module), std::vector<std::string>{"t::later(Tensor self) -> ()"});
}

// ---------------------------------------------------------------------------
// What is recorded: types

struct TypeRow {
  std::string op; // kernel "t::<op>" takes the type as `x`
  std::string schema_type;
  std::string cpp_canonical_type;
};

TEST(ScanTypes, EveryTableTypeMaps) {
  const Result& result = scanned("types.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const std::string et = "executorch::runtime::etensor::";
  const std::vector<TypeRow> rows = {
      {"tensor", "Tensor", et + "Tensor"},
      {"const_tensor_ref", "Tensor", "const " + et + "Tensor &"},
      {"tensor_ref", "Tensor(a!)", et + "Tensor &"},
      {"scalar", "Scalar", et + "Scalar"},
      {"const_scalar_ref", "Scalar", "const " + et + "Scalar &"},
      {"int64", "int", "long"},
      {"f64", "float", "double"},
      {"boolean", "bool", "bool"},
      {"optional_tensor", "Tensor?", "std::optional<" + et + "Tensor>"},
      {"optional_scalar", "Scalar?", "std::optional<" + et + "Scalar>"},
      {"optional_int", "int?", "std::optional<long>"},
      {"int_list", "int[]", "executorch::runtime::ArrayRef<long>"},
      {"optional_int_list", "int[]?", "std::optional<executorch::runtime::ArrayRef<long>>"},
      {"tensor_list", "Tensor[]", "executorch::runtime::ArrayRef<" + et + "Tensor>"},
      {"optional_tensor_list", "Tensor?[]",
       "executorch::runtime::ArrayRef<std::optional<" + et + "Tensor>>"},
      {"float_list", "float[]", "executorch::runtime::ArrayRef<double>"},
      {"bool_list", "bool[]", "executorch::runtime::ArrayRef<bool>"},
      {"scalar_type", "ScalarType", et + "ScalarType"},
      {"optional_scalar_type", "ScalarType?", "std::optional<" + et + "ScalarType>"},
      {"string_view", "str", "std::basic_string_view<char>"},
      {"layout", "Layout", et + "Layout"},
      {"device", "Device", et + "Device"},
      {"memory_format", "MemoryFormat", et + "MemoryFormat"},
  };
  EXPECT_EQ(result.module.kernels.size(), rows.size());
  for (const TypeRow& row : rows) {
    SCOPED_TRACE(row.op);
    const ir::Kernel* k = find_kernel(result.module, "t::" + row.op);
    ASSERT_NE(k, nullptr);
    const bool out = row.schema_type == "Tensor(a!)"; // the trailing mutable tensor
    EXPECT_EQ(k->schema().str(),
              "t::" + row.op + "(" + (out ? "*, " : "") + row.schema_type + " x) -> ()");
    ASSERT_EQ(k->arguments.size(), 1u);
    EXPECT_EQ(k->arguments[0].schema.name, "x");
    EXPECT_EQ(k->arguments[0].schema.type.str(), row.schema_type);
    EXPECT_EQ(k->arguments[0].schema.kwarg_only, out);
    EXPECT_FALSE(k->arguments[0].schema.default_value);
    EXPECT_EQ(k->arguments[0].cpp_canonical_type, row.cpp_canonical_type);
    EXPECT_EQ(k->context, ir::ContextKind::none);
    EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::inferred);
    EXPECT_TRUE(k->returns.empty());
    EXPECT_EQ(k->cpp_return_type, "void");
    EXPECT_EQ(k->cpp_canonical_return_type, "void");
    EXPECT_EQ(k->cpp_function, "types::" + row.op);
    EXPECT_EQ(k->cpp_linkage, ir::Linkage::cxx);
    EXPECT_TRUE(k->cpp_inline_namespaces.empty());
    EXPECT_FALSE(k->usr.empty());
  }
}

TEST(ScanTypes, AtenSpellingsWithDispatchKeySetContext) {
  const Result& result = scanned("aten_types.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const ir::Kernel* k = find_kernel(result.module, "t::aten_types");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->context, ir::ContextKind::dispatch_key_set);
  EXPECT_EQ(k->schema().str(),
            "t::aten_types(Tensor self, Scalar alpha, SymInt size, int[] dims, SymInt[] "
            "sizes, int[]? maybe_dims, int[] shape, Tensor?[] indices, Tensor[] others, "
            "complex z, str name, ScalarType? dtype) -> Tensor");
  EXPECT_EQ(k->cpp_return_type, "at::Tensor");
  EXPECT_EQ(k->cpp_canonical_return_type, "at::Tensor");
  // The DispatchKeySet is not an argument.
  ASSERT_EQ(k->arguments.size(), 12u);
  EXPECT_EQ(k->arguments[0].cpp_type, "const at::Tensor &");
  EXPECT_EQ(k->arguments[0].cpp_canonical_type, "const at::Tensor &");
  EXPECT_EQ(k->arguments[3].cpp_type, "at::IntArrayRef");
  EXPECT_EQ(k->arguments[3].cpp_canonical_type, "c10::ArrayRef<long>");
  EXPECT_EQ(k->arguments[11].cpp_canonical_type, "std::optional<c10::ScalarType>");
}

TEST(ScanTypes, AtenAndStableGeneratorsAreGenerator) {
  const Result& result = scanned("generators.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(schemas(result.module),
            (std::vector<std::string>{
                "t::aten_generator(Generator gen, Generator? maybe) -> ()",
                "t::stable_generator(Generator gen, Generator? maybe) -> ()",
            }));
  const ir::Kernel* aten = find_kernel(result.module, "t::aten_generator");
  ASSERT_NE(aten, nullptr);
  ASSERT_EQ(aten->arguments.size(), 2u);
  EXPECT_EQ(aten->arguments[0].cpp_canonical_type, "const at::Generator &");
  EXPECT_EQ(aten->arguments[1].cpp_canonical_type, "std::optional<at::Generator>");
  const ir::Kernel* stable = find_kernel(result.module, "t::stable_generator");
  ASSERT_NE(stable, nullptr);
  ASSERT_EQ(stable->arguments.size(), 2u);
  // The namespace of hidden visibility is no part of the name.
  EXPECT_EQ(stable->arguments[0].cpp_canonical_type, "torch::stable::Generator");
  EXPECT_EQ(stable->arguments[1].cpp_canonical_type,
            "const std::optional<torch::stable::Generator> &");
}

TEST(ScanTypes, TypedefsAndUsingDeclarationsMapByCanonicalType) {
  const Result& result = scanned("aliases.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const ir::Kernel* k = find_kernel(result.module, "t::aliased.out");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(
      k->schema().str(),
      "t::aliased.out(Tensor self, Tensor other, int[] dims, Tensor[] others, Tensor? weight, "
      "int dim, float factor, str name, *, Tensor(a!) out) -> Tensor(a!)");
  // The C++ types as written, and canonical.
  EXPECT_EQ(k->cpp_return_type, "aliases::MutableTensor");
  EXPECT_EQ(k->cpp_canonical_return_type, "executorch::runtime::etensor::Tensor &");
  const std::vector<std::pair<std::string, std::string>> written = {
      {"const aliases::MyTensor &", "const executorch::runtime::etensor::Tensor &"},
      {"aliases::TensorCRef", "const executorch::runtime::etensor::Tensor &"},
      {"aliases::IntList", "executorch::runtime::ArrayRef<long>"},
      {"aliases::Tensors", "executorch::runtime::ArrayRef<executorch::runtime::etensor::Tensor>"},
      {"aliases::MaybeTensor", "std::optional<executorch::runtime::etensor::Tensor>"},
      {"aliases::Dim", "long"},
      {"aliases::Factor", "double"},
      {"aliases::Name", "std::basic_string_view<char>"},
      {"aliases::MutableTensor", "executorch::runtime::etensor::Tensor &"},
  };
  ASSERT_EQ(k->arguments.size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) {
    SCOPED_TRACE(k->arguments[i].schema.name);
    EXPECT_EQ(k->arguments[i].cpp_type, written[i].first);
    EXPECT_EQ(k->arguments[i].cpp_canonical_type, written[i].second);
  }
}

TEST(ScanTypes, Returns) {
  const Result& result = scanned("returns.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(schemas(result.module),
            (std::vector<std::string>{
                "t::fill.out(Scalar value, *, Tensor(a!) out) -> ()",
                "t::functional(Tensor self, int dim) -> Tensor",
                "t::min_max.out(Tensor self, *, Tensor(a!) min, Tensor(b!) max) -> (Tensor(a!), "
                "Tensor(b!))",
            }));

  const ir::Kernel* functional = find_kernel(result.module, "t::functional");
  ASSERT_NE(functional, nullptr);
  EXPECT_EQ(functional->context, ir::ContextKind::runtime_context);
  EXPECT_EQ(functional->cpp_return_type, "executorch::aten::Tensor");
  EXPECT_EQ(functional->cpp_canonical_return_type, "executorch::runtime::etensor::Tensor");
  ASSERT_EQ(functional->returns.size(), 1u);
  EXPECT_EQ(functional->returns[0].type.str(), "Tensor");
  EXPECT_EQ(functional->returns[0].name, "");
  EXPECT_EQ(functional->location.file, shown(data_file("returns.cpp")));
  EXPECT_EQ(functional->location.line, 7u);
  EXPECT_EQ(functional->location.column, 8u);
  EXPECT_EQ(functional->location.offset, offset_of(text_of(data_file("returns.cpp")), 7, 8));
  ASSERT_EQ(functional->arguments.size(), 2u);
  EXPECT_EQ(functional->arguments[1].cpp_type, "int64_t");
  EXPECT_EQ(functional->arguments[1].cpp_canonical_type, "long");

  const ir::Kernel* min_max = find_kernel(result.module, "t::min_max.out");
  ASSERT_NE(min_max, nullptr);
  EXPECT_EQ(min_max->cpp_canonical_return_type,
            "std::tuple<executorch::runtime::etensor::Tensor &, "
            "executorch::runtime::etensor::Tensor &>");
  ASSERT_EQ(min_max->returns.size(), 2u);
  EXPECT_EQ(min_max->returns[1].type.str(), "Tensor(b!)");
  ASSERT_EQ(min_max->arguments.size(), 3u); // the context is not one
  EXPECT_TRUE(min_max->arguments[2].schema.kwarg_only);

  const ir::Kernel* fill = find_kernel(result.module, "t::fill.out");
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(fill->cpp_return_type, "void");
  EXPECT_TRUE(fill->returns.empty());
}

TEST(ScanTypes, UnsupportedTypesSayWhatToUse) {
  const std::string file = data_file("unsupported.cpp");
  const std::string code = "opscan-scan-unsupported-type";
  expect_diagnostics(
      scanned("unsupported.cpp").diagnostics, file,
      {
          {code, 8, 50,
           "parameter 'x' of 'unsupported::plain_int': 'int' is not a schema type: "
           "use int64_t (schema 'int')"},
          {code, 9, 56, "'float' is not a schema type: use double (schema 'float')"},
          {code, 10, 56,
           "'const char *' is not a schema type: use std::string_view (schema 'str')"},
          {code, 11, 50, "'executorch::aten::Tensor *' is a pointer"},
          {code, 12, 51, "'int64_t &' is a non-const reference to a value the kernel cannot write"},
          {code, 13, 68, "'std::vector<bool>' is not a schema type: use ArrayRef<bool>"},
      });
  EXPECT_TRUE(scanned("unsupported.cpp").module.kernels.empty());
}

// ---------------------------------------------------------------------------
// What is recorded: the kernel

TEST(ScanKernels, DeclaredSchemaIsKept) {
  const ir::Kernel* k = find_kernel(scanned("declared.cpp").module, "aten::add.out");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->schema().str(),
            "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
            "Tensor(a!)");
  EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::declared);
  EXPECT_EQ(k->cpp_function, "declared::add_out");
  EXPECT_EQ(k->context, ir::ContextKind::runtime_context);
  ASSERT_EQ(k->arguments.size(), 4u);
  const ir::Argument& alpha = k->arguments[2];
  EXPECT_EQ(alpha.schema.name, "alpha");
  EXPECT_EQ(alpha.schema.type.str(), "Scalar");
  EXPECT_TRUE(alpha.schema.kwarg_only);
  EXPECT_EQ(alpha.schema.default_value, "1");
  EXPECT_EQ(alpha.cpp_type, "const executorch::aten::Scalar &");
  EXPECT_EQ(alpha.cpp_canonical_type, "const executorch::runtime::etensor::Scalar &");
  EXPECT_FALSE(k->arguments[0].schema.default_value);
}

TEST(ScanKernels, NoRuntimeContextKeyAndDispatch) {
  const ir::Module& module = scanned("parameters.cpp").module;
  const ir::Kernel* plain = find_kernel(module, "t::no_context.out");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->context, ir::ContextKind::none);
  EXPECT_EQ(plain->schema().str(),
            "t::no_context.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(plain->field("kernel_key"), "");
  EXPECT_EQ(plain->field("dispatch_key"), "");

  const ir::Kernel* keyed = find_kernel(module, "t::keyed.out");
  ASSERT_NE(keyed, nullptr);
  EXPECT_EQ(keyed->context, ir::ContextKind::runtime_context);
  // Without a check_field, the values are recorded as written.
  EXPECT_EQ(keyed->field("kernel_key"), "v1/6;0,1|6;0,1");
  EXPECT_EQ(keyed->field("dispatch_key"), "CPU");
  EXPECT_EQ(keyed->op.ns, "t");
  EXPECT_EQ(keyed->op.name, "keyed");
  EXPECT_EQ(keyed->op.overload, "out");
  EXPECT_EQ(keyed->location.line, 13u);
  EXPECT_EQ(keyed->location.column, 9u);
  EXPECT_FALSE(keyed->usr.empty());
}

TEST(ScanKernels, ScanOutputPassesTheIRRules) {
  for (const char* file : {"types.cpp", "aten_types.cpp", "aliases.cpp", "returns.cpp",
                           "declared.cpp", "parameters.cpp", "extern_c.cpp", "inline_namespace.cpp",
                           "noexcept.cpp", "generators.cpp"}) {
    SCOPED_TRACE(file);
    const Result& result = scanned(file);
    EXPECT_FALSE(result.module.kernels.empty());
    EXPECT_TRUE(ir::validate(result.module, ir::Locator()).empty());
    // And survives the JSON round trip.
    ir::ReadResult read =
        ir::from_json(ir::to_json(result.module, test_fields()), "scan.json", test_fields());
    ASSERT_TRUE(read.module) << describe(read.diagnostics);
    EXPECT_EQ(*read.module, result.module);
  }
}

TEST(ScanKernels, MacroGeneratedKernelsAreAtTheExpansion) {
  const Result& result = scanned("macro.cpp");
  const std::string file = data_file("macro.cpp");
  const ir::Kernel* neg = find_kernel(result.module, "t::neg.out");
  const ir::Kernel* exp = find_kernel(result.module, "t::exp.out");
  ASSERT_NE(neg, nullptr);
  ASSERT_NE(exp, nullptr);
  EXPECT_EQ(neg->schema().str(), "t::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(neg->cpp_function, "macro::neg_out");
  EXPECT_EQ(neg->location.file, shown(file));
  EXPECT_EQ(neg->location.line, 10u);
  EXPECT_EQ(neg->location.column, 1u);
  EXPECT_EQ(exp->location.line, 11u);
  EXPECT_EQ(exp->location.column, 3u);
  // An error in a generated annotation is at the expansion too.
  expect_diagnostics(result.diagnostics, file,
                     {{"opscan-schema-out-suffix", 12, 1, "name 'log_out' ends in '_out'"}});
}

// extern "C" kernels: C linkage, and a linkage specification is no scope.
// A function with C linkage is one function whichever namespace declares it,
// so it is named (and called) without one.
TEST(ScanKernels, ExternCKernelsHaveCLinkageAndPlainNames) {
  const Result& result = scanned("extern_c.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  struct Row {
    std::string op;
    std::string function;
    ir::Linkage linkage;
    uint32_t line, column;
  };
  const std::vector<Row> rows = {
      {"t::c_block_global", "c_block_global", ir::Linkage::c, 8, 6},
      {"t::c_block_ns", "c_block_ns", ir::Linkage::c, 17, 6},
      {"t::c_decl_global", "c_decl_global", ir::Linkage::c, 11, 51},
      {"t::c_decl_ns", "c_decl_ns", ir::Linkage::c, 25, 47},
      {"t::cxx_in_c_block", "ext::cxx_in_c_block", ir::Linkage::cxx, 21, 6},
      {"t::cxx_ns", "ext::cxx_ns", ir::Linkage::cxx, 28, 6},
  };
  ASSERT_EQ(result.module.kernels.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const ir::Kernel& k = result.module.kernels[i];
    SCOPED_TRACE(rows[i].op);
    EXPECT_EQ(k.op.str(), rows[i].op);
    EXPECT_EQ(k.cpp_function, rows[i].function);
    EXPECT_EQ(k.cpp_linkage, rows[i].linkage);
    EXPECT_TRUE(k.cpp_inline_namespaces.empty());
    EXPECT_EQ(k.location.line, rows[i].line);
    EXPECT_EQ(k.location.column, rows[i].column);
    EXPECT_EQ(k.schema().str(), rows[i].op + "(Tensor self) -> ()");
  }
}

TEST(ScanKernels, ExternCKernelInAnUnnamedNamespaceHasAName) {
  // C linkage gives it external linkage, so the scan accepts it; its name
  // must still be one C++ code can write.
  const Result& result = scanned("extern_c_anonymous.cpp");
  for (const diag::Diagnostic& d : result.diagnostics)
    EXPECT_NE(d.code, "opscan-ir-cpp-name") << describe({d});
  for (const ir::Kernel& k : result.module.kernels) {
    EXPECT_EQ(k.cpp_linkage, ir::Linkage::c);
    EXPECT_EQ(k.cpp_function.find("(anonymous namespace)"), std::string::npos) << k.cpp_function;
  }
}

TEST(ScanKernels, InlineNamespacesStayInTheNameAndAreListed) {
  const Result& result = scanned("inline_namespace.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  struct Row {
    std::string op;
    std::string function;
    std::vector<std::string> inline_namespaces;
  };
  const std::vector<Row> rows = {
      {"t::nested", "outer::v1::detail::abi2::nested", {"outer::v1", "outer::v1::detail::abi2"}},
      {"t::plain", "outer::plain", {}},
      {"t::top_level", "top::top_level", {"top"}},
      {"t::versioned", "outer::v1::versioned", {"outer::v1"}},
  };
  ASSERT_EQ(result.module.kernels.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const ir::Kernel& k = result.module.kernels[i];
    SCOPED_TRACE(rows[i].op);
    EXPECT_EQ(k.op.str(), rows[i].op);
    EXPECT_EQ(k.cpp_function, rows[i].function);
    EXPECT_EQ(k.cpp_inline_namespaces, rows[i].inline_namespaces);
    EXPECT_EQ(k.cpp_linkage, ir::Linkage::cxx);
  }
}

TEST(ScanKernels, NoexceptIsRecorded) {
  const Result& result = scanned("noexcept.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const std::map<std::string, bool> expected = {
      {"t::plain", false},          {"t::basic", true},        {"t::computed_true", true},
      {"t::computed_false", false}, {"t::dynamic_none", true}, {"t::expression_true", true},
  };
  for (const auto& [op, is_noexcept] : expected) {
    SCOPED_TRACE(op);
    const ir::Kernel* k = find_kernel(result.module, op);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->cpp_noexcept, is_noexcept);
  }
}

TEST(ScanKernels, NoexceptOfAFalseExpressionIsNotNoexcept) {
  // noexcept(kNever) with kNever false: the function may throw. A
  // declaration generated with 'noexcept' would conflict with it.
  const ir::Kernel* k = find_kernel(scanned("noexcept.cpp").module, "t::expression_false");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(k->cpp_noexcept);
}

TEST(ScanKernels, DeclarationAndDefinitionAreOneKernel) {
  const Result& result = scanned("decl_def.cpp");
  const std::string header = shown(data_file("include/decl_kernels.h"));
  const std::string source = shown(data_file("decl_def.cpp"));
  struct Row {
    std::string op;
    std::string file;
    uint32_t line, column;
  };
  const std::vector<Row> rows = {
      {"t::both.out", header, 15, 9},     // annotated twice: the first
      {"t::declared.out", header, 10, 9}, // on the declaration
      {"t::defined.out", source, 10, 9},  // on the definition
  };
  ASSERT_EQ(result.module.kernels.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].op);
    const ir::Kernel& k = result.module.kernels[i];
    EXPECT_EQ(k.op.str(), rows[i].op);
    EXPECT_EQ(k.location.file, rows[i].file);
    EXPECT_EQ(k.location.line, rows[i].line);
    EXPECT_EQ(k.location.column, rows[i].column);
  }
  EXPECT_EQ(result.module.kernels[0].field("kernel_key"), "v1/6;0|6;0");
  // The header's inline kernel is refused (see InlineAndConstexprKernelsAreRefused).
  expect_diagnostics(result.diagnostics, data_file("include/decl_kernels.h"),
                     {{"opscan-scan-inline", 18, 15, "kernel 'decl_def::in_header' is inline"}});
  ASSERT_EQ(result.module.sources.size(), 2u);
  EXPECT_EQ(result.module.sources[0].path, source);
  EXPECT_EQ(result.module.sources[1].path, header);
  EXPECT_EQ(result.module.sources[1].sha256.size(), 64u);
  EXPECT_NE(result.module.sources[0].sha256, result.module.sources[1].sha256);
}

TEST(ScanKernels, HeaderKernelsSeenByTwoFilesAreOneKernel) {
  Result result = scan_paths({data_file("decl_def.cpp"), data_file("also_includes.cpp")});
  EXPECT_EQ(result.module.kernels.size(), 3u);
  EXPECT_EQ(result.module.sources.size(), 3u);
  // The header's error, seen from both files, is reported once.
  expect_diagnostics(result.diagnostics, data_file("include/decl_kernels.h"),
                     {{"opscan-scan-inline", 18, 15, "kernel 'decl_def::in_header' is inline"}});
  // Every file read, for a depfile.
  const std::string header = fs::weakly_canonical(data_file("include/decl_kernels.h")).string();
  EXPECT_TRUE(std::find(result.inputs.begin(), result.inputs.end(), header) != result.inputs.end());
  EXPECT_TRUE(std::is_sorted(result.inputs.begin(), result.inputs.end()));
}

TEST(ScanKernels, SystemHeadersAreSkipped) {
  const std::string file = data_file("uses_system.cpp");
  const std::string dir = data_file("system");
  Result as_system = scan_paths({file}, {"-std=c++17", "-isystem", dir});
  EXPECT_TRUE(as_system.diagnostics.empty()) << describe(as_system.diagnostics);
  EXPECT_EQ(schemas(as_system.module),
            std::vector<std::string>{"t::local.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"});
  ASSERT_EQ(as_system.module.sources.size(), 1u);
  EXPECT_EQ(as_system.module.sources[0].path, shown(file));

  // The same header through -I is the library's own.
  Result as_user = scan_paths({file}, {"-std=c++17", "-I" + dir});
  EXPECT_TRUE(as_user.diagnostics.empty()) << describe(as_user.diagnostics);
  ASSERT_EQ(as_user.module.kernels.size(), 2u);
  EXPECT_EQ(as_user.module.kernels[0].op.str(), "t::from_system.out");
  EXPECT_EQ(as_user.module.kernels[0].location.file, shown(data_file("system/system_kernels.h")));
}

// A kernel of the torch target beside a version of c10's optional and
// string_view, in a header under -isystem as libtorch's are.
std::map<std::string, std::string> aliases_with(const std::string& c10, bool kernel = true) {
  TempDir dir;
  fs::create_directories(dir.path() / "sys");
  write_file(dir.path() / "sys" / "c10.h",
             "#pragma once\n#include <optional>\n#include <string_view>\nnamespace c10 {\n" + c10 +
                 "\n}\n");
  write_file(dir.path() / "k.cpp",
             "#include <c10.h>\n#include \"" + data_file("aten_types.h") + "\"\n" +
                 (kernel ? "OPSCAN_KERNEL(\"t::k\") at::Tensor k(const at::Tensor& x);\n" : ""));
  Result result = scan_paths({(dir.path() / "k.cpp").string()},
                             {"-std=c++17", "-isystem", (dir.path() / "sys").string()});
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  return result.module.aliases;
}

TEST(ScanKernels, WhatTheHeadersMakeOfRuntimeNamesIsRecorded) {
  using Aliases = std::map<std::string, std::string>;
  // libtorch 2.
  EXPECT_EQ(aliases_with("using std::optional;\nusing string_view = std::string_view;"),
            (Aliases{{"c10::optional", "std::optional"},
                     {"c10::string_view", "std::basic_string_view<char>"}}));
  // An alias template, in a namespace opened twice.
  EXPECT_EQ(aliases_with("class Other;\n}\nnamespace c10 {\ntemplate <class T> using optional = "
                         "std::optional<T>;"),
            (Aliases{{"c10::optional", "std::optional"}}));
  // libtorch 1.13: c10 defines optional and basic_string_view itself.
  EXPECT_EQ(aliases_with("template <class T> class optional {};\ntemplate <class C> class "
                         "basic_string_view {};\nusing string_view = basic_string_view<char>;"),
            (Aliases{{"c10::string_view", "c10::basic_string_view<char>"}}));
  // Names elsewhere are not these; a unit without kernels records nothing.
  EXPECT_EQ(aliases_with("namespace detail { using std::optional; }"), Aliases{});
  EXPECT_EQ(aliases_with("using std::optional;", false), Aliases{});
}

TEST(ScanKernels, Examples) {
  const std::string elementwise = (kRepo / "examples/kernels/elementwise.cpp").string();
  const std::string reduce = (kRepo / "examples/kernels/reduce.cpp").string();
  Result result =
      scan_paths({elementwise, reduce}, {"-std=c++17", "-I" + (kRepo / "include").string(),
                                         "-I" + (kRepo / "examples/include").string()});
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 9u);
  EXPECT_EQ(result.module.libclang_version, libclang_version());
  EXPECT_NE(libclang_version().find("clang version"), std::string::npos);
  EXPECT_FALSE(result.module.library); // scan output describes no library
  const ir::Kernel* mean = find_kernel(result.module, "demo::mean.out");
  ASSERT_NE(mean, nullptr);
  EXPECT_EQ(mean->schema().str(), "demo::mean.out(Tensor self, int[]? dims, ScalarType? dtype, *, "
                                  "Tensor(a!) out) -> Tensor(a!)");
}

// ---------------------------------------------------------------------------
// Known schemas (--schemas)

Result scan_known(std::vector<std::string> files, std::string schemas_file) {
  Options options;
  options.fields = test_fields();
  for (const std::string& f : files)
    options.files.push_back(data_file(f));
  options.extra_args = kArgs;
  options.jobs = 1;
  options.schemas_files = {std::move(schemas_file)};
  return scan(options);
}

TEST(ScanKnownSchemas, MatchedKernelsHaveOriginKnown) {
  Result result = scan_known({"known.cpp"}, data_file("known_schemas.txt"));
  // The note about the line outside the grammar, and the warning that
  // t::other.out is not known.
  ASSERT_EQ(result.diagnostics.size(), 2u) << describe(result.diagnostics);
  auto with_code = [&](const std::string& code) {
    auto it = std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                           [&](const diag::Diagnostic& d) { return d.code == code; });
    return it != result.diagnostics.end() ? *it : diag::Diagnostic{};
  };
  const diag::Diagnostic skipped = with_code("opscan-known-schemas-skipped");
  EXPECT_EQ(skipped.severity, diag::Severity::note);
  EXPECT_EQ(skipped.code, "opscan-known-schemas-skipped");
  EXPECT_EQ(skipped.location.line, 6u);
  EXPECT_EQ(skipped.location.column, 15u); // at the unknown type 't'
  EXPECT_NE(skipped.message.find("1 schema outside the operator grammar skipped (the first: "
                                 "unknown type 't'"),
            std::string::npos)
      << skipped.message;

  const ir::Kernel* add = find_kernel(result.module, "aten::add.out");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->schema_origin, ir::SchemaOrigin::known);
  EXPECT_EQ(add->schema().str(),
            "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
            "Tensor(a!)");
  // The schema's names, the C++ types.
  ASSERT_EQ(add->arguments.size(), 4u);
  EXPECT_EQ(add->arguments[0].schema.name, "self");
  EXPECT_EQ(add->arguments[0].cpp_type, "const executorch::aten::Tensor &");
  EXPECT_EQ(add->arguments[2].schema.default_value, "1");

  const ir::Kernel* neg = find_kernel(result.module, "aten::neg.out");
  ASSERT_NE(neg, nullptr);
  EXPECT_EQ(neg->schema_origin, ir::SchemaOrigin::declared);
  EXPECT_EQ(neg->schema().str(), "aten::neg.out(Tensor input, *, Tensor(a!) result) -> Tensor(a!)");

  const ir::Kernel* other = find_kernel(result.module, "t::other.out");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->schema_origin, ir::SchemaOrigin::inferred);
  const diag::Diagnostic unknown = with_code("opscan-schema-unknown");
  EXPECT_EQ(unknown.severity, diag::Severity::warning);
  EXPECT_EQ(unknown.code, "opscan-schema-unknown");
  EXPECT_EQ(unknown.location, other->location);
  EXPECT_EQ(unknown.message, "kernel 'known::other_out': t::other.out is in none of the schemas "
                             "files given: its schema is inferred from the signature");
  ASSERT_EQ(unknown.notes.size(), 1u);
  EXPECT_EQ(unknown.notes[0].message,
            "schema inferred from the signature: " + other->schema().str());
}

TEST(ScanKnownSchemas, WithoutTheFileTheSameKernelIsInferred) {
  const ir::Kernel* add = find_kernel(scanned("known.cpp").module, "aten::add.out");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->schema_origin, ir::SchemaOrigin::inferred);
  EXPECT_EQ(add->schema().str(),
            "aten::add.out(Tensor a, Tensor b, Scalar alpha, *, Tensor(a!) out) -> Tensor(a!)");
}

TEST(ScanKnownSchemas, MismatchNotesTheKnownSchemaInItsFile) {
  Result result = scan_known({"known_mismatch.cpp"}, data_file("known_schemas.txt"));
  diag::Diagnostics errors;
  for (const diag::Diagnostic& d : result.diagnostics) {
    if (d.severity == diag::Severity::error)
      errors.push_back(d);
  }
  expect_diagnostics(errors, data_file("known_mismatch.cpp"),
                     {{"opscan-mismatch-type", 7, 78,
                       "argument 2 'other': the known schema of aten::mul.out says Tensor, C++ "
                       "parameter is 'const executorch::aten::Scalar &'"}});
  ASSERT_EQ(errors.size(), 1u);
  ASSERT_EQ(errors[0].notes.size(), 1u);
  EXPECT_EQ(errors[0].notes[0].message,
            "known schema: aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
            "Tensor(a!)");
  // Its line, at the schema (after the indentation).
  EXPECT_EQ(errors[0].notes[0].location.file, shown(data_file("known_schemas.txt")));
  EXPECT_EQ(errors[0].notes[0].location.line, 5u);
  EXPECT_EQ(errors[0].notes[0].location.column, 3u);
  EXPECT_TRUE(errors[0].fixits.empty());
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST(ScanKnownSchemas, UnreadableFileStopsTheScan) {
  Result result = scan_known({"known.cpp"}, data_file("no_such_schemas.txt"));
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-io");
  EXPECT_NE(result.diagnostics[0].message.find("cannot read the schemas file"), std::string::npos);
  EXPECT_TRUE(result.module.kernels.empty());
  EXPECT_EQ(result.files_parsed, 0u);
}

// ---------------------------------------------------------------------------
// Annotation fields: each checked as its target defines (ir::Field::check)

TEST(ScanFields, CheckFieldSeesSetFieldsOnly) {
  std::mutex mutex;
  std::vector<std::string> calls;
  Options options;
  options.fields = test_fields(
      [&](std::string_view value, const ir::Kernel&) -> std::optional<ir::FieldProblem> {
        std::lock_guard lock(mutex);
        calls.emplace_back(value);
        return std::nullopt;
      });
  options.files = {data_file("parameters.cpp")};
  options.extra_args = kArgs;
  Result result = scan(options);
  EXPECT_EQ(calls, (std::vector<std::string>{"v1/6;0,1|6;0,1", "CPU"}));
  EXPECT_NE(find_kernel(result.module, "t::keyed.out"), nullptr);
}

TEST(ScanFields, ProblemIsReportedAtTheValueInTheSource) {
  const std::string file = data_file("parameters.cpp");
  Options options;
  options.fields =
      test_fields([](std::string_view value, const ir::Kernel&) -> std::optional<ir::FieldProblem> {
        if (value.starts_with("v1/"))
          return ir::FieldProblem{4, "dtype 6 is not allowed here"};
        return std::nullopt;
      });
  options.files = {file};
  options.extra_args = kArgs;
  Result result = scan(options);
  const LineColumn at = locate(file, "v1/6;0,1|6;0,1", 4);
  expect_diagnostics(result.diagnostics, file,
                     {
                         {"opscan-scan-unnamed-parameter", 7, 61, "has no name"},
                         {"opscan-kernel-key", at.line, at.column, "dtype 6 is not allowed here"},
                     });
  EXPECT_EQ(result.diagnostics[1].location.offset, at.offset);
  EXPECT_EQ(find_kernel(result.module, "t::keyed.out"), nullptr);
  EXPECT_NE(find_kernel(result.module, "t::no_context.out"), nullptr);
}

// ---------------------------------------------------------------------------
// Errors in the source

TEST(ScanErrors, SyntaxErrorIsReportedAndTheRestScanned) {
  const Result& result = scanned("syntax_error.cpp");
  expect_diagnostics(result.diagnostics, data_file("syntax_error.cpp"),
                     {{"opscan-clang-error", 9, 21, "expected expression"}});
  EXPECT_EQ(schemas(result.module),
            std::vector<std::string>{"t::good.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"});
}

TEST(ScanErrors, MissingInclude) {
  const Result& result = scanned("missing_include.cpp");
  expect_diagnostics(result.diagnostics, data_file("missing_include.cpp"),
                     {{"opscan-clang-error", 3, 10, "'no_such_header.h' file not found"}});
  EXPECT_NE(find_kernel(result.module, "t::after_missing.out"), nullptr);
}

TEST(ScanErrors, UnknownParameterType) {
  const Result& result = scanned("invalid_type.cpp");
  expect_diagnostics(
      result.diagnostics, data_file("invalid_type.cpp"),
      {
          {"opscan-clang-error", 7, 51, "unknown type name 'Tensr'"},
          {"opscan-scan-invalid-type", 7, 58,
           "the type of parameter 'self' of 'invalid::typo_out' could not be resolved"},
      });
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST(ScanErrors, KernelsMustBeFreeNonTemplateFunctionsWithExternalLinkage) {
  const std::string file = data_file("linkage.cpp");
  expect_diagnostics(
      scanned("linkage.cpp").diagnostics, file,
      {
          {"opscan-scan-internal-linkage", 7, 16,
           "kernel 'linkage::file_static_out' has internal linkage"},
          {"opscan-scan-internal-linkage", 11, 9,
           "kernel 'linkage::(anonymous namespace)::anonymous_out' has internal linkage"},
          {"opscan-scan-template", 16, 9, "kernel 'linkage::templated_out' is a function template"},
          {"opscan-scan-method", 20, 11,
           "kernel 'linkage::Ops::method_out' is a member function: kernels must be free "
           "functions"},
      });
  EXPECT_TRUE(scanned("linkage.cpp").module.kernels.empty());
}

TEST(ScanErrors, InlineAndConstexprKernelsAreRefused) {
  const std::string file = data_file("inline.cpp");
  const Result& result = scanned("inline.cpp");
  const std::string why = "is inline (or constexpr): its definition is emitted only where it is "
                          "used, so generated registration code cannot link to it";
  expect_diagnostics(result.diagnostics, file,
                     {
                         {"opscan-scan-inline", 8, 13, "kernel 'inl::inline_decl' " + why},
                         {"opscan-scan-inline", 11, 13, "kernel 'inl::inline_def' " + why},
                         {"opscan-scan-inline", 14, 19, "kernel 'inl::constexpr_fn' " + why},
                     });
  EXPECT_EQ(schemas(result.module), std::vector<std::string>{"t::not_inline(Tensor self) -> ()"});
}

TEST(ScanErrors, KernelDefinedInlineAfterItsDeclarationIsRefused) {
  // The annotated declaration says nothing; the definition makes it inline.
  const Result& result = scanned("inline_later.cpp");
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  const diag::Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.code, "opscan-scan-inline");
  EXPECT_EQ(d.location.file, shown(data_file("inline_later.cpp")));
  // At the annotated declaration or at the inline definition.
  EXPECT_TRUE(d.location.line == 8 || d.location.line == 10) << describe({d});
  EXPECT_EQ(find_kernel(result.module, "t::later_inline"), nullptr);
}

TEST(ScanErrors, AnnotationsOnAnythingButAFunctionAreMisplaced) {
  const Result& result = scanned("misplaced.cpp");
  const std::string fix = "annotate a function declared at namespace scope";
  // Each at its annotation.
  expect_diagnostics(
      result.diagnostics, data_file("misplaced.cpp"),
      {
          {"opscan-annotation-misplaced", 7, 3,
           "OPSCAN_KERNEL annotates a friend declaration ('friend_fn'): " + fix},
          {"opscan-annotation-misplaced", 10, 1,
           "OPSCAN_KERNEL annotates a variable ('variable'): " + fix},
          {"opscan-annotation-misplaced", 13, 3,
           "OPSCAN_KERNEL annotates a data member ('member'): " + fix},
          {"opscan-annotation-misplaced", 16, 8, "OPSCAN_KERNEL annotates a class ('Cls'): " + fix},
          {"opscan-annotation-misplaced", 18, 6,
           "OPSCAN_KERNEL annotates an enumeration ('Enm'): " + fix},
          {"opscan-annotation-misplaced", 20, 1,
           "OPSCAN_KERNEL annotates a type alias ('TensorTypedef'): " + fix},
          {"opscan-annotation-misplaced", 22, 19,
           "OPSCAN_KERNEL annotates a type alias ('TensorAlias'): " + fix},
      });
  // The function among them is a kernel.
  EXPECT_EQ(schemas(result.module), std::vector<std::string>{"t::fine(Tensor self) -> ()"});
}

TEST(ScanErrors, AnnotationClangIgnoresBeforeAClassIsNotDroppedSilently) {
  // OPSCAN_KERNEL("...") struct S {}; is how a misplaced annotation is most
  // likely written; clang drops the attribute with a warning.
  expect_diagnostics(scanned("misplaced_ignored.cpp").diagnostics,
                     data_file("misplaced_ignored.cpp"),
                     {
                         {"opscan-annotation-misplaced", 8, 1, "OPSCAN_KERNEL annotates"},
                         {"opscan-annotation-misplaced", 10, 1, "OPSCAN_KERNEL annotates"},
                     });
}

TEST(ScanErrors, AnnotationsOnEnumeratorsParametersAndVariableTemplatesAreMisplaced) {
  expect_diagnostics(scanned("misplaced_unvisited.cpp").diagnostics,
                     data_file("misplaced_unvisited.cpp"),
                     {
                         {"opscan-annotation-misplaced", 7, 15, "OPSCAN_KERNEL annotates"},
                         {"opscan-annotation-misplaced", 9, 12, "OPSCAN_KERNEL annotates"},
                         {"opscan-annotation-misplaced", 12, 1, "OPSCAN_KERNEL annotates"},
                     });
}

TEST(ScanErrors, AnnotationsInFunctionAndLambdaBodiesAreMisplacedNotDropped) {
  // Scans skip function bodies: the preprocessor's record of the
  // expansions finds the annotations no declaration the walk reads holds.
  const Result& result = scanned("misplaced_in_bodies.cpp");
  const std::string fix = "annotate a function declared at namespace scope";
  const std::string body = "OPSCAN_KERNEL annotates a declaration in the body of a function ";
  expect_diagnostics(
      result.diagnostics, data_file("misplaced_in_bodies.cpp"),
      {
          {"opscan-annotation-misplaced", 10, 3, body + "('in_bodies::host'): " + fix},
          {"opscan-annotation-misplaced", 15, 5, body + "('in_bodies::Holder::member'): " + fix},
          {"opscan-annotation-misplaced", 22, 3,
           body + "('in_bodies::Holder::defined_outside'): " + fix},
          {"opscan-annotation-misplaced", 26, 3,
           "OPSCAN_KERNEL annotates a declaration in a variable's initializer "
           "('in_bodies::lambda'): " +
               fix},
          {"opscan-annotation-misplaced", 32, 22, body + "('in_bodies::templated'): " + fix},
          {"opscan-annotation-misplaced", 36, 3, body + "('in_bodies::deduced'): " + fix},
          {"opscan-annotation-misplaced", 46, 3, body + "('in_bodies::fine'): " + fix},
      });
  // The kernel whose body holds one is still a kernel; what `#if 0` hides
  // is nothing.
  EXPECT_EQ(schemas(result.module), std::vector<std::string>{"t::fine(Tensor self) -> ()"});
}

TEST(ScanErrors, AProjectsOwnEmptyKernelMacroAnnotatesNothing) {
  // Only an OPSCAN_KERNEL that writes an annotation can have one dropped.
  const Result& result = scanned("own_empty_macro.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST(ScanErrors, AnnotationsInBodiesOfAPrecompiledHeaderAreMisplaced) {
  // opscan pch keeps the preprocessor's record: a scan loading the header
  // reads the expansions in it.
  TempDir dir;
  const std::string header = dir.write(
      "body.h", "#pragma once\n#include \"" + data_file("et_types.h") +
                    "\"\nOPSCAN_KERNEL(\"t::in_header\") Tensor in_header(const Tensor& self);\n"
                    "inline void host() {\n"
                    "  OPSCAN_KERNEL(\"t::hidden\") Tensor hidden(const Tensor& self);\n}\n");
  const std::string source = dir.write("k.cpp", "#include \"body.h\"\n");
  PrecompileOptions precompile_options;
  precompile_options.header = header;
  precompile_options.args = kArgs;
  const PrecompileResult pch = precompile(precompile_options);
  ASSERT_FALSE(pch.pch.empty()) << describe(pch.diagnostics);
  write_file(dir.file("body.pch"), pch.pch);
  std::vector<std::string> args = kArgs;
  args.insert(args.end(), {"-include-pch", dir.file("body.pch")});
  const Result result = scan_paths({source}, args);
  expect_diagnostics(result.diagnostics, header,
                     {{"opscan-annotation-misplaced", 5, 3,
                       "OPSCAN_KERNEL annotates a declaration in the body of a function "
                       "('host')"}});
  EXPECT_EQ(schemas(result.module),
            std::vector<std::string>{"t::in_header(Tensor self) -> Tensor"});
}

TEST(ScanErrors, OutputBreakingTheIRRulesIsReported) {
  // Reserved identifiers are C++ that compiles but that opscan must not
  // write; the scan does not check C++ names itself, ir::validate does.
  const Result& result = scanned("reserved_names.cpp");
  expect_diagnostics(result.diagnostics, data_file("reserved_names.cpp"),
                     {
                         {"opscan-ir-cpp-name", 8, 9,
                          "'dunder__out' is a reserved identifier in C++: it contains '__'"},
                         {"opscan-ir-cpp-name", 11, 9,
                          "'_Upper_out' is a reserved identifier in C++: it begins with '_' and "
                          "an uppercase letter"},
                     });
}

TEST(ScanErrors, BadOperatorNamesPointIntoTheLiteral) {
  // Each OPSCAN_KERNEL(" starts at column 1: the spec starts at column 16.
  expect_diagnostics(
      scanned("bad_names.cpp").diagnostics, data_file("bad_names.cpp"),
      {
          {"opscan-schema-syntax", 7, 19, "expected '::' after namespace 'add', found '.'"},
          {"opscan-schema-out-suffix", 8, 25,
           "name 'add_out' ends in '_out': name it 'add' with overload 'out'"},
          {"opscan-schema-reserved-overload", 9, 26, "overload name 'default' is reserved"},
          {"opscan-schema-reserved-name", 10, 22, "name '__x' starts with '__'"},
          // Two spaces before this literal; "->" is at offset 61 of the spec.
          {"opscan-schema-syntax", 11, 79, "expected ')' or ',' after argument 'out', found '->'"},
          {"opscan-schema-out-suffix", 13, 26, "name 'mul_out' ends in '_out'"},
      });
  EXPECT_TRUE(scanned("bad_names.cpp").module.kernels.empty());
}

TEST(ScanErrors, AnnotationSyntaxPointsAtTheToken) {
  expect_diagnostics(
      scanned("annotation_syntax.cpp").diagnostics, data_file("annotation_syntax.cpp"),
      {
          {"opscan-annotation-syntax", 7, 15, "first argument must be a string literal"},
          {"opscan-annotation-syntax", 10, 38, "field 'key' given twice"},
          {"opscan-annotation-syntax", 13, 35, "unknown OPSCAN_KERNEL field 'colour'"},
          // On the third line of the annotation.
          {"opscan-annotation-syntax", 18, 23, "unknown OPSCAN_KERNEL field 'wrong'"},
          // In the second of two adjacent literals.
          {"opscan-schema-out-suffix", 21, 27, "name 'split_out' ends in '_out'"},
      });
}

TEST(ScanErrors, UnnamedParameterWithAFixItThatNamesIt) {
  const std::string file = data_file("parameters.cpp");
  const Result& result = scanned("parameters.cpp");
  expect_diagnostics(result.diagnostics, file,
                     {{"opscan-scan-unnamed-parameter", 7, 61,
                       "parameter 2 of 'parameters::unnamed_out' has no name"}});
  EXPECT_EQ(find_kernel(result.module, "t::unnamed.out"), nullptr);
  // The fix-it inserts a name after the type; with it applied, the file scans.
  ASSERT_EQ(result.diagnostics[0].fixits.size(), 1u);
  const diag::FixIt& fix = result.diagnostics[0].fixits[0];
  EXPECT_EQ(fix.file, shown(file));
  EXPECT_EQ(fix.offset, offset_of(text_of(file), 7, 61));
  EXPECT_EQ(fix.length, 0u);
  EXPECT_EQ(fix.replacement, " arg1");
  std::string text = text_of(file);
  text.insert(fix.offset, fix.replacement);
  TempDir dir;
  Result fixed =
      scan_paths({dir.write("parameters.cpp", text)}, {"-std=c++17", "-I" + data_file("")});
  EXPECT_TRUE(fixed.diagnostics.empty()) << describe(fixed.diagnostics);
  const ir::Kernel* k = find_kernel(fixed.module, "t::unnamed.out");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->schema().str(), "t::unnamed.out(Tensor arg1, *, Tensor(a!) out) -> Tensor(a!)");
}

TEST(ScanErrors, DeclaredSchemaMismatchAndReturnCount) {
  const Result& result = scanned("declared.cpp");
  const std::string file = data_file("declared.cpp");
  expect_diagnostics(
      result.diagnostics, file,
      {
          // At the C++ parameter.
          {"opscan-mismatch-type", 13, 25,
           "argument 3 'alpha': schema says Scalar, C++ parameter is 'int64_t'"},
          // At the function's name.
          {"opscan-infer-return-count", 16, 9,
           "kernel 'declared::split_out': returns 1 tensor reference but takes 2 mutable tensors"},
      });
  ASSERT_EQ(result.diagnostics.size(), 2u);
  ASSERT_EQ(result.diagnostics[0].notes.size(), 1u);
  const diag::Note& note = result.diagnostics[0].notes[0];
  EXPECT_EQ(note.message,
            "schema declared here; to fit the signature: \"aten::sub.out(Tensor self, "
            "Tensor other, *, int alpha, Tensor(a!) out) -> Tensor(a!)\"");
  EXPECT_EQ(note.location.file, shown(file));
  EXPECT_EQ(note.location.line, 11u);
  EXPECT_EQ(note.location.column, 16u); // the spec's first character
  // The fix-it rewrites the annotation's string to fit the signature.
  ASSERT_EQ(result.diagnostics[0].fixits.size(), 1u);
  const diag::FixIt& fix = result.diagnostics[0].fixits[0];
  EXPECT_EQ(fix.file, shown(file));
  EXPECT_EQ(fix.offset, offset_of(text_of(file), 11, 15));
  EXPECT_EQ(fix.replacement, "\"aten::sub.out(Tensor self, Tensor other, *, int alpha, Tensor(a!) "
                             "out) -> Tensor(a!)\"");
}

TEST(ScanErrors, ConflictingAnnotationsOfOneFunction) {
  const Result& result = scanned("conflict.cpp");
  const std::string file = data_file("conflict.cpp");
  expect_diagnostics(result.diagnostics, file,
                     {{"opscan-kernel-conflict", 9, 1,
                       "kernel 'conflict::conflict_out' is annotated as \"t::second.out\" here and "
                       "as \"t::first.out\" elsewhere"}});
  ASSERT_EQ(result.diagnostics[0].notes.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].notes[0].message, "other annotation is here");
  EXPECT_EQ(result.diagnostics[0].notes[0].location.line, 6u);
  // The first annotation makes the kernel.
  EXPECT_EQ(schemas(result.module),
            std::vector<std::string>{"t::first.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"});
}

// ---------------------------------------------------------------------------
// Compiler arguments and compilation databases

TEST(ScanArguments, GccOnlyFlagIsDroppedWithANote) {
  const std::string file = data_file("returns.cpp");
  Result result = scan_paths({file}, {"-std=c++17", "-fconcepts", "-fno-gnu-unique"});
  ASSERT_EQ(result.diagnostics.size(), 2u) << describe(result.diagnostics);
  for (const diag::Diagnostic& d : result.diagnostics) {
    EXPECT_EQ(d.severity, diag::Severity::note);
    EXPECT_EQ(d.code, "opscan-dropped-flag");
    EXPECT_EQ(d.location.file, shown(file));
  }
  EXPECT_EQ(result.diagnostics[0].message, "dropped '-fconcepts', which libclang does not accept");
  EXPECT_EQ(result.module.kernels.size(), 3u);

  // What happens to a flag clang does not know and opscan does not drop.
  Result unknown = scan_paths({file}, {"-std=c++17", "-fno-such-flag"});
  ASSERT_EQ(unknown.diagnostics.size(), 1u) << describe(unknown.diagnostics);
  EXPECT_EQ(unknown.diagnostics[0].code, "opscan-clang-error");
  EXPECT_EQ(unknown.diagnostics[0].message, "unknown argument: '-fno-such-flag'");
}

TEST(ScanArguments, MacrosFromTheArgumentsApply) {
  TempDir dir;
  const std::string file = dir.write(
      "defines.cpp", "#include \"" + data_file("et_types.h") +
                         "\"\n#ifdef WITH_KERNEL\nOPSCAN_KERNEL(\"t::maybe\") void maybe(const "
                         "Tensor& self);\n#endif\n");
  EXPECT_TRUE(scan_paths({file}).module.kernels.empty());
  EXPECT_EQ(scan_paths({file}, {"-std=c++17", "-DWITH_KERNEL"}).module.kernels.size(), 1u);
}

TEST(ScanArguments, MissingFile) {
  const std::string file = data_file("no_such_file.cpp");
  Result result = scan_paths({file});
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-io");
  EXPECT_EQ(result.diagnostics[0].message, "cannot read " + file + ": No such file or directory");
  EXPECT_EQ(result.diagnostics[0].location.file, shown(file));
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST(ScanArguments, NoFilesIsAnEmptyModule) {
  Result result = scan_paths({});
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_TRUE(result.module.kernels.empty());
  EXPECT_EQ(result.files_parsed, 0u);
  EXPECT_EQ(result.module.libclang_version, libclang_version());
}

// A build tree: build/compile_commands.json for src/*.cpp, with relative
// include paths (resolved against the entry's directory).
class CompilationDatabaseTest : public ::testing::Test {
protected:
  void SetUp() override {
    const std::string kernel = R"(#include "local.h"
OPSCAN_KERNEL("t::NAME.out")
Tensor& NAME_out(const Tensor& self, Tensor& out);
)";
    auto source = [&](const std::string& name) {
      std::string text = kernel;
      for (size_t at; (at = text.find("NAME")) != std::string::npos;)
        text.replace(at, 4, name);
      return text;
    };
    dir_.write("inc/local.h", "#include \"" + data_file("et_types.h") + "\"\n");
    one_ = dir_.write("src/one.cpp", source("one"));
    two_ = dir_.write("src/two.cpp", source("two"));
    absent_ = dir_.write("src/absent.cpp", source("absent"));
    const std::string build = (dir_.path() / "build").string();
    dir_.write("build/compile_commands.json", R"([
  {"directory": ")" + build + R"(",
   "arguments": ["/usr/bin/g++", "-std=c++17", "-I../inc", "-fconcepts-diagnostics-depth=2",
                 "-o", "one.o", "-c", "../src/one.cpp"],
   "file": "../src/one.cpp"},
  {"directory": ")" + build + R"(",
   "command": "/usr/bin/g++ -std=c++17 -I../inc -DTWO=1 -o two.o -c )" +
                                                  two_ + R"(",
   "file": ")" + two_ + R"("}
])");
  }

  Result scan_with_database(std::vector<std::string> files, unsigned jobs = 1) {
    Options options;
    options.fields = test_fields();
    options.files = std::move(files);
    options.build_dir = (dir_.path() / "build").string();
    options.jobs = jobs;
    return scan(options);
  }

  TempDir dir_;
  std::string one_, two_, absent_;
};

TEST_F(CompilationDatabaseTest, ArgumentsAndCommandEntries) {
  const fs::path cwd = fs::current_path();
  Result result = scan_with_database({one_, two_}, 2);
  // The entries' directory applies to their paths, not to the process.
  EXPECT_EQ(fs::current_path(), cwd);
  // one.cpp's entry has a GCC-only flag.
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-dropped-flag");
  EXPECT_EQ(result.diagnostics[0].location.file, shown(one_));
  EXPECT_EQ(result.diagnostics[0].message,
            "dropped '-fconcepts-diagnostics-depth=2', which libclang does not accept");
  EXPECT_EQ(schemas(result.module),
            (std::vector<std::string>{"t::one.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                                      "t::two.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"}));
  EXPECT_EQ(result.module.kernels[0].location.file, shown(one_));
  EXPECT_EQ(result.module.kernels[0].location.line, 3u);
}

TEST_F(CompilationDatabaseTest, FileMissingFromTheDatabase) {
  // libclang would infer a command from one.cpp's; opscan does not guess.
  Result result = scan_with_database({absent_});
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-no-compile-command");
  EXPECT_EQ(result.diagnostics[0].severity, diag::Severity::error);
  EXPECT_EQ(result.diagnostics[0].location.file, shown(absent_));
  EXPECT_NE(result.diagnostics[0].message.find("no entry for this file in"), std::string::npos);
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST_F(CompilationDatabaseTest, MissingDatabase) {
  Options options;
  options.fields = test_fields();
  options.files = {one_};
  options.build_dir = dir_.path().string(); // no compile_commands.json here
  Result result = scan(options);
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-no-compile-commands");
  EXPECT_EQ(result.diagnostics[0].message, "cannot read " +
                                               (dir_.path() / "compile_commands.json").string() +
                                               ": No such file or directory");
  EXPECT_TRUE(result.module.kernels.empty());
}

// A FIFO would block libclang's reader for good.
TEST_F(CompilationDatabaseTest, ADatabaseThatIsNotARegularFileIsNeverOpened) {
  ASSERT_EQ(::mkfifo((dir_.path() / "compile_commands.json").c_str(), 0666), 0);
  Options options;
  options.fields = test_fields();
  options.files = {one_};
  options.build_dir = dir_.path().string();
  Result result = scan(options);
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  EXPECT_EQ(result.diagnostics[0].message, "cannot read " +
                                               (dir_.path() / "compile_commands.json").string() +
                                               ": Not a regular file (a FIFO)");
}

// ---------------------------------------------------------------------------
// Multi-file scans

TEST(LocateFunctions, GivesTheTensorsAKernelKeyHasEntriesFor) {
  // What import-yaml checks a derived kernel key against: the tensor
  // parameters as the scan maps them, after a runtime context.
  TempDir dir;
  const std::string file = dir.write(
      "k.cpp", "#include \"" + data_file("et_types.h") +
                   "\"\nnamespace a::native {\n"
                   "Tensor& f(KernelRuntimeContext& ctx, const Tensor& self, "
                   "const std::optional<Tensor>& weight, ArrayRef<Tensor> list, Tensor& out);\n"
                   "Tensor& g(const Tensor& self, double x);\n"
                   "void h(const Tensor& self, int* unmapped);\n"
                   "std::tuple<Tensor&, Tensor&> t(const Tensor& self, Tensor& a, Tensor& b);\n"
                   "void v(const Tensor& self, Tensor& out);\n}\n");
  Options options;
  options.fields = test_fields();
  options.files = {file};
  options.extra_args = kArgs;
  const LocateResult located = locate_functions(options);
  ASSERT_TRUE(located.diagnostics.empty()) << describe(located.diagnostics);
  ASSERT_EQ(located.files.size(), 1u);
  std::map<std::string, std::optional<KeyTensors>> tensors;
  for (const FunctionSite& site : located.files[0].functions)
    tensors[site.qualified_name] = site.key_tensors;
  // The returned tensor (an out variant's out again, or a value) may have
  // an entry; a tuple's tensors share one return slot and have none.
  EXPECT_EQ(tensors.at("a::native::f"), (KeyTensors{2, 3, 1}));
  EXPECT_EQ(tensors.at("a::native::g"), (KeyTensors{1, 1, 1}));
  EXPECT_EQ(tensors.at("a::native::t"), (KeyTensors{3, 3, 0}));
  EXPECT_EQ(tensors.at("a::native::v"), (KeyTensors{2, 2, 0}));
  EXPECT_EQ(tensors.at("a::native::h"), std::nullopt);
}

TEST(ScanDeterminism, JobsAndFileOrderDoNotChangeTheOutput) {
  std::vector<std::string> files = {
      data_file("decl_def.cpp"), data_file("also_includes.cpp"), data_file("returns.cpp"),
      data_file("declared.cpp"), data_file("macro.cpp"),
  };
  Result serial = scan_paths(files, kArgs, 1);
  Result parallel = scan_paths(files, kArgs, 2);
  std::reverse(files.begin(), files.end());
  Result reversed = scan_paths(files, kArgs, 2);

  const std::string json = ir::to_json(serial.module, test_fields());
  EXPECT_EQ(serial.module.kernels.size(), 9u);
  EXPECT_EQ(ir::to_json(parallel.module, test_fields()), json);
  EXPECT_EQ(ir::to_json(reversed.module, test_fields()), json);
  EXPECT_EQ(describe(parallel.diagnostics), describe(serial.diagnostics));
  EXPECT_EQ(describe(reversed.diagnostics), describe(serial.diagnostics));
  EXPECT_EQ(serial.diagnostics.size(), 4u) << describe(serial.diagnostics);
  EXPECT_EQ(serial.files_parsed, 5u);
}

TEST(ScanMerge, OneFunctionAnnotatedDifferentlyInTwoFilesIsAConflict) {
  // Each file alone is consistent; together they annotate one function
  // (one USR) two ways.
  TempDir dir;
  const std::string include = "#include \"" + data_file("et_types.h") + "\"\n";
  const std::string declaration = "Tensor& shared_out(const Tensor& self, Tensor& out);\n";
  const std::string first =
      dir.write("first.cpp", include + "OPSCAN_KERNEL(\"t::one.out\")\n" + declaration);
  const std::string second =
      dir.write("second.cpp", include + "OPSCAN_KERNEL(\"t::two.out\")\n" + declaration);
  EXPECT_TRUE(scan_paths({first}).diagnostics.empty());
  EXPECT_TRUE(scan_paths({second}).diagnostics.empty());
  Result both = scan_paths({first, second});
  expect_diagnostics(both.diagnostics, second,
                     {{"opscan-kernel-conflict", 3, 9, "kernel 'shared_out' is annotated as"}});
  ASSERT_EQ(both.diagnostics[0].notes.size(), 1u);
  EXPECT_EQ(both.diagnostics[0].notes[0].message, "other annotation is here");
  EXPECT_EQ(both.diagnostics[0].notes[0].location.file, shown(first));
  EXPECT_EQ(both.diagnostics[0].notes[0].location.line, 3u);
  // The first in the sources is kept.
  EXPECT_EQ(schemas(both.module),
            std::vector<std::string>{"t::one.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"});
}

TEST(ScanMerge, AHeaderKernelSeenDifferentlyByTwoFilesIsAConflict) {
  // The same function (the USR ignores the return type) and annotation, but
  // one file's macros change what it returns.
  TempDir dir;
  dir.write("kernel.h", "#pragma once\n#include \"" + data_file("et_types.h") +
                            "\"\n#ifdef WIDE\ntypedef double Value;\n#else\ntypedef int64_t "
                            "Value;\n#endif\nOPSCAN_KERNEL(\"t::k\")\nValue k(const Tensor& "
                            "self);\n");
  const std::string wide = dir.write("wide.cpp", "#define WIDE\n#include \"kernel.h\"\n");
  const std::string narrow = dir.write("narrow.cpp", "#include \"kernel.h\"\n");
  Result result = scan_paths({wide, narrow});
  expect_diagnostics(result.diagnostics, (dir.path() / "kernel.h").string(),
                     {{"opscan-kernel-conflict", 9, 7,
                       "kernel 'k' for t::k differs between translation units (scanned with "
                       "different flags?)"}});
  EXPECT_EQ(result.module.kernels.size(), 1u);
}

TEST(ScanMerge, IdenticalKernelsFromTwoFilesAreMergedQuietly) {
  Result result = scan_paths({data_file("returns.cpp"), data_file("returns.cpp")});
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 3u);
  EXPECT_EQ(result.module.sources.size(), 1u);
}
// ---------------------------------------------------------------------------
// Declared-schema mismatches
//
// Kernels under test/data/scan/mismatch/ whose declared schema does not fit
// their C++ signature, one row each: every error exactly, and the fix-it that
// rewrites the annotation's string literal(s) to the repaired schema. The
// proof that a fix works: each file with its fix-its applied scans without a
// diagnostic, every kernel keeping its repaired schema as declared.

struct MismatchError {
  std::string code;
  uint32_t line;
  uint32_t column;
  std::string message; // all of it
};

struct MismatchCase {
  std::string name; // the C++ function
  std::string file; // in test/data/scan/mismatch/
  // Where the spec's (first) string literal starts, at its opening quote.
  struct {
    uint32_t line;
    uint32_t column;
  } at;
  std::string written;               // the literal(s) as in the file: what the fix-it replaces
  std::string fixed;                 // the repaired schema, which the fix-it writes quoted
  std::vector<MismatchError> errors; // in order
  // The C++ is repaired instead (a written tensor taken by const reference
  // loses its `const`): `fixed` is the declared schema, canonical.
  bool fixes_cpp = false;
};

const std::vector<MismatchCase> kMismatches = {
    // Argument count: the error is at the function's name.
    {"sum_out",
     "count.cpp",
     {7, 15},
     R"x("t::sum.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::sum.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-count", 8, 9,
       "schema has 4 arguments, the C++ function takes 3 (after the runtime context)"}}},
    {"cumsum_out",
     "count.cpp",
     {11, 15},
     R"x("t::cumsum.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::cumsum.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-count", 12, 9,
       "schema has 2 arguments, the C++ function takes 3 (after the runtime context)"}}},
    {"seed",
     "count.cpp",
     {15, 15},
     R"x("t::seed() -> ()")x",
     R"(t::seed(int value) -> ())",
     {{"opscan-mismatch-count", 16, 6, "schema has 0 arguments, the C++ function takes 1"}}},
    {"now",
     "count.cpp",
     {19, 15},
     R"x("t::now(int unit) -> int")x",
     R"(t::now() -> int)",
     {{"opscan-mismatch-count", 20, 9,
       "schema has 1 argument, the C++ function takes 0 (after the runtime context)"}}},
    {"clamp_out",
     "count.cpp",
     {23, 15},
     R"x("t::clamp.out(Tensor input, Scalar? min=None, Scalar? max=None, Tensor? weight=None, *, Tensor(a!) result) -> Tensor(a!)")x",
     R"(t::clamp.out(Tensor input, Scalar? min=None, *, Tensor(a!) result) -> Tensor(a!))",
     {{"opscan-mismatch-count", 24, 9, "schema has 5 arguments, the C++ function takes 3"}}},
    {"aminmax_out",
     "count.cpp",
     {27, 15},
     R"x("t::aminmax.out(Tensor self, *, Tensor(a!) max) -> Tensor(a!)")x",
     R"(t::aminmax.out(Tensor self, *, Tensor(b!) min, Tensor(a!) max) -> (Tensor(b!), Tensor(a!)))",
     {{"opscan-mismatch-count", 28, 30, "schema has 2 arguments, the C++ function takes 3"}}},
    {"join",
     "count.cpp",
     {31, 15},
     R"x("t::join(Tensor[] parts, str sep=\"-\") -> ()")x",
     R"(t::join(Tensor[] parts, int limit, str sep="-") -> ())",
     {{"opscan-mismatch-count", 32, 6, "schema has 2 arguments, the C++ function takes 3"}}},
    // Argument types: each kind of swap. A changed type loses its default.
    {"add_out",
     "types.cpp",
     {6, 15},
     R"x("t::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(o!) out) -> Tensor(o!)")x",
     R"(t::add.out(Tensor self, Tensor other, *, int alpha, Tensor(o!) out) -> Tensor(o!))",
     {{"opscan-mismatch-type", 7, 93,
       "argument 3 'alpha': schema says Scalar, C++ parameter is 'int64_t'"}}},
    {"roll",
     "types.cpp",
     {9, 15},
     R"x("t::roll(Tensor self, int shifts) -> Tensor")x",
     R"(t::roll(Tensor self, Scalar shifts) -> Tensor)",
     {{"opscan-mismatch-type", 10, 47,
       "argument 2 'shifts': schema says int, C++ parameter is 'const executorch::aten::Scalar "
       "&'"}}},
    {"norm_out",
     "types.cpp",
     {12, 15},
     R"x("t::norm.out(Tensor self, float p=2, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::norm.out(Tensor self, Scalar p, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 13, 52,
       "argument 2 'p': schema says float, C++ parameter is 'const executorch::aten::Scalar &'"}}},
    {"fill",
     "types.cpp",
     {15, 15},
     R"x("t::fill.Scalar(Tensor self, Scalar value) -> Tensor")x",
     R"(t::fill.Scalar(Tensor self, float value) -> Tensor)",
     {{"opscan-mismatch-type", 16, 40,
       "argument 2 'value': schema says Scalar, C++ parameter is 'double'"}}},
    {"any",
     "types.cpp",
     {18, 15},
     R"x("t::any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor")x",
     R"(t::any.dim(Tensor self, int dim, int keepdim) -> Tensor)",
     {{"opscan-mismatch-type", 19, 53,
       "argument 3 'keepdim': schema says bool, C++ parameter is 'int64_t'"}}},
    {"tril",
     "types.cpp",
     {21, 15},
     R"x("t::tril(Tensor self, int diagonal) -> Tensor")x",
     R"(t::tril(Tensor self, bool diagonal) -> Tensor)",
     {{"opscan-mismatch-type", 22, 38,
       "argument 2 'diagonal': schema says int, C++ parameter is 'bool'"}}},
    {"dropout",
     "types.cpp",
     {24, 15},
     R"x("t::dropout(Tensor input, Tensor mask) -> Tensor")x",
     R"(t::dropout(Tensor input, Tensor? mask) -> Tensor)",
     {{"opscan-mismatch-type", 25, 66,
       "argument 2 'mask': schema says Tensor, C++ parameter is 'const std::optional<Tensor> &'"}}},
    {"linear",
     "types.cpp",
     {27, 15},
     R"x("t::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")x",
     R"(t::linear(Tensor input, Tensor weight, Tensor bias) -> Tensor)",
     {{"opscan-mismatch-type", 28, 72,
       "argument 3 'bias': schema says Tensor?, C++ parameter is 'const executorch::aten::Tensor "
       "&'"}}},
    {"squeeze",
     "types.cpp",
     {30, 15},
     R"x("t::squeeze.dim(Tensor self, int[1] dim) -> Tensor")x",
     R"(t::squeeze.dim(Tensor self, int dim) -> Tensor)",
     {{"opscan-mismatch-type", 31, 44,
       "argument 2 'dim': schema says int[1], C++ parameter is 'int64_t'"}}},
    {"permute",
     "types.cpp",
     {33, 15},
     R"x("t::permute(Tensor self, int dims) -> Tensor")x",
     R"(t::permute(Tensor self, int[] dims) -> Tensor)",
     {{"opscan-mismatch-type", 34, 54,
       "argument 2 'dims': schema says int, C++ parameter is 'ArrayRef<int64_t>'"}}},
    {"to_dtype",
     "types.cpp",
     {36, 15},
     R"x("t::to_dtype(Tensor self, ScalarType dtype, bool copy=False) -> Tensor")x",
     R"(t::to_dtype(Tensor self, int dtype, bool copy=False) -> Tensor)",
     {{"opscan-mismatch-type", 37, 45,
       "argument 2 'dtype': schema says ScalarType, C++ parameter is 'int64_t'"}}},
    {"cast_out",
     "types.cpp",
     {39, 15},
     R"x("t::cast.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::cast.out(Tensor self, *, ScalarType dtype, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 40, 49,
       "argument 2 'dtype': schema says ScalarType?, C++ parameter is "
       "'executorch::aten::ScalarType'"}}},
    {"reduce",
     "types.cpp",
     {42, 15},
     R"x("t::reduce(Tensor self, str mode) -> Tensor")x",
     R"(t::reduce(Tensor self, Tensor mode) -> Tensor)",
     {{"opscan-mismatch-type", 43, 49,
       "argument 2 'mode': schema says str, C++ parameter is 'const executorch::aten::Tensor &'"}}},
    {"lookup",
     "types.cpp",
     {45, 15},
     R"x("t::lookup(Tensor table, Tensor key) -> Tensor")x",
     R"(t::lookup(Tensor table, str key) -> Tensor)",
     {{"opscan-mismatch-type", 46, 53,
       "argument 2 'key': schema says Tensor, C++ parameter is 'std::string_view'"}}},
    {"stack",
     "types.cpp",
     {48, 15},
     R"x("t::stack(Tensor[] tensors, int dim=0) -> Tensor")x",
     R"(t::stack(Tensor tensors, int dim=0) -> Tensor)",
     {{"opscan-mismatch-type", 49, 28,
       "argument 1 'tensors': schema says Tensor[], C++ parameter is 'const "
       "executorch::aten::Tensor &'"}}},
    {"unbind_sum",
     "types.cpp",
     {51, 15},
     R"x("t::unbind_sum(Tensor self) -> Tensor")x",
     R"(t::unbind_sum(Tensor[] self) -> Tensor)",
     {{"opscan-mismatch-type", 52, 36,
       "argument 1 'self': schema says Tensor, C++ parameter is "
       "'ArrayRef<executorch::aten::Tensor>'"}}},
    {"argmax",
     "types.cpp",
     {54, 15},
     R"x("t::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")x",
     R"(t::argmax(Tensor self, int dim, bool keepdim=False) -> Tensor)",
     {{"opscan-mismatch-type", 55, 43,
       "argument 2 'dim': schema says int?, C++ parameter is 'int64_t'"}}},
    {"index",
     "types.cpp",
     {57, 15},
     R"x("t::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")x",
     R"(t::index.Tensor(Tensor self, Tensor[] indices) -> Tensor)",
     {{"opscan-mismatch-type", 58, 51,
       "argument 2 'indices': schema says Tensor?[], C++ parameter is "
       "'ArrayRef<executorch::aten::Tensor>'"}}},
    {"index_put",
     "types.cpp",
     {60, 15},
     R"x("t::index_put(Tensor self, Tensor[] indices, Tensor values) -> Tensor")x",
     R"(t::index_put(Tensor self, Tensor?[] indices, Tensor values) -> Tensor)",
     {{"opscan-mismatch-type", 61, 70,
       "argument 2 'indices': schema says Tensor[], C++ parameter is "
       "'ArrayRef<std::optional<Tensor>>'"}}},
    {"amax",
     "types.cpp",
     {63, 15},
     R"x("t::amax(Tensor self, int[]? dim=None) -> Tensor")x",
     R"(t::amax(Tensor self, int[] dim) -> Tensor)",
     {{"opscan-mismatch-type", 64, 51,
       "argument 2 'dim': schema says int[]?, C++ parameter is 'ArrayRef<int64_t>'"}}},
    {"upsample",
     "types.cpp",
     {66, 15},
     R"x("t::upsample(Tensor self, float[] scales) -> Tensor")x",
     R"(t::upsample(Tensor self, int[] scales) -> Tensor)",
     {{"opscan-mismatch-type", 67, 55,
       "argument 2 'scales': schema says float[], C++ parameter is 'ArrayRef<int64_t>'"}}},
    {"var",
     "types.cpp",
     {70, 15},
     R"x("t::var(Tensor self, int dim=0, bool unbiased=True) -> Tensor")x",
     R"(t::var(Tensor self, int dim, float unbiased) -> Tensor)",
     {{"opscan-mismatch-type", 71, 52,
       "argument 3 'unbiased': schema says bool, C++ parameter is 'double'"}}},
    {"scatter_reduce_out",
     "types.cpp",
     {74, 15},
     R"x("t::scatter_reduce.out(Tensor self, int dim, Tensor index, Tensor src, str reduce='sum', *, bool include_self=True, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::scatter_reduce.out(Tensor self, int dim, int[] index, Tensor src, str reduce='sum', *, bool include_self=True, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 75, 79,
       "argument 3 'index': schema says Tensor, C++ parameter is 'ArrayRef<int64_t>'"}}},
    // Mutability, both ways, and in-place operators.
    {"neg_out",
     "mutability.cpp",
     {8, 15},
     R"x("t::neg.out(Tensor self, *, Tensor out) -> Tensor(a!)")x",
     R"(t::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-mutability", 9, 45,
       "argument 2 'out': schema says Tensor (read-only), C++ parameter is "
       "'executorch::aten::Tensor &' (written by the kernel): take it as a const reference"}}},
    {"zero_out",
     "mutability.cpp",
     {12, 15},
     R"x("t::zero.out(Scalar value, *, Tensor(a!) out) -> ()")x",
     R"(t::zero.out(Scalar value, *, Tensor(a!) out) -> ())",
     {{"opscan-mismatch-mutability", 13, 77,
       "argument 2 'out': schema says Tensor(a!) (written by the kernel), C++ parameter is 'const "
       "executorch::aten::Tensor &' (read-only): take it as a non-const reference"}},
     true},
    {"add_relu_out",
     "mutability.cpp",
     {16, 15},
     R"x("t::add_relu.out(Tensor self, Tensor other, *, Tensor(a!) out) -> ()")x",
     R"(t::add_relu.out(Tensor(b!) self, Tensor other, *, Tensor(a!) out) -> ())",
     {{"opscan-mismatch-mutability", 17, 27,
       "argument 1 'self': schema says Tensor (read-only), C++ parameter is "
       "'executorch::aten::Tensor &' (written by the kernel): take it as a const reference"}}},
    {"bn_update",
     "mutability.cpp",
     {20, 15},
     R"x("t::bn_update(Tensor input, Tensor(a!) running_mean, Tensor(b!) running_var, float momentum) -> ()")x",
     R"(t::bn_update(Tensor input, Tensor(a!) running_mean, Tensor(b!) running_var, float momentum) -> ())",
     {{"opscan-mismatch-mutability", 21, 51,
       "argument 2 'running_mean': schema says Tensor(a!) (written by the kernel), C++ parameter "
       "is 'const executorch::aten::Tensor &' (read-only): take it as a non-const reference"}},
     true},
    {"accumulate",
     "mutability.cpp",
     {24, 15},
     R"x("t::accumulate(Tensor self, *, Tensor(a!)? grad) -> ()")x",
     R"(t::accumulate(Tensor self, *, Tensor(a!)? grad) -> ())",
     {{"opscan-mismatch-mutability", 25, 66,
       "argument 2 'grad': schema says Tensor(a!)? (written by the kernel), C++ parameter is "
       "'const std::optional<Tensor> &' (read-only): take it as a non-const reference"}},
     true},
    {"relu_",
     "mutability.cpp",
     {28, 15},
     R"x("t::relu_(Tensor self) -> Tensor")x",
     R"(t::relu_(Tensor(a!) self) -> Tensor(a!))",
     {{"opscan-mismatch-returns", 29, 9,
       "schema returns Tensor, the C++ function returns 'executorch::aten::Tensor &', which is "
       "Tensor(a!) in a schema"},
      {"opscan-mismatch-mutability", 29, 23,
       "argument 1 'self': schema says Tensor (read-only), C++ parameter is "
       "'executorch::aten::Tensor &' (written by the kernel): take it as a const reference"}}},
    {"mul_",
     "mutability.cpp",
     {32, 15},
     R"x("t::mul_.Scalar(Tensor(s!) self, Scalar other) -> Tensor(s!)")x",
     R"(t::mul_.Scalar(Tensor(s!) self, float other) -> Tensor(s!))",
     {{"opscan-mismatch-type", 33, 62,
       "argument 2 'other': schema says Scalar, C++ parameter is 'double'"}}},
    // Arguments out of order: only their names tell.
    {"sub_out",
     "order.cpp",
     {6, 15},
     R"x("t::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::sub.out(Tensor other, Tensor self, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-order", 7, 31,
       "argument 1: schema says 'self', the C++ parameter here is 'other', which is argument 2 in "
       "the schema"},
      {"opscan-mismatch-order", 7, 52,
       "argument 2: schema says 'other', the C++ parameter here is 'self', which is argument 1 in "
       "the schema"}}},
    {"sort_values",
     "order.cpp",
     {10, 15},
     R"x("t::sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)")x",
     R"(t::sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(b!) indices, Tensor(a!) values) -> (Tensor(b!) indices, Tensor(a!) values))",
     {{"opscan-mismatch-order", 11, 100,
       "argument 4: schema says 'values', the C++ parameter here is 'indices', which is argument 5 "
       "in the schema"},
      {"opscan-mismatch-order", 11, 117,
       "argument 5: schema says 'indices', the C++ parameter here is 'values', which is argument 4 "
       "in the schema"}}},
    {"addmm",
     "order.cpp",
     {14, 15},
     R"x("t::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")x",
     R"(t::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar alpha=1, Scalar beta=1) -> Tensor)",
     {{"opscan-mismatch-order", 15, 88,
       "argument 4: schema says 'beta', the C++ parameter here is 'alpha', which is argument 5 in "
       "the schema"},
      {"opscan-mismatch-order", 15, 109,
       "argument 5: schema says 'alpha', the C++ parameter here is 'beta', which is argument 4 in "
       "the schema"}}},
    {"topk",
     "order.cpp",
     {18, 15},
     R"x("t::topk(Tensor self, int k, int dim=-1, bool largest=True) -> Tensor")x",
     R"(t::topk(Tensor self, bool largest, int k, int dim=-1) -> Tensor)",
     {{"opscan-mismatch-type", 19, 38, "argument 2 'k': schema says int, C++ parameter is 'bool'"},
      {"opscan-mismatch-order", 19, 55,
       "argument 3: schema says 'dim', the C++ parameter here is 'k', which is argument 2 in the "
       "schema"},
      {"opscan-mismatch-type", 19, 66,
       "argument 4 'largest': schema says bool, C++ parameter is 'int64_t'"}}},
    {"where",
     "order.cpp",
     {22, 15},
     R"x("t::where(Tensor condition, Tensor self, Tensor other) -> Tensor")x",
     R"(t::where(Tensor self, Tensor other, Tensor condition) -> Tensor)",
     {{"opscan-mismatch-order", 23, 28,
       "argument 1: schema says 'condition', the C++ parameter here is 'self', which is argument 2 "
       "in the schema"},
      {"opscan-mismatch-order", 23, 48,
       "argument 2: schema says 'self', the C++ parameter here is 'other', which is argument 3 in "
       "the schema"},
      {"opscan-mismatch-order", 23, 69,
       "argument 3: schema says 'other', the C++ parameter here is 'condition', which is argument "
       "1 in the schema"}}},
    // Returns: the error is at the function's name.
    {"frexp",
     "returns.cpp",
     {6, 15},
     R"x("t::frexp(Tensor self) -> (Tensor mantissa, Tensor exponent)")x",
     R"(t::frexp(Tensor self) -> Tensor)",
     {{"opscan-mismatch-returns", 7, 8,
       "schema returns (Tensor mantissa, Tensor exponent), the C++ function returns "
       "'executorch::aten::Tensor', which is Tensor in a schema"}}},
    {"abs_out",
     "returns.cpp",
     {9, 15},
     R"x("t::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor")x",
     R"(t::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-returns", 10, 9,
       "schema returns Tensor, the C++ function returns 'executorch::aten::Tensor &', which is "
       "Tensor(a!) in a schema"}}},
    {"max_out",
     "returns.cpp",
     {12, 15},
     R"x("t::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> Tensor(a!)")x",
     R"(t::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!), Tensor(b!)))",
     {{"opscan-mismatch-returns", 13, 30,
       "schema returns Tensor(a!), the C++ function returns 'std::tuple<Tensor &, Tensor &>', "
       "which is (Tensor(a!), Tensor(b!)) in a schema"}}},
    {"copy_out",
     "returns.cpp",
     {15, 15},
     R"x("t::copy.out(Tensor self, *, Tensor(a!) out) -> ()")x",
     R"(t::copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-returns", 16, 9,
       "schema returns (), the C++ function returns 'executorch::aten::Tensor &', which is "
       "Tensor(a!) in a schema"}}},
    {"ceil_out",
     "returns.cpp",
     {18, 15},
     R"x("t::ceil.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::ceil.out(Tensor self, *, Tensor(a!) out) -> ())",
     {{"opscan-mismatch-returns", 19, 6,
       "schema returns Tensor(a!), the C++ function returns 'void', which is () in a schema"}}},
    {"numel",
     "returns.cpp",
     {21, 15},
     R"x("t::numel(Tensor self) -> int")x",
     R"(t::numel(Tensor self) -> float)",
     {{"opscan-mismatch-returns", 22, 8,
       "schema returns int, the C++ function returns 'double', which is float in a schema"}}},
    {"item",
     "returns.cpp",
     {24, 15},
     R"x("t::item(Tensor self) -> Scalar")x",
     R"(t::item(Tensor self) -> bool)",
     {{"opscan-mismatch-returns", 25, 6,
       "schema returns Scalar, the C++ function returns 'bool', which is bool in a schema"}}},
    {"mean_count",
     "returns.cpp",
     {27, 15},
     R"x("t::mean_count(Tensor self) -> (Tensor mean, int count)")x",
     R"(t::mean_count(Tensor self) -> (Tensor mean, float count))",
     {{"opscan-mismatch-returns", 28, 28,
       "schema returns (Tensor mean, int count), the C++ function returns 'std::tuple<Tensor, "
       "double>', which is (Tensor, float) in a schema"}}},
    {"norm_value",
     "returns.cpp",
     {30, 15},
     R"x("t::norm_value(Tensor self) -> float")x",
     R"(t::norm_value(Tensor self) -> Tensor)",
     {{"opscan-mismatch-returns", 31, 8,
       "schema returns float, the C++ function returns 'executorch::aten::Tensor', which is Tensor "
       "in a schema"}}},
    {"kthvalue",
     "returns.cpp",
     {34, 15},
     R"x("t::kthvalue(Tensor self, int k, int dim=-1) -> (Tensor values, Tensor indices)")x",
     R"(t::kthvalue(Tensor self, float k, int dim=-1) -> (Tensor values, Tensor indices))",
     {{"opscan-mismatch-type", 35, 64,
       "argument 2 'k': schema says int, C++ parameter is 'double'"}}},
    {"select",
     "returns.cpp",
     {38, 15},
     R"x("t::select.int(Tensor(a) self, int dim, int index) -> Tensor(a)")x",
     R"(t::select.int(Tensor(a) self, int dim, float index) -> Tensor(a))",
     {{"opscan-mismatch-type", 39, 55,
       "argument 3 'index': schema says int, C++ parameter is 'double'"}}},
    // Annotations written in other ways.
    {"pow_out",
     "annotations.cpp",
     {9, 5},
     R"x("t::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::pow.Tensor_Scalar_out(Tensor self, float exponent, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 10, 44,
       "argument 2 'exponent': schema says Scalar, C++ parameter is 'double'"}}},
    {"lerp_out",
     "annotations.cpp",
     {13, 15},
     R"x("t::lerp.Scalar_out(Tensor self, Tensor end, "
              "Scalar weight, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::lerp.Scalar_out(Tensor self, Tensor end, int weight, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 15, 65,
       "argument 3 'weight': schema says Scalar, C++ parameter is 'int64_t'"}}},
    {"elu_out",
     "annotations.cpp",
     {18, 15},
     R"x("t::" "elu.out" "(Tensor self, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::elu.out(Tensor self, float alpha, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 19, 44,
       "argument 2 'alpha': schema says Scalar, C++ parameter is 'double'"}}},
    {"hardtanh_out",
     "annotations.cpp",
     {22, 15},
     R"x("t::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::hardtanh.out(Tensor self, float min_val, float max_val, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 23, 76,
       "argument 2 'min_val': schema says Scalar, C++ parameter is 'double'"},
      {"opscan-mismatch-type", 23, 92,
       "argument 3 'max_val': schema says Scalar, C++ parameter is 'double'"}}},
    {"softmax_out",
     "annotations.cpp",
     {26, 15},
     R"x("t::softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::softmax.out(Tensor self, int dim, int half_to_float, *, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 28, 62,
       "argument 3 'half_to_float': schema says bool, C++ parameter is 'int64_t'"}}},
    {"gelu_out",
     "annotations.cpp",
     {31, 18},
     R"x("t::gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)")x",
     R"(t::gelu.out(Tensor self, *, bool approximate, Tensor(a!) out) -> Tensor(a!))",
     {{"opscan-mismatch-type", 32, 43,
       "argument 2 'approximate': schema says str, C++ parameter is 'bool'"}}},
};

std::string mismatch_file(const std::string& file) {
  return data_file("mismatch/" + file);
}

std::vector<std::string> mismatch_files() {
  std::vector<std::string> files;
  for (const MismatchCase& c : kMismatches) {
    if (std::find(files.begin(), files.end(), c.file) == files.end())
      files.push_back(c.file);
  }
  return files;
}

// All files with mismatches, scanned together once.
const Result& mismatch_scan() {
  static const Result result = [] {
    std::vector<std::string> paths;
    for (const std::string& file : mismatch_files())
      paths.push_back(mismatch_file(file));
    return scan_paths(paths, kArgs, 0);
  }();
  return result;
}

// The diagnostics of the case's kernel: those in its file after its
// annotation and before the next case's.
diag::Diagnostics diagnostics_of(const MismatchCase& c, const diag::Diagnostics& all) {
  const std::string text = text_of(mismatch_file(c.file));
  const size_t begin = offset_of(text, c.at.line, c.at.column);
  size_t end = text.size();
  for (const MismatchCase& other : kMismatches) {
    const size_t at = offset_of(text, other.at.line, other.at.column);
    if (other.file == c.file && at > begin)
      end = std::min(end, at);
  }
  diag::Diagnostics mine;
  for (const diag::Diagnostic& d : all) {
    if (d.location.file == shown(mismatch_file(c.file)) && d.location.offset >= begin &&
        d.location.offset < end)
      mine.push_back(d);
  }
  return mine;
}

TEST(DeclaredMismatch, EachErrorHasTheRepairedSchemaAsNoteAndFixIt) {
  ASSERT_GE(kMismatches.size(), 40u);
  for (const MismatchCase& c : kMismatches) {
    SCOPED_TRACE(c.file + ": " + c.name);
    const std::string path = mismatch_file(c.file);
    const std::string text = text_of(path);
    const size_t offset = offset_of(text, c.at.line, c.at.column);
    ASSERT_LT(offset, text.size());
    // The row's literal is in the file where it says.
    ASSERT_EQ(text.substr(offset, c.written.size()), c.written);

    const diag::Diagnostics diags = diagnostics_of(c, mismatch_scan().diagnostics);
    ASSERT_EQ(diags.size(), c.errors.size()) << describe(diags);
    for (size_t i = 0; i < diags.size(); ++i) {
      const diag::Diagnostic& d = diags[i];
      const MismatchError& e = c.errors[i];
      SCOPED_TRACE("error " + std::to_string(i) + ": " + describe({d}));
      EXPECT_EQ(d.severity, diag::Severity::error);
      EXPECT_EQ(d.code, e.code);
      EXPECT_EQ(d.location.file, shown(path));
      EXPECT_EQ(d.location.line, e.line);
      EXPECT_EQ(d.location.column, e.column);
      EXPECT_EQ(d.location.offset, offset_of(text, e.line, e.column));
      EXPECT_EQ(d.message, e.message);
      // The note is at the spec's first character and spells out the fix.
      ASSERT_EQ(d.notes.size(), 1u);
      EXPECT_EQ(d.notes[0].message, c.fixes_cpp ? "schema declared here"
                                                : "schema declared here; to fit the signature: " +
                                                      support::cpp_string_literal(c.fixed));
      EXPECT_EQ(d.notes[0].location.file, shown(path));
      EXPECT_EQ(d.notes[0].location.line, c.at.line);
      EXPECT_EQ(d.notes[0].location.column, c.at.column + 1);
      if (c.fixes_cpp) {
        // Each fix-it deletes one `const`, of the parameter the error is at.
        ASSERT_EQ(d.fixits.size(), 1u);
        EXPECT_EQ(d.fixits[0].file, shown(path));
        EXPECT_EQ(
            d.fixits[0],
            (diag::FixIt{shown(path),
                         static_cast<uint32_t>(text.rfind("const ", d.location.offset)), 6, ""}));
        continue;
      }
      // The fix-it replaces exactly the literal(s), and nothing after them
      // (fields such as key = "...").
      ASSERT_EQ(d.fixits.size(), 1u);
      const diag::FixIt& fix = d.fixits[0];
      EXPECT_EQ(fix.file, shown(path));
      EXPECT_EQ(fix.offset, offset);
      EXPECT_EQ(fix.length, c.written.size());
      EXPECT_EQ(fix.replacement, support::cpp_string_literal(c.fixed));
    }
  }
}

TEST(DeclaredMismatch, NothingElseIsReported) {
  const Result& result = mismatch_scan();
  size_t expected = 0;
  for (const MismatchCase& c : kMismatches)
    expected += c.errors.size();
  EXPECT_EQ(result.diagnostics.size(), expected) << describe(result.diagnostics);
  // No kernel with a mismatch is extracted.
  EXPECT_TRUE(result.module.kernels.empty()) << result.module.kernels.size() << " kernels";
}

TEST(DeclaredMismatch, RepairedSchemasAreValidAndCanonical) {
  for (const MismatchCase& c : kMismatches) {
    SCOPED_TRACE(c.file + ": " + c.name);
    schema::Parsed<schema::ParsedSchema> parsed = schema::parse_schema_with_layout(c.fixed);
    ASSERT_TRUE(parsed) << parsed.error->message;
    EXPECT_EQ(parsed.value->schema.str(), c.fixed);
    for (const schema::Error& e : schema::check_schema(parsed.value->schema, parsed.value->layout))
      ADD_FAILURE() << e.code << " at " << e.offset << ": " << e.message;
  }
}

// Every file of mismatch/ with its fix-its applied, in a temporary directory
// (its include of "../et_types.h" is found through -I), scanned together.
struct FixedScan {
  TempDir dir;
  std::map<std::string, std::string> paths; // by file name
  Result result;
};

const FixedScan& fixed_scan() {
  static const std::unique_ptr<FixedScan> fixed = [] {
    auto out = std::make_unique<FixedScan>();
    std::vector<std::string> paths;
    for (const std::string& file : mismatch_files()) {
      const std::string path = mismatch_file(file);
      SCOPED_TRACE(file);
      const std::string text = applied(text_of(path), fixits_in(path, mismatch_scan().diagnostics));
      out->paths[file] = out->dir.write("mismatch/" + file, text);
      paths.push_back(out->paths[file]);
    }
    out->result = scan_paths(paths, {"-std=c++17", "-I" + data_file("mismatch")}, 0);
    return out;
  }();
  return *fixed;
}

TEST(DeclaredMismatch, FixedFilesScanWithoutErrors) {
  const FixedScan& fixed = fixed_scan();
  EXPECT_TRUE(fixed.result.diagnostics.empty()) << describe(fixed.result.diagnostics);
  EXPECT_EQ(fixed.result.module.kernels.size(), kMismatches.size());
  for (const MismatchCase& c : kMismatches) {
    SCOPED_TRACE(c.file + ": " + c.name);
    const ir::Kernel* k = find_kernel(fixed.result.module, c.fixed.substr(0, c.fixed.find('(')));
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->schema().str(), c.fixed);
    EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::declared);
    EXPECT_EQ(k->location.file, shown(fixed.paths.at(c.file)));
  }
}

TEST(DeclaredMismatch, DifferencesCppCannotExpressAreNotMismatches) {
  const Result& result = scanned("mismatch/accepted.cpp");
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  const std::vector<std::string> declared = {
      "t::alias(Tensor(a) self) -> Tensor(a)",
      "t::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
      "t::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) "
      "-> ()",
      "t::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
      "t::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
      "t::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, *, "
      "Tensor(out!) out) -> Tensor(out!)",
      "t::cumprod(Tensor input, *, int dim=0, ScalarType? dtype=None) -> Tensor",
  };
  EXPECT_EQ(result.module.kernels.size(), declared.size());
  for (const std::string& schema : declared) {
    SCOPED_TRACE(schema);
    const ir::Kernel* k = find_kernel(result.module, schema.substr(0, schema.find('(')));
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->schema().str(), schema);
    EXPECT_EQ(k->schema_origin, ir::SchemaOrigin::declared);
  }
}

// A declared schema that fits the signature but breaks torchgen's rules: the
// rule is reported at the schema (only once the signature fits it, since a
// fix-it for a mismatch rewrites the schema anyway).
TEST(DeclaredMismatch, DeclaredSchemaMustFollowTorchgenRules) {
  const std::string file = data_file("mismatch/rules.cpp");
  const Result& result = scanned("mismatch/rules.cpp");
  expect_diagnostics(result.diagnostics, file,
                     {{"opscan-schema-return-alias", 7, 60,
                       "return 0 'Tensor(a!)' aliases argument 'out', which is neither an out "
                       "argument nor 'self': make 'out' keyword-only (after '*') or do not return "
                       "it"}});
  EXPECT_TRUE(result.module.kernels.empty());
}

TEST(DeclaredMismatch, AnnotationWrittenByAnotherMacroHasNoFixIt) {
  const std::string file = data_file("mismatch/macro.cpp");
  const Result& result = scanned("mismatch/macro.cpp");
  ASSERT_EQ(result.diagnostics.size(), 1u) << describe(result.diagnostics);
  const diag::Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.code, "opscan-mismatch-count");
  EXPECT_EQ(d.location.file, shown(file));
  EXPECT_EQ(d.location.line, 10u);
  EXPECT_EQ(d.location.column, 9u);
  EXPECT_EQ(d.message, "schema has 2 arguments, the C++ function takes 3");
  // The note is at the macro's use: the literal is not in the file as written.
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message, "schema declared here");
  EXPECT_EQ(d.notes[0].location.file, shown(file));
  EXPECT_EQ(d.notes[0].location.line, 9u);
  EXPECT_EQ(d.notes[0].location.column, 1u);
  EXPECT_TRUE(d.fixits.empty());
}

// ---------------------------------------------------------------------------
// Fix-its of diagnostics, applied: the file scans clean.

// Each diagnostic of `file` with its fix-its, as "line:column code: fix-it
// edits" lines, for readable expectations.
std::string fixits_described(const std::string& file, const diag::Diagnostics& diags) {
  const std::string text = text_of(file);
  std::string out;
  for (const diag::Diagnostic& d : diags) {
    out += std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + " " +
           d.code + ":";
    for (const diag::FixIt& f : d.fixits)
      out += " '" + text.substr(f.offset, f.length) + "' -> '" + f.replacement + "'";
    out += "\n";
  }
  return out;
}

TEST(FixIts, EachRewritesOnlyWhatIsWrong) {
  const std::string file = data_file("fixits/applied.cpp");
  EXPECT_EQ(fixits_described(file, scanned("fixits/applied.cpp").diagnostics),
            // Operator names: just the name, or the literals it is split across.
            "7:22 opscan-schema-out-suffix: 't::add_out' -> 't::add.out'\n"
            "10:22 opscan-schema-out-suffix: 't::sub_out' -> 't::sub.out'\n"
            "13:22 opscan-schema-out-suffix: 't::div_out.Scalar' -> 't::div.Scalar_out'\n"
            "16:26 opscan-schema-out-suffix: '\"t::\" \"rsub_out\"' -> '\"t::rsub.out\"'\n"
            "19:23 opscan-schema-reserved-overload: 't::mul.default' -> 't::mul'\n"
            // Types: the builtin, however qualified, or a template's element.
            "24:42 opscan-scan-unsupported-type: 'int' -> 'int64_t'\n"
            "27:49 opscan-scan-unsupported-type: 'int' -> 'int64_t'\n"
            "27:67 opscan-scan-unsupported-type: 'unsigned int' -> 'int64_t'\n"
            "30:50 opscan-scan-unsupported-type: 'float' -> 'double'\n"
            "33:51 opscan-scan-unsupported-type: 'int' -> 'int64_t'\n"
            "33:78 opscan-scan-unsupported-type: 'float' -> 'double'\n"
            "34:23 opscan-scan-unsupported-type: 'short' -> 'int64_t'\n"
            "37:45 opscan-scan-unsupported-type: 'char' -> 'int64_t'\n"
            "37:64 opscan-scan-unsupported-type: 'unsigned long' -> 'int64_t'\n"
            "40:50 opscan-scan-unsupported-type: 'const char*' -> 'std::string_view'\n"
            "43:5 opscan-scan-unsupported-type: 'int' -> 'int64_t'\n"
            // Rvalue references: const references.
            "47:47 opscan-scan-unsupported-type: '' -> 'const ' '&&' -> '&'\n"
            "47:67 opscan-scan-unsupported-type: '&&' -> '&'\n"
            // Out tensors: the const deleted, wherever it is written; every
            // error of the kernel carries it.
            "51:9 opscan-infer-return-count: 'const ' -> ''\n"
            "54:9 opscan-mismatch-returns: ' const' -> ''\n"
            "54:51 opscan-mismatch-mutability: ' const' -> ''\n"
            "57:9 opscan-infer-return-count: 'const ' -> ''\n"
            "60:49 opscan-mismatch-mutability: 'const ' -> ''\n");
}

TEST(FixIts, AppliedTheFileScansClean) {
  const std::string file = data_file("fixits/applied.cpp");
  const std::string text =
      applied(text_of(file), fixits_in(file, scanned("fixits/applied.cpp").diagnostics));
  TempDir dir;
  // Its include of "../et_types.h" is found through -I.
  const Result fixed = scan_paths({dir.write("fixits/applied.cpp", text)},
                                  {"-std=c++17", "-I" + data_file("fixits")});
  EXPECT_TRUE(fixed.diagnostics.empty()) << describe(fixed.diagnostics);
  EXPECT_EQ(fixed.module.kernels.size(), 17u);
  for (const std::string schema : {
           "t::add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
           "t::div.Scalar_out(Tensor self, float other, *, Tensor(a!) out) -> Tensor(a!)",
           "t::mul(Tensor self, Tensor other) -> Tensor",
           "t::clamp.out(Tensor self, int min, int max, *, Tensor(a!) out) -> Tensor(a!)",
           "t::sum.out(Tensor self, int[] dims, float? scale, int keep, *, Tensor(a!) out) -> "
           "Tensor(a!)",
           "t::gelu.out(Tensor self, str approximate, *, Tensor(a!) out) -> Tensor(a!)",
           "t::count_nonzero(Tensor self) -> int",
           "t::lerp.out(Tensor self, Tensor end, float weight, *, Tensor(a!) out) -> Tensor(a!)",
           "t::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
           "t::relu_(Tensor(a!) self) -> Tensor(a!)",
           "t::zero.out(Tensor self, *, Tensor(a!) out) -> ()",
       }) {
    SCOPED_TRACE(schema);
    const ir::Kernel* k = find_kernel(fixed.module, schema.substr(0, schema.find('(')));
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->schema().str(), schema);
  }
  // The annotation's other fields are kept.
  const ir::Kernel* div = find_kernel(fixed.module, "t::div.Scalar_out");
  ASSERT_NE(div, nullptr);
  EXPECT_EQ(div->field("kernel_key"), "v1/6;0,1|6;0,1");
}

TEST(FixIts, NoneWhereTheRepairBelongsElsewhereOrIsNotOneEdit) {
  const std::string file = data_file("fixits/not_offered.cpp");
  const Result& result = scanned("fixits/not_offered.cpp");
  EXPECT_EQ(fixits_described(file, result.diagnostics),
            // A macro's type, an alias, an alias of a list, a macro's declaration.
            "18:46 opscan-scan-unsupported-type:\n"
            "21:41 opscan-scan-unsupported-type:\n"
            "24:45 opscan-scan-unsupported-type:\n"
            "26:1 opscan-scan-unsupported-type:\n"
            // int64_t& and int64_t&& are refused too; a pointer to bytes is no
            // string; std::vector<bool>'s replacement may not be declared.
            "30:40 opscan-scan-unsupported-type:\n"
            "33:41 opscan-scan-unsupported-type:\n"
            "36:56 opscan-scan-unsupported-type:\n"
            "39:60 opscan-scan-unsupported-type:\n"
            // A const reference return; a tuple's element.
            "42:12 opscan-scan-unsupported-type:\n"
            "45:25 opscan-scan-unsupported-type:\n"
            // A reserved name stays refused, whatever its suffix.
            "48:19 opscan-schema-reserved-name:\n"
            "48:22 opscan-schema-out-suffix:\n"
            // No parameter named out.
            "53:9 opscan-infer-return-count:\n");
}

} // namespace
} // namespace opscan::scan
