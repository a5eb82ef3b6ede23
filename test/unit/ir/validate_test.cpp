// ir::validate, one rule at a time: each error's code, the JSON path its
// message starts with, and its location in the IR file. The payloads are
// what a hand-edited or hostile IR file could hold: text that would break
// out of generated code, names that are not identifiers, control
// characters, invalid UTF-8. Also ir::Locator.
#include "ir/ir_test_helpers.h"
#include "ir/validate.h"
#include "support/text.h"

#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace opscan;
using namespace opscan::ir;
using namespace opscan::ir_test;
using namespace std::string_literals;

struct Validated {
  std::string json; // the IR file the module is located in
  Json doc;
  bool from_file = false; // the module is what that file reads as
  diag::Diagnostics diagnostics;
};

std::string messages(const diag::Diagnostics& diags) {
  std::string all;
  for (const diag::Diagnostic& d : diags)
    all += ::testing::PrintToString(d) + "\n";
  return all;
}

// Validates `module` as `opscan generate` validates an IR file: located in
// the text to_json writes for it (or for `layout`, a module of the same
// shape, when the module cannot be written as it is). When the file reads
// back as the module, the file is what is validated: the payload can come
// from a file. Otherwise (invalid UTF-8, which the writer replaces; types
// that do not print as themselves) the module is validated as it is, as a
// scan's would be.
Validated validated(const Module& module, const std::optional<Module>& layout = std::nullopt) {
  Validated v;
  EXPECT_TRUE(is_canonical(layout ? *layout : module)) << "kernels[i] must be module.kernels[i]";
  v.json = to_json(layout ? *layout : module, test_fields());
  v.doc = Json::parse(v.json);
  ReadResult read = from_json(v.json, kPath, test_fields());
  EXPECT_TRUE(read.module.has_value()) << messages(read.diagnostics);
  if (!read.module)
    return v;
  Locator locator;
  locator.add(*read.module, read.positions);
  v.from_file = !layout && *read.module == module;
  v.diagnostics = validate(v.from_file ? *read.module : module, locator);
  return v;
}

// Expects errors of `v`, at least one, all with `code`, located at `path`
// and with messages starting with it; returns the first.
diag::Diagnostic expect_errors(const Validated& v, const std::string& code,
                               const std::string& path) {
  EXPECT_FALSE(v.diagnostics.empty());
  for (const diag::Diagnostic& d : v.diagnostics) {
    EXPECT_EQ(d.severity, diag::Severity::error);
    EXPECT_EQ(d.code, code) << d.message;
    EXPECT_TRUE(d.message.starts_with(path + ": ")) << d.message;
    EXPECT_EQ(d.location, value_location(v.doc, pointer_of(path)));
  }
  return v.diagnostics.empty() ? diag::Diagnostic{} : v.diagnostics[0];
}

// Expects exactly one error of `v`, as expect_errors does; returns it.
diag::Diagnostic expect_error(const Validated& v, const std::string& code,
                              const std::string& path) {
  EXPECT_EQ(v.diagnostics.size(), 1u) << messages(v.diagnostics);
  return expect_errors(v, code, path);
}

void expect_valid(const Validated& v) {
  EXPECT_TRUE(v.diagnostics.empty()) << messages(v.diagnostics);
}

// A library IR with `kernel` as its only kernel (kernels[0]).
Module with_kernel(Kernel kernel) {
  Module m = full_module();
  m.kernels = {std::move(kernel)};
  return m;
}

// Control characters, as JSON can carry them (escaped).
const std::vector<std::string> kControl = {"\n", "\r", "\t", "\x1b[2J", "\x7f", "a\0b"s, "\x01"};
// Bytes that are not UTF-8: never in a JSON file (the reader refuses them),
// but a scan can produce them.
const std::vector<std::string> kNotUtf8 = {"\xff", "\xc3(", "\xed\xa0\x80", "\xc0\xaf", "\xe2\x82"};

// ===== Valid modules ========================================================

