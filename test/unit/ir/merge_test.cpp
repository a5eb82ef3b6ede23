// Merging fragments (ir::merge) and selecting operators
// (ir::select_operators). Which kernels may share an operator is the
// target's business, so merging only reports one USR annotated two ways and
// stale sources.
#include "ir/ir_test_helpers.h"
#include "ir/validate.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using namespace opscan;
using namespace opscan::ir;
using namespace opscan::ir_test;

// ===== Merging ==============================================================

TEST(IrMerge, SameKernelInTwoFragmentsIsKeptOnce) {
  // A kernel in a header seen by two translation units.
  const Kernel far = scale("src/z.h", 300);
  const Kernel near = scale("src/a.h", 900);
  const Module one = fragment({{"src/one.cpp", kShaA}, {"src/z.h", kShaB}}, {far});
  const Module two = fragment({{"src/two.cpp", kShaB}, {"src/z.h", kShaB}}, {near});

  MergeResult ab = merge({one, two}, test_fields());
  MergeResult ba = merge({two, one}, test_fields());
  EXPECT_TRUE(ab.diagnostics.empty());
  EXPECT_TRUE(ba.diagnostics.empty());
  ASSERT_EQ(ab.module.kernels.size(), 1u);
  EXPECT_EQ(ab.module.kernels[0].location, near.location); // the smaller (file, offset)
  EXPECT_EQ(ab.module, ba.module);
  EXPECT_EQ(to_json(ab.module, test_fields()), to_json(ba.module, test_fields()));
  const std::vector<SourceFile> sources = {
      {"src/one.cpp", kShaA}, {"src/two.cpp", kShaB}, {"src/z.h", kShaB}};
  EXPECT_EQ(ab.module.sources, sources);
  EXPECT_EQ(ab.module.generator, "opscan 0.2.0");
  EXPECT_EQ(ab.module.libclang_version, "clang 14");
}

TEST(IrMerge, SmallerOffsetWinsInTheSameFile) {
  const Module one = fragment({}, {scale("src/a.h", 90)});
  const Module two = fragment({}, {scale("src/a.h", 10)});
  const Module three = fragment({}, {scale("src/a.h", 50)});
  for (const auto& order : std::vector<std::vector<Module>>{
           {one, two, three}, {two, three, one}, {three, one, two}, {three, two, one}}) {
    MergeResult merged = merge(order, test_fields());
    EXPECT_TRUE(merged.diagnostics.empty());
    ASSERT_EQ(merged.module.kernels.size(), 1u);
    EXPECT_EQ(merged.module.kernels[0].location.offset, 10u);
  }
}

TEST(IrMerge, OneUsrAnnotatedTwoWaysConflicts) {
  const Kernel here = scale("src/a.cpp", 10);
  Kernel there = scale("src/b.cpp", 20);
  there.set_field("kernel_key", "v1/6;0");
  for (bool swapped : {false, true}) {
    SCOPED_TRACE(swapped ? "b first" : "a first");
    std::vector<Module> fragments = {fragment({}, {here}), fragment({}, {there})};
    if (swapped)
      std::swap(fragments[0], fragments[1]);
    MergeResult merged = merge(fragments, test_fields());
    ASSERT_EQ(merged.diagnostics.size(), 1u);
    const diag::Diagnostic& d = merged.diagnostics[0];
    EXPECT_EQ(d.code, "opscan-kernel-conflict");
    EXPECT_EQ(d.severity, diag::Severity::error);
    EXPECT_EQ(d.message, "kernel 'custom::scale' is annotated as custom::scale (kernel key "
                         "'v1/6;0') here and as custom::scale elsewhere");
    // Reported at one annotation with a note at the other, the same way
    // whatever the order of the fragments; the kernel at the smaller
    // location is kept.
    EXPECT_EQ(d.location, there.location);
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].location, here.location);
    ASSERT_EQ(merged.module.kernels.size(), 1u);
    EXPECT_EQ(merged.module.kernels[0], here);
  }
}

