// One pair of library sets per change class of `opscan diff`: the unit
// tests (diff_test.cpp) check the class and compatibility the library
// finds, the command-line tests (test/cli/audit_cli_test.cpp) write the
// same modules as IR files and check the binary's exit code. Every module
// of cases() is valid by ir::validate (checked in diff_test.cpp) and as
// generate would regenerate it (its kernels as the target passes them; the
// command-line tests read them), as read_irs wants.
#pragma once

#include "audit/diff.h"
#include "emit/emit_test_helpers.h"
#include "ir/ir.h"
#include "schema/schema.h"

#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <vector>

namespace audit_test {

namespace audit = opscan::audit;
namespace ir = opscan::ir;
namespace schema = opscan::schema;
using emit_test::test_fields;

inline const std::string kSha(64, 'a');

// An ExecuTorch kernel of `schema_text` (which must parse; emit's helper,
// with the types ExecuTorch passes), defined as `cpp_function` in
// src/kernels.cpp, with a runtime context and the given keys.
inline ir::Kernel kernel(std::string_view schema_text, std::string cpp_function = "k::f",
                         std::string kernel_key = "", std::string dispatch_key = "",
                         uint32_t line = 10) {
  ir::Kernel k = emit_test::et_kernel(schema_text, std::move(cpp_function));
  k.usr += "#" + kernel_key + "#" + dispatch_key;
  k.set_field("kernel_key", std::move(kernel_key));
  k.set_field("dispatch_key", std::move(dispatch_key));
  k.location = {"src/kernels.cpp", line, 9, line * 40};
  return k;
}

// The same for PyTorch's dispatcher (ATen types, no context).
inline ir::Kernel torch_kernel(std::string_view schema_text, std::string cpp_function,
                               std::string dispatch_key = "") {
  ir::Kernel k = emit_test::torch_kernel(schema_text, std::move(cpp_function));
  k.usr += "##" + dispatch_key;
  k.set_field("dispatch_key", std::move(dispatch_key));
  k.location = {"src/kernels.cpp", 10, 9, 400};
  return k;
}

// A library IR as `opscan generate` writes it.
inline ir::Module library(std::string name, std::vector<ir::Kernel> kernels,
                          std::string target = "executorch",
                          ir::Registration registration = ir::Registration::named) {
  ir::Module m;
  m.generator = "opscan test";
  m.libclang_version = "clang 14";
  ir::LibraryInfo info;
  info.name = name;
  info.registration = registration;
  info.target = std::move(target);
  // The symbols the target gives (opscan's targets name them so).
  const std::string scope = info.target == "executorch" ? "torch::executor::" : "";
  if (registration == ir::Registration::named)
    info.function = scope + "register_" + name + "_kernels";
  else if (registration == ir::Registration::manual)
    info.function = scope + "register_all_kernels";
  else
    info.link_anchor = "opscan_static_registration_" + name;
  m.library = info;
  m.sources = {{"src/kernels.cpp", kSha}};
  m.kernels = std::move(kernels);
  ir::canonicalize(m);
  return m;
}

// Scan output: no library record.
inline ir::Module fragment(std::vector<ir::Kernel> kernels) {
  ir::Module m = library("x", std::move(kernels));
  m.library.reset();
  return m;
}

// One library "ops" holding one kernel of each schema.
inline std::vector<ir::Module> ops(std::string_view schema_text) {
  return {library("ops", {kernel(schema_text)})};
}
// The same for PyTorch's dispatcher, for schemas ExecuTorch cannot register
// (several returns).
inline std::vector<ir::Module> torch_ops(std::string_view schema_text) {
  return {library("ops", {torch_kernel(schema_text, "k::f")}, "torch")};
}

struct Case {
  std::string name;   // the test's name
  std::string change; // the class the diff must report
  audit::Compatibility compatibility;
  std::vector<ir::Module> olds, news;
};

inline void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

inline ir::Kernel with(ir::Kernel k, void (*edit)(ir::Kernel&)) {
  edit(k);
  return k;
}

// One case per change class, in change_classes() order.
inline std::vector<Case> cases() {
  using audit::Compatibility;
  constexpr Compatibility B = Compatibility::breaking, C = Compatibility::compatible;
  const std::string add_out = "ops::add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
                              "Tensor(a!)";
  const ir::Kernel neg = kernel("ops::neg(Tensor self) -> Tensor", "k::neg");
  const ir::Kernel abs = kernel("ops::abs(Tensor self) -> Tensor", "k::abs");
  const ir::Kernel keyed_a = kernel(add_out, "k::add_out_float", "v1/6;0|6;0|6;0");
  const ir::Kernel keyed_b = kernel(add_out, "k::add_out_int", "v1/4;0|4;0|4;0");
  const ir::Kernel cpu = torch_kernel("ops::neg(Tensor self) -> Tensor", "k::neg_cpu", "CPU");
  const ir::Kernel cuda = torch_kernel("ops::neg(Tensor self) -> Tensor", "k::neg_cuda", "CUDA");
  const ir::Kernel torch_neg = torch_kernel("ops::neg(Tensor self) -> Tensor", "k::neg");
  const ir::Kernel g = kernel("ops::g(Tensor self) -> Tensor", "k::g");
  return {
      {"LibraryAdded",
       "library-added",
       C,
       {library("a", {neg})},
       {library("a", {neg}), library("b", {abs})}},
      {"LibraryRemoved",
       "library-removed",
       B,
       {library("a", {neg}), library("b", {abs})},
       {library("a", {neg})}},
      {"RegistrationFunctionChanged",
       "registration-function-changed",
       B,
       // register_a_kernels -> register_all_kernels (the mode changes too).
       {library("a", {neg})},
       {library("a", {neg}, "executorch", ir::Registration::manual)}},
      {"RegistrationModeChanged",
       "registration-mode-changed",
       B,
       {library("a", {neg})},
       {library("a", {neg}, "executorch", ir::Registration::static_init)}},
      {"TargetChanged",
       "target-changed",
       B,
       {library("a", {neg})},
       {library("a", {torch_neg}, "torch")}},
      {"OperatorAdded", "operator-added", C, {library("a", {neg})}, {library("a", {neg, abs})}},
      {"OperatorRemoved", "operator-removed", B, {library("a", {neg, abs})}, {library("a", {neg})}},
      {"LibraryChanged",
       "library-changed",
       B,
       {library("a", {neg, abs}), library("b", {g})},
       {library("a", {neg}), library("b", {abs, g})}},
      {"KernelKeyAdded",
       "kernel-key-added",
       C,
       {library("a", {keyed_a})},
       {library("a", {keyed_a, keyed_b})}},
      {"KernelKeyRemoved",
       "kernel-key-removed",
       B,
       {library("a", {keyed_a, keyed_b})},
       {library("a", {keyed_a})}},
      {"DispatchKeyAdded",
       "dispatch-key-added",
       C,
       {library("a", {cpu}, "torch")},
       {library("a", {cpu, cuda}, "torch")}},
      {"DispatchKeyRemoved",
       "dispatch-key-removed",
       B,
       {library("a", {cpu, cuda}, "torch")},
       {library("a", {cpu}, "torch")}},
      {"ArgumentAddedWithDefault", "argument-added-with-default", C,
       ops("ops::f(Tensor self) -> Tensor"), ops("ops::f(Tensor self, int dim=0) -> Tensor")},
      {"ArgumentAddedWithoutDefault", "argument-added-without-default", B,
       ops("ops::f(Tensor self) -> Tensor"), ops("ops::f(Tensor self, int dim) -> Tensor")},
      {"ArgumentInserted", "argument-inserted", B, ops("ops::f(Tensor self, int b=0) -> Tensor"),
       ops("ops::f(Tensor self, int a=0, int b=0) -> Tensor")},
      {"ArgumentRemoved", "argument-removed", B, ops("ops::f(Tensor self, int dim) -> Tensor"),
       ops("ops::f(Tensor self) -> Tensor")},
      {"ArgumentReordered", "argument-reordered", B,
       ops("ops::f(Tensor self, int a, float b) -> Tensor"),
       ops("ops::f(Tensor self, float b, int a) -> Tensor")},
      {"ArgumentRenamed", "argument-renamed", C, ops("ops::f(Tensor self, int dim) -> Tensor"),
       ops("ops::f(Tensor self, int axis) -> Tensor")},
      {"KeywordArgumentRenamed", "keyword-argument-renamed", B,
       ops("ops::f(Tensor self, *, int dim=0) -> Tensor"),
       ops("ops::f(Tensor self, *, int axis=0) -> Tensor")},
      {"ArgumentTypeChanged", "argument-type-changed", B,
       ops("ops::f(Tensor self, Scalar alpha) -> Tensor"),
       ops("ops::f(Tensor self, float alpha) -> Tensor")},
      {"ArgumentMadeKeywordOnly", "argument-made-keyword-only", B,
       ops("ops::f(Tensor self, int dim=0) -> Tensor"),
       ops("ops::f(Tensor self, *, int dim=0) -> Tensor")},
      {"ArgumentMadePositional", "argument-made-positional", C,
       ops("ops::f(Tensor self, *, int dim=0) -> Tensor"),
       ops("ops::f(Tensor self, int dim=0) -> Tensor")},
      {"DefaultAdded", "default-added", C, ops("ops::f(Tensor self, int dim) -> Tensor"),
       ops("ops::f(Tensor self, int dim=1) -> Tensor")},
      {"DefaultRemoved", "default-removed", B, ops("ops::f(Tensor self, int dim=1) -> Tensor"),
       ops("ops::f(Tensor self, int dim) -> Tensor")},
      {"DefaultChanged", "default-changed", B, ops("ops::f(Tensor self, int dim=1) -> Tensor"),
       ops("ops::f(Tensor self, int dim=2) -> Tensor")},
      {"MutabilityChanged", "mutability-changed", B,
       ops("ops::f(Tensor(a) self, Tensor other) -> Tensor"),
       ops("ops::f(Tensor(a!) self, Tensor other) -> Tensor")},
      {"AliasChanged", "alias-changed", B, ops("ops::f(Tensor(a) self) -> Tensor"),
       ops("ops::f(Tensor(b) self) -> Tensor")},
      {"OutArgumentAdded", "out-argument-added", B, ops(add_out),
       ops("ops::add.out(Tensor self, Tensor other, *, Tensor(a!) out, Tensor(b!) out2) -> "
           "(Tensor(a!), Tensor(b!))")},
      {"OutArgumentRemoved", "out-argument-removed", B,
       ops("ops::add.out(Tensor self, Tensor other, *, Tensor(a!) out, Tensor(b!) out2) -> "
           "(Tensor(a!), Tensor(b!))"),
       ops(add_out)},
      {"ReturnAdded", "return-added", B, torch_ops("ops::f(Tensor self) -> Tensor"),
       torch_ops("ops::f(Tensor self) -> (Tensor, Tensor)")},
      {"ReturnRemoved", "return-removed", B, torch_ops("ops::f(Tensor self) -> (Tensor, Tensor)"),
       torch_ops("ops::f(Tensor self) -> Tensor")},
      {"ReturnTypeChanged", "return-type-changed", B, ops("ops::f(Tensor self) -> Tensor"),
       ops("ops::f(Tensor self) -> int")},
      {"ReturnAliasChanged", "return-alias-changed", B, ops("ops::f(Tensor(a) self) -> Tensor"),
       ops("ops::f(Tensor(a) self) -> Tensor(a)")},
      {"ReturnRenamed", "return-renamed", C, ops("ops::f(Tensor self) -> Tensor result"),
       ops("ops::f(Tensor self) -> Tensor output")},
      {"CppFunctionChanged",
       "cpp-function-changed",
       C,
       {library("a", {neg})},
       {library("a", {kernel("ops::neg(Tensor self) -> Tensor", "k::v2::neg")})}},
      {"CppSignatureChanged",
       "cpp-signature-changed",
       C,
       // int64_t is long here and long long elsewhere: both are int.
       ops("ops::f(Tensor self, int dim) -> Tensor"),
       {library("ops",
                {with(kernel("ops::f(Tensor self, int dim) -> Tensor"),
                      [](ir::Kernel& k) { k.arguments[1].cpp_canonical_type = "long long"; })})}},
      {"ContextChanged",
       "context-changed",
       C,
       // The torch target takes a kernel with or without DispatchKeySet.
       {library("a", {torch_neg}, "torch")},
       {library(
           "a",
           {with(torch_neg, [](ir::Kernel& k) { k.context = ir::ContextKind::dispatch_key_set; })},
           "torch")}},
      {"SchemaOriginChanged",
       "schema-origin-changed",
       C,
       {library("a", {neg})},
       {library("a",
                {with(neg, [](ir::Kernel& k) { k.schema_origin = ir::SchemaOrigin::inferred; })})}},
  };
}

// `modules` as the inputs of one side, read from <side>/<lib>/ir.json.
inline std::vector<ir::File> inputs_of(const std::vector<ir::Module>& modules,
                                           const std::string& side = "old") {
  std::vector<ir::File> inputs;
  for (size_t i = 0; i < modules.size(); ++i) {
    const std::string dir =
        modules[i].library ? modules[i].library->name : "fragment" + std::to_string(i);
    inputs.push_back({side + "/" + dir + "/ir.json", modules[i], {}});
  }
  return inputs;
}

} // namespace audit_test