TEST(IrValidate, ValidModulesHaveNoProblems) {
  expect_valid(validated(full_module()));
  expect_valid(validated(static_library()));
  expect_valid(validated(Module{}));
  Module fragment_module = full_module();
  fragment_module.library.reset();
  expect_valid(validated(fragment_module));
  // Every kind of default value.
  for (const auto& [type, value] :
       std::vector<std::pair<std::string, std::string>>{{"float", "1.5"},
                                                        {"float", "-2"},
                                                        {"int", "0"},
                                                        {"int[]", "[0, 1]"},
                                                        {"float?", "None"},
                                                        {"str", "'mean'"},
                                                        {"str", "\"mean\""},
                                                        {"bool", "True"},
                                                        {"ScalarType?", "None"},
                                                        {"Scalar", "1"}}) {
    SCOPED_TRACE(type + " = " + value);
    Kernel k = scale();
    k.arguments[1] = argument("factor", type, "T", "T", true, value);
    expect_valid(validated(with_kernel(k)));
  }
}

// ===== Text that messages show ==============================================

TEST(IrValidate, GeneratorAndLibclangVersionArePrintableUtf8) {
  for (const char* field : {"generator", "libclang_version"}) {
    for (const std::string& bad : kControl) {
      SCOPED_TRACE(std::string(field) + " = " + ::testing::PrintToString(bad));
      Module m = full_module();
      (field == "generator"s ? m.generator : m.libclang_version) = "opscan " + bad;
      Validated v = validated(m);
      EXPECT_TRUE(v.from_file);
      diag::Diagnostic d = expect_error(v, "opscan-ir-invalid", field);
      EXPECT_EQ(d.message, std::string(field) + ": " + support::quoted("opscan " + bad) +
                               " holds a control character");
    }
    for (const std::string& bad : kNotUtf8) {
      SCOPED_TRACE(std::string(field) + " = " + ::testing::PrintToString(bad));
      Module m = full_module();
      (field == "generator"s ? m.generator : m.libclang_version) = "opscan " + bad;
      diag::Diagnostic d = expect_error(validated(m), "opscan-ir-invalid", field);
      EXPECT_TRUE(d.message.ends_with(" is not valid UTF-8")) << d.message;
    }
  }
}

TEST(IrValidate, AliasesAreNamedPrintableAndDenoteSomething) {
  // full_module()'s aliases[0] is c10::optional.
  for (const std::string& bad : kControl) {
    SCOPED_TRACE(::testing::PrintToString(bad));
    Module m = full_module();
    m.aliases["c10::optional"] = "std::" + bad;
    diag::Diagnostic d = expect_error(validated(m), "opscan-ir-invalid", "aliases[0].denotes");
    EXPECT_TRUE(d.message.ends_with(" holds a control character")) << d.message;
  }
  Module m = full_module();
  m.aliases["c10::optional"] = "";
  diag::Diagnostic d = expect_error(validated(m), "opscan-ir-invalid", "aliases[0]");
  EXPECT_EQ(d.message, "aliases[0]: an alias needs a name and what it denotes");
  m = full_module();
  m.aliases.emplace("", "std::optional");
  expect_error(validated(m), "opscan-ir-invalid", "aliases[0]");
}

TEST(IrValidate, KernelTextIsPrintableUtf8) {
  using Field = std::string& (*)(Kernel&);
  const std::vector<std::pair<std::string, Field>> fields = {
      {"cpp_return_type", [](Kernel& k) -> std::string& { return k.cpp_return_type; }},
      {"cpp_canonical_return_type",
       [](Kernel& k) -> std::string& { return k.cpp_canonical_return_type; }},
      {"kernel_key", [](Kernel& k) -> std::string& { return k.fields["kernel_key"]; }},
      {"dispatch_key", [](Kernel& k) -> std::string& { return k.fields["dispatch_key"]; }},
      {"location.file", [](Kernel& k) -> std::string& { return k.location.file; }},
      {"usr", [](Kernel& k) -> std::string& { return k.usr; }},
      {"arguments[3].cpp_type", [](Kernel& k) -> std::string& { return k.arguments[3].cpp_type; }},
      {"arguments[0].cpp_canonical_type",
       [](Kernel& k) -> std::string& { return k.arguments[0].cpp_canonical_type; }},
  };
  for (const auto& [field, value_of] : fields) {
    for (const std::string& bad : kControl) {
      SCOPED_TRACE(field + " += " + ::testing::PrintToString(bad));
      Kernel k = add_out();
      value_of(k) += bad;
      Validated v = validated(with_kernel(k));
      EXPECT_TRUE(v.from_file);
      diag::Diagnostic d = expect_error(v, "opscan-ir-invalid", "kernels[0]." + field);
      EXPECT_TRUE(d.message.ends_with(" holds a control character")) << d.message;
      // The message shows the text escaped.
      EXPECT_EQ(d.message.find_first_of("\n\r\t\x1b\x7f"s + '\0'), std::string::npos);
    }
    for (const std::string& bad : kNotUtf8) {
      SCOPED_TRACE(field + " += " + ::testing::PrintToString(bad));
      Kernel k = add_out();
      value_of(k) += bad;
      diag::Diagnostic d =
          expect_error(validated(with_kernel(k)), "opscan-ir-invalid", "kernels[0]." + field);
      EXPECT_TRUE(d.message.ends_with(" is not valid UTF-8")) << d.message;
      EXPECT_TRUE(support::is_utf8(d.message)) << d.message;
    }
  }
}

