// The IR as JSON (lib/ir/json.cpp): round trip of every field, determinism,
// the writer's exact text, and the reader: every structural error named by
// its JSON path and located at its value, strictness (unknown fields,
// duplicate keys, other versions), escapes, byte-order marks, and agreement
// with nlohmann on what JSON is.
#include "ir/ir_test_helpers.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace opscan;
using namespace opscan::ir;
using namespace opscan::ir_test;
using namespace std::string_literals;

// ===== Round trip ===========================================================

ReadResult read_ir(const std::string& text) {
  return from_json(text, kPath, test_fields());
}

// Reads `text` and expects it to read as `expected`.
void expect_reads_as(const std::string& text, const Module& expected) {
  ReadResult r = read_ir(text);
  ASSERT_TRUE(r.module.has_value()) << r.diagnostics[0].message;
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_EQ(*r.module, expected);
}

TEST(IrRoundTrip, EveryFieldSurvives) {
  const Module module = full_module();
  ASSERT_TRUE(is_canonical(module));
  const std::string json = to_json(module, test_fields());
  expect_reads_as(json, module);
  EXPECT_EQ(to_json(*read_ir(json).module, test_fields()), json);
}

TEST(IrRoundTrip, EveryEnumValueSurvivesWithItsDocumentedSpelling) {
  const std::vector<std::pair<ContextKind, std::string>> contexts = {
      {ContextKind::none, "none"},
      {ContextKind::runtime_context, "KernelRuntimeContext"},
      {ContextKind::dispatch_key_set, "DispatchKeySet"}};
  const std::vector<std::pair<SchemaOrigin, std::string>> origins = {
      {SchemaOrigin::inferred, "inferred"},
      {SchemaOrigin::declared, "declared"},
      {SchemaOrigin::known, "known"}};
  const std::vector<std::pair<Linkage, std::string>> linkages = {{Linkage::cxx, "C++"},
                                                                 {Linkage::c, "C"}};
  const std::vector<std::pair<Registration, std::string>> registrations = {
      {Registration::static_init, "static"},
      {Registration::manual, "manual"},
      {Registration::named, "named"}};
  for (const auto& [context, name] : contexts) {
    Module m = full_module();
    m.kernels[2].context = context;
    EXPECT_NE(to_json(m, test_fields()).find("\"context\": \"" + name + "\""), std::string::npos)
        << name;
    expect_reads_as(to_json(m, test_fields()), m);
  }
  for (const auto& [origin, name] : origins) {
    Module m = full_module();
    m.kernels[2].schema_origin = origin;
    EXPECT_NE(to_json(m, test_fields()).find("\"schema_origin\": \"" + name + "\""),
              std::string::npos)
        << name;
    expect_reads_as(to_json(m, test_fields()), m);
  }
  for (const auto& [linkage, name] : linkages) {
    Module m = full_module();
    m.kernels[2].cpp_linkage = linkage;
    EXPECT_NE(to_json(m, test_fields()).find("\"cpp_linkage\": \"" + name + "\""),
              std::string::npos)
        << name;
    expect_reads_as(to_json(m, test_fields()), m);
  }
  for (const auto& [registration, name] : registrations) {
    Module m = full_module();
    m.library->registration = registration;
    EXPECT_NE(to_json(m, test_fields()).find("\"registration\": \"" + name + "\""),
              std::string::npos)
        << name;
    expect_reads_as(to_json(m, test_fields()), m);
  }
  for (bool noexcept_ : {false, true}) {
    Module m = full_module();
    m.kernels[2].cpp_noexcept = noexcept_;
    expect_reads_as(to_json(m, test_fields()), m);
  }
}

TEST(IrRoundTrip, AbsentDefaultStaysAbsentAndEmptyDefaultStaysEmpty) {
  Module module = full_module();
  module.kernels[0].arguments[2].schema.default_value = std::nullopt;
  module.kernels[1].arguments[2].schema.default_value = "";
  ReadResult r = read_ir(to_json(module, test_fields()));
  ASSERT_TRUE(r.module.has_value()) << r.diagnostics[0].message;
  EXPECT_EQ(r.module->kernels[0].arguments[2].schema.default_value, std::nullopt);
  EXPECT_EQ(r.module->kernels[1].arguments[2].schema.default_value, std::optional<std::string>(""));
  EXPECT_EQ(*r.module, module);
}

TEST(IrRoundTrip, LibraryOnlyWhenSetAndLinkAnchorOnlyWhenNotEmpty) {
  const std::string named = to_json(full_module(), test_fields());
  EXPECT_EQ(named.find("link_anchor"), std::string::npos);

  Module fragment = full_module();
  fragment.library.reset();
  const std::string fragment_json = to_json(fragment, test_fields());
  EXPECT_EQ(fragment_json.find("\"library\""), std::string::npos);
  expect_reads_as(fragment_json, fragment);

  const Module library = static_library();
  const std::string static_json = to_json(library, test_fields());
  EXPECT_NE(static_json.find("    \"target\": \"executorch\",\n"
                             "    \"link_anchor\": \"opscan_static_registration_portable\"\n"
                             "  },\n"),
            std::string::npos)
      << static_json;
  expect_reads_as(static_json, library);

  // The reader takes an absent link anchor as an empty one.
  Json doc = Json::parse(static_json);
  doc["library"].erase("link_anchor");
  ReadResult r = read_ir(doc.dump(2));
  ASSERT_TRUE(r.module.has_value()) << r.diagnostics[0].message;
  EXPECT_EQ(r.module->library->link_anchor, "");
}

TEST(IrRoundTrip, EmptyModule) {
  const std::string json = to_json(Module{}, test_fields());
  EXPECT_EQ(json, "{\n  \"format\": \"opscan-ir\",\n  \"version\": 2,\n  \"generator\": \"\",\n"
                  "  \"libclang_version\": \"\",\n  \"sources\": [],\n  \"kernels\": []\n}\n");
  expect_reads_as(json, Module{});
}