TEST(IrMerge, OneUsrWithAnyOtherFieldDifferentConflicts) {
  // Everything of a kernel but its location must agree between
  // translation units.
  const std::vector<std::pair<const char*, void (*)(Kernel&)>> changes = {
      {"dispatch key", [](Kernel& k) { k.set_field("dispatch_key", "CUDA"); }},
      {"operator", [](Kernel& k) { k.op.overload = "Tensor"; }},
      {"canonical type", [](Kernel& k) { k.arguments[1].cpp_canonical_type = "float"; }},
      {"default", [](Kernel& k) { k.arguments[1].schema.default_value = "1.0"; }},
      {"return name", [](Kernel& k) { k.returns[0].name = ""; }},
      {"schema origin", [](Kernel& k) { k.schema_origin = SchemaOrigin::declared; }},
      {"context", [](Kernel& k) { k.context = ContextKind::dispatch_key_set; }},
      {"linkage", [](Kernel& k) { k.cpp_linkage = Linkage::cxx; }},
      {"noexcept", [](Kernel& k) { k.cpp_noexcept = true; }},
      {"inline namespaces", [](Kernel& k) { k.cpp_inline_namespaces = {"custom"}; }},
      {"function", [](Kernel& k) { k.cpp_function = "custom::scale2"; }},
      {"return type", [](Kernel& k) { k.cpp_return_type = "at::Tensor"; }},
  };
  for (const auto& [what, change] : changes) {
    SCOPED_TRACE(what);
    const Kernel here = scale("src/a.cpp", 10);
    Kernel there = scale("src/b.cpp", 20);
    change(there);
    MergeResult merged = merge({fragment({}, {there}), fragment({}, {here})}, test_fields());
    ASSERT_EQ(merged.diagnostics.size(), 1u);
    const diag::Diagnostic& d = merged.diagnostics[0];
    EXPECT_EQ(d.code, "opscan-kernel-conflict");
    EXPECT_EQ(d.location, there.location);
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].location, here.location);
    EXPECT_EQ(merged.module.kernels, std::vector<Kernel>{here});
  }
}

TEST(IrMerge, ConflictInTypesOnlyIsExplained) {
  const Kernel here = scale("src/a.cpp", 10);
  Kernel there = scale("src/b.cpp", 20);
  there.arguments[1].cpp_canonical_type = "float";
  MergeResult merged = merge({fragment({}, {here}), fragment({}, {there})}, test_fields());
  ASSERT_EQ(merged.diagnostics.size(), 1u);
  EXPECT_EQ(merged.diagnostics[0].message,
            "kernel 'custom::scale' for custom::scale differs between translation units "
            "(scanned with different flags?)");
}

TEST(IrMerge, TwoFunctionsForOneOperatorAndKeyAreTheTargetsBusiness) {
  // Whether they clash depends on what the target registers a kernel
  // under; merging keeps both.
  const Kernel first = scale("src/a.cpp", 10);
  Kernel second = scale("src/b.cpp", 20);
  second.usr = "c:@F@scale_again";
  second.cpp_function = "custom::scale_again";
  Kernel keyed = add_out("src/a.cpp", 50);
  Kernel same_key = add_out("src/b.cpp", 50);
  same_key.usr = "c:@F@add_out_again";
  MergeResult merged =
      merge({fragment({}, {second, same_key}), fragment({}, {first, keyed})}, test_fields());
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_EQ(merged.module.kernels, (std::vector<Kernel>{keyed, same_key, first, second}));
}

TEST(IrMerge, SameSourceWithDifferentContentIsStale) {
  const Module one = fragment({{"src/a.cpp", kShaA}, {"include/k.h", kShaA}}, {});
  const Module two = fragment({{"src/b.cpp", kShaA}, {"include/k.h", kShaB}}, {});
  const Module three = fragment({{"include/k.h", kShaC}}, {});
  const Module four = fragment({{"include/k.h", kShaA}}, {});
  for (const auto& fragments : std::vector<std::vector<Module>>{
           {one, two}, {two, one}, {one, two, three}, {three, two, one}, {four, two, one, three}}) {
    MergeResult merged = merge(fragments, test_fields());
    ASSERT_EQ(merged.diagnostics.size(), 1u); // one per file, however many fragments disagree
    const diag::Diagnostic& d = merged.diagnostics[0];
    EXPECT_EQ(d.code, "opscan-ir-stale");
    EXPECT_EQ(d.severity, diag::Severity::error);
    EXPECT_EQ(d.location.file, "include/k.h");
    EXPECT_EQ(d.message, "fragments disagree on the content of this file; scan it again");
  }
  // One report per file that disagrees.
  const Module five = fragment({{"src/a.cpp", kShaC}}, {});
  MergeResult two_files = merge({one, two, five}, test_fields());
  ASSERT_EQ(two_files.diagnostics.size(), 2u);
  EXPECT_EQ(two_files.diagnostics[0].location.file, "include/k.h");
  EXPECT_EQ(two_files.diagnostics[1].location.file, "src/a.cpp");
}

