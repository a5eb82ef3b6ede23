// Hygiene of generated C++ (emit/cpp.h): local names, helper names, include
// guards, namespaces and declarations.
#include "emit/cpp.h"
#include "emit_test_helpers.h"
#include "ident/ident.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace emit_test;
using emit::local_names;
using Names = std::vector<std::string>;

// A kernel whose schema arguments have `names` (int, by value).
ir::Kernel with_arguments(const Names& names) {
  ir::Kernel k;
  k.op = {"demo", "f", ""};
  k.cpp_function = "k::f";
  for (const std::string& name : names) {
    ir::Argument a;
    a.schema.name = name;
    a.schema.type.base = "int";
    a.cpp_type = a.cpp_canonical_type = "long";
    k.arguments.push_back(a);
  }
  return k;
}

bool usable_local(const std::string& name) {
  return opscan::ident::is_valid_identifier(name, opscan::ident::Scope::local);
}

// ===== local_names ==========================================================

TEST(LocalNames, NamesThatFitStayAndTheOthersAreRenamed) {
  // The ExecuTorch wrapper's own names: context, stack, result.
  EXPECT_EQ(local_names(with_arguments({"stack", "stack_", "stack_2", "EValue", "keys", "int",
                                        "_Reserved", "__x"}),
                        {"context", "stack", "result"}),
            (Names{"stack_3", "stack_", "stack_2", "EValue", "keys", "int_", "arg6_", "arg7_"}));
  // The torch wrapper's own name: keys.
  EXPECT_EQ(local_names(with_arguments({"keys", "keys_", "self"}), {"keys"}),
            (Names{"keys_2", "keys_", "self"}));
  EXPECT_EQ(local_names(with_arguments({"self", "out"}), {"context", "stack", "result"}),
            (Names{"self", "out"}));
  EXPECT_TRUE(local_names(with_arguments({}), {"keys"}).empty());
}

TEST(LocalNames, RenamedNamesNeverTakeALaterArgumentsName) {
  // "int" would become "int_", which the next argument keeps.
  EXPECT_EQ(local_names(with_arguments({"int", "int_"}), {}), (Names{"int_2", "int_"}));
  // A reserved name becomes arg<i>_, here another argument's name.
  EXPECT_EQ(local_names(with_arguments({"_Bad", "arg0_"}), {}), (Names{"arg0_2", "arg0_"}));
  EXPECT_EQ(local_names(with_arguments({"x", "x"}), {}), (Names{"x", "x_"}));
}

TEST(LocalNames, ALeadingUnderscoreIsFineAtLocalScopeButNoCandidateHoldsADoubleOne) {
  EXPECT_EQ(local_names(with_arguments({"_x"}), {}), (Names{"_x"}));
  // "a_" taken: "a__" would be reserved.
  EXPECT_EQ(local_names(with_arguments({"a_"}), {"a_"}), (Names{"arg0_"}));
  EXPECT_EQ(local_names(with_arguments({"for", "not_eq", "delete"}), {}),
            (Names{"for_", "not_eq_", "delete_"}));
}