TEST(IrRoundTrip, LargeNumbersAndEscapedText) {
  Module module = full_module();
  module.kernels[2].location = {"dir with \"quotes\"\\and\ttabs.cpp", UINT32_MAX, UINT32_MAX,
                                UINT32_MAX};
  module.generator = "opscan\n0.2.0 \u00e9 \U0001F600";
  module.kernels[1].cpp_inline_namespaces = {"custom::v2", "custom::v2::native"};
  expect_reads_as(to_json(module, test_fields()), module);
}

// ===== Determinism ==========================================================

TEST(IrDeterminism, OrderOfKernelsDoesNotMatter) {
  Module base = full_module();
  Kernel other_file = scale("src/another.cpp", 5);
  other_file.usr = "c:@F@scale2";
  other_file.set_field("kernel_key", "v1/7;0");
  base.kernels.push_back(other_file);
  const std::string expected = to_json(base, test_fields());

  std::vector<size_t> order(base.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  int permutations = 0;
  do {
    Module shuffled = base;
    for (size_t i = 0; i < order.size(); ++i)
      shuffled.kernels[i] = base.kernels[order[i]];
    EXPECT_EQ(to_json(shuffled, test_fields()), expected);
    ++permutations;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(permutations, 24);
}

TEST(IrDeterminism, KernelsAreSortedByOperatorKeysLocationThenUsr) {
  Kernel a = scale("b.cpp", 10);
  Kernel b = scale("a.cpp", 90);
  b.usr = "c:@F@b";
  Kernel c = scale("a.cpp", 90);
  c.usr = "c:@F@a";
  Kernel d = scale("z.cpp", 1);
  d.set_field("dispatch_key", "CUDA");
  d.usr = "c:@F@d";
  Kernel e = add_out("z.cpp", 1);
  Module m = fragment({}, {a, b, c, d, e});
  canonicalize(m);
  std::vector<std::string> usrs;
  for (const Kernel& k : m.kernels)
    usrs.push_back(k.usr);
  // aten before custom; for one operator, no dispatch key first; then file,
  // offset and USR.
  EXPECT_EQ(usrs, (std::vector<std::string>{e.usr, c.usr, b.usr, a.usr, d.usr}));
}

TEST(IrDeterminism, OrderOfSourcesDoesNotMatter) {
  Module module = full_module();
  // The same path with two hashes (stale fragments) and an exact duplicate:
  // neither may make the output depend on input order.
  module.sources = {
      {"b.cpp", kShaA}, {"a.cpp", kShaB}, {"a.cpp", kShaA}, {"c.h", kShaB}, {"a.cpp", kShaB}};
  const std::string expected = to_json(module, test_fields());
  std::vector<size_t> order(module.sources.size());
  std::iota(order.begin(), order.end(), 0);
  do {
    Module shuffled = module;
    for (size_t i = 0; i < order.size(); ++i)
      shuffled.sources[i] = module.sources[order[i]];
    ASSERT_EQ(to_json(shuffled, test_fields()), expected);
  } while (std::next_permutation(order.begin(), order.end()));

  Module canonical = module;
  canonicalize(canonical);
  // kShaB ("0123...") sorts before kShaA ("aaa...").
  std::vector<SourceFile> want = {
      {"a.cpp", kShaB}, {"a.cpp", kShaA}, {"b.cpp", kShaA}, {"c.h", kShaB}};
  EXPECT_EQ(canonical.sources, want);
}

TEST(IrDeterminism, CanonicalizeIsIdempotent) {
  Module module = full_module();
  std::reverse(module.kernels.begin(), module.kernels.end());
  canonicalize(module);
  Module again = module;
  canonicalize(again);
  EXPECT_EQ(again, module);
  EXPECT_EQ(module, full_module());
}

TEST(IrDeterminism, IsCanonicalOnlyWhenSortingWouldChangeNothing) {
  const Module module = full_module();
  EXPECT_TRUE(is_canonical(module));
  EXPECT_TRUE(is_canonical(Module{}));
  Module reversed = module;
  std::reverse(reversed.kernels.begin(), reversed.kernels.end());
  EXPECT_FALSE(is_canonical(reversed));
  Module unsorted_sources = module;
  std::swap(unsorted_sources.sources[0], unsorted_sources.sources[1]);
  EXPECT_FALSE(is_canonical(unsorted_sources));
  // Equal neighbours: canonicalize would drop a source, and a sort may swap
  // two kernels that tie (same operator, keys, location and USR).
  Module duplicate_source = module;
  duplicate_source.sources.push_back(duplicate_source.sources.back());
  EXPECT_FALSE(is_canonical(duplicate_source));
  Module tie = module;
  tie.kernels.push_back(tie.kernels.back());
  tie.kernels.back().cpp_function = "custom::other";
  EXPECT_FALSE(is_canonical(tie));
}

TEST(IrDeterminism, WritingSortsACopyAndLeavesTheModuleAsItIs) {
  Module reversed = full_module();
  std::reverse(reversed.kernels.begin(), reversed.kernels.end());
  const Module before = reversed;
  EXPECT_EQ(to_json(reversed, test_fields()), to_json(full_module(), test_fields()));
  EXPECT_EQ(reversed, before);
}

// ===== Writing: the exact text ==============================================

TEST(IrWrite, WritesTheDocumentedLayoutExactly) {
  Module m;
  m.generator = "opscan 0.2.0";
  m.libclang_version = "clang 14";
  m.aliases = {{"c10::optional", "std::optional"}};
  m.library =
      LibraryInfo{"ops", Registration::static_init, "torch", "", "opscan_static_registration_ops"};
  m.sources = {{"k.cpp", kShaB}};
  Kernel k;
  k.op = {"demo", "scale", ""};
  k.arguments = {argument("x", "Tensor", "const Tensor &", "const at::Tensor &"),
                 argument("factor", "float", "double", "double", true, "2.5")};
  k.returns = {result("Tensor", "out")};
  k.schema_origin = SchemaOrigin::known;
  k.set_field("dispatch_key", "CPU");
  k.cpp_function = "demo::v1::scale";
  k.cpp_inline_namespaces = {"demo::v1"};
  k.cpp_linkage = Linkage::c;
  k.cpp_noexcept = true;
  k.context = ContextKind::dispatch_key_set;
  k.cpp_return_type = "Tensor";
  k.cpp_canonical_return_type = "at::Tensor";
  k.usr = "c:@N@demo@N@v1@F@scale#";
  k.location = {"k.cpp", 3, 8, 40};
  m.kernels = {k};
  const std::string expected = R"({
  "format": "opscan-ir",
  "version": 2,
  "generator": "opscan 0.2.0",
  "libclang_version": "clang 14",
  "aliases": [
    {
      "name": "c10::optional",
      "denotes": "std::optional"
    }
  ],
  "library": {
    "name": "ops",
    "registration": "static",
    "function": "",
    "target": "torch",
    "link_anchor": "opscan_static_registration_ops"
  },
  "sources": [
    {
      "path": "k.cpp",
      "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    }
  ],
  "kernels": [
    {
      "operator": {
        "namespace": "demo",
        "name": "scale",
        "overload": ""
      },
      "schema": "demo::scale(Tensor x, *, float factor=2.5) -> Tensor out",
      "schema_origin": "known",
      "kernel_key": "",
      "dispatch_key": "CPU",
      "cpp_function": "demo::v1::scale",
      "cpp_inline_namespaces": [
        "demo::v1"
      ],
      "cpp_linkage": "C",
      "cpp_noexcept": true,
      "context": "DispatchKeySet",
      "arguments": [
        {
          "name": "x",
          "schema_type": "Tensor",
          "kwarg_only": false,
          "cpp_type": "const Tensor &",
          "cpp_canonical_type": "const at::Tensor &"
        },
        {
          "name": "factor",
          "schema_type": "float",
          "kwarg_only": true,
          "default": "2.5",
          "cpp_type": "double",
          "cpp_canonical_type": "double"
        }
      ],
      "returns": [
        {
          "name": "out",
          "schema_type": "Tensor"
        }
      ],
      "cpp_return_type": "Tensor",
      "cpp_canonical_return_type": "at::Tensor",
      "usr": "c:@N@demo@N@v1@F@scale#",
      "location": {
        "file": "k.cpp",
        "line": 3,
        "column": 8,
        "offset": 40
      }
    }
  ]
}
)";
  EXPECT_EQ(to_json(m, test_fields()), expected);
}

// to_json writes what nlohmann's dump(2) writes (with
// error_handler_t::replace): the tests below compare with nlohmann.

// The JSON text to_json writes for the string `s`.
std::string written(const std::string& s) {
  Module module;
  module.generator = s;
  const std::string json = to_json(module, test_fields());
  const std::string before = "\n  \"generator\": ", after = ",\n  \"libclang_version\"";
  const size_t begin = json.find(before) + before.size();
  return json.substr(begin, json.find(after) - begin);
}

std::string as_nlohmann_writes(const std::string& s) {
  return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
}

TEST(IrWrite, LaysOutTheTextAsNlohmannDoes) {
  Module no_arguments = full_module();
  no_arguments.kernels[2].arguments.clear();
  no_arguments.kernels[2].returns.clear();
  for (const Module& module : {full_module(), static_library(), no_arguments, Module{}}) {
    const std::string json = to_json(module, test_fields());
    // Parsing keeps the key order; dumping again gives nlohmann's layout.
    EXPECT_EQ(json, Json::parse(json).dump(2) + "\n");
  }
  // Empty arrays as nlohmann writes them. (No IR object is ever empty.)
  EXPECT_NE(to_json(no_arguments, test_fields())
                .find("\n      \"arguments\": [],\n      \"returns\": [],\n"),
            std::string::npos);
  EXPECT_NE(to_json(full_module(), test_fields()).find("\"cpp_inline_namespaces\": [],"),
            std::string::npos);
}

TEST(IrWrite, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(written(R"(say "hi" \ bye/)"), R"("say \"hi\" \\ bye/")");
  EXPECT_EQ(written("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(written(std::string("\0\x01\x0b\x1f", 4)), R"("\u0000\u0001\u000b\u001f")");
  EXPECT_EQ(written("\x7f"), "\"\x7f\""); // DEL is written as it is
  for (int c = 0; c < 0x80; ++c) {
    const std::string s(1, static_cast<char>(c));
    EXPECT_EQ(written(s), as_nlohmann_writes(s)) << "byte " << c;
  }
}

TEST(IrWrite, WritesUtf8AsItIs) {
  for (const std::string s : {"añadir_核.cpp", "\u00e9", "\U0001F600", "\uFFFD", "\U0010FFFF"}) {
    EXPECT_EQ(written(s), "\"" + s + "\"");
  }
}

TEST(IrWrite, ReplacesInvalidUtf8) {
  // Each maximal ill-formed subsequence becomes one U+FFFD.
  const std::string r = "\uFFFD";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\xff", r},
      {"a\x80z", "a" + r + "z"},           // a continuation byte alone
      {"\xC3", r},                         // the text ends inside a sequence
      {"\xC3(", r + "("},                  // a sequence cut short
      {"\xE2\x82", r},                     // a 3-byte sequence, truncated: one
      {"\xF0\x9F\x98x", r + "x"},          // a 4-byte one, cut short: one
      {"\xC0\xAF", r + r},                 // overlong: C0 never starts a sequence
      {"\xE0\x80\x80", r + r + r},         // overlong
      {"\xED\xA0\x80", r + r + r},         // a surrogate
      {"\xF4\x90\x80\x80", r + r + r + r}, // past U+10FFFF
      {"ok\xE2\x82\xAC\xE2\x82", "ok\u20AC" + r},
  };
  for (const auto& [in, out] : cases) {
    EXPECT_EQ(written(in), "\"" + out + "\"") << ::testing::PrintToString(in);
    EXPECT_EQ(written(in), as_nlohmann_writes(in)) << ::testing::PrintToString(in);
  }
  // The document stays valid JSON and reads back with the replacement.
  Module module = full_module();
  module.kernels[2].location.file = "legacy\xe9.cpp";
  ReadResult r2 = read_ir(to_json(module, test_fields()));
  ASSERT_TRUE(r2.module.has_value()) << r2.diagnostics[0].message;
  EXPECT_EQ(r2.module->kernels[2].location.file, "legacy" + r + ".cpp");
}

TEST(IrWrite, EscapesEveryShortByteStringAsNlohmannDoes) {
  // Every string of one or two bytes, and longer ones over the bytes at the
  // edges of UTF-8's ranges.
  std::vector<std::string> strings;
  for (int a = 0; a < 256; ++a) {
    for (int b = -1; b < 256; ++b) {
      strings.push_back(std::string(1, static_cast<char>(a)) +
                        (b < 0 ? "" : std::string(1, static_cast<char>(b))));
    }
  }
  const std::string edges = "\x00\x1f\"A\\\x7f\x80\x8f\x90\x9f\xa0\xbf\xc0\xc1\xc2\xdf\xe0\xe1\xed"
                            "\xee\xef\xf0\xf1\xf4\xf5\xff"s;
  for (char a : edges) {
    for (char b : edges) {
      for (char c : edges) {
        strings.push_back({a, b, c});
        for (char d : "\x80\xbf\x41"s)
          strings.push_back({a, b, c, d});
      }
    }
  }
  for (const std::string& s : strings) {
    ASSERT_EQ(written(s), as_nlohmann_writes(s)) << ::testing::PrintToString(s);
  }
}

// ===== Reading: structural errors ===========================================

// Reads `text` and expects exactly one opscan-ir-invalid error in kPath;
// returns it.
diag::Diagnostic expect_invalid(const std::string& text) {
  ReadResult r = read_ir(text);
  EXPECT_FALSE(r.module.has_value());
  EXPECT_EQ(r.diagnostics.size(), 1u);
  if (r.diagnostics.empty())
    return {};
  const diag::Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.severity, diag::Severity::error);
  EXPECT_EQ(d.code, "opscan-ir-invalid");
  EXPECT_EQ(d.location.file, kPath);
  return d;
}

// Expects `text` refused with a message containing `part`.
diag::Diagnostic expect_invalid(const std::string& text, const std::string& part) {
  diag::Diagnostic d = expect_invalid(text);
  EXPECT_NE(d.message.find(part), std::string::npos)
      << "message: " << d.message << "\nexpected to contain: " << part;
  return d;
}

Json full_json() {
  return Json::parse(to_json(full_module(), test_fields()));
}
Json static_json() {
  return Json::parse(to_json(static_library(), test_fields()));
}

// Keys the reader may do without.
bool optional_key(const std::string& key) {
  return key == "library" || key == "aliases" || key == "default" || key == "link_anchor";
}

TEST(IrRead, EveryMissingRequiredFieldIsNamedAndLocatedAtItsObject) {
  int refused = 0;
  for (const Json& doc : {full_json(), static_json()}) {
    for (const Json::json_pointer& object : all_pointers(doc)) {
      if (!doc[object].is_object())
        continue;
      for (const auto& [key, value] : doc[object].items()) {
        SCOPED_TRACE((object / key).to_string());
        Json damaged = doc;
        erase_member(damaged, object, key);
        const std::string text = damaged.dump(2);
        if (optional_key(key)) {
          ReadResult r = read_ir(text);
          EXPECT_TRUE(r.module.has_value()) << r.diagnostics[0].message;
          continue;
        }
        diag::Diagnostic d = expect_invalid(text, path_of(object / key) + ": missing");
        EXPECT_EQ(d.location, value_location(damaged, object));
        ++refused;
      }
    }
  }
  // Per document: 6 top-level, 2 x 2 aliases, 4 library, 2 x 2 sources,
  // 3 x 16 kernels, 10 x 5 arguments, 3 x 2 returns, 3 x 4 locations, 3 x 3
  // operators.
  EXPECT_EQ(refused, 2 * (6 + 4 + 4 + 4 + 48 + 50 + 6 + 12 + 9));
}

// A value of another JSON type than the one `value` has.
Json wrong_type(const Json& value) {
  if (value.is_string())
    return 7;
  if (value.is_boolean())
    return "true";
  if (value.is_number())
    return "1";
  if (value.is_array())
    return Json::object();
  return Json::array();
}

TEST(IrRead, EveryValueOfTheWrongTypeIsNamedAndLocated) {
  const Json doc = static_json();
  size_t checked = 0;
  for (const Json::json_pointer& at : all_pointers(doc)) {
    if (at.empty())
      continue;
    SCOPED_TRACE(at.to_string());
    Json damaged = doc;
    damaged[at] = wrong_type(doc[at]);
    const std::string path = path_of(at);
    diag::Diagnostic d = expect_invalid(damaged.dump(2), path + ": must be ");
    EXPECT_EQ(d.message.rfind(path + ": must be ", 0), 0u) << d.message;
    EXPECT_EQ(d.location, value_location(damaged, at));
    ++checked;
  }
  EXPECT_GT(checked, 150u);
  // null is no value of any field.
  Json damaged = doc;
  damaged["kernels"][1]["arguments"][2]["default"] = nullptr;
  expect_invalid(damaged.dump(2), "kernels[1].arguments[2].default: must be a string");
}

TEST(IrRead, NumbersMustBeUnsigned32BitIntegers) {
  for (const char* value : {"-1", "-0", "1.0", "1e2", "4294967296", "18446744073709551616"}) {
    SCOPED_TRACE(value);
    std::string json = to_json(full_module(), test_fields());
    const std::string line = "\"line\": 20";
    const size_t at = json.find(line) + line.size() - 2;
    json.replace(at, 2, value);
    diag::Diagnostic d =
        expect_invalid(json, "kernels[0].location.line: must be a non-negative integer");
    EXPECT_EQ(d.location, location_in(json, at));
  }
  Module largest = full_module();
  largest.kernels[0].location = {"a.cpp", 4294967295u, 0, 0};
  expect_reads_as(to_json(largest, test_fields()), largest);
}

TEST(IrRead, EnumValuesOutsideTheEnumAreNamedWithTheChoices) {
  struct Case {
    Json::json_pointer at;
    std::string choices;
  };
  const std::vector<Case> cases = {
      {Json::json_pointer("/kernels/0/schema_origin"), "\"inferred\", \"declared\" or \"known\""},
      {Json::json_pointer("/kernels/1/context"),
       "\"none\", \"KernelRuntimeContext\" or \"DispatchKeySet\""},
      {Json::json_pointer("/kernels/2/cpp_linkage"), "\"C++\" or \"C\""},
      {Json::json_pointer("/library/registration"), "\"static\", \"manual\" or \"named\""},
  };
  for (const Case& c : cases) {
    for (const std::string bad : {"", "Declared", "KernelRuntimeContext&", "c++", "eager", " C"}) {
      SCOPED_TRACE(c.at.to_string() + " = " + bad);
      Json doc = full_json();
      doc[c.at] = bad;
      const std::string path = path_of(c.at);
      diag::Diagnostic d = expect_invalid(doc.dump(2));
      EXPECT_EQ(d.message, path + ": must be " + c.choices + ", not '" + bad + "'");
      EXPECT_EQ(d.location, value_location(doc, c.at));
    }
  }
  // The v1 field has_context is gone: "context" replaces it.
  Json doc = full_json();
  doc["kernels"][0]["context"] = true;
  expect_invalid(doc.dump(2), "kernels[0].context: must be a string");
}

TEST(IrRead, SchemaTypesMustParse) {
  for (const char* bad : {"", "Tensr", "Tensor(a!", "int[", "Tensor x", "Tensor)"}) {
    SCOPED_TRACE(bad);
    Json doc = full_json();
    const Json::json_pointer at("/kernels/1/arguments/3/schema_type");
    doc[at] = bad;
    diag::Diagnostic d = expect_invalid(doc.dump(2));
    EXPECT_EQ(d.message.rfind("kernels[1].arguments[3].schema_type: '" + std::string(bad) +
                                  "' is not a schema type: ",
                              0),
              0u)
        << d.message;
    EXPECT_EQ(d.location, value_location(doc, at));
  }
  Json doc = full_json();
  doc["kernels"][2]["returns"][0]["schema_type"] = "Tensor[][";
  diag::Diagnostic d = expect_invalid(doc.dump(2), "kernels[2].returns[0].schema_type");
  EXPECT_EQ(d.location,
            value_location(doc, Json::json_pointer("/kernels/2/returns/0/schema_type")));
}

TEST(IrRead, SchemaMustBeWhatItsPartsSpell) {
  const std::string spelled =
      "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)";
  ASSERT_EQ(full_json()["kernels"][1]["schema"], spelled);
  for (const std::string& other : std::vector<std::string>{
           "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=2, Tensor(a!) out) -> "
           "Tensor(a!)",
           "aten::add.out(Tensor self,Tensor other,*,Scalar alpha=1,Tensor(a!) out)->Tensor(a!)",
           "aten::add.out(Tensor self, Tensor other, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
           "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "",
           "not a schema", spelled + " "}) {
    SCOPED_TRACE(other);
    Json doc = full_json();
    doc["kernels"][1]["schema"] = other;
    diag::Diagnostic d = expect_invalid(doc.dump(2));
    EXPECT_EQ(d.message.rfind("kernels[1].schema: '", 0), 0u) << d.message;
    EXPECT_NE(
        d.message.find("is not what the operator, arguments and returns spell: '" + spelled + "'"),
        std::string::npos)
        << d.message;
    EXPECT_EQ(d.location, value_location(doc, Json::json_pointer("/kernels/1/schema")));
  }
  // The parts count: changing them and the schema together is a change.
  Json doc = full_json();
  doc["kernels"][1]["arguments"][2]["default"] = "2";
  doc["kernels"][1]["schema"] =
      "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=2, Tensor(a!) out) -> Tensor(a!)";
  ReadResult r = read_ir(doc.dump(2));
  ASSERT_TRUE(r.module.has_value()) << r.diagnostics[0].message;
  EXPECT_EQ(r.module->kernels[1].arguments[2].schema.default_value, "2");
}

TEST(IrRead, UnknownFieldsAreRefusedInEveryObject) {
  for (const Json& base : {full_json(), static_json()}) {
    for (const Json::json_pointer& object : all_pointers(base)) {
      if (!base[object].is_object())
        continue;
      SCOPED_TRACE(object.to_string());
      Json doc = base;
      doc[object]["has_context"] = true; // appended last: a field of version 1
      diag::Diagnostic d = expect_invalid(doc.dump(2), "has_context: unknown field");
      if (!object.empty()) {
        EXPECT_NE(d.message.find(path_of(object)), std::string::npos) << d.message;
      }
      EXPECT_EQ(d.location, value_location(doc, object / "has_context"));
    }
  }
}

// `text` with `copy` inserted after the first occurrence of `after`.
std::string inserted(std::string text, const std::string& after, const std::string& copy) {
  const size_t at = text.find(after);
  EXPECT_NE(at, std::string::npos) << after;
  return text.insert(at + after.size(), copy);
}

TEST(IrRead, DuplicateKeysAreRefusedAtTheSecond) {
  const std::string json = to_json(static_library(), test_fields());
  struct Case {
    std::string after;  // the member given twice, as written
    std::string second; // inserted after it
    std::string path;
  };
  const std::vector<Case> cases = {
      {"\"generator\": \"opscan 0.2.0\",", "\n  \"generator\": \"evil\",", "generator"},
      {"\"format\": \"opscan-ir\",", "\n  \"format\": \"opscan-ir\",", "format"},
      {"\"denotes\": \"std::optional\"", ",\n      \"denotes\": \"c10::optional\"",
       "aliases[0].denotes"},
      {"\"version\": 2,", "\n  \"version\": 1,", "version"},
      {"\"name\": \"portable\",", "\n    \"name\": \"evil\",", "library.name"},
      {"\"link_anchor\": \"opscan_static_registration_portable\"",
       ",\n    \"link_anchor\": \"evil\"", "library.link_anchor"},
      {"\"sha256\": \"" + kShaA + "\"", ",\n      \"sha256\": \"" + kShaB + "\"",
       "sources[0].sha256"},
      {"\"namespace\": \"aten\",", "\n        \"namespace\": \"aten\",",
       "kernels[0].operator.namespace"},
      {"\"usr\": \"c:@N@custom@F@add_out_fallback#\",", "\n      \"usr\": \"c:@F@other\",",
       "kernels[0].usr"},
      {"\"default\": \"1\",", "\n          \"default\": \"1) -> (); evil(\",",
       "kernels[0].arguments[2].default"},
      {"\"line\": 20,", "\n        \"line\": 21,", "kernels[0].location.line"},
      {"\"kernels\": [", "],\n  \"kernels\": [", "kernels"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const std::string text = inserted(json, c.after, c.second);
    diag::Diagnostic d = expect_invalid(text);
    EXPECT_EQ(d.message, c.path + ": given twice (readers could disagree on which one counts)");
    // At the second value: the inserted text's, after its key.
    const size_t key_end = text.find(":", text.find(c.after) + c.after.size()) + 2;
    EXPECT_EQ(d.location, location_in(text, key_end));
  }
}

TEST(IrRead, AnAliasIsListedOnce) {
  Json doc = Json::parse(to_json(full_module(), test_fields()));
  doc["aliases"][1]["name"] = "c10::optional";
  diag::Diagnostic d = expect_invalid(doc.dump(2));
  EXPECT_EQ(d.message, "aliases[1].name: names an alias listed before: each is listed once");
}

TEST(IrRead, WrongFormatIsNotAnIrFile) {
  for (const char* value : {"opscan-cache", "OPSCAN-IR", ""}) {
    Json doc = full_json();
    doc["format"] = value;
    diag::Diagnostic d = expect_invalid(doc.dump(2), "not an opscan IR file");
    EXPECT_EQ(d.location, value_location(doc, Json::json_pointer("/format")));
  }
  expect_invalid("{\"kernels\": []}", "format: missing");
}

TEST(IrRead, TopLevelMustBeAnObject) {
  EXPECT_EQ(expect_invalid("[1, 2]").message, "the IR: must be an object");
  EXPECT_EQ(expect_invalid("\"opscan-ir\"").message, "the IR: must be an object");
  EXPECT_EQ(expect_invalid("null").message, "the IR: must be an object");
}

TEST(IrRead, OtherVersionsAreRefusedWithHowToRegenerate) {
  for (int version : {0, 1, 3, 100}) {
    SCOPED_TRACE(version);
    Json doc = full_json();
    doc["version"] = version;
    diag::Diagnostic d = expect_invalid(doc.dump(2));
    EXPECT_EQ(d.message, "version: IR version " + std::to_string(version) +
                             " is not supported: this opscan reads version 2; make the file "
                             "again with this opscan (opscan scan, then opscan generate)");
    EXPECT_EQ(d.location, value_location(doc, Json::json_pointer("/version")));
  }
  // The version is checked before anything a version 1 file spells
  // differently (has_context, no context).
  Json v1 = full_json();
  v1["version"] = 1;
  for (Json& k : v1["kernels"]) {
    k.erase("context");
    k.erase("cpp_inline_namespaces");
    k["has_context"] = true;
  }
  expect_invalid(v1.dump(2), "IR version 1 is not supported");
  Json text = full_json();
  text["version"] = "2";
  expect_invalid(text.dump(2), "version: must be a non-negative integer");
}

// The located path of each kind of structural error, and the start of its
// message: as for ir::validate's errors ("kernels[3].cpp_function: ..."),
// the message starts with the JSON path it is located at.
TEST(IrRead, EveryStructuralMessageStartsWithItsPath) {
  struct Case {
    const char* kind;
    std::string text;
    std::string path; // the located value's
  };
  std::vector<Case> cases;
  {
    Json doc = full_json();
    doc["kernels"][1]["extra"] = 1;
    cases.push_back({"unknown field", doc.dump(2), "kernels[1].extra"});
  }
  {
    Json doc = full_json();
    doc["comment"] = "x";
    cases.push_back({"unknown top-level field", doc.dump(2), "comment"});
  }
  {
    Json doc = full_json();
    doc["kernels"][1].erase("usr");
    cases.push_back({"missing field", doc.dump(2), "kernels[1]"});
  }
  {
    Json doc = full_json();
    doc["format"] = "opscan-cache";
    cases.push_back({"format", doc.dump(2), "format"});
  }
  {
    Json doc = full_json();
    doc["version"] = 1;
    cases.push_back({"version", doc.dump(2), "version"});
  }
  {
    Json doc = full_json();
    doc["kernels"][1]["cpp_noexcept"] = "yes";
    cases.push_back({"wrong type", doc.dump(2), "kernels[1].cpp_noexcept"});
  }
  {
    Json doc = full_json();
    doc["kernels"][1]["context"] = "ctx";
    cases.push_back({"enum", doc.dump(2), "kernels[1].context"});
  }
  {
    Json doc = full_json();
    doc["kernels"][1]["schema"] = "aten::add.out() -> ()";
    cases.push_back({"schema", doc.dump(2), "kernels[1].schema"});
  }
  cases.push_back({"duplicate key",
                   inserted(to_json(full_module(), test_fields()), "\"usr\": \"c:@F@scale\",",
                            "\n      \"usr\": \"c:@F@scale\","),
                   "kernels[2].usr"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kind);
    diag::Diagnostic d = expect_invalid(c.text);
    EXPECT_TRUE(d.message.starts_with(c.path + ":") || d.message.starts_with(c.path + " ") ||
                d.message.starts_with(c.path + "."))
        << d.message;
  }
}

// ===== Reading: the JSON itself =============================================

TEST(IrRead, NotJsonPointsAtTheBreak) {
  const std::string text = "{\n  \"format\": \"opscan-ir\",\n  \"version\": 2,\n  oops\n}\n";
  diag::Diagnostic d = expect_invalid(text, "not valid JSON");
  EXPECT_EQ(d.location, location_in(text, text.find("oops")));
  EXPECT_EQ(d.location.line, 4u);
  EXPECT_EQ(d.location.column, 3u);
  EXPECT_EQ(expect_invalid("opscan", "not valid JSON").location, location_in("opscan", 0));
}

TEST(IrRead, EmptyAndTruncatedFiles) {
  diag::Diagnostic empty = expect_invalid("", "not valid JSON: the file ends too early");
  EXPECT_EQ(empty.location, location_in("", 0));

  const std::string json = to_json(full_module(), test_fields());
  std::string cut = json.substr(0, json.size() / 2);
  cut = cut.substr(0, cut.rfind('\n') + 1); // at a line end, like a short write
  diag::Diagnostic d = expect_invalid(cut, "not valid JSON: the file ends too early (truncated?)");
  EXPECT_EQ(d.location, location_in(cut, cut.size()));
  EXPECT_EQ(d.location.column, 1u);
  // Losing just the final brace is truncation too.
  expect_invalid(json.substr(0, json.rfind('}')), "truncated");
}

TEST(IrRead, TrailingGarbageIsDamageNotTruncation) {
  const std::string json = to_json(full_module(), test_fields());
  diag::Diagnostic d = expect_invalid(json + "}\n", "not valid JSON: the IR file is damaged");
  EXPECT_EQ(d.location, location_in(json + "}\n", json.size()));
}

TEST(IrRead, NumberTooLargeForADoubleIsInvalidJson) {
  // nlohmann reports it with an out_of_range exception, not a parse error,
  // and no position: still a diagnostic at the number, never a crash.
  diag::Diagnostic d =
      expect_invalid("{\"format\": \"opscan-ir\", \"version\": 1e400}",
                     "not valid JSON: the number '1e400' is outside a double's range");
  EXPECT_EQ(d.location.line, 1u);
  EXPECT_EQ(d.location.column, 36u);
}

TEST(IrRead, UnicodeEscapesAreDecoded) {
  const std::string json = to_json(full_module(), test_fields());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = json;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  expect_reads_as(replaced("\"alpha\"", R"("\u0061lph\u0061")"), full_module());
  expect_reads_as(replaced("\"opscan 0.2.0\"", R"("opscan\u00200.2.0")"), full_module());
  expect_reads_as(replaced("\"src/scale.cpp\"", R"("src\/scale.cpp")"), full_module());

  Module expected = full_module();
  expected.generator = "a\nb\u00e9\U0001F600";
  expected.kernels[2].usr = std::string("c:@F@\0scale", 11);
  std::string text = replaced("\"opscan 0.2.0\"", R"("a\u000ab\u00E9\ud83d\ude00")");
  text.replace(text.find("\"c:@F@scale\""), 12, R"("c:@F@\u0000scale")");
  expect_reads_as(text, expected);

  // An escape spells a key as well as a value.
  expect_reads_as(replaced("\"usr\": \"c:@F@scale\"", R"("\u0075sr": "c:@F@scale")"),
                  full_module());
  // Lone surrogates are no text.
  for (const char* bad : {R"("\ud83d")", R"("\ude00x")", R"("\ud83d\u0041")", R"("\u12")"}) {
    SCOPED_TRACE(bad);
    expect_invalid(replaced("\"opscan 0.2.0\"", bad), "not valid JSON");
  }
}

TEST(IrRead, ByteOrderMarkIsSkipped) {
  const std::string json = to_json(full_module(), test_fields());
  expect_reads_as("\xEF\xBB\xBF" + json, full_module());
  // Errors after it are located as without it, on their line.
  Json doc = full_json();
  doc["kernels"][0]["cpp_linkage"] = "Pascal";
  const std::string damaged = doc.dump(2);
  diag::Diagnostic plain = expect_invalid(damaged);
  diag::Diagnostic with_bom = expect_invalid("\xEF\xBB\xBF" + damaged);
  EXPECT_EQ(with_bom.location.line, plain.location.line);
  EXPECT_EQ(with_bom.location.column, plain.location.column);
  // Only at the start, and only once.
  expect_invalid("\xEF\xBB\xBF\xEF\xBB\xBF" + json, "not valid JSON");
  expect_invalid(json.substr(0, 1) + "\xEF\xBB\xBF" + json.substr(1), "not valid JSON");
}

// The reader parses the JSON opscan writes itself and leaves anything else
// to nlohmann: whatever the text, it reads what nlohmann reads.
TEST(IrRead, ReadsWhatNlohmannReads) {
  const Module module = full_module();
  const std::string json = to_json(module, test_fields());
  std::string crlf = json;
  for (size_t at = 0; (at = crlf.find('\n', at)) != std::string::npos; at += 3)
    crlf.replace(at, 1, "\r\n\t");
  const std::vector<std::string> texts = {
      Json::parse(json).dump(),                  // no white space
      crlf,                                      // other white space
      nlohmann::json::parse(json).dump(1, '\t'), // keys in another order
      Json::parse(json).dump(-1, ' ', true),     // UTF-8 as \u escapes
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text.substr(0, 200));
    expect_reads_as(text, module);
  }
}

TEST(IrRead, BadJsonIsReportedWhereNlohmannFindsIt) {
  const std::string json = to_json(full_module(), test_fields());
  std::vector<std::string> bad;
  for (const std::string& broken : {"\xff"s, "\xC3("s, "\xED\xA0\x80"s, "\xC0\xAF"s, "\x01"s,
                                    "\x1b"s, "\0"s, "\n"s, "\t"s, "\\x"s, "\\u12"s, "\\'"s}) {
    std::string text = json;
    bad.push_back(text.replace(text.find("scale.cpp"), 0, broken)); // inside a string
  }
  for (const std::string number :
       {"01", "-", "1.", "1e", "+1", "0x1", "1 2", "tru", "nul", "NaN", "Infinity", ".5"}) {
    std::string text = json;
    bad.push_back(text.replace(text.find("\"version\": 2") + 11, 1, number));
  }
  bad.push_back(json.substr(0, json.size() - 3) + ",}\n"); // a trailing comma
  bad.push_back("{\"format\" \"opscan-ir\"}");
  bad.push_back("{\"format\": \"opscan-ir\",}");
  bad.push_back("[1,]");
  bad.push_back("{'format': 1}");
  bad.push_back("{\"a\": 1} // comment");
  bad.push_back("/* comment */ {}");
  for (const std::string& text : bad) {
    SCOPED_TRACE(::testing::PrintToString(text.substr(0, 120)));
    size_t at = 0;
    try {
      Json parsed = Json::parse(text);
      ADD_FAILURE() << "nlohmann reads it: " << parsed.dump();
    } catch (const Json::parse_error& e) {
      at = e.byte - 1;
    }
    diag::Diagnostic d = expect_invalid(text, "not valid JSON");
    EXPECT_EQ(d.location.offset, std::min(at, text.size()));
  }
}

// Every one-byte change of a small IR: the reader calls it JSON exactly when
// nlohmann does, and where nlohmann stops, the reader points.
TEST(IrRead, AgreesWithNlohmannOnEveryOneByteDamage) {
  Module small = fragment({{"a.cpp", kShaA}}, {scale("a.cpp", 40)});
  small.kernels[0].cpp_inline_namespaces = {"custom"};
  small.kernels[0].arguments[1].schema.default_value = "1.5";
  const std::string json =
      Json::parse(to_json(small, test_fields())).dump(); // compact: fewer cases
  const std::string replacements = "\"\\{}[],:0-.eEtu \x01\x7f\x80\xff"s;
  size_t cases = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    std::vector<std::string> texts;
    texts.push_back(json.substr(0, i) + json.substr(i + 1));
    for (char c : replacements) {
      if (c != json[i])
        texts.push_back(json.substr(0, i) + c + json.substr(i + 1));
    }
    for (const std::string& text : texts) {
      ++cases;
      std::optional<size_t> error_at;
      try {
        Json parsed = Json::parse(text);
        (void)parsed;
      } catch (const Json::parse_error& e) {
        error_at = std::min(e.byte - 1, text.size());
      } catch (const Json::exception&) {
        error_at = 0;
      }
      ReadResult r = read_ir(text);
      const bool invalid_json =
          !r.diagnostics.empty() && r.diagnostics[0].message.starts_with("not valid JSON");
      ASSERT_EQ(invalid_json, error_at.has_value()) << ::testing::PrintToString(text);
      if (error_at) {
        ASSERT_EQ(r.diagnostics[0].location.offset, *error_at) << ::testing::PrintToString(text);
      }
      ASSERT_EQ(r.module.has_value(), r.diagnostics.empty());
    }
  }
  EXPECT_GT(cases, 10000u);
}

