#include "audit/diff.h"
#include "audit/diff_cases.h"
#include "ir/validate.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

namespace {

using namespace audit_test;
using audit::Change;
using audit::Compatibility;

std::string dump(const std::vector<Change>& changes) {
  std::string out;
  for (const Change& c : changes) {
    out += "  " + c.library + " " + c.op + " " + c.change + " [" +
           std::string(audit::to_string(c.compatibility)) + "] " + c.message + "\n";
  }
  return out;
}

std::vector<std::string> classes(const audit::DiffResult& result) {
  std::vector<std::string> out;
  for (const Change& c : result.changes)
    out.push_back(c.change);
  return out;
}

audit::DiffResult diff_of(const std::vector<ir::Module>& olds,
                          const std::vector<ir::Module>& news) {
  return audit::diff(inputs_of(olds, "old"), inputs_of(news, "new"), test_fields());
}

// The one change of the diff of two schemas of one operator.
Change only_change(std::string_view before, std::string_view after) {
  audit::DiffResult result = diff_of(ops(before), ops(after));
  EXPECT_EQ(result.changes.size(), 1u) << dump(result.changes);
  return result.changes.empty() ? Change{} : result.changes.front();
}

class ChangeClassTest : public ::testing::TestWithParam<Case> {};

TEST_P(ChangeClassTest, IsFoundWithItsCompatibility) {
  const Case& c = GetParam();
  for (const auto* side : {&c.olds, &c.news}) {
    for (const ir::Module& m : *side)
      ASSERT_TRUE(ir::validate(m, ir::Locator()).empty()) << "the case's module is not valid";
  }
  audit::DiffResult result = diff_of(c.olds, c.news);
  EXPECT_TRUE(result.diagnostics.empty());
  auto found = std::find_if(result.changes.begin(), result.changes.end(),
                            [&](const Change& change) { return change.change == c.change; });
  ASSERT_NE(found, result.changes.end()) << c.change << " not among\n" << dump(result.changes);
  EXPECT_EQ(found->compatibility, c.compatibility);
  EXPECT_EQ(audit::find_change_class(c.change)->compatibility, c.compatibility);
  EXPECT_FALSE(found->message.empty());
  // A compatible case has no breaking change besides (the CLI's exit code is 0).
  if (c.compatibility == Compatibility::compatible) {
    EXPECT_EQ(result.count(Compatibility::breaking), 0u) << dump(result.changes);
  }
  // Nothing changes the other way round but the direction.
  EXPECT_TRUE(diff_of(c.news, c.news).changes.empty());
}

INSTANTIATE_TEST_SUITE_P(Diff, ChangeClassTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(ChangeClasses, EveryClassHasACaseAndAStableKebabCaseId) {
  std::set<std::string> covered;
  for (const Case& c : cases())
    covered.insert(c.change);
  std::set<std::string_view> ids;
  for (const audit::ChangeClass& c : audit::change_classes()) {
    EXPECT_TRUE(covered.contains(std::string(c.id))) << c.id << " has no case";
    EXPECT_TRUE(ids.insert(c.id).second) << c.id << " twice";
    EXPECT_TRUE(std::all_of(c.id.begin(), c.id.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || ch == '-';
    })) << c.id;
    EXPECT_FALSE(c.summary.empty());
  }
  EXPECT_GE(ids.size(), 30u);
  EXPECT_EQ(audit::find_change_class("no-such-change"), nullptr);
}

TEST(Diff, SameLibrariesHaveNoChanges) {
  const std::vector<ir::Module> side = {library("a", {kernel("ops::f(Tensor self) -> Tensor")})};
  audit::DiffResult result = diff_of(side, side);
  EXPECT_TRUE(result.changes.empty());
  EXPECT_EQ(result.not_allowed(), 0u);
}

TEST(Diff, ArgumentChangesNameTheArgumentAndItsPosition) {
  Change c = only_change("ops::f(Tensor self, Scalar alpha) -> Tensor",
                         "ops::f(Tensor self, float alpha) -> Tensor");
  EXPECT_EQ(c.op, "ops::f");
  EXPECT_EQ(c.library, "ops");
  EXPECT_EQ(c.argument, "alpha");
  EXPECT_EQ(c.position, 1u);
  EXPECT_EQ(c.message, "argument 'alpha' (position 1): type 'Scalar' -> 'float'");
  ASSERT_TRUE(c.old_site && c.new_site);
  EXPECT_EQ(c.old_site->value, "Scalar");
  EXPECT_EQ(c.new_site->value, "float");
  EXPECT_EQ(c.new_site->location.file, "src/kernels.cpp");
  EXPECT_EQ(c.new_site->location.line, 10u);
}

TEST(Diff, AnInsertedNameIsOneInsertionNotRenamesOfWhatFollows) {
  audit::DiffResult result =
      diff_of(ops("ops::f(Tensor self, int a, int b, int c) -> Tensor"),
              ops("ops::f(Tensor self, int x, int a, int b, int c) -> Tensor"));
  EXPECT_EQ(classes(result), std::vector<std::string>{"argument-inserted"}) << dump(result.changes);
  EXPECT_EQ(result.changes[0].argument, "x");
  EXPECT_EQ(result.changes[0].position, 1u);
}

TEST(Diff, ARemovedNameIsOneRemoval) {
  audit::DiffResult result = diff_of(ops("ops::f(Tensor self, int a, int b, int c) -> Tensor"),
                                     ops("ops::f(Tensor self, int b, int c) -> Tensor"));
  EXPECT_EQ(classes(result), std::vector<std::string>{"argument-removed"}) << dump(result.changes);
  EXPECT_EQ(result.changes[0].argument, "a");
}

TEST(Diff, ARenameAndATypeChangeAreBothReported) {
  audit::DiffResult result = diff_of(ops("ops::f(Tensor self, int a) -> Tensor"),
                                     ops("ops::f(Tensor self, float b) -> Tensor"));
  EXPECT_EQ(classes(result),
            (std::vector<std::string>{"argument-type-changed", "argument-renamed"}))
      << dump(result.changes);
}

TEST(Diff, AnArgumentAddedBeforeTheOutGroupIsInserted) {
  audit::DiffResult result =
      diff_of(ops("ops::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"),
              ops("ops::f.out(Tensor self, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"));
  EXPECT_EQ(classes(result), std::vector<std::string>{"argument-inserted"}) << dump(result.changes);
}

TEST(Diff, ARemovedOperatorDoesNotListItsKernelKeys) {
  const std::string add_out =
      "ops::add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)";
  audit::DiffResult result =
      diff_of({library("a", {kernel(add_out, "k::f1", "v1/6;0|6;0|6;0"),
                             kernel(add_out, "k::f2", "v1/4;0|4;0|4;0"),
                             kernel("ops::neg(Tensor self) -> Tensor", "k::neg")})},
              {library("a", {kernel("ops::neg(Tensor self) -> Tensor", "k::neg")})});
  EXPECT_EQ(classes(result), std::vector<std::string>{"operator-removed"}) << dump(result.changes);
}

TEST(Diff, ARemovedLibraryDoesNotListItsOperators) {
  audit::DiffResult result =
      diff_of({library("a", {kernel("ops::neg(Tensor self) -> Tensor", "k::neg"),
                             kernel("ops::abs(Tensor self) -> Tensor", "k::abs")})},
              {});
  EXPECT_EQ(classes(result), std::vector<std::string>{"library-removed"});
  EXPECT_EQ(result.changes[0].op, "");
  EXPECT_EQ(result.changes[0].library, "a");
}

TEST(Diff, ASchemaChangeSharedByEveryKernelKeyIsReportedOnce) {
  auto keyed = [](std::string_view alpha_type) {
    std::vector<ir::Kernel> kernels;
    for (std::string key : {"v1/6;0|6;0|6;0", "v1/4;0|4;0|4;0", "v1/3;0|3;0|3;0"}) {
      kernels.push_back(kernel("ops::add.out(Tensor self, " + std::string(alpha_type) +
                                   " alpha, *, Tensor(a!) out) -> Tensor(a!)",
                               "k::add_" + std::to_string(key[3]), key));
    }
    return std::vector<ir::Module>{library("a", kernels)};
  };
  audit::DiffResult result = diff_of(keyed("Scalar"), keyed("float"));
  EXPECT_EQ(classes(result), std::vector<std::string>{"argument-type-changed"})
      << dump(result.changes);
}

TEST(Diff, AModeChangeToStaticHasNoFunctionChange) {
  const ir::Kernel neg = kernel("ops::neg(Tensor self) -> Tensor", "k::neg");
  audit::DiffResult result = diff_of(
      {library("a", {neg})}, {library("a", {neg}, "executorch", ir::Registration::static_init)});
  EXPECT_EQ(classes(result), std::vector<std::string>{"registration-mode-changed"});
  EXPECT_EQ(result.changes[0].message, "library 'a': registration mode 'named' -> 'static'");
}

TEST(Diff, AModeChangeBetweenFunctionsNamesBoth) {
  const ir::Kernel neg = kernel("ops::neg(Tensor self) -> Tensor", "k::neg");
  audit::DiffResult result =
      diff_of({library("a", {neg})}, {library("a", {neg}, "executorch", ir::Registration::manual)});
  EXPECT_EQ(classes(result), (std::vector<std::string>{"registration-function-changed",
                                                       "registration-mode-changed"}));
}

TEST(Diff, AnOperatorMovedIsComparedInItsNewLibrary) {
  audit::DiffResult result = diff_of(
      {library("a", {kernel("ops::f(Tensor self, int a) -> Tensor", "k::f")}),
       library("b", {kernel("ops::g(Tensor self) -> Tensor", "k::g")})},
      {library("a", {}), library("b", {kernel("ops::g(Tensor self) -> Tensor", "k::g"),
                                       kernel("ops::f(Tensor self, float a) -> Tensor", "k::f")})});
  EXPECT_EQ(classes(result), (std::vector<std::string>{"library-changed", "argument-type-changed"}))
      << dump(result.changes);
  EXPECT_EQ(result.changes[0].library, "b");
  EXPECT_EQ(result.changes[0].old_site->library, "a");
  EXPECT_EQ(result.changes[0].message, "operator ops::f moved from library 'a' to library 'b'");
}

TEST(Diff, AnOperatorMovedIntoANewLibraryIsLibraryChanged) {
  audit::DiffResult result =
      diff_of({library("a", {kernel("ops::f(Tensor self) -> Tensor", "k::f")})},
              {library("a", {}), library("c", {kernel("ops::f(Tensor self) -> Tensor", "k::f")})});
  EXPECT_EQ(classes(result), (std::vector<std::string>{"library-added", "library-changed"}))
      << dump(result.changes);
}

TEST(Diff, ScanOutputIsOneUnnamedLibrary) {
  const ir::Kernel f = kernel("ops::f(Tensor self) -> Tensor", "k::f");
  const ir::Kernel g = kernel("ops::g(Tensor self) -> Tensor", "k::g");
  // Two fragments on one side, one on the other: the same unnamed library.
  audit::DiffResult result = diff_of({fragment({f}), fragment({g})}, {fragment({f})});
  EXPECT_EQ(classes(result), std::vector<std::string>{"operator-removed"});
  EXPECT_EQ(result.changes[0].library, "");
  EXPECT_NE(result.changes[0].message.find("(scan output)"), std::string::npos);
}

TEST(Diff, OneLibraryTwiceOnASideIsAnError) {
  const ir::Kernel f = kernel("ops::f(Tensor self) -> Tensor", "k::f");
  audit::DiffResult result = diff_of({library("a", {f}), library("a", {f})}, {library("a", {f})});
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].code, "opscan-duplicate-library");
  EXPECT_EQ(result.diagnostics[0].message,
            "library 'a' is given twice on one side (also by old/a/ir.json)");
}