// Every sequence of three names from a pool of troublesome ones: the result
// is always a valid, unreserved local name, none of the function's own and
// no other argument's, and a name that can stay as it is stays.
TEST(LocalNames, AlwaysValidDistinctAndFreeOfTheFunctionsNames) {
  const Names pool = {"self", "out",   "stack",  "stack_", "stack_2", "context",   "result",
                      "keys", "keys_", "EValue", "int",    "for",     "_Reserved", "__x",
                      "_x",   "a_",    "arg0_",  "arg1_",  "arg2_",   "x"};
  const std::vector<std::set<std::string>> takens = {{"context", "stack", "result"}, {"keys"}, {}};
  size_t checked = 0;
  for (const auto& taken : takens) {
    for (const std::string& a : pool) {
      for (const std::string& b : pool) {
        for (const std::string& c : pool) {
          const Names args = {a, b, c};
          Names names;
          if (taken.size() == 3)
            names = local_names(with_arguments(args), {"context", "stack", "result"});
          else if (taken.size() == 1)
            names = local_names(with_arguments(args), {"keys"});
          else
            names = local_names(with_arguments(args), {});
          ASSERT_EQ(names.size(), 3u);
          std::set<std::string> seen;
          for (size_t i = 0; i < 3; ++i) {
            SCOPED_TRACE(a + " " + b + " " + c + " -> " + names[i]);
            EXPECT_TRUE(usable_local(names[i]));
            EXPECT_FALSE(opscan::ident::is_keyword(names[i]));
            EXPECT_FALSE(taken.contains(names[i]));
            EXPECT_TRUE(seen.insert(names[i]).second);
            bool first = std::find(args.begin(), args.begin() + i, args[i]) == args.begin() + i;
            bool can_stay = usable_local(args[i]) && !taken.contains(args[i]) && first;
            EXPECT_EQ(names[i] == args[i], can_stay);
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 3 * pool.size() * pool.size() * pool.size());
}

// ===== helper_name ==========================================================

ir::Kernel of_operator(std::string ns, std::string name, std::string overload) {
  ir::Kernel k;
  k.op = {std::move(ns), std::move(name), std::move(overload)};
  return k;
}

TEST(HelperName, NamesTheOperatorAndNumbersNamesThatFoldTogether) {
  std::set<std::string> taken;
  EXPECT_EQ(emit::helper_name(of_operator("demo", "neg", "out"), taken, ""), "demo_neg_out");
  EXPECT_EQ(emit::helper_name(of_operator("demo", "neg", "out"), taken, ""), "demo_neg_out_2");
  // "demo_neg_out_2" is taken by now: the next number follows it.
  EXPECT_EQ(emit::helper_name(of_operator("demo", "neg", "out_2"), taken, ""), "demo_neg_out_2_2");
  EXPECT_EQ(emit::helper_name(of_operator("a_b", "c", ""), taken, "wrap_"), "wrap_a_b_c");
  EXPECT_EQ(emit::helper_name(of_operator("a", "b_c", ""), taken, "wrap_"), "wrap_a_b_c_2");
  EXPECT_EQ(emit::helper_name(of_operator("a", "b", "c"), taken, "wrap_"), "wrap_a_b_c_3");
  EXPECT_EQ(taken, (std::set<std::string>{"demo_neg_out", "demo_neg_out_2", "demo_neg_out_2_2",
                                          "wrap_a_b_c", "wrap_a_b_c_2", "wrap_a_b_c_3"}));

  // Names given before (the kernels' own, the file's) are avoided.
  std::set<std::string> file_names = {"register_library", "register_library_2"};
  EXPECT_EQ(emit::helper_name(of_operator("register", "library", ""), file_names, ""),
            "register_library_3");
}

// Operators named with a leading '_' are common (aten::_softmax.out): their
// helpers must still be unreserved identifiers, with no "__" anywhere.
TEST(HelperName, NeverReserved) {
  std::set<std::string> taken;
  for (const ir::Kernel& k :
       {of_operator("aten", "_softmax", "out"), of_operator("aten", "_to_copy", ""),
        of_operator("aten", "_softmax", "out")}) {
    for (std::string prefix : {"", "wrap_"}) {
      const std::string name = emit::helper_name(k, taken, prefix);
      EXPECT_TRUE(opscan::ident::is_valid_identifier(name)) << name;
    }
  }
}

TEST(GlobalKernelNames, OnlyKernelsInTheGlobalNamespace) {
  ir::Module m = module_of({et_neg_out(), et_neg_out()});
  m.kernels[1].cpp_function = "neg_out_global";
  EXPECT_EQ(emit::global_kernel_names(m), (std::set<std::string>{"neg_out_global"}));
}

// ===== include_guard ========================================================

// The tags of the built-in targets' headers.
const Names kTags = {"REGISTER_KERNELS_H", "NATIVE_FUNCTIONS_H", "FUNCTIONS_H",
                     "SELECTED_MAX_KERNEL_NUM_H"};

// Valid library names made of the guards' own words.
const Names kTrickyLibraries = {"a",
                                "a_NATIVE",
                                "a_NATIVE_FUNCTIONS",
                                "NATIVE",
                                "NATIVE_FUNCTIONS",
                                "NATIVE_FUNCTIONS_H",
                                "FUNCTIONS_H",
                                "H",
                                "FOR",
                                "FOR_a",
                                "a_FOR",
                                "a_FOR_b",
                                "H_FOR_a",
                                "H_FOR_NATIVE_FUNCTIONS_H",
                                "FUNCTIONS_H_FOR_a",
                                "REGISTER_KERNELS_H_FOR_a",
                                "KERNELS",
                                "OPSCAN_GENERATED",
                                "núcleo"};

TEST(IncludeGuard, DifferentLibraryOrTagGivesADifferentValidGuard) {
  std::map<std::string, std::pair<std::string, std::string>> seen;
  for (const std::string& library : kTrickyLibraries) {
    ASSERT_TRUE(opscan::ident::registration_symbol(library).ok()) << library;
    for (const std::string& tag : kTags) {
      const std::string guard = emit::include_guard(library, tag);
      EXPECT_TRUE(opscan::ident::is_valid_identifier(guard)) << guard;
      auto [it, fresh] = seen.emplace(guard, std::pair{library, tag});
      EXPECT_TRUE(fresh) << guard << " is the guard of (" << library << ", " << tag << ") and of ("
                         << it->second.first << ", " << it->second.second << ")";
    }
  }
  EXPECT_EQ(emit::include_guard("mine", "FUNCTIONS_H"), "OPSCAN_GENERATED_FUNCTIONS_H_FOR_mine");
}

// The guards of every header the built-in targets write are of those tags.
TEST(IncludeGuard, TheBuiltInTargetsGuardTheirHeadersWithTheseTags) {
  for (const auto& [target, kernel] :
       {std::pair{"executorch", et_neg_out()}, std::pair{"torch", torch_neg_out()}}) {
    for (std::string library : {"a_FOR_b", "NATIVE"}) {
      emit::Output output = generate(module_of({kernel}), options(target, library));
      ASSERT_FALSE(output.files.empty()) << dump(output.diagnostics);
      for (const emit::OutputFile& f : output.files) {
        if (f.kind != emit::OutputKind::header)
          continue;
        SCOPED_TRACE(f.path);
        const size_t at = f.content.find("#ifndef ");
        ASSERT_NE(at, std::string::npos);
        const std::string guard = f.content.substr(at + 8, f.content.find('\n', at) - at - 8);
        EXPECT_TRUE(contains(f.content, "#define " + guard + "\n"));
        bool of_a_tag = false;
        for (const std::string& tag : kTags)
          of_a_tag = of_a_tag || guard == emit::include_guard(library, tag);
        EXPECT_TRUE(of_a_tag) << guard;
      }
    }
  }
}

// ===== in_namespace =========================================================

TEST(InNamespace, GlobalNamespaceLeavesTheBodyAlone) {
  EXPECT_EQ(emit::in_namespace("", {}, "void f();\n"), "void f();\n");
}

TEST(InNamespace, OneBlockWithoutInlineNamespaces) {
  EXPECT_EQ(emit::in_namespace("a::b", {}, "void f();\n"),
            "namespace a::b {\n\nvoid f();\n\n}  // namespace a::b");
  // Inline namespaces elsewhere, or merely sharing a prefix, do not count.
  EXPECT_EQ(emit::in_namespace("a::bc", {"a::b", "c", "a::bc::d"}, "void f();\n"),
            "namespace a::bc {\n\nvoid f();\n\n}  // namespace a::bc");
}

TEST(InNamespace, InlineNamespacesAreOpenedInlineOneByOne) {
  EXPECT_EQ(emit::in_namespace("custom::v1", {"custom::v1"}, "void f();\n"),
            "namespace custom {\n"
            "inline namespace v1 {\n"
            "\n"
            "void f();\n"
            "\n"
            "}  // namespace v1\n"
            "}  // namespace custom");
  EXPECT_EQ(emit::in_namespace("a::v1::detail::v2", {"a::v1", "a::v1::detail::v2"}, "int x;\n"),
            "namespace a {\n"
            "inline namespace v1 {\n"
            "namespace detail {\n"
            "inline namespace v2 {\n"
            "\n"
            "int x;\n"
            "\n"
            "}  // namespace v2\n"
            "}  // namespace detail\n"
            "}  // namespace v1\n"
            "}  // namespace a");
  // The outermost one inline.
  EXPECT_EQ(emit::in_namespace("v1::a", {"v1"}, "int x;\n"), "inline namespace v1 {\n"
                                                             "namespace a {\n"
                                                             "\n"
                                                             "int x;\n"
                                                             "\n"
                                                             "}  // namespace a\n"
                                                             "}  // namespace v1");
}

// ===== function_declaration =================================================

TEST(FunctionDeclaration, LinkageAndNoexceptAsTheKernelIsDeclared) {
  ir::Kernel k = et_neg_out();
  EXPECT_EQ(emit::function_declaration(k, "int", "f(int x)"), "int f(int x);");
  k.cpp_noexcept = true;
  EXPECT_EQ(emit::function_declaration(k, "int", "f(int x)"), "int f(int x) noexcept;");
  k.cpp_linkage = ir::Linkage::c;
  EXPECT_EQ(emit::function_declaration(k, "int", "f(int x)"),
            "extern \"C\" int f(int x) noexcept;");
  k.cpp_noexcept = false;
  EXPECT_EQ(emit::function_declaration(k, "::std::int64_t", "f()"),
            "extern \"C\" ::std::int64_t f();");
}

// ===== Type spellings and names ==============================================

TEST(CanonicalTypes, EqualTypesCompareEqual) {
  EXPECT_EQ(emit::normalized("long long"), "long");
  EXPECT_EQ(emit::normalized("std::__1::optional<long long>"), "std::optional<long>");
  EXPECT_EQ(emit::normalized("std::tuple<at::Tensor &, at::Tensor &>"),
            "std::tuple<at::Tensor&,at::Tensor&>");
  EXPECT_EQ(emit::bare_canonical("const executorch::runtime::etensor::Tensor &"),
            "executorch::runtime::etensor::Tensor");
  EXPECT_EQ(emit::bare_canonical("at::Tensor &"), "at::Tensor");
  EXPECT_EQ(emit::bare_canonical("const std::optional<long long> &"), "std::optional<long>");
  EXPECT_EQ(emit::bare_canonical("double"), "double");
}

TEST(QualifiedNames, NamespaceAndName) {
  EXPECT_EQ(emit::namespace_of("a::b::f"), "a::b");
  EXPECT_EQ(emit::unqualified("a::b::f"), "f");
  EXPECT_EQ(emit::namespace_of("f"), "");
  EXPECT_EQ(emit::unqualified("f"), "f");
}

} // namespace