TEST(IrValidate, LibraryFunctionAndLinkAnchorArePrintable) {
  for (const std::string& bad : kControl) {
    SCOPED_TRACE(::testing::PrintToString(bad));
    Module named = full_module();
    named.library->function += bad;
    expect_error(validated(named), "opscan-ir-invalid", "library.function");
    Module anchored = static_library();
    anchored.library->link_anchor += bad;
    expect_error(validated(anchored), "opscan-ir-invalid", "library.link_anchor");
  }
}

TEST(IrValidate, UsrMustNotBeEmpty) {
  Kernel k = scale();
  k.usr = "";
  diag::Diagnostic d =
      expect_error(validated(with_kernel(k)), "opscan-ir-invalid", "kernels[0].usr");
  EXPECT_EQ(d.message, "kernels[0].usr: the USR is empty; it names the kernel's C++ function");
}

// ===== Sources ==============================================================

TEST(IrValidate, SourcesHaveAPath) {
  Module m = full_module();
  m.sources = {{"", kShaA}};
  diag::Diagnostic d = expect_error(validated(m), "opscan-ir-invalid", "sources[0].path");
  EXPECT_EQ(d.message, "sources[0].path: the path is empty");
  for (const std::string& bad : kControl) {
    SCOPED_TRACE(::testing::PrintToString(bad));
    m.sources = {{"a.cpp", kShaA}, {"b" + bad + ".cpp", kShaB}};
    expect_error(validated(m), "opscan-ir-invalid", "sources[1].path");
  }
}

TEST(IrValidate, EachSourceIsListedOnce) {
  // With two contents (kShaB sorts first), or twice alike: a file has one
  // entry.
  Module m = full_module();
  m.sources = {{"a.cpp", kShaB}, {"a.cpp", kShaA}, {"b.cpp", kShaB}};
  diag::Diagnostic d = expect_error(validated(m), "opscan-ir-invalid", "sources[1].path");
  EXPECT_EQ(d.message, "sources[1].path: 'a.cpp' is listed twice (also sources[0]): a source "
                       "has one entry");
  m.sources = {{"a.cpp", kShaA}, {"a.cpp", kShaA}};
  const diag::Diagnostics twice = validate(m, Locator());
  ASSERT_EQ(twice.size(), 1u) << messages(twice);
  EXPECT_EQ(twice[0].code, "opscan-ir-invalid");
  EXPECT_EQ(twice[0].message, "'a.cpp' is listed twice (also sources[0]): a source has one entry");
}