TEST(IrMerge, AStaleSourceIsListedOnceInTheMergedModule) {
  // Reported as stale, and kept once: the merged module is a valid IR.
  MergeResult merged = merge({fragment({{"include/k.h", kShaB}, {"src/a.cpp", kShaA}}, {}),
                              fragment({{"include/k.h", kShaA}}, {})},
                             test_fields());
  ASSERT_EQ(merged.diagnostics.size(), 1u);
  EXPECT_EQ(merged.diagnostics[0].code, "opscan-ir-stale");
  EXPECT_EQ(merged.module.sources,
            (std::vector<SourceFile>{{"include/k.h", kShaB}, {"src/a.cpp", kShaA}}));
  EXPECT_TRUE(validate(merged.module, Locator()).empty());
}

TEST(IrMerge, SameSourceWithSameContentIsFine) {
  MergeResult merged =
      merge({fragment({{"include/k.h", kShaA}}, {}), fragment({{"include/k.h", kShaA}}, {})},
            test_fields());
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_EQ(merged.module.sources, (std::vector<SourceFile>{{"include/k.h", kShaA}}));
}

TEST(IrMerge, AliasesAreKeptOnceAndMustAgree) {
  Module a = fragment({{"src/a.cpp", kShaA}}, {scale("src/a.cpp", 10)});
  a.aliases = {{"c10::optional", "std::optional"}};
  Module b = fragment({{"src/b.cpp", kShaB}}, {add_out("src/b.cpp", 10)});
  b.aliases = {{"c10::optional", "std::optional"},
               {"c10::string_view", "std::basic_string_view<char>"}};
  // A fragment without kernels of the runtime names none: no disagreement.
  const Module c = fragment({{"src/c.cpp", kShaC}}, {});
  MergeResult merged = merge({a, b, c}, test_fields());
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_EQ(merged.module.aliases, b.aliases);
  // Scanned against another libtorch: c10::string_view is c10's own there.
  Module d = fragment({{"src/d.cpp", kShaC}}, {});
  d.aliases = {{"c10::string_view", "c10::basic_string_view<char>"}};
  merged = merge({a, b, d}, test_fields());
  ASSERT_EQ(merged.diagnostics.size(), 1u);
  EXPECT_EQ(merged.diagnostics[0].code, "opscan-ir-headers-differ");
  EXPECT_EQ(merged.diagnostics[0].location.file, "src/d.cpp");
  EXPECT_EQ(merged.diagnostics[0].message,
            "src/b.cpp and src/d.cpp were scanned against different headers: c10::string_view "
            "is std::basic_string_view<char> in one and c10::basic_string_view<char> in the "
            "other; scan every source of a library with the same headers");
}

TEST(IrMerge, MergedLibrariesMakeNoLibrary) {
  // Merging (--lib) makes a new library: the inputs' records do not carry
  // over.
  Module a = fragment({{"src/a.cpp", kShaA}}, {scale("src/a.cpp", 10)});
  a.library = LibraryInfo{"a", Registration::named, "executorch",
                          "torch::executor::register_a_kernels", ""};
  Module b = fragment({{"src/b.cpp", kShaB}}, {add_out("src/b.cpp", 10)});
  b.library =
      LibraryInfo{"b", Registration::static_init, "torch", "", "opscan_static_registration_b"};
  MergeResult merged = merge({a, b}, test_fields());
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_EQ(merged.module.library, std::nullopt);
  EXPECT_EQ(merged.module.kernels.size(), 2u);
}

TEST(IrMerge, GeneratorAndLibclangComeFromTheFirstFragmentThatHasThem) {
  Module empty = fragment({}, {});
  empty.generator = "";
  empty.libclang_version = "";
  Module first = fragment({}, {});
  first.generator = "opscan 0.2.0";
  first.libclang_version = "";
  Module second = fragment({}, {});
  second.generator = "opscan 9";
  second.libclang_version = "clang 15";
  MergeResult merged = merge({empty, first, second}, test_fields());
  EXPECT_EQ(merged.module.generator, "opscan 0.2.0");
  EXPECT_EQ(merged.module.libclang_version, "clang 15");
}

