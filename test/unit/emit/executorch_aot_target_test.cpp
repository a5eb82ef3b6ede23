// The executorch-aot target (lib/emit/targets/executorch_aot/): ExecuTorch
// kernels registered with PyTorch's dispatcher, compiled in ATen mode.
#include "emit_test_helpers.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using namespace emit_test;
using ir::ContextKind;
using ir::Registration;

constexpr const char* kUnsupported = "opscan-executorch-aot-unsupported";

emit::Options aot(Registration registration = Registration::named) {
  return options("executorch-aot", "lib", registration);
}

ir::Kernel add3_out() {
  return et_kernel(
      "my_ops::add3.out(Tensor a, Tensor b, Tensor c, *, Tensor(a!) out) -> Tensor(a!)",
      "k::add3_out");
}

// An ExecuTorch kernel of my_ops::take taking `schema_type` as `canonical`,
// under CompositeExplicitAutograd, which serves it when `x` is no tensor.
ir::Kernel taking(const std::string& schema_type, const std::string& canonical) {
  ir::Kernel k = at(kernel("my_ops::take(" + schema_type + " x) -> Tensor", "k::take",
                           ContextKind::runtime_context, {canonical}, kEtTensor),
                    4);
  k.set_field("dispatch_key", "CompositeExplicitAutograd");
  return k;
}

// ===== Whole files ===========================================================

TEST(AotFiles, AnOutVariantInNamedRegistration) {
  emit::Output output = generate(module_of({add3_out()}), aot());
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  EXPECT_EQ(
      paths(output.files),
      (std::vector<std::string>{"lib/RegisterKernels.h", "lib/RegisterKernels.cpp",
                                "lib/KernelSources.cpp", "lib/NativeFunctions.h", "lib/ir.json"}));
  EXPECT_EQ(output.symbols.registration_function, "register_lib_kernels");
  // The wrappers, then the torch target's registration of them.
  const std::string& cpp = file(output, "lib/RegisterKernels.cpp");
  const size_t wrappers = cpp.find("namespace {\n");
  const size_t registration = cpp.find("void register_lib_kernels() {\n");
  ASSERT_NE(wrappers, std::string::npos);
  ASSERT_NE(registration, std::string::npos);
  EXPECT_EQ(cpp.substr(wrappers, registration - wrappers), R"cpp(namespace {

// Raises PyTorch's error, naming the operator and its kernel, when kernel
// `index` of operator `op` failed its context: ExecuTorch kernels report
// errors there rather than by throwing.
void check_kernel_context(const ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext& context, const char* op, ::std::size_t index) {
  const ::executorch::runtime::Error error = context.failure_state();
  TORCH_CHECK(error == ::executorch::runtime::Error::Ok, op, ": the ExecuTorch kernel ",
              opscan_kernel_sources_lib[index], " failed its KernelRuntimeContext with error ",
              static_cast<int>(error));
}

// my_ops::add3.out(Tensor a, Tensor b, Tensor c, *, Tensor(a!) out) -> Tensor(a!)
::at::Tensor& wrap_my_ops_add3_out(const ::at::Tensor& a, const ::at::Tensor& b, const ::at::Tensor& c, ::at::Tensor& out) {
  ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext context;
  ::at::Tensor& result = ::k::add3_out(context, a, b, c, out);
  check_kernel_context(context, "my_ops::add3.out", 0);
  return result;
}

}  // namespace

)cpp");
  ir::Kernel for_torch = torch_kernel(add3_out().schema().str(), "k::add3_out");
  emit::Output torch = generate(module_of({for_torch}), options("torch", "lib"));
  const std::string& torch_cpp = file(torch, "lib/RegisterKernels.cpp");
  EXPECT_EQ(cpp.substr(registration),
            torch_cpp.substr(torch_cpp.find("void register_lib_kernels")));

  const std::string& native = file(output, "lib/NativeFunctions.h");
  EXPECT_TRUE(contains(native, R"cpp(namespace k {

// my_ops::add3.out(Tensor a, Tensor b, Tensor c, *, Tensor(a!) out) -> Tensor(a!)
::at::Tensor& add3_out(::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext& context, const ::at::Tensor& a, const ::at::Tensor& b, const ::at::Tensor& c, ::at::Tensor& out);

}  // namespace k)cpp"))
      << native;
  EXPECT_TRUE(contains(native, "-DUSE_ATEN_LIB=1")) << native;
  EXPECT_TRUE(contains(file(output, "lib/RegisterKernels.h"), "void register_lib_kernels();"));
}