TEST(Diff, BreakingChangesComeFirstWithinAnOperator) {
  audit::DiffResult result = diff_of(ops("ops::f(Tensor self, int dim) -> Tensor"),
                                     ops("ops::f(Tensor self, int dim=0, float x) -> Tensor"));
  // default-added (compatible) after argument-added-without-default (breaking).
  EXPECT_EQ(classes(result),
            (std::vector<std::string>{"argument-added-without-default", "default-added"}))
      << dump(result.changes);
  EXPECT_EQ(result.count(Compatibility::breaking), 1u);
  EXPECT_EQ(result.count(Compatibility::compatible), 1u);
  EXPECT_EQ(result.not_allowed(), 1u);
}

TEST(Diff, MessagesQuoteHostileValues) {
  Change c = only_change("ops::f(Tensor self, str mode='a') -> Tensor",
                         "ops::f(Tensor self, str mode='b|`<x>') -> Tensor");
  EXPECT_EQ(c.change, "default-changed");
  EXPECT_EQ(c.message, R"(argument 'mode' (position 1): default '\'a\'' -> '\'b|`<x>\'')");
}

// Hostile sizes: thousands of arguments are matched without quadratic work
// (the test only checks the result).
TEST(Diff, ThousandsOfArguments) {
  std::string before = "ops::f(Tensor self", after = "ops::f(Tensor self, int inserted";
  for (int i = 0; i < 5000; ++i) {
    before += ", int a" + std::to_string(i);
    after += ", int a" + std::to_string(i);
  }
  audit::DiffResult result = diff_of(ops(before + ") -> Tensor"), ops(after + ") -> Tensor"));
  EXPECT_EQ(classes(result), std::vector<std::string>{"argument-inserted"});
}

} // namespace
