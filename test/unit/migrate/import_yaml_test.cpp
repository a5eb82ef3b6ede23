// plan_import: where annotations go, given the functions located in a file
// (as scan::locate_functions reports them) and functions.yaml entries.
#include "migrate/import_yaml.h"

#include <files.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace opscan::migrate {
namespace {

using opscan::testing::TempDir;

std::vector<yaml::Entry> entries_of(const std::string& text) {
  diag::Diagnostics diags;
  auto entries = yaml::parse_operator_yaml(text, "functions.yaml", diags);
  EXPECT_TRUE(entries) << (diags.empty() ? "" : diags[0].message);
  return entries.value_or(std::vector<yaml::Entry>{});
}

// `name` declared at byte `offset` of `file` (by a macro call that declares
// `macro_first` first, when given).
scan::FunctionSite declared(const std::string& file, std::string name, uint32_t offset,
                            bool annotated = false, std::string macro_first = "") {
  return {std::move(name), {file, 1, 1, offset}, annotated, std::nullopt, std::move(macro_first)};
}

TEST(PlanImport, AnnotationGoesOnALineAboveIndentedLikeTheDeclaration) {
  TempDir dir;
  const std::string file = dir.write("k.cpp", "#include \"k.h\"\nnamespace a::native {\n"
                                              "  void f(int x);\n}\n");
  scan::SourceSites sites{file, {declared(file, "a::native::f", 39)}, 15, false};
  ImportPlan plan = plan_import(entries_of("- op: f.out\n  kernels:\n"
                                           "    - arg_meta: null\n      kernel_name: a::f\n"),
                                {sites});
  ASSERT_TRUE(plan.diagnostics.empty()) << plan.diagnostics[0].message;
  ASSERT_EQ(plan.edits.size(), 1u);
  EXPECT_EQ(plan.edits[0].content, "#include \"k.h\"\n#include <opscan/annotations.h>\n"
                                   "namespace a::native {\n  OPSCAN_KERNEL(\"aten::f.out\")\n"
                                   "  void f(int x);\n}\n");
  EXPECT_EQ(plan.placed, 1u);
}

TEST(PlanImport, KernelNameWithoutNamespaceIsInAtNative) {
  TempDir dir;
  const std::string file = dir.write("k.cpp", "void g();\n");
  scan::SourceSites sites{file, {declared(file, "at::native::g", 0)}, 0, true};
  ImportPlan plan = plan_import(entries_of("- func: custom::g(Tensor self) -> Tensor\n"
                                           "  kernels:\n    - arg_meta: null\n"
                                           "      kernel_name: g\n"),
                                {sites});
  ASSERT_EQ(plan.edits.size(), 1u);
  // The file includes the annotations header already (through another).
  EXPECT_EQ(plan.edits[0].content, "OPSCAN_KERNEL(\"custom::g\")\nvoid g();\n");
}

TEST(PlanImport, NothingIsPlannedWhenAnEntryIsWrong) {
  TempDir dir;
  const std::string file = dir.write("k.cpp", "void f();\n");
  scan::SourceSites sites{file, {declared(file, "a::native::f", 0)}, 0, true};
  ImportPlan plan = plan_import(entries_of("- op: f.out\n  kernels:\n"
                                           "    - kernel_name: a::f\n"
                                           "- op: 'bad name'\n  kernels:\n"
                                           "    - kernel_name: a::f\n"),
                                {sites});
  ASSERT_EQ(plan.diagnostics.size(), 1u);
  EXPECT_EQ(plan.diagnostics[0].code, "opscan-import-operator");
  EXPECT_TRUE(plan.edits.empty());
}

TEST(PlanImport, WhatCannotBePlacedIsAWarningAtItsPlace) {
  TempDir dir;
  const std::string file = dir.write("k.cpp", "M(l, m)\nvoid n();\n");
  scan::SourceSites sites{file,
                          {declared(file, "a::native::l", 0),
                           declared(file, "a::native::m", 0, false, "l"),
                           declared(file, "a::native::n", 8, true)},
                          0,
                          true};
  ImportPlan plan = plan_import(entries_of("- op: m.out\n  kernels:\n    - kernel_name: a::m\n"
                                           "- op: n.out\n  kernels:\n    - kernel_name: a::n\n"
                                           "- op: o.out\n"),
                                {sites});
  std::vector<std::string> codes;
  for (const diag::Diagnostic& d : plan.diagnostics)
    codes.push_back(d.code);
  EXPECT_EQ(codes, (std::vector<std::string>{"opscan-import-macro", "opscan-import-annotated",
                                             "opscan-import-no-kernels"}));
  EXPECT_EQ(plan.diagnostics[0].message,
            "'a::native::m' (aten::m.out) is declared by a macro call whose first declaration "
            "is 'l': an annotation above the call would be that one's; annotate a declaration "
            "of 'a::native::m' after the call by hand with OPSCAN_KERNEL(\"aten::m.out\")");
  EXPECT_TRUE(plan.edits.empty());
  EXPECT_EQ(plan.placed, 0u);
  EXPECT_EQ(plan.annotated, 1u);
  EXPECT_EQ(plan.not_placed, 1u);
}

TEST(PlanImport, AKernelAMacroCallDeclaresFirstIsAnnotatedAboveTheCall) {
  TempDir dir;
  const std::string file = dir.write("k.cpp", "#include \"k.h\"\n  M(f, g)\n");
  scan::SourceSites sites{
      file,
      {declared(file, "a::native::f", 17), declared(file, "a::native::g", 17, false, "f")},
      15,
      false};
  ImportPlan plan =
      plan_import(entries_of("- op: f.out\n  kernels:\n    - kernel_name: a::f\n"), {sites});
  ASSERT_TRUE(plan.diagnostics.empty()) << plan.diagnostics[0].message;
  ASSERT_EQ(plan.edits.size(), 1u);
  EXPECT_EQ(plan.edits[0].content, "#include \"k.h\"\n#include <opscan/annotations.h>\n"
                                   "  OPSCAN_KERNEL(\"aten::f.out\")\n  M(f, g)\n");
  EXPECT_EQ(plan.placed, 1u);
}

TEST(PlanImport, AKernelWithOneKeyIsAnnotatedWithIt) {
  TempDir dir;
  const std::string file = dir.write("k.cpp", "void f_float();\nvoid f_ints();\n");
  scan::SourceSites sites{
      file,
      {declared(file, "a::native::f_float", 0), declared(file, "a::native::f_ints", 16)},
      0,
      true};
  ImportPlan plan = plan_import(entries_of("- op: f.out\n"
                                           "  type_alias: {T0: [Float], T1: [Int, Long]}\n"
                                           "  dim_order_alias: {D0: [0, 1]}\n"
                                           "  kernels:\n"
                                           "    - arg_meta: {self: [T0, D0], out: [T0, D0]}\n"
                                           "      kernel_name: a::f_float\n"
                                           "    - arg_meta: {self: [T1, D0], out: [T1, D0]}\n"
                                           "      kernel_name: a::f_ints\n"),
                                {sites});
  ASSERT_EQ(plan.edits.size(), 1u);
  EXPECT_EQ(plan.edits[0].content,
            "OPSCAN_KERNEL(\"aten::f.out\", key = \"v1/6;0,1|6;0,1\")\nvoid f_float();\n"
            "void f_ints();\n");
  EXPECT_EQ(plan.placed, 1u);
  // Two keys: one function cannot carry both.
  EXPECT_EQ(plan.not_placed, 1u);
  ASSERT_EQ(plan.diagnostics.size(), 1u);
  const diag::Diagnostic& keyed = plan.diagnostics[0];
  EXPECT_EQ(keyed.code, "opscan-import-keyed");
  EXPECT_EQ(keyed.severity, diag::Severity::warning);
  EXPECT_EQ(keyed.location.line, 7u);
  EXPECT_EQ(keyed.message,
            "'a::native::f_ints' (aten::f.out) has 2 kernel keys (v1/3;0,1|3;0,1, v1/4;0,1|4;0,1): "
            "an opscan kernel is one function with one key; write one function per key, each "
            "annotated OPSCAN_KERNEL(\"aten::f.out\", key = \"...\")");
}

TEST(PlanImport, ABadArgMetaIsNotPlaced) {
  TempDir dir;
  const std::string file = dir.write("k.cpp", "void f();\n");
  scan::SourceSites sites{file, {declared(file, "a::native::f", 0)}, 0, true};
  ImportPlan plan = plan_import(entries_of("- op: f.out\n  dim_order_alias: {D0: [0]}\n"
                                           "  kernels:\n"
                                           "    - arg_meta: {self: [T0, D0]}\n"
                                           "      kernel_name: a::f\n"),
                                {sites});
  ASSERT_EQ(plan.diagnostics.size(), 1u);
  EXPECT_EQ(plan.diagnostics[0].code, "opscan-import-arg-meta");
  EXPECT_TRUE(plan.edits.empty());
  EXPECT_EQ(plan.not_placed, 1u);
}

std::vector<std::string> codes_of(const diag::Diagnostics& diags) {
  std::vector<std::string> codes;
  for (const diag::Diagnostic& d : diags)
    codes.push_back(d.code);
  return codes;
}

TEST(PlanImport, AnAnnotationTheScanWouldRefuseIsNotWritten) {
  // The scan's own checks: operator naming rules, a func's schema rules,
  // and one kernel key entry per tensor argument of the function.
  TempDir dir;
  const std::string file = dir.write("k.cpp", "void a();\nvoid b();\nvoid c();\nvoid d();\n");
  scan::SourceSites sites{file,
                          {declared(file, "a::native::a", 0), declared(file, "a::native::b", 10),
                           declared(file, "a::native::c", 20), declared(file, "a::native::d", 30)},
                          0,
                          true};
  sites.functions[2].key_tensors = scan::KeyTensors{2, 2, 0};
  sites.functions[3].key_tensors = scan::KeyTensors{3, 3, 0};
  const std::string keyed = "  type_alias: {T0: [Float]}\n  dim_order_alias: {D0: [0, 1]}\n"
                            "  kernels:\n"
                            "    - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}\n";
  ImportPlan plan =
      plan_import(entries_of("- op: __neg__.out\n  kernels:\n    - kernel_name: a::a\n"
                             "- func: custom::g(Tensor self, int n=1, Tensor other) -> Tensor\n"
                             "  kernels:\n    - kernel_name: a::b\n"
                             "- op: add.out\n" +
                             keyed + "      kernel_name: a::c\n- op: sub.out\n" + keyed +
                             "      kernel_name: a::d\n"),
                  {sites});
  ASSERT_EQ(codes_of(plan.diagnostics),
            (std::vector<std::string>{"opscan-import-refused", "opscan-import-refused",
                                      "opscan-import-refused"}));
  const diag::Diagnostic& name = plan.diagnostics[0];
  EXPECT_EQ(name.severity, diag::Severity::warning);
  EXPECT_EQ(name.location.line, 1u);
  EXPECT_EQ(name.location.column, 7u); // at "__neg__"
  EXPECT_EQ(name.message, "'aten::__neg__.out' is not annotated: the scan would refuse it (name "
                          "'__neg__' starts with '__', which is reserved "
                          "[opscan-schema-reserved-name])");
  EXPECT_EQ(plan.diagnostics[1].location.line, 4u);
  EXPECT_NE(plan.diagnostics[1].message.find("[opscan-schema-default-order]"), std::string::npos)
      << plan.diagnostics[1].message;
  const diag::Diagnostic& key = plan.diagnostics[2];
  EXPECT_EQ(key.location.line, 11u); // the kernel's arg_meta
  EXPECT_EQ(key.message, "'a::native::c' (aten::add.out) is not annotated: the scan would refuse "
                         "its annotation (kernel key 'v1/6;0,1|6;0,1|6;0,1': kernel key has 3 "
                         "entries, the operator has 2 tensor arguments: one entry per tensor "
                         "argument [opscan-kernel-key])");
  // The one that fits is written.
  ASSERT_EQ(plan.edits.size(), 1u);
  EXPECT_EQ(plan.edits[0].content,
            "void a();\nvoid b();\nvoid c();\n"
            "OPSCAN_KERNEL(\"aten::sub.out\", key = \"v1/6;0,1|6;0,1|6;0,1\")\nvoid d();\n");
  EXPECT_EQ(plan.placed, 1u);
  EXPECT_EQ(plan.not_placed, 3u);
}

TEST(PlanImport, AnArgMetaOfAHundredThousandArgumentsIsNotWritten) {
  TempDir dir;
  const std::string file = dir.write("k.cpp", "void f();\n");
  scan::SourceSites sites{file, {declared(file, "a::native::f", 0)}, 0, true};
  sites.functions[0].key_tensors = scan::KeyTensors{2, 2, 0};
  std::string arg_meta;
  for (size_t i = 0; i < 100'000; ++i)
    arg_meta += (i ? ", a" : "a") + std::to_string(i) + ": [T0, D0]";
  ImportPlan plan = plan_import(
      entries_of("- op: f.out\n  type_alias: {T0: [Float]}\n  dim_order_alias: {D0: [0]}\n"
                 "  kernels:\n    - arg_meta: {" +
                 arg_meta + "}\n      kernel_name: a::f\n"),
      {sites});
  ASSERT_EQ(codes_of(plan.diagnostics), std::vector<std::string>{"opscan-import-refused"});
  EXPECT_NE(plan.diagnostics[0].message.find("kernel key has 100000 entries"), std::string::npos);
  EXPECT_LT(plan.diagnostics[0].message.size(), 500u); // the key is cut
  EXPECT_TRUE(plan.edits.empty());
}

// The import of `yaml` into `files` (compiled with -I include_dir), the
// functions located with preamble units or plain parses.
ImportPlan import_located(const std::string& yaml, const std::vector<std::string>& files,
                          const std::string& include_dir, bool units, size_t& in_units) {
  scan::Options options;
  options.files = files;
  options.extra_args = {"-x", "c++", "-std=c++17", "-I" + include_dir};
  options.jobs = 2;
  options.auto_pch = units;
  const scan::LocateResult located = scan::locate_functions(options);
  EXPECT_TRUE(located.diagnostics.empty()) << located.diagnostics[0].message;
  EXPECT_EQ(located.files.size(), files.size());
  in_units = located.files_in_units;
  return plan_import(entries_of(yaml), located.files);
}

TEST(ImportYaml, FilesParsedInUnitsAreAnnotatedAsWhenParsedAlone) {
  // Files sharing their first #include lines are parsed in one unit with
  // those lines as its preamble: every place import-yaml edits (after the
  // last #include, above each kernel) must be the file's own.
  TempDir dir;
  dir.write("include/opscan/annotations.h", "#pragma once\n#define OPSCAN_KERNEL(...)\n");
  dir.write("include/ops.h", "#pragma once\n#include <vector>\n#include <string>\n"
                             "namespace torch::executor { struct Tensor {}; }\n");
  dir.write("src/ops.h", "#pragma once\n#include <ops.h>\n#include <map>\n");
  const std::string angle = "#include <ops.h>\n#include <map>\n";
  auto kernel = [](int i) {
    return "namespace torch::executor::native {\n  Tensor& k" + std::to_string(i) +
           "_out(const Tensor& self, Tensor& out);\n}\n";
  };
  std::vector<std::string> files = {
      dir.write("lib/k0.cpp", "// licence\n\n" + angle + kernel(0)),
      dir.write("lib/k1.cpp", angle + "#include <set>\n\n" + kernel(1)),
      dir.write("lib/k2.cpp", angle + "#include <opscan/annotations.h>\n" + kernel(2)),
      dir.write("lib/k3.cpp", angle + "int x;\n#include <vector>\n" + kernel(3)),
      dir.write("lib/k4.cpp", "int first;\n" + angle + kernel(4)),
      dir.write("src/k5.cpp", "#include \"ops.h\"\n" + kernel(5)),
      dir.write("src/k6.cpp", "#include \"ops.h\"\n#include <deque>\n" + kernel(6)),
      dir.write("src/k7.cpp", "#include \"ops.h\"\n/* end */ " + kernel(7)),
  };
  std::string yaml;
  for (int i = 0; i < 8; ++i)
    yaml += "- op: k" + std::to_string(i) + ".out\n  kernels:\n    - arg_meta: null\n" +
            "      kernel_name: torch::executor::k" + std::to_string(i) + "_out\n";
  size_t in_units = 0, plain_in_units = 0;
  const ImportPlan with = import_located(yaml, files, dir.file("include"), true, in_units);
  const ImportPlan without =
      import_located(yaml, files, dir.file("include"), false, plain_in_units);
  EXPECT_EQ(in_units, 7u);
  EXPECT_EQ(plain_in_units, 0u);
  EXPECT_TRUE(with.diagnostics.empty()) << with.diagnostics[0].message;
  EXPECT_EQ(with.placed, 8u);
  ASSERT_EQ(with.edits.size(), without.edits.size());
  for (size_t i = 0; i < with.edits.size(); ++i) {
    EXPECT_EQ(with.edits[i].path, without.edits[i].path);
    EXPECT_EQ(with.edits[i].content, without.edits[i].content);
    EXPECT_EQ(with.edits[i].annotations, without.edits[i].annotations);
  }
  // One of them, in full: the include after the file's own last one.
  EXPECT_EQ(with.edits.at(1).content,
            angle + "#include <set>\n#include <opscan/annotations.h>\n\n"
                    "namespace torch::executor::native {\n  OPSCAN_KERNEL(\"aten::k1.out\")\n"
                    "  Tensor& k1_out(const Tensor& self, Tensor& out);\n}\n");
}

TEST(ImportYaml, AKernelAMacroCallMakesIsAnnotatedAboveTheCallWhenItIsTheCallsFirst) {
  // As ExecuTorch's portable library makes acos_out: one macro call, one
  // kernel. A call that declares two functions (or anything else first)
  // can carry an annotation for its first only. Alike in units and alone.
  TempDir dir;
  dir.write("include/opscan/annotations.h", "#pragma once\n#define OPSCAN_KERNEL(...)\n");
  dir.write("include/pattern.h",
            "#pragma once\nnamespace torch::executor { struct Tensor {}; }\n"
            "#define UNARY(name) Tensor& name(const Tensor& in, Tensor& out) { return out; }\n"
            "#define PAIR(a, b) Tensor& a(Tensor& out); Tensor& b(Tensor& out);\n"
            "#define AFTER_INT(name) int name##_n; Tensor& name(Tensor& out);\n");
  const std::string includes = "#include <pattern.h>\n#include <vector>\n";
  const std::string ns = "namespace torch::executor::native {\n";
  std::vector<std::string> files = {
      dir.write("lib/op_acos.cpp", includes + ns + "UNARY(acos_out)\n}\n"),
      dir.write("lib/op_pair.cpp", includes + ns + "  PAIR(sin_out, cos_out)\n}\n"),
      dir.write("lib/op_late.cpp", includes + ns + "AFTER_INT(tan_out)\n}\n"),
  };
  std::string yaml;
  for (const char* op : {"acos", "sin", "cos", "tan"})
    yaml +=
        fmt::format("- op: {0}.out\n  kernels:\n    - kernel_name: torch::executor::{0}_out\n", op);
  size_t in_units = 0, plain_in_units = 0;
  const ImportPlan with = import_located(yaml, files, dir.file("include"), true, in_units);
  const ImportPlan without =
      import_located(yaml, files, dir.file("include"), false, plain_in_units);
  EXPECT_EQ(in_units, 3u);
  for (const ImportPlan* plan : {&with, &without}) {
    EXPECT_EQ(plan->placed, 2u);
    EXPECT_EQ(plan->not_placed, 2u);
    ASSERT_EQ(codes_of(plan->diagnostics),
              (std::vector<std::string>{"opscan-import-macro", "opscan-import-macro"}));
    EXPECT_EQ(plan->diagnostics[0].location.line, 4u);
    EXPECT_EQ(plan->diagnostics[0].location.column, 3u);
    EXPECT_NE(plan->diagnostics[0].message.find("first declaration is 'sin_out'"),
              std::string::npos)
        << plan->diagnostics[0].message;
    EXPECT_NE(plan->diagnostics[1].message.find("first declaration is 'tan_out_n'"),
              std::string::npos)
        << plan->diagnostics[1].message;
    ASSERT_EQ(plan->edits.size(), 2u);
    EXPECT_EQ(plan->edits[0].content, includes + "#include <opscan/annotations.h>\n" + ns +
                                          "OPSCAN_KERNEL(\"aten::acos.out\")\n"
                                          "UNARY(acos_out)\n}\n");
    EXPECT_EQ(plan->edits[1].content, includes + "#include <opscan/annotations.h>\n" + ns +
                                          "  OPSCAN_KERNEL(\"aten::sin.out\")\n"
                                          "  PAIR(sin_out, cos_out)\n}\n");
  }
}

TEST(ImportYaml, OfOverloadsTheOneTakingTheRuntimeContextIsAnnotated) {
  // As ExecuTorch's quantized library defines each kernel: without the
  // context, then with it, calling the first. Its generator calls the
  // second; a declaration of the first after it changes nothing.
  TempDir dir;
  dir.write("include/ops.h",
            "#pragma once\nnamespace executorch::runtime { class KernelRuntimeContext; }\n"
            "namespace torch::executor { struct Tensor {}; "
            "using executorch::runtime::KernelRuntimeContext; }\n");
  const std::string file = dir.write(
      "lib/op_add.cpp", "#include <ops.h>\nnamespace torch::executor::native {\n"
                        "Tensor& add_out(const Tensor& a, Tensor& out) { return out; }\n"
                        "Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& a, Tensor& out) "
                        "{ return add_out(a, out); }\n"
                        "Tensor& add_out(const Tensor& a, Tensor& out);\n}\n");
  size_t in_units = 0;
  const ImportPlan plan =
      import_located("- op: add.out\n  kernels:\n    - kernel_name: torch::executor::add_out\n",
                     {file}, dir.file("include"), false, in_units);
  EXPECT_TRUE(plan.diagnostics.empty()) << plan.diagnostics[0].message;
  ASSERT_EQ(plan.edits.size(), 1u);
  EXPECT_EQ(plan.edits[0].content,
            "#include <ops.h>\n#include <opscan/annotations.h>\n"
            "namespace torch::executor::native {\n"
            "Tensor& add_out(const Tensor& a, Tensor& out) { return out; }\n"
            "OPSCAN_KERNEL(\"aten::add.out\")\n"
            "Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& a, Tensor& out) "
            "{ return add_out(a, out); }\n"
            "Tensor& add_out(const Tensor& a, Tensor& out);\n}\n");
}

TEST(PlanImport, OnlyTheFirstTwentyOfACodeAreShownAndTheRestCounted) {
  // 250 kernels the files do not declare, and one that is found.
  TempDir dir;
  const std::string file = dir.write("k.cpp", "void f();\n");
  scan::SourceSites sites{file, {declared(file, "a::native::f", 0)}, 0, true};
  std::string yaml;
  for (int i = 0; i < 250; ++i)
    yaml += "- op: m" + std::to_string(i) + ".out\n  kernels:\n    - kernel_name: a::m" +
            std::to_string(i) + "\n";
  yaml += "- op: f.out\n  kernels:\n    - kernel_name: a::f\n";
  ImportPlan plan = plan_import(entries_of(yaml), {sites});
  ASSERT_EQ(plan.diagnostics.size(), 21u);
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(plan.diagnostics[i].code, "opscan-import-not-found");
    EXPECT_EQ(plan.diagnostics[i].location.line, 3 * i + 3);
  }
  const diag::Diagnostic& more = plan.diagnostics[20];
  EXPECT_EQ(more.code, "opscan-import-more");
  EXPECT_EQ(more.severity, diag::Severity::note);
  EXPECT_EQ(more.location.line, 63u); // the first not shown
  EXPECT_EQ(more.message,
            "230 more opscan-import-not-found like those above are not shown, from here on");
  EXPECT_EQ(plan.not_placed, 250u);
  EXPECT_EQ(plan.placed, 1u);
  EXPECT_EQ(plan.edits.size(), 1u);
}

} // namespace
} // namespace opscan::migrate