TEST(IrValidate, Sha256Is64LowercaseHexDigits) {
  const std::vector<std::string> bad = {
      "",
      std::string(63, 'a'),
      std::string(65, 'a'),
      std::string(64, 'A'),
      std::string(63, 'a') + "g",
      std::string(63, 'a') + " ",
      " " + std::string(63, 'a'),
      std::string(63, 'a') + "\n",
      "sha256:" + std::string(57, 'a'),
      "0x" + std::string(62, 'a'),
      std::string(32, 'a') + "\xc3\xa9" + std::string(30, 'a'),
  };
  for (const std::string& sha : bad) {
    SCOPED_TRACE(::testing::PrintToString(sha));
    Module m = full_module();
    m.sources = {{"a.cpp", kShaA}, {"b.cpp", sha}};
    diag::Diagnostic d = expect_error(validated(m), "opscan-ir-invalid", "sources[1].sha256");
    EXPECT_TRUE(d.message.ends_with(" is not a SHA-256 (64 lowercase hex digits)")) << d.message;
  }
  for (const std::string& sha : {kShaA, kShaB, std::string(64, '0'), std::string(64, 'f')}) {
    Module m = full_module();
    m.sources = {{"a.cpp", sha}};
    expect_valid(validated(m));
  }
}

// ===== The library record ===================================================

TEST(IrValidate, LibraryNameMakesARegistrationSymbol) {
  const std::vector<std::string> bad = {
      "../evil", "a\"b", "",   "class", "for",  "and",    "a b",     "1abc",         "a-b", "a/b",
      "a\nb",    "a\\b", "_x", "x_",    "a__b", "all_/*", "ops?\?/", "cafe\xcc\x81", // not NFC
  };
  for (const std::string& name : bad) {
    SCOPED_TRACE(::testing::PrintToString(name));
    Module m = full_module();
    m.library->name = name;
    Validated v = validated(m);
    EXPECT_TRUE(v.from_file);
    expect_errors(v, "opscan-ir-library-name", "library.name");
  }
  Module m = full_module();
  m.library->name = "\xff";
  expect_errors(validated(m), "opscan-ir-library-name", "library.name");
  // "all" is the default library's; warnings (a contextual keyword) are no
  // errors.
  for (const std::string name : {"all", "portable", "ops2", "café", "final", "Ops_v2"}) {
    SCOPED_TRACE(name);
    Module ok = full_module();
    ok.library->name = name;
    expect_valid(validated(ok));
  }
}

TEST(IrValidate, LibraryTargetIsAName) {
  for (const std::string target :
       {"", "execu torch", "../torch", "torch\n", "t\xc3\xb8rch", "torch;", "1torch", "-torch",
        "torch-", "executorch--aot", "executorch-"}) {
    SCOPED_TRACE(::testing::PrintToString(target));
    Module m = full_module();
    m.library->target = target;
    diag::Diagnostic d = expect_error(validated(m), "opscan-ir-invalid", "library.target");
    EXPECT_EQ(d.message, "library.target: " + support::quoted(target) + " is not a target name");
  }
  // Which names are targets is the registry's business, not validate's.
  for (const std::string target : {"torch", "executorch", "my_target2", "executorch-aot"}) {
    Module m = full_module();
    m.library->target = target;
    expect_valid(validated(m));
  }
}

// ===== Operator names =======================================================

TEST(IrValidate, OperatorNamesFollowTheNamingRules) {
  const std::vector<schema::OperatorName> bad = {
      {"", "scale", ""},           {"a-b", "scale", ""},         {"custom", "sca le", ""},
      {"custom", "scale_out", ""}, {"custom", "__scale", ""},    {"custom", "scale", "default"},
      {"custom", "scale", "__x"},  {"custom", "scale", "out\""}, {"custom::x", "scale", ""},
      {"custom", "scale\n", ""},   {"custom", "", "out"},        {"c\xc3\xbcstom", "scale", ""},
      {"custom", "scale", "a.b"},  {"custom", "1scale", ""},     {"custom", "scale(", ""},
  };
  for (const schema::OperatorName& op : bad) {
    SCOPED_TRACE(::testing::PrintToString(op.str()));
    Kernel k = scale();
    k.op = op;
    Validated v = validated(with_kernel(k));
    EXPECT_TRUE(v.from_file);
    diag::Diagnostic d = expect_errors(v, "opscan-ir-operator-name", "kernels[0].operator");
    EXPECT_TRUE(d.message.starts_with("kernels[0].operator: " + support::quoted(op.str()) + ": "))
        << d.message;
  }
  for (const schema::OperatorName& op : std::vector<schema::OperatorName>{
           {"custom", "scale", "Tensor_out"}, {"_ns", "x1", ""}, {"aten", "scale", "Scalar"}}) {
    SCOPED_TRACE(op.str());
    Kernel k = scale();
    k.op = op;
    expect_valid(validated(with_kernel(k)));
  }
}