TEST(IrMerge, ResultIsCanonical) {
  MergeResult merged = merge({fragment({{"z.cpp", kShaA}}, {scale("z.cpp", 5)}),
                              fragment({{"a.cpp", kShaB}, {"a.cpp", kShaB}},
                                       {add_out_fallback("a.cpp", 9), add_out("a.cpp", 1)})},
                             test_fields());
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_TRUE(is_canonical(merged.module));
  EXPECT_EQ(merged.module.sources.size(), 2u);
}

TEST(IrMerge, NothingToMerge) {
  MergeResult merged = merge({}, test_fields());
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_EQ(merged.module, Module{});
}

// ===== Selecting operators ==================================================

// The operators of a module's kernels, "ns::name.overload [key]", in order.
std::vector<std::string> operators_of(const Module& m) {
  std::vector<std::string> ops;
  for (const Kernel& k : m.kernels) {
    const std::string key(k.field("kernel_key"));
    ops.push_back(k.op.str() + (key.empty() ? "" : " [" + key + "]"));
  }
  return ops;
}

// full_module(): aten::add.out (fallback and keyed) and custom::scale.
TEST(IrSelect, KeepsEveryKernelOfTheOperatorsNamed) {
  SelectResult add = select_operators(full_module(), {"aten::add.out"});
  EXPECT_TRUE(add.diagnostics.empty());
  EXPECT_EQ(operators_of(add.module),
            (std::vector<std::string>{"aten::add.out", "aten::add.out [v1/6;0,1|6;0,1|6;0,1]"}));
  // Everything but the other kernels and their source is kept, the library
  // record too.
  Module expected = full_module();
  expected.kernels.pop_back();
  expected.sources.pop_back();
  EXPECT_EQ(add.module, expected);

  // A name without overload is the operator without one.
  SelectResult scale_only = select_operators(full_module(), {"custom::scale"});
  EXPECT_TRUE(scale_only.diagnostics.empty());
  EXPECT_EQ(operators_of(scale_only.module), std::vector<std::string>{"custom::scale"});
  EXPECT_EQ(scale_only.module.sources, std::vector<SourceFile>{full_module().sources[1]});
}

TEST(IrSelect, SourcesWithoutAnnotatedKernelsStay) {
  // Its kernels may be annotated in a header it includes.
  Module m = full_module();
  m.sources.push_back({"src/zz_uses_a_header.cpp", m.sources[0].sha256});
  SelectResult scale_only = select_operators(m, {"custom::scale"});
  EXPECT_EQ(scale_only.module.sources, (std::vector<SourceFile>{m.sources[1], m.sources[2]}));
}

TEST(IrSelect, SeveralNamesRepeatsAndSpacesAreFine) {
  SelectResult both =
      select_operators(full_module(), {"custom::scale", " aten::add.out ", "custom::scale"});
  EXPECT_TRUE(both.diagnostics.empty());
  EXPECT_EQ(both.module, full_module());
  // No names: no kernels (the caller decides whether that is an error).
  EXPECT_TRUE(select_operators(full_module(), {}).module.kernels.empty());
}

TEST(IrSelect, UnknownOperatorIsAnErrorThatSuggestsAClose) {
  SelectResult result =
      select_operators(full_module(), {"aten::ad.out", "aten::add", "custom::scale.out",
                                       "aten::mul.out", "aten::mul.out", "custom::scale"});
  std::vector<std::string> messages;
  for (const diag::Diagnostic& d : result.diagnostics) {
    EXPECT_EQ(d.severity, diag::Severity::error);
    EXPECT_EQ(d.code, "opscan-unknown-operator");
    EXPECT_FALSE(d.location.valid());
    messages.push_back(d.message);
  }
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "no kernel implements operator 'aten::ad.out'; did you mean 'aten::add.out'?",
                // Not close by edits, but another overload of the name.
                "no kernel implements operator 'aten::add'; did you mean 'aten::add.out'?",
                "no kernel implements operator 'custom::scale.out'; did you mean "
                "'custom::scale'?",
                // Reported once however often it is named.
                "no kernel implements operator 'aten::mul.out'",
            }));
  // The names that are known are still selected.
  EXPECT_EQ(operators_of(result.module), std::vector<std::string>{"custom::scale"});
}