TEST(IrRead, DeepNestingIsNoProblem) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(expect_invalid(deep).message, "the IR: must be an object");
  // Where the reader wants something else.
  std::string json = to_json(full_module(), test_fields());
  json.replace(json.find("\"sources\": [") + 12, 0, deep + ", ");
  expect_invalid(json, "sources[0]: must be an object");
}

// Nesting deeper than the reader's fast parser goes must not cost the
// errors their location.
TEST(IrRead, ErrorsAreLocatedInDeeplyNestedDocuments) {
  Json doc = full_json();
  Json deep = Json::array();
  for (int i = 0; i < 40; ++i)
    deep = Json::array({deep});
  doc["kernels"][2]["cpp_function"] = deep;
  diag::Diagnostic d = expect_invalid(doc.dump(2), "kernels[2].cpp_function: must be a string");
  EXPECT_EQ(d.location, value_location(doc, Json::json_pointer("/kernels/2/cpp_function")));
}

// ===== Positions ============================================================

TEST(IrPositions, EveryValueReadIsLocatedByItsPath) {
  const Json doc = static_json();
  ReadResult r = read_ir(doc.dump(2));
  ASSERT_TRUE(r.module.has_value());
  EXPECT_EQ(r.positions.file(), kPath);
  for (const Json::json_pointer& at : all_pointers(doc)) {
    SCOPED_TRACE(at.to_string());
    EXPECT_EQ(r.positions.at(path_of(at)), value_location(doc, at));
  }
}

TEST(IrPositions, UnknownPathsFallBackToTheEnclosingValueThenTheFile) {
  const Json doc = full_json();
  ReadResult r = read_ir(doc.dump(2));
  ASSERT_TRUE(r.module.has_value());
  EXPECT_EQ(r.positions.at("kernels[1].arguments[2].nothing"),
            value_location(doc, Json::json_pointer("/kernels/1/arguments/2")));
  EXPECT_EQ(r.positions.at("kernels[1].arguments[9].name"),
            value_location(doc, Json::json_pointer("/kernels/1/arguments")));
  EXPECT_EQ(r.positions.at("kernels[7]"), value_location(doc, Json::json_pointer("/kernels")));
  EXPECT_EQ(r.positions.at("nothing"), value_location(doc, Json::json_pointer("")));
  Positions none("f.json");
  EXPECT_EQ(none.at("kernels[0].usr"), (diag::Location{"f.json", 1, 1, 0}));
}

} // namespace