// ===== The schema's parts ===================================================

TEST(IrValidate, ArgumentNamesAreSchemaIdentifiers) {
  for (const std::string name :
       {"a b", "1x", "", "x-y", "x)", "x\n", "x=1", "\xc3\xb1", "x?\?/", "self*/", "x\"", "x\\",
        "x, Tensor y", "x) -> Tensor; //", "x\u2028"}) {
    SCOPED_TRACE(::testing::PrintToString(name));
    Kernel k = scale();
    k.arguments[1].schema.name = name;
    Validated v = validated(with_kernel(k));
    EXPECT_TRUE(v.from_file);
    diag::Diagnostic d = expect_error(v, "opscan-ir-schema", "kernels[0].arguments[1].name");
    EXPECT_EQ(d.message, "kernels[0].arguments[1].name: " + support::quoted(name) +
                             " is not a schema identifier");
  }
  // C++ keywords are schema identifiers: generated code renames locals.
  // (Not libtorch's keywords, such as "for": opscan-schema-reserved-word.)
  for (const std::string name : {"self", "_x", "switch", "X2"}) {
    Kernel k = scale();
    k.arguments[1].schema.name = name;
    expect_valid(validated(with_kernel(k)));
  }
}

TEST(IrValidate, ReturnNamesAreEmptyOrSchemaIdentifiers) {
  for (const std::string name : {"re sult", "1", "x\n", "-> Tensor", "x,", "x*/"}) {
    SCOPED_TRACE(::testing::PrintToString(name));
    Kernel k = scale();
    k.returns[0].name = name;
    diag::Diagnostic d =
        expect_error(validated(with_kernel(k)), "opscan-ir-schema", "kernels[0].returns[0].name");
    EXPECT_EQ(d.message, "kernels[0].returns[0].name: " + support::quoted(name) +
                             " is not a schema identifier");
  }
  Kernel unnamed = scale();
  unnamed.returns[0].name = "";
  expect_valid(validated(with_kernel(unnamed)));
}

TEST(IrValidate, DefaultValuesAreDefaultValues) {
  // Each would change the schema it is printed in, or carry text past it.
  for (const std::string value :
       {"1\n", "\n1", "1 ", " 1", "1) -> Tensor", "1, float y=2", "'unterminated", "1\\", "",
        "[1, 2", "[1,2]", "None)", "1 # c", "1\r", "1\t", "1/*", "'a''b'", "1 2", "1\x1b"}) {
    SCOPED_TRACE(::testing::PrintToString(value));
    Kernel k = scale();
    k.arguments[1].schema.default_value = value;
    Validated v = validated(with_kernel(k));
    EXPECT_TRUE(v.from_file);
    diag::Diagnostic d = expect_error(v, "opscan-ir-schema", "kernels[0].arguments[1].default");
    EXPECT_TRUE(d.message.starts_with("kernels[0].arguments[1].default: " + support::quoted(value) +
                                      " is not a default value"))
        << d.message;
  }
  // A string default with text that would end a comment, continue a line
  // or close a string: a default like any other (generated code escapes
  // it).
  for (const std::string value : {"'*/'", "'?\?/'", "'\\''", "'a\"b'", "'//'"}) {
    SCOPED_TRACE(value);
    Kernel k = scale();
    k.arguments[1] =
        argument("reduction", "str", "std::string_view", "std::string_view", true, value);
    Validated v = validated(with_kernel(k));
    EXPECT_TRUE(v.from_file);
    expect_valid(v);
  }
}

TEST(IrValidate, SchemaReadsBackAsItself) {
  // Two arguments of one name: the printed schema does not parse.
  Kernel twice = scale();
  twice.arguments[1].schema.name = "x";
  diag::Diagnostic d =
      expect_error(validated(with_kernel(twice)), "opscan-ir-schema", "kernels[0].schema");
  EXPECT_TRUE(d.message.starts_with(
      "kernels[0].schema: 'custom::scale(Tensor x, float x) -> Tensor result' does not read back "
      "as itself: "))
      << d.message;

  // A positional argument after a keyword-only one would read back as
  // keyword-only.
  Kernel order = add_out();
  order.arguments[3].schema.kwarg_only = false;
  Validated v = validated(with_kernel(order));
  EXPECT_TRUE(v.from_file);
  d = expect_error(v, "opscan-ir-schema", "kernels[0].schema");
  EXPECT_EQ(d.message,
            "kernels[0].schema: 'aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, "
            "Tensor(a!) out) -> Tensor(a!)' does not read back as itself");
}