TEST(IrSelect, MalformedNameIsAnError) {
  SelectResult result =
      select_operators(full_module(), {"add.out", "aten::add.out(Tensor self)", "", "aten::"});
  ASSERT_EQ(result.diagnostics.size(), 4u);
  for (const diag::Diagnostic& d : result.diagnostics) {
    EXPECT_EQ(d.code, "opscan-schema-syntax") << d.message;
    EXPECT_NE(d.message.find("is malformed: "), std::string::npos) << d.message;
    EXPECT_TRUE(d.message.ends_with(
        " (write namespace::name.overload, or namespace::name without overload)"))
        << d.message;
  }
  EXPECT_EQ(result.diagnostics[0].message,
            "operator name 'add.out' is malformed: expected '::' after namespace 'add', found "
            "'.' (write namespace::name.overload, or namespace::name without overload)");
  EXPECT_TRUE(result.module.kernels.empty());
}

// ===== Selecting by need (select_kernels) ===================================

OperatorNeed need(std::string name, std::optional<std::set<std::string>> keys) {
  return {std::move(name), std::move(keys), false, {"model.pte", 0, 0, 0}, "model.pte"};
}

TEST(IrSelectKernels, KeepsFallbacksAndTheKeysNeeded) {
  const std::string key = "v1/6;0,1|6;0,1|6;0,1";
  // A key the operator has a kernel for: that kernel and the fallback.
  SelectResult keyed =
      select_kernels(full_module(), {false, {need("aten::add.out", {{key}})}, "kernel_key"});
  EXPECT_TRUE(keyed.diagnostics.empty());
  EXPECT_EQ(operators_of(keyed.module),
            (std::vector<std::string>{"aten::add.out", "aten::add.out [" + key + "]"}));
  // Another key (served by the fallback), or none: the fallback only.
  for (const std::string& other : {std::string("v1/7;0,1|7;0,1|7;0,1"), std::string()}) {
    SelectResult fallback =
        select_kernels(full_module(), {false, {need("aten::add.out", {{other}})}, "kernel_key"});
    EXPECT_TRUE(fallback.diagnostics.empty());
    EXPECT_EQ(operators_of(fallback.module), std::vector<std::string>{"aten::add.out"});
  }
  // nullopt, or --operators naming it too: every kernel.
  SelectResult all = select_kernels(
      full_module(),
      {false, {need("aten::add.out", {{""}}), need("aten::add.out", std::nullopt)}, "kernel_key"});
  EXPECT_EQ(operators_of(all.module).size(), 2u);
  // include_all_operators: the module as it is.
  EXPECT_EQ(select_kernels(full_module(), {true, {}, "kernel_key"}).module, full_module());
}

TEST(IrSelectKernels, AKeyWithoutItsKernelOrAFallbackIsAnError) {
  Module m = full_module();
  std::erase_if(m.kernels, [](const Kernel& k) { return k.field("kernel_key").empty(); });
  SelectResult result = select_kernels(
      m, {false,
          {need("aten::add.out", {{"", "v1/7;0,1|7;0,1|7;0,1", "v1/6;0,1|6;0,1|6;0,1"}})},
          "kernel_key"});
  ASSERT_EQ(result.diagnostics.size(), 2u);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-unknown-kernel-key");
  EXPECT_EQ(result.diagnostics[0].location, (diag::Location{"model.pte", 0, 0, 0}));
  EXPECT_EQ(result.diagnostics[0].message,
            "operator 'aten::add.out' is called without tensors (needed by model.pte), which "
            "only a fallback kernel (one without kernel key) serves, and it has none");
  EXPECT_EQ(result.diagnostics[1].message,
            "operator 'aten::add.out' is needed with kernel key 'v1/7;0,1|7;0,1|7;0,1' (needed "
            "by model.pte), and has neither a kernel with that key nor a fallback kernel (one "
            "without kernel key)");
}

TEST(IrSelectKernels, UnknownOperatorsAndAllOverloads) {
  SelectResult unknown =
      select_kernels(full_module(), {false, {need("aten::add.Tensor", {{""}})}, "kernel_key"});
  ASSERT_EQ(unknown.diagnostics.size(), 1u);
  EXPECT_EQ(unknown.diagnostics[0].code, "opscan-unknown-operator");
  EXPECT_EQ(unknown.diagnostics[0].message,
            "no kernel implements operator 'aten::add.Tensor' (needed by model.pte); did you mean "
            "'aten::add.out'?");
  OperatorNeed every = need("aten::add", std::nullopt);
  every.all_overloads = true;
  EXPECT_EQ(
      operators_of(select_kernels(full_module(), {false, {every}, "kernel_key"}).module).size(),
      2u);
}

} // namespace