TEST(AotFiles, AFunctionalVariantReturnsItsResultAfterTheCheck) {
  ir::Kernel k =
      et_kernel("my_ops::scaled_sum(Tensor self, float factor) -> float", "k::scaled_sum");
  emit::Output output = generate(module_of({k}), aot());
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  EXPECT_TRUE(contains(file(output, "lib/RegisterKernels.cpp"),
                       R"cpp(// my_ops::scaled_sum(Tensor self, float factor) -> float
double wrap_my_ops_scaled_sum(const ::at::Tensor& self, double factor) {
  ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext context;
  double result = ::k::scaled_sum(context, self, factor);
  check_kernel_context(context, "my_ops::scaled_sum", 0);
  return result;
}
)cpp"))
      << file(output, "lib/RegisterKernels.cpp");
}

TEST(AotFiles, AKernelReturningNothingIsCheckedAfterItsCall) {
  ir::Kernel k = et_kernel("my_ops::fill_(Tensor(a!) self, float value) -> ()", "k::fill_");
  emit::Output output = generate(module_of({k}), aot());
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  EXPECT_TRUE(contains(file(output, "lib/RegisterKernels.cpp"), R"cpp(
void wrap_my_ops_fill_(::at::Tensor& self, double value) {
  ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext context;
  ::k::fill_(context, self, value);
  check_kernel_context(context, "my_ops::fill_", 0);
}
)cpp"))
      << file(output, "lib/RegisterKernels.cpp");
}

TEST(AotFiles, StaticRegistrationDefinesAndImplementsInBlocks) {
  emit::Output output = generate(module_of({add3_out()}), aot(Registration::static_init));
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  EXPECT_EQ(output.symbols.registration_function, "");
  EXPECT_EQ(output.symbols.link_anchor, "opscan_static_registration_lib");
  const std::string& cpp = file(output, "lib/RegisterKernels.cpp");
  EXPECT_TRUE(contains(cpp, R"cpp(TORCH_LIBRARY_FRAGMENT(my_ops, m) {
  m.def("my_ops::add3.out(Tensor a, Tensor b, Tensor c, *, Tensor(a!) out) -> Tensor(a!)");
}
TORCH_LIBRARY_IMPL(my_ops, CPU, m) {
  m.impl("add3.out",)cpp"))
      << cpp;
  EXPECT_TRUE(contains(cpp, "const int opscan_static_registration_lib = 1;")) << cpp;
}

TEST(AotFiles, NoKernelsNoSharedCheck) {
  emit::OutputList list = emit::list_outputs(aot(), emit::builtin_targets());
  ASSERT_TRUE(list.diagnostics.empty()) << dump(list.diagnostics);
  EXPECT_EQ(
      paths(list.files),
      (std::vector<std::string>{"lib/RegisterKernels.h", "lib/RegisterKernels.cpp",
                                "lib/KernelSources.cpp", "lib/NativeFunctions.h", "lib/ir.json"}));
}

// ===== Types: ExecuTorch's, as ATen mode makes them ==========================

TEST(AotTypes, ExecuTorchAndAtenModeScansGenerateTheSameCode) {
  // The kernel as a scan in ATen mode (-DUSE_ATEN_LIB=1) records it.
  ir::Kernel aten = add3_out();
  for (ir::Argument& a : aten.arguments)
    a.cpp_canonical_type = a.schema.type.is_mutable() ? "at::Tensor &" : "const at::Tensor &";
  aten.cpp_canonical_return_type = "at::Tensor &";
  emit::Output from_et = generate(module_of({add3_out()}), aot());
  emit::Output from_aten = generate(module_of({aten}), aot());
  ASSERT_TRUE(from_et.diagnostics.empty()) << dump(from_et.diagnostics);
  ASSERT_TRUE(from_aten.diagnostics.empty()) << dump(from_aten.diagnostics);
  EXPECT_EQ(file(from_et, "lib/RegisterKernels.cpp"), file(from_aten, "lib/RegisterKernels.cpp"));
  EXPECT_EQ(file(from_et, "lib/NativeFunctions.h"), file(from_aten, "lib/NativeFunctions.h"));
}

TEST(AotTypes, TheTypesBothPassAlikeArePassedAsTheDispatcherDoes) {
  struct Case {
    std::string schema_type, et_canonical, passed;
  };
  const std::string et = "executorch::runtime::etensor::";
  for (const Case& c : std::vector<Case>{
           {"Tensor?", "const std::optional<" + kEtTensor + "> &",
            "const ::c10::optional<::at::Tensor>& x"},
           {"Tensor[]", kEtArrayRef + "<" + kEtTensor + ">", "::at::TensorList x"},
           {"Scalar", "const " + et + "Scalar &", "const ::at::Scalar& x"},
           {"Scalar?", "const std::optional<" + et + "Scalar> &",
            "const ::c10::optional<::at::Scalar>& x"},
           {"ScalarType?", "std::optional<" + et + "ScalarType>",
            "::c10::optional<::at::ScalarType> x"},
           {"int[]", kEtArrayRef + "<long>", "::at::IntArrayRef x"},
           {"float[]", kEtArrayRef + "<double>", "::at::ArrayRef<double> x"},
           {"int?", "std::optional<long>", "::c10::optional<::std::int64_t> x"},
           {"str", "std::basic_string_view<char>", "::c10::string_view x"},
           {"Device", et + "Device", "::at::Device x"},
       }) {
    SCOPED_TRACE(c.schema_type);
    emit::Output output = generate(module_of({taking(c.schema_type, c.et_canonical)}), aot());
    ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
    EXPECT_TRUE(contains(file(output, "lib/RegisterKernels.cpp"),
                         "::at::Tensor wrap_my_ops_take(" + c.passed + ") {"))
        << file(output, "lib/RegisterKernels.cpp");
  }
}

// ===== Refusals ==============================================================

TEST(AotRefusals, AKernelWithoutTheRuntimeContextIsRefused) {
  for (ContextKind context : {ContextKind::none, ContextKind::dispatch_key_set}) {
    ir::Kernel k = at(torch_kernel("my_ops::neg(Tensor self) -> Tensor", "t::neg", context), 7);
    diag::Diagnostic d = only_error(generate(module_of({k}), aot()));
    EXPECT_EQ(d.code, kUnsupported);
    EXPECT_EQ(d.location, k.location);
    EXPECT_EQ(d.message, "kernel 't::neg' (my_ops::neg): the executorch-aot target registers "
                         "ExecuTorch kernels, which take "
                         "'executorch::runtime::KernelRuntimeContext&' as their first parameter");
    FromIr in = from_ir(module_of({k}));
    d = only_error(generate(in, aot()));
    EXPECT_EQ(d.location, in.positions.at("kernels[0].context"));
  }
}

TEST(AotRefusals, TypesTheDispatcherHasNoneOfAreRefused) {
  for (std::string type : {"bool[]", "Scalar[]", "str[]"}) {
    SCOPED_TRACE(type);
    diag::Diagnostic d = only_error(generate(module_of({taking(type, "whatever")}), aot()));
    EXPECT_EQ(d.code, kUnsupported);
    EXPECT_EQ(d.message, "kernel 'k::take' (my_ops::take): argument 'x' of type " + type +
                             " is not supported by the executorch-aot target");
  }
}

TEST(AotRefusals, TypesTheDispatcherPassesAsAnotherTypeAreRefused) {
  struct Case {
    std::string schema_type, canonical, passes;
  };
  for (const Case& c : std::vector<Case>{
           {"Tensor?[]", kEtArrayRef + "<std::optional<" + kEtTensor + ">>",
            "const ::c10::List<::c10::optional<::at::Tensor>>&"},
           {"int[]?", "std::optional<" + kEtArrayRef + "<long>>", "::at::OptionalIntArrayRef"},
           {"Tensor", "const std::vector<int> &", "const ::at::Tensor&"},
       }) {
    SCOPED_TRACE(c.schema_type);
    ir::Kernel k = taking(c.schema_type, c.canonical);
    diag::Diagnostic d = only_error(generate(module_of({k}), aot()));
    EXPECT_EQ(d.code, kUnsupported);
    EXPECT_EQ(d.location, k.location);
    EXPECT_EQ(d.message, "kernel 'k::take' (my_ops::take): parameter 'x' is '" + c.canonical +
                             "', but the dispatcher passes " + c.schema_type + " as " + c.passes);
  }
}

TEST(AotRefusals, AReturnOfAnotherTypeIsRefused) {
  ir::Kernel k = add3_out();
  k.cpp_return_type = k.cpp_canonical_return_type = "void";
  diag::Diagnostic d = only_error(generate(module_of({k}), aot()));
  EXPECT_EQ(d.code, kUnsupported);
  EXPECT_EQ(d.message, "kernel 'k::add3_out' (my_ops::add3.out): returns 'void', but the "
                       "dispatcher expects ::at::Tensor& for its schema");
}

TEST(AotRefusals, AKernelKeyIsExecuTorchsAlone) {
  ir::Kernel k = add3_out();
  k.set_field("kernel_key", "v1/6;0|6;0|6;0|6;0");
  diag::Diagnostic d = only_error(generate(module_of({k}), aot()));
  EXPECT_EQ(d.code, "opscan-unsupported-field");
}

// ===== Names and dispatch keys ===============================================

TEST(AotNames, ArgumentsNamedLikeTheWrappersOwnNamesAreRenamed) {
  ir::Kernel k = kernel("my_ops::names(int context, int result, int check_kernel_context) -> int",
                        "k::names", ContextKind::runtime_context, {"long", "long", "long"}, "long");
  k.set_field("dispatch_key", "CompositeExplicitAutograd");
  emit::Output output = generate(module_of({k}), aot());
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  EXPECT_TRUE(contains(file(output, "lib/RegisterKernels.cpp"),
                       "::std::int64_t wrap_my_ops_names(::std::int64_t context_, ::std::int64_t "
                       "result_, ::std::int64_t check_kernel_context_) {\n"
                       "  ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext context;\n"
                       "  ::std::int64_t result = ::k::names(context, context_, result_, "
                       "check_kernel_context_);\n"))
      << file(output, "lib/RegisterKernels.cpp");
}

TEST(AotDispatchKey, TheAnnotationsDispatchKeyIsRead) {
  ir::Kernel k = add3_out();
  k.set_field("dispatch_key", "CompositeExplicitAutograd");
  emit::Output output = generate(module_of({k}), aot());
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  EXPECT_TRUE(contains(file(output, "lib/RegisterKernels.cpp"),
                       "::c10::DispatchKey::CompositeExplicitAutograd"));
}

} // namespace