TEST(IrValidate, SchemaInvariantsHold) {
  struct Case {
    const char* name;
    void (*change)(Kernel&);
    std::string code;
  };
  const std::vector<Case> cases = {
      {"default of another type", [](Kernel& k) { k.arguments[1].schema.default_value = "'mean'"; },
       "opscan-schema-default-type"},
      {"alias on a float", [](Kernel& k) { k.arguments[1].schema.type = type_of("float(a)"); },
       "opscan-schema-alias-type"},
      {"positional default before none",
       [](Kernel& k) { k.arguments[0] = argument("x", "Tensor?", "T", "T", false, "None"); },
       "opscan-schema-default-order"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Kernel k = scale();
    c.change(k);
    Validated v = validated(with_kernel(k));
    EXPECT_TRUE(v.from_file);
    diag::Diagnostic d = expect_error(v, "opscan-ir-schema", "kernels[0].schema");
    EXPECT_TRUE(d.message.ends_with(" [" + c.code + "]")) << d.message;
  }
}

TEST(IrValidate, NamingProblemsAreReportedAtTheOperatorOnly) {
  // check_schema would report the name too; the operator's error says it.
  Kernel k = add_out();
  k.op.name = "add_out";
  k.op.overload = "";
  diag::Diagnostic d =
      expect_error(validated(with_kernel(k)), "opscan-ir-operator-name", "kernels[0].operator");
  EXPECT_NE(d.message.find("ends in '_out'"), std::string::npos) << d.message;
}

TEST(IrValidate, TypesPrintAsThemselves) {
  // Only a scan could build these: they cannot be written and read back.
  Module layout = with_kernel(scale());
  struct Case {
    const char* name;
    void (*change)(schema::Type&);
  };
  const std::vector<Case> cases = {
      {"base with a space", [](schema::Type& t) { t.base = "Ten sor"; }},
      {"unknown base", [](schema::Type& t) { t.base = "Tensr"; }},
      {"alias that prints nothing",
       [](schema::Type& t) {
         t.alias = schema::AliasInfo{{"a b"}, true, {}};
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Module argument_module = layout;
    c.change(argument_module.kernels[0].arguments[0].schema.type);
    expect_error(validated(argument_module, layout), "opscan-ir-schema",
                 "kernels[0].arguments[0].schema_type");
    Module return_module = layout;
    c.change(return_module.kernels[0].returns[0].type);
    expect_error(validated(return_module, layout), "opscan-ir-schema",
                 "kernels[0].returns[0].schema_type");
  }
}

// ===== C++ names ============================================================

TEST(IrValidate, CppFunctionIsAQualifiedNameOfValidIdentifiers) {
  const std::vector<std::string> bad = {
      "",
      "custom::sca le",
      "custom::delete",
      "custom::(anonymous namespace)::scale",
      "(anonymous namespace)::scale",
      "custom::::scale",
      "::custom::scale",
      "custom::scale::",
      "custom::scale()",
      "custom::scale;evil",
      "__scale",
      "_Scale",
      "custom::__scale",
      "custom::scale\n",
      "custom:scale",
      "custom::operator+",
      "custom::~scale",
      "custom::scale<int>",
      "custom::1scale",
      "and",
      "custom::scale?\?/",
      "custom::scale*/",
      "custom::scale\"",
  };
  for (const std::string& name : bad) {
    SCOPED_TRACE(::testing::PrintToString(name));
    Kernel k = scale();
    k.cpp_function = name;
    Validated v = validated(with_kernel(k));
    EXPECT_TRUE(v.from_file);
    expect_errors(v, "opscan-ir-cpp-name", "kernels[0].cpp_function");
  }
  Kernel k = scale();
  k.cpp_function = "custom::\xff";
  expect_errors(validated(with_kernel(k)), "opscan-ir-cpp-name", "kernels[0].cpp_function");
  // A leading '_' is reserved at global scope only; Unicode identifiers and
  // contextual keywords are identifiers.
  for (const std::string name :
       {"scale", "custom::_scale", "custom::v2::scale", "añadir::核", "custom::final"}) {
    SCOPED_TRACE(name);
    Kernel ok = scale();
    ok.cpp_function = name;
    expect_valid(validated(with_kernel(ok)));
  }
}

TEST(IrValidate, CppFunctionProblemsAreNamedOnePerComponent) {
  Kernel k = scale();
  k.cpp_function = "for::a b::scale";
  Validated v = validated(with_kernel(k));
  ASSERT_EQ(v.diagnostics.size(), 2u) << messages(v.diagnostics);
  expect_errors(v, "opscan-ir-cpp-name", "kernels[0].cpp_function");
  EXPECT_NE(v.diagnostics[0].message.find("'for'"), std::string::npos);
  EXPECT_NE(v.diagnostics[1].message.find("'a b'"), std::string::npos);
}

TEST(IrValidate, InlineNamespacesEncloseTheFunction) {
  // add_out(): custom::v2::native::add_out.
  struct Case {
    std::vector<std::string> namespaces;
    size_t bad;
    std::string message;
  };
  const std::string not_enclosing = " is not a namespace enclosing 'custom::v2::native::add_out'";
  const std::vector<Case> cases = {
      {{"other"}, 0, "'other'" + not_enclosing},
      {{"custom::v"}, 0, "'custom::v'" + not_enclosing},
      {{"v2"}, 0, "'v2'" + not_enclosing},
      {{""}, 0, "''" + not_enclosing},
      {{"custom::v2::native::add_out"}, 0, "'custom::v2::native::add_out'" + not_enclosing},
      {{"custom::v2::"}, 0, "'custom::v2::'" + not_enclosing},
      {{"::custom"}, 0, "'::custom'" + not_enclosing},
      {{"custom::v2", "custom::v2"}, 1, "'custom::v2' is listed twice"},
      {{"custom", "x\ny"}, 1, "'x\\ny'" + not_enclosing},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    Kernel k = add_out();
    k.cpp_inline_namespaces = c.namespaces;
    const std::string path = "kernels[0].cpp_inline_namespaces[" + std::to_string(c.bad) + "]";
    diag::Diagnostic d = expect_error(validated(with_kernel(k)), "opscan-ir-cpp-name", path);
    EXPECT_EQ(d.message, path + ": " + c.message);
  }
  for (const std::vector<std::string>& namespaces : std::vector<std::vector<std::string>>{
           {}, {"custom"}, {"custom::v2::native"}, {"custom::v2", "custom"}}) {
    Kernel k = add_out();
    k.cpp_inline_namespaces = namespaces;
    expect_valid(validated(with_kernel(k)));
  }
}

// ===== Duplicates ===========================================================

TEST(IrValidate, TheSameUsrTwiceIsOneKernelRegisteredTwice) {
  Module m = full_module();
  Kernel again = scale("src/scale.cpp", 90); // a declaration and its definition, say
  m.kernels.push_back(again);
  Validated v = validated(m);
  EXPECT_TRUE(v.from_file);
  diag::Diagnostic d = expect_error(v, "opscan-duplicate-kernel", "kernels[3]");
  EXPECT_EQ(d.message, "kernels[3]: the same kernel as kernels[2] (USR 'c:@F@scale'); a kernel "
                       "is registered once");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].location, again.location);

  // However different the two records: a USR names one function.
  Module other = full_module();
  Kernel different = add_out("src/z.cpp", 1);
  different.usr = other.kernels[0].usr;
  different.cpp_function = "custom::v2::evil";
  other.kernels.push_back(different);
  canonicalize(other);
  expect_error(validated(other), "opscan-duplicate-kernel", "kernels[2]");
}

TEST(IrValidate, KernelsOfOneOperatorAndKeyAreTheTargetsBusiness) {
  Module m = full_module();
  Kernel second = add_out("src/z.cpp", 1);
  second.usr = "c:@F@add_out_again";
  second.cpp_function = "custom::v2::add_out_again";
  m.kernels.push_back(second);
  canonicalize(m);
  expect_valid(validated(m));
}

TEST(IrValidate, EveryProblemIsReported) {
  Kernel k = add_out();
  k.cpp_function = "custom::v2::a b";
  k.arguments[0].schema.name = "se lf";
  k.usr += "\n";
  Module m = with_kernel(k);
  m.sources[1].sha256 = "x";
  Validated v = validated(m);
  std::vector<std::string> codes_and_paths;
  for (const diag::Diagnostic& d : v.diagnostics)
    codes_and_paths.push_back(d.code + " " + d.message.substr(0, d.message.find(':')));
  EXPECT_EQ(codes_and_paths, (std::vector<std::string>{
                                 "opscan-ir-invalid sources[1].sha256",
                                 "opscan-ir-schema kernels[0].arguments[0].name",
                                 "opscan-ir-cpp-name kernels[0].cpp_function",
                                 "opscan-ir-invalid kernels[0].usr",
                             }));
}

// ===== The locator ==========================================================

TEST(IrLocator, ScannedModulesAreLocatedAtTheKernelsSource) {
  Kernel k = scale();
  k.cpp_function = "custom::a b";
  Module m = with_kernel(k);
  m.library->target = "a b";
  diag::Diagnostics diags = validate(m, Locator());
  ASSERT_EQ(diags.size(), 2u) << messages(diags);
  // The module's problem is located nowhere; the kernel's at its source.
  EXPECT_EQ(diags[0].code, "opscan-ir-invalid");
  EXPECT_FALSE(diags[0].location.valid());
  EXPECT_EQ(diags[0].message, "'a b' is not a target name");
  EXPECT_EQ(diags[1].code, "opscan-ir-cpp-name");
  EXPECT_EQ(diags[1].location, k.location);
  EXPECT_FALSE(diags[1].message.starts_with("kernels[")) << diags[1].message;
}

TEST(IrLocator, KernelsAreFoundByUsrInTheFileTheyWereReadFrom) {
  const Module a =
      fragment({{"a.cpp", kShaA}}, {add_out_fallback("a.cpp", 5), add_out("a.cpp", 9)});
  const Module b = fragment({{"b.cpp", kShaB}}, {scale("b.cpp", 7)});
  const std::string a_json = to_json(a, test_fields()), b_json = to_json(b, test_fields());
  ReadResult read_a = from_json(a_json, "a.json", test_fields());
  ReadResult read_b = from_json(b_json, "b.json", test_fields());
  ASSERT_TRUE(read_a.module && read_b.module);
  Locator locator;
  locator.add(*read_a.module, read_a.positions);
  locator.add(*read_b.module, read_b.positions);
  // As after merging: the kernels in another order, in one module.
  const Kernel& keyed = a.kernels[1];
  diag::Diagnostic d = locator.kernel_error(keyed, "arguments[1].name", "code", "problem");
  EXPECT_EQ(d.message, "kernels[1].arguments[1].name: problem");
  EXPECT_EQ(d.location, value_location(Json::parse(a_json),
                                       pointer_of("kernels[1].arguments[1].name"), "a.json"));
  d = locator.kernel_error(b.kernels[0], "", "code", "problem");
  EXPECT_EQ(d.message, "kernels[0]: problem");
  EXPECT_EQ(d.location, value_location(Json::parse(b_json), pointer_of("kernels[0]"), "b.json"));
  // A kernel of no file: at its source, without a path.
  Kernel unknown = scale("c.cpp", 3);
  unknown.usr = "c:@F@nowhere";
  d = locator.kernel_error(unknown, "usr", "code", "problem");
  EXPECT_EQ(d.message, "problem");
  EXPECT_EQ(d.location, unknown.location);
  // Module-level problems: in the file added last.
  d = locator.module_error("sources[0].sha256", "code", "problem");
  EXPECT_EQ(d.message, "sources[0].sha256: problem");
  EXPECT_EQ(d.location,
            value_location(Json::parse(b_json), pointer_of("sources[0].sha256"), "b.json"));
}

} // namespace
