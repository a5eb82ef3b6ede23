#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

// Tests for lib/ir: JSON round trip, determinism, reader diagnostics, merging
// fragments, and the published JSON Schema (lib/ir/opscan-ir.schema.json).

#include "ir/ir.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// Readable failure messages for the IR structs.
namespace opscan::ir {
void PrintTo(const SourceFile& s, std::ostream* os) {
  *os << s.path << "@" << s.sha256;
}
void PrintTo(const Kernel& k, std::ostream* os) {
  *os << k.cpp_function << " for " << k.op.str() << " [" << k.kernel_key << "] at "
      << k.location.file << ":" << k.location.offset;
}
void PrintTo(const LibraryInfo& l, std::ostream* os) {
  *os << l.name << " (" << l.registration << ", " << l.function << ", " << l.target << ", "
      << l.link_anchor << ")";
}
void PrintTo(const Module& m, std::ostream* os) {
  *os << "\n" << to_json(m);
}
} // namespace opscan::ir
namespace opscan::diag {
void PrintTo(const Location& l, std::ostream* os) {
  *os << l.file << ":" << l.line << ":" << l.column << " (offset " << l.offset << ")";
}
} // namespace opscan::diag

namespace {

using namespace opscan;
using namespace opscan::ir;
using Json = nlohmann::ordered_json;
using namespace std::string_literals;

constexpr const char* kPath = "lib/kernels.ir.json";

// Arbitrary but well-formed content hashes.
const std::string kShaA(64, 'a');
const std::string kShaB = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const std::string kShaC(64, 'c');

// ===== Building modules =====================================================

// aten::add.out with every field set: declared schema, a default value,
// kwarg-only arguments, a kernel key, a dispatch key and a context.
Kernel add_out(std::string file = "src/ops/añadir_核.cpp", uint32_t offset = 120) {
  Kernel k;
  k.op = {"aten", "add", "out"};
  k.schema = "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
             "Tensor(a!)";
  k.schema_origin = SchemaOrigin::declared;
  k.cpp_function = "custom::native::add_out";
  k.cpp_return_type = "Tensor &";
  k.cpp_canonical_return_type = "executorch::runtime::etensor::Tensor &";
  k.usr = "c:@N@custom@N@native@F@add_out#";
  k.has_context = true;
  k.arguments = {
      {"self", "Tensor", "const Tensor &", "const executorch::runtime::etensor::Tensor &", false,
       std::nullopt},
      {"other", "Tensor", "const Tensor &", "const executorch::runtime::etensor::Tensor &", false,
       std::nullopt},
      {"alpha", "Scalar", "const Scalar &", "const executorch::runtime::etensor::Scalar &", true,
       "1"},
      {"out", "Tensor(a!)", "Tensor &", "executorch::runtime::etensor::Tensor &", true,
       std::nullopt},
  };
  k.returns = {{"", "Tensor(a!)"}};
  k.kernel_key = "v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3";
  k.dispatch_key = "CPU";
  k.location = {std::move(file), 7, 19, offset};
  return k;
}

// custom::scale with an inferred schema, a named return, no context and no
// kernel key.
Kernel scale(std::string file = "src/scale.cpp", uint32_t offset = 40) {
  Kernel k;
  k.op = {"custom", "scale", ""};
  k.schema = "custom::scale(Tensor x, float factor) -> Tensor result";
  k.schema_origin = SchemaOrigin::inferred;
  k.cpp_function = "custom::scale";
  k.cpp_return_type = "Tensor";
  k.cpp_canonical_return_type = "executorch::runtime::etensor::Tensor";
  k.usr = "c:@N@custom@F@scale#";
  k.arguments = {
      {"x", "Tensor", "const Tensor &", "const executorch::runtime::etensor::Tensor &", false,
       std::nullopt},
      {"factor", "float", "double", "double", false, std::nullopt},
  };
  k.returns = {{"result", "Tensor"}};
  k.location = {std::move(file), 3, 8, offset};
  return k;
}

// A module with every field of every struct set, already in canonical order.
Module full_module() {
  Module m;
  m.generator = "opscan 0.1.0";
  m.libclang_version = "Debian clang version 14.0.6";
  m.library =
      LibraryInfo{"portable", "named", "torch::executor::register_portable_kernels", "executorch"};
  m.sources = {{"src/ops/añadir_核.cpp", kShaA}, {"src/scale.cpp", kShaB}};
  Kernel fallback = add_out();
  fallback.kernel_key = "";
  fallback.dispatch_key = "";
  fallback.usr = "c:@N@custom@N@native@F@add_out_fallback#";
  fallback.cpp_function = "custom::native::add_out_fallback";
  fallback.location.offset = 400;
  m.kernels = {fallback, add_out(), scale()};
  return m;
}

Module fragment(std::vector<SourceFile> sources, std::vector<Kernel> kernels) {
  Module m;
  m.generator = "opscan 0.1.0";
  m.libclang_version = "clang 14";
  m.sources = std::move(sources);
  m.kernels = std::move(kernels);
  return m;
}

// ===== Round trip ===========================================================

TEST(IrRoundTrip, EveryFieldSurvives) {
  Module module = full_module();
  Module canonical = module;
  canonicalize(canonical);
  ASSERT_EQ(canonical, module) << "full_module() should already be canonical";

  std::string json = to_json(module);
  ReadResult read = from_json(json, kPath);
  ASSERT_TRUE(read.diagnostics.empty()) << read.diagnostics[0].message;
  ASSERT_TRUE(read.module.has_value());
  EXPECT_EQ(*read.module, module);
  EXPECT_EQ(to_json(*read.module), json);
}

TEST(IrRoundTrip, WritesTheDocumentedShape) {
  std::string json = to_json(full_module());
  EXPECT_EQ(json.substr(0, 42), "{\n  \"format\": \"opscan-ir\",\n  \"version\": 1,");
  EXPECT_EQ(json.back(), '\n');
  EXPECT_NE(json[json.size() - 2], '\n');
  // Unicode is written as UTF-8, not escaped.
  EXPECT_NE(json.find("\"src/ops/añadir_核.cpp\""), std::string::npos);
  EXPECT_NE(json.find("\"schema_origin\": \"declared\""), std::string::npos);
  EXPECT_NE(json.find("\"schema_origin\": \"inferred\""), std::string::npos);
  // Only the argument with a default value has a "default" key.
  size_t defaults = 0;
  for (size_t at = json.find("\"default\""); at != std::string::npos;
       at = json.find("\"default\"", at + 1)) {
    ++defaults;
  }
  EXPECT_EQ(defaults, 2u); // alpha=1 in the fallback and in the keyed kernel
}

TEST(IrRoundTrip, AbsentDefaultStaysAbsentAndEmptyDefaultStaysEmpty) {
  Module module = full_module();
  module.kernels[0].arguments[2].default_value = std::nullopt;
  module.kernels[1].arguments[2].default_value = "";
  ReadResult read = from_json(to_json(module), kPath);
  ASSERT_TRUE(read.module.has_value());
  EXPECT_EQ(read.module->kernels[0].arguments[2].default_value, std::nullopt);
  EXPECT_EQ(read.module->kernels[1].arguments[2].default_value, std::optional<std::string>(""));
  EXPECT_EQ(*read.module, module);
}

TEST(IrRoundTrip, LibraryIsWrittenAfterLibclangAndOnlyWhenSet) {
  std::string json = to_json(full_module());
  EXPECT_NE(json.find("  \"libclang_version\": \"Debian clang version 14.0.6\",\n"
                      "  \"library\": {\n"
                      "    \"name\": \"portable\",\n"
                      "    \"registration\": \"named\",\n"
                      "    \"function\": \"torch::executor::register_portable_kernels\",\n"
                      "    \"target\": \"executorch\"\n"
                      "  },\n"
                      "  \"sources\": ["),
            std::string::npos)
      << json;

  // A fragment (scan output) has none, and reads back without one.
  Module fragment = full_module();
  fragment.library.reset();
  std::string fragment_json = to_json(fragment);
  EXPECT_EQ(fragment_json.find("\"library\""), std::string::npos);
  ReadResult read = from_json(fragment_json, kPath);
  ASSERT_TRUE(read.module.has_value());
  EXPECT_EQ(read.module->library, std::nullopt);
  EXPECT_EQ(*read.module, fragment);

  // Static registration: no function, a link anchor (written last, and
  // only in static mode: named libraries have none, see above).
  Module static_lib = full_module();
  static_lib.library =
      LibraryInfo{"all", "static", "", "executorch", "opscan_static_registration_all"};
  std::string static_json = to_json(static_lib);
  EXPECT_NE(static_json.find("    \"target\": \"executorch\",\n"
                             "    \"link_anchor\": \"opscan_static_registration_all\"\n"
                             "  },\n"),
            std::string::npos)
      << static_json;
  EXPECT_EQ(json.find("link_anchor"), std::string::npos);
  read = from_json(static_json, kPath);
  ASSERT_TRUE(read.module.has_value()) << read.diagnostics[0].message;
  EXPECT_EQ(*read.module, static_lib);

  // Library IRs written before there was a link anchor read without one.
  Json old = Json::parse(static_json);
  old["library"].erase("link_anchor");
  read = from_json(old.dump(), kPath);
  ASSERT_TRUE(read.module.has_value()) << read.diagnostics[0].message;
  EXPECT_EQ(read.module->library->link_anchor, "");
}

TEST(IrRoundTrip, EmptyModule) {
  Module module;
  std::string json = to_json(module);
  EXPECT_EQ(json, "{\n  \"format\": \"opscan-ir\",\n  \"version\": 1,\n  \"generator\": \"\",\n"
                  "  \"libclang_version\": \"\",\n  \"sources\": [],\n  \"kernels\": []\n}\n");
  ReadResult read = from_json(json, kPath);
  ASSERT_TRUE(read.module.has_value());
  EXPECT_EQ(*read.module, module);
}

TEST(IrRoundTrip, LargeLocationsAndEscapes) {
  Module module = full_module();
  module.kernels[2].location = {"dir with \"quotes\"\\and\ttabs.cpp", UINT32_MAX, UINT32_MAX,
                                UINT32_MAX};
  module.generator = "opscan\n0.1.0 \u00e9";
  ReadResult read = from_json(to_json(module), kPath);
  ASSERT_TRUE(read.module.has_value()) << read.diagnostics[0].message;
  EXPECT_EQ(*read.module, module);
}

// ===== Determinism ==========================================================

TEST(IrDeterminism, OrderOfKernelsDoesNotMatter) {
  Module base = full_module();
  Kernel other_file = scale("src/another.cpp", 5);
  other_file.usr = "c:@N@custom@F@scale2#";
  other_file.kernel_key = "v1/7;0";
  base.kernels.push_back(other_file);
  const std::string expected = to_json(base);

  std::vector<size_t> order(base.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  int permutations = 0;
  do {
    Module shuffled = base;
    for (size_t i = 0; i < order.size(); ++i)
      shuffled.kernels[i] = base.kernels[order[i]];
    EXPECT_EQ(to_json(shuffled), expected);
    ++permutations;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(permutations, 24);
}

TEST(IrDeterminism, OrderOfSourcesDoesNotMatter) {
  Module module = full_module();
  // Includes the same path with two hashes (stale fragments) and an exact
  // duplicate: neither may make the output depend on input order.
  module.sources = {
      {"b.cpp", kShaA}, {"a.cpp", kShaB}, {"a.cpp", kShaA}, {"c.h", kShaB}, {"a.cpp", kShaB}};
  const std::string expected = to_json(module);

  std::vector<size_t> order(module.sources.size());
  std::iota(order.begin(), order.end(), 0);
  do {
    Module shuffled = module;
    for (size_t i = 0; i < order.size(); ++i)
      shuffled.sources[i] = module.sources[order[i]];
    ASSERT_EQ(to_json(shuffled), expected);
  } while (std::next_permutation(order.begin(), order.end()));

  Module canonical = module;
  canonicalize(canonical);
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
  Module module = full_module();
  EXPECT_TRUE(is_canonical(module));
  EXPECT_TRUE(is_canonical(Module{}));
  Module reversed = module;
  std::reverse(reversed.kernels.begin(), reversed.kernels.end());
  EXPECT_FALSE(is_canonical(reversed));
  Module unsorted_sources = module;
  std::swap(unsorted_sources.sources[0], unsorted_sources.sources[1]);
  EXPECT_FALSE(is_canonical(unsorted_sources));
  // Equal neighbours: canonicalize would drop a source, and a sort may swap
  // two kernels that tie (same operator, key, location and USR).
  Module duplicate_source = module;
  duplicate_source.sources.push_back(duplicate_source.sources.back());
  EXPECT_FALSE(is_canonical(duplicate_source));
  Module tie = module;
  tie.kernels.push_back(tie.kernels.back());
  tie.kernels.back().cpp_function = "custom::other";
  EXPECT_FALSE(is_canonical(tie));
}

// ===== Writing: the JSON text ===============================================

// to_json writes what nlohmann's dump(2) wrote before it had a writer of its
// own (with error_handler_t::replace): these tests compare with nlohmann.

// The JSON text to_json writes for the string `s`.
std::string written(const std::string& s) {
  Module module;
  module.generator = s;
  std::string json = to_json(module);
  const std::string before = "\n  \"generator\": ", after = ",\n  \"libclang_version\"";
  size_t begin = json.find(before) + before.size();
  return json.substr(begin, json.find(after) - begin);
}

std::string as_nlohmann_writes(const std::string& s) {
  return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
}

TEST(IrWrite, LaysOutTheTextAsNlohmannDoes) {
  Module no_arguments = full_module();
  no_arguments.kernels[2].arguments.clear();
  no_arguments.kernels[2].returns.clear();
  Module static_library = full_module();
  static_library.library = LibraryInfo{"all", "static", "", "executorch", "opscan_static_all"};
  for (const Module& module : {full_module(), no_arguments, static_library, Module{}}) {
    std::string json = to_json(module);
    // Parsing keeps the key order; dumping again gives nlohmann's layout.
    EXPECT_EQ(json, Json::parse(json).dump(2) + "\n");
  }
  // Empty arrays are written as nlohmann writes them. (No IR object is empty.)
  EXPECT_NE(to_json(no_arguments).find("\n      \"arguments\": [],\n      \"returns\": [],\n"),
            std::string::npos);
}

TEST(IrWrite, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(written(R"(say "hi" \ bye/)"), R"("say \"hi\" \\ bye/")");
  EXPECT_EQ(written("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(written(std::string("\0\x01\x0b\x1f", 4)), R"("\u0000\u0001\u000b\u001f")");
  EXPECT_EQ(written("\x7f"), "\"\x7f\""); // DEL is printed as it is
  for (int c = 0; c < 0x80; ++c) {
    std::string s(1, static_cast<char>(c));
    EXPECT_EQ(written(s), as_nlohmann_writes(s)) << "byte " << c;
  }
}

TEST(IrWrite, WritesUtf8AsItIs) {
  for (const std::string s : {"añadir_核.cpp", "\u00e9", "\U0001F600", "\uFFFD", "\U0010FFFF"})
    EXPECT_EQ(written(s), "\"" + s + "\"");
}

TEST(IrWrite, ReplacesInvalidUtf8) {
  // Each maximal ill-formed subsequence becomes one U+FFFD.
  const std::string r = "\uFFFD";
  std::vector<std::pair<std::string, std::string>> cases = {
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
    EXPECT_EQ(written(in), "\"" + out + "\"") << in;
    EXPECT_EQ(written(in), as_nlohmann_writes(in)) << in;
  }
  // The document stays valid JSON, and reads back with the replacement.
  Module module = full_module();
  module.kernels[2].location.file = "legacy\xe9.cpp";
  ReadResult read = from_json(to_json(module), kPath);
  ASSERT_TRUE(read.module.has_value()) << read.diagnostics[0].message;
  EXPECT_EQ(read.module->kernels[2].location.file, "legacy" + r + ".cpp");
}

TEST(IrWrite, EscapesEveryShortByteStringAsNlohmannDid) {
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

// ===== Reading: diagnostics =================================================

// Reads `text` and expects exactly one opscan-ir-invalid error in kPath whose
// message contains `message`.
diag::Diagnostic expect_invalid(const std::string& text, const std::string& message) {
  ReadResult read = from_json(text, kPath);
  EXPECT_FALSE(read.module.has_value());
  EXPECT_EQ(read.diagnostics.size(), 1u);
  if (read.diagnostics.empty())
    return {};
  const diag::Diagnostic& d = read.diagnostics[0];
  EXPECT_EQ(d.severity, diag::Severity::error);
  EXPECT_EQ(d.code, "opscan-ir-invalid");
  EXPECT_EQ(d.location.file, kPath);
  EXPECT_NE(d.message.find(message), std::string::npos)
      << "message: " << d.message << "\nexpected to contain: " << message;
  return d;
}

// The full module as a JSON tree, to be damaged by a test.
Json full_json() {
  return Json::parse(to_json(full_module()));
}

TEST(IrRead, NotJsonPointsAtTheBreak) {
  std::string text = "{\n  \"format\": \"opscan-ir\",\n  \"version\": 1,\n  oops\n}\n";
  diag::Diagnostic d = expect_invalid(text, "not valid JSON");
  EXPECT_EQ(d.location.line, 4u);
  EXPECT_EQ(d.location.column, 3u);
  EXPECT_EQ(d.location.offset, text.find("oops"));
}

TEST(IrRead, NotJsonOnTheFirstLine) {
  diag::Diagnostic d = expect_invalid("opscan", "not valid JSON");
  EXPECT_EQ(d.location.line, 1u);
  EXPECT_EQ(d.location.column, 1u);
}

// nlohmann refuses a number no double can hold with an out_of_range
// exception, not a parse error: still a diagnostic, never a crash.
TEST(IrRead, NumberTooLargeIsInvalidJson) {
  expect_invalid("{\"format\": \"opscan-ir\", \"version\": 1e400}", "number overflow");
}

TEST(IrRead, EmptyFile) {
  diag::Diagnostic d = expect_invalid("", "not valid JSON");
  EXPECT_EQ(d.location.line, 1u);
  EXPECT_EQ(d.location.column, 1u);
}

TEST(IrRead, TruncatedFile) {
  std::string json = to_json(full_module());
  std::string cut = json.substr(0, json.size() / 2);
  cut = cut.substr(0, cut.rfind('\n') + 1); // cut at a line end, like a short write
  diag::Diagnostic d = expect_invalid(cut, "truncated");
  EXPECT_NE(d.message.find("not valid JSON"), std::string::npos);
  // The break is at the end of the text.
  EXPECT_EQ(d.location.offset, cut.size());
  EXPECT_EQ(d.location.line, static_cast<uint32_t>(std::count(cut.begin(), cut.end(), '\n') + 1));
  EXPECT_EQ(d.location.column, 1u);

  // Losing just the final brace is also truncation.
  expect_invalid(json.substr(0, json.rfind('}')), "truncated");
}

TEST(IrRead, TrailingGarbage) {
  diag::Diagnostic d = expect_invalid(to_json(full_module()) + "}\n", "not valid JSON");
  EXPECT_EQ(d.message.find("truncated"), std::string::npos);
}

TEST(IrRead, WrongFormat) {
  Json doc = full_json();
  doc["format"] = "opscan-cache";
  expect_invalid(doc.dump(), "not an opscan IR file");
  doc.erase("format");
  expect_invalid(doc.dump(), "missing field /format");
  expect_invalid("{\"kernels\": []}", "missing field /format");
}

TEST(IrRead, TopLevelMustBeAnObject) {
  diag::Diagnostic d = expect_invalid("[1, 2]", "must be an object");
  EXPECT_EQ(d.message, "the IR must be an object");
  expect_invalid("\"opscan-ir\"", "must be an object");
}

TEST(IrRead, UnsupportedVersion) {
  Json doc = full_json();
  doc["version"] = 2;
  diag::Diagnostic d = expect_invalid(doc.dump(), "IR version 2 is not supported");
  EXPECT_NE(d.message.find("reads version 1"), std::string::npos);
  doc["version"] = 0;
  expect_invalid(doc.dump(), "IR version 0 is not supported");
  doc["version"] = "1";
  expect_invalid(doc.dump(), "/version must be a non-negative integer");
  doc["version"] = 1.5;
  expect_invalid(doc.dump(), "/version must be a non-negative integer");
}

TEST(IrRead, MissingFieldNamesItsPath) {
  {
    Json doc = full_json();
    doc["kernels"][0].erase("schema");
    expect_invalid(doc.dump(), "missing field /kernels/0/schema");
  }
  {
    Json doc = full_json();
    doc["kernels"][1]["arguments"][3].erase("cpp_canonical_type");
    expect_invalid(doc.dump(), "missing field /kernels/1/arguments/3/cpp_canonical_type");
  }
  {
    Json doc = full_json();
    doc["kernels"][2]["location"].erase("offset");
    expect_invalid(doc.dump(), "missing field /kernels/2/location/offset");
  }
  {
    Json doc = full_json();
    doc["kernels"][2]["operator"].erase("overload");
    expect_invalid(doc.dump(), "missing field /kernels/2/operator/overload");
  }
  {
    Json doc = full_json();
    doc["sources"][1].erase("sha256");
    expect_invalid(doc.dump(), "missing field /sources/1/sha256");
  }
  {
    Json doc = full_json();
    doc.erase("generator");
    expect_invalid(doc.dump(), "missing field /generator");
  }
  {
    Json doc = full_json();
    doc["kernels"][0]["returns"][0].erase("schema_type");
    expect_invalid(doc.dump(), "missing field /kernels/0/returns/0/schema_type");
  }
}

TEST(IrRead, WrongTypeNamesItsPath) {
  struct Case {
    Json::json_pointer pointer;
    Json value;
    std::string message;
  };
  std::vector<Case> cases = {
      {Json::json_pointer("/kernels/0/has_context"), "yes",
       "/kernels/0/has_context must be true or false"},
      {Json::json_pointer("/kernels/1/arguments/0/kwarg_only"), 0,
       "/kernels/1/arguments/0/kwarg_only must be true or false"},
      {Json::json_pointer("/kernels/1/arguments/2/default"), 1,
       "/kernels/1/arguments/2/default must be a string"},
      {Json::json_pointer("/kernels/1/arguments/2/default"), nullptr,
       "/kernels/1/arguments/2/default must be a string"},
      {Json::json_pointer("/kernels/2/location/line"), -1,
       "/kernels/2/location/line must be a non-negative integer"},
      {Json::json_pointer("/kernels/2/location/column"), 4294967296ull,
       "/kernels/2/location/column must be a non-negative integer"},
      {Json::json_pointer("/kernels/2/location/offset"), "12",
       "/kernels/2/location/offset must be a non-negative integer"},
      {Json::json_pointer("/kernels/0/cpp_function"), Json::array(),
       "/kernels/0/cpp_function must be a string"},
      {Json::json_pointer("/sources"), Json::object(), "/sources must be an array"},
      {Json::json_pointer("/kernels"), "none", "/kernels must be an array"},
      {Json::json_pointer("/kernels/0/arguments"), nullptr,
       "/kernels/0/arguments must be an array"},
      {Json::json_pointer("/kernels/1"), 3, "/kernels/1 must be an object"},
      {Json::json_pointer("/sources/0"), Json::array({"a.cpp", "x"}),
       "/sources/0 must be an object"},
      {Json::json_pointer("/kernels/0/operator"), "aten::add.out",
       "/kernels/0/operator must be an object"},
      {Json::json_pointer("/kernels/0/schema_origin"), "guessed",
       "/kernels/0/schema_origin must be \"declared\" or \"inferred\""},
      {Json::json_pointer("/libclang_version"), 14, "/libclang_version must be a string"},
      {Json::json_pointer("/library"), "portable", "/library must be an object"},
      {Json::json_pointer("/library/name"), "", "/library/name must not be empty"},
      {Json::json_pointer("/library/function"), nullptr, "/library/function must be a string"},
      {Json::json_pointer("/library/registration"), "eager",
       "/library/registration must be \"static\", \"manual\" or \"named\""},
      {Json::json_pointer("/library/target"), "tflite",
       "/library/target must be \"executorch\" or \"torch\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pointer.to_string());
    Json doc = full_json();
    doc[c.pointer] = c.value;
    expect_invalid(doc.dump(), c.message);
  }
}

TEST(IrRead, LinkAnchorIsANonEmptyString) {
  Json doc = full_json();
  doc["library"]["link_anchor"] = 1;
  expect_invalid(doc.dump(), "/library/link_anchor must be a string");
  doc["library"]["link_anchor"] = "";
  expect_invalid(doc.dump(),
                 "/library/link_anchor must not be empty (omit it outside static mode)");
}

TEST(IrRead, LibraryFieldsAreRequiredInALibrary) {
  for (const char* key : {"name", "registration", "function", "target"}) {
    Json doc = full_json();
    doc["library"].erase(key);
    expect_invalid(doc.dump(), std::string("missing field /library/") + key);
  }
}

TEST(IrRead, InvalidSchemaString) {
  for (const char* bad :
       {"", "aten::add.out(Tensor self", "not a schema", "aten::add(Tensr x) ->"}) {
    SCOPED_TRACE(bad);
    Json doc = full_json();
    doc["kernels"][2]["schema"] = bad;
    expect_invalid(doc.dump(), "/kernels/2/schema is not a valid schema");
  }
}

TEST(IrRead, UnknownFieldsAreIgnored) {
  // Additions by later minor revisions must not break older readers.
  Json doc = full_json();
  doc["comment"] = "hand-edited";
  doc["kernels"][0]["extra"] = 1;
  ReadResult read = from_json(doc.dump(), kPath);
  ASSERT_TRUE(read.module.has_value());
  EXPECT_EQ(*read.module, full_module());
}

// The reader parses the JSON opscan writes itself, and leaves anything else
// to nlohmann: whatever the text, it reads what nlohmann reads.
TEST(IrRead, ReadsWhatNlohmannReads) {
  const Module module = full_module();
  const std::string json = to_json(module);
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = json;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  std::string crlf = json;
  for (size_t at = 0; (at = crlf.find('\n', at)) != std::string::npos; at += 3)
    crlf.replace(at, 1, "\r\n\t");
  Json extra = full_json();
  extra["comment"] = {1.5,
                      -2,
                      nullptr,
                      1e300,
                      18446744073709551615ull,
                      18446744073709551616.0,
                      Json::object(),
                      "\u00e9\n"};
  const std::vector<std::string> texts = {
      replaced("\"opscan 0.1.0\"", R"("opscan\u00200.1.0")"), // \u escapes
      replaced("\"src/scale.cpp\"", R"("src\/scale.cpp")"),
      replaced("\"alpha\"", R"("\u0061lpha")"),
      "\xEF\xBB\xBF" + json,    // a byte-order mark
      Json::parse(json).dump(), // no white space
      crlf,
      nlohmann::json::parse(json).dump(1, '\t'), // keys in another order
      extra.dump(),
      // Of keys given twice, the last counts.
      replaced("\"generator\": \"opscan 0.1.0\",",
               "\"generator\": \"old\", \"generator\": \"opscan 0.1.0\","),
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text.substr(0, 200));
    ReadResult read = from_json(text, kPath);
    ASSERT_TRUE(read.module.has_value()) << read.diagnostics[0].message;
    EXPECT_EQ(*read.module, module);
  }
  ReadResult later = from_json(replaced("\"generator\": \"opscan 0.1.0\",",
                                        "\"generator\": \"opscan 0.1.0\", \"generator\": \"new\","),
                               kPath);
  ASSERT_TRUE(later.module.has_value());
  EXPECT_EQ(later.module->generator, "new");
}

TEST(IrRead, BadJsonIsReportedWhereNlohmannFindsIt) {
  const std::string json = to_json(full_module());
  std::vector<std::string> bad;
  for (const std::string& broken :
       {"\xff"s, "\xC3("s, "\xED\xA0\x80"s, "\x01"s, "\0"s, "\n"s, "\\x"s, "\\u12"s, "\\uD800"s}) {
    std::string text = json;
    bad.push_back(text.replace(text.find("scale.cpp"), 0, broken)); // inside a string
  }
  for (const std::string number : {"01", "-", "1.", "1e", "+1", "0x1", "1 2", "tru", "nul"}) {
    std::string text = json;
    bad.push_back(text.replace(text.find("\"version\": 1") + 11, 1, number));
  }
  bad.push_back(json.substr(0, json.size() - 3) + ",}\n"); // a trailing comma
  bad.push_back("{\"format\" \"opscan-ir\"}");
  bad.push_back("{\"format\": \"opscan-ir\",}");
  bad.push_back("[1,]");
  bad.push_back("{'format': 1}");
  for (const std::string& text : bad) {
    SCOPED_TRACE(text.substr(0, 200));
    size_t at = 0;
    try {
      Json parsed = Json::parse(text);
      ADD_FAILURE() << "nlohmann reads it: " << parsed.dump();
    } catch (const Json::parse_error& e) {
      at = e.byte - 1;
    }
    diag::Diagnostic d = expect_invalid(text, "not valid JSON");
    EXPECT_EQ(d.location.offset, at);
  }
}

TEST(IrRead, NumbersThatAreNotUnsignedIntegers) {
  for (const char* value : {"-1", "-0", "1.0", "1e2", "18446744073709551616", "null", "true"}) {
    SCOPED_TRACE(value);
    std::string json = to_json(full_module());
    json.replace(json.find("\"version\": 1") + 11, 1, value);
    expect_invalid(json, "/version must be a non-negative integer");
  }
}

TEST(IrRead, DeepNestingIsNoProblem) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  diag::Diagnostic d = expect_invalid(deep, "must be an object");
  EXPECT_EQ(d.message, "the IR must be an object");
  // In a field the reader does not know, or where it wants something else.
  std::string json = to_json(full_module());
  ReadResult read =
      from_json(json.substr(0, 1) + "\"comment\": " + deep + "," + json.substr(1), kPath);
  ASSERT_TRUE(read.module.has_value()) << read.diagnostics[0].message;
  EXPECT_EQ(*read.module, full_module());
  json.replace(json.find("\"sources\": [") + 12, 0, deep + ", ");
  expect_invalid(json, "/sources/0 must be an object");
}

// ===== Merging ==============================================================

TEST(IrMerge, SameKernelInTwoFragmentsIsKeptOnce) {
  // A kernel in a header seen by two translation units.
  Kernel far = scale("src/z.h", 300);
  Kernel near = scale("src/a.h", 900);
  Module one = fragment({{"src/one.cpp", kShaA}, {"src/z.h", kShaB}}, {far});
  Module two = fragment({{"src/two.cpp", kShaB}, {"src/z.h", kShaB}}, {near});

  MergeResult ab = merge({one, two});
  MergeResult ba = merge({two, one});
  EXPECT_TRUE(ab.diagnostics.empty());
  EXPECT_TRUE(ba.diagnostics.empty());
  ASSERT_EQ(ab.module.kernels.size(), 1u);
  EXPECT_EQ(ab.module.kernels[0].location, near.location); // the smaller (file, offset)
  EXPECT_EQ(ab.module, ba.module);
  EXPECT_EQ(to_json(ab.module), to_json(ba.module));
  std::vector<SourceFile> sources = {
      {"src/one.cpp", kShaA}, {"src/two.cpp", kShaB}, {"src/z.h", kShaB}};
  EXPECT_EQ(ab.module.sources, sources);
  EXPECT_EQ(ab.module.generator, "opscan 0.1.0");
  EXPECT_EQ(ab.module.libclang_version, "clang 14");
}

TEST(IrMerge, SmallerOffsetWinsInTheSameFile) {
  Module one = fragment({}, {scale("src/a.h", 90)});
  Module two = fragment({}, {scale("src/a.h", 10)});
  Module three = fragment({}, {scale("src/a.h", 50)});
  for (auto& order : std::vector<std::vector<Module>>{
           {one, two, three}, {two, three, one}, {three, one, two}, {three, two, one}}) {
    MergeResult merged = merge(order);
    EXPECT_TRUE(merged.diagnostics.empty());
    ASSERT_EQ(merged.module.kernels.size(), 1u);
    EXPECT_EQ(merged.module.kernels[0].location.offset, 10u);
  }
}

TEST(IrMerge, SameUsrWithDifferentContentConflicts) {
  Kernel here = scale("src/a.cpp", 10);
  Kernel there = scale("src/b.cpp", 20);
  there.kernel_key = "v1/6;0";
  for (bool swapped : {false, true}) {
    SCOPED_TRACE(swapped ? "b first" : "a first");
    std::vector<Module> fragments = {fragment({}, {here}), fragment({}, {there})};
    if (swapped)
      std::swap(fragments[0], fragments[1]);
    MergeResult merged = merge(fragments);
    ASSERT_EQ(merged.diagnostics.size(), 1u);
    const diag::Diagnostic& d = merged.diagnostics[0];
    EXPECT_EQ(d.code, "opscan-kernel-conflict");
    EXPECT_EQ(d.severity, diag::Severity::error);
    EXPECT_NE(d.message.find("'custom::scale'"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("kernel key 'v1/6;0'"), std::string::npos) << d.message;
    ASSERT_EQ(d.notes.size(), 1u);
    // Reported at one annotation with a note at the other, the same way
    // whatever the order of the fragments.
    EXPECT_EQ(d.location, there.location);
    EXPECT_EQ(d.notes[0].location, here.location);
    ASSERT_EQ(merged.module.kernels.size(), 1u);
    EXPECT_EQ(merged.module.kernels[0], here);
  }
}

TEST(IrMerge, ConflictInTypesOnlyIsExplained) {
  Kernel here = scale("src/a.cpp", 10);
  Kernel there = scale("src/b.cpp", 20);
  there.arguments[1].cpp_canonical_type = "float";
  MergeResult merged = merge({fragment({}, {here}), fragment({}, {there})});
  ASSERT_EQ(merged.diagnostics.size(), 1u);
  const diag::Diagnostic& d = merged.diagnostics[0];
  EXPECT_EQ(d.code, "opscan-kernel-conflict");
  EXPECT_NE(d.message.find("'custom::scale'"), std::string::npos) << d.message;
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].location, here.location);
}

TEST(IrMerge, TwoFunctionsForOneOperatorAndKeyAreDuplicates) {
  Kernel first = scale("src/a.cpp", 10);
  Kernel second = scale("src/b.cpp", 20);
  second.usr = "c:@N@custom@F@scale_again#";
  second.cpp_function = "custom::scale_again";
  for (bool swapped : {false, true}) {
    SCOPED_TRACE(swapped ? "b first" : "a first");
    std::vector<Module> fragments = {fragment({}, {first}), fragment({}, {second})};
    if (swapped)
      std::swap(fragments[0], fragments[1]);
    MergeResult merged = merge(fragments);
    ASSERT_EQ(merged.diagnostics.size(), 1u);
    const diag::Diagnostic& d = merged.diagnostics[0];
    EXPECT_EQ(d.code, "opscan-duplicate-kernel");
    EXPECT_EQ(d.severity, diag::Severity::error);
    EXPECT_NE(d.message.find("custom::scale"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("'custom::scale'"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("'custom::scale_again'"), std::string::npos) << d.message;
    EXPECT_EQ(d.location, second.location);
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].location, first.location);
    EXPECT_NE(d.notes[0].message.find("'custom::scale'"), std::string::npos);
  }
}

TEST(IrMerge, DuplicateWithAKernelKeyNamesTheKey) {
  Kernel first = add_out("src/a.cpp", 10);
  Kernel second = add_out("src/a.cpp", 500);
  second.usr = "c:@N@custom@N@native@F@add_out_v2#";
  second.cpp_function = "custom::native::add_out_v2";
  MergeResult merged = merge({fragment({}, {first, second})});
  ASSERT_EQ(merged.diagnostics.size(), 1u);
  EXPECT_EQ(merged.diagnostics[0].code, "opscan-duplicate-kernel");
  EXPECT_NE(merged.diagnostics[0].message.find("aten::add.out (kernel key '" + first.kernel_key),
            std::string::npos)
      << merged.diagnostics[0].message;
}

TEST(IrMerge, DifferentKernelKeysAreFine) {
  Kernel fallback = add_out("src/a.cpp", 10);
  fallback.kernel_key = "";
  fallback.usr = "c:@F@add_out_fallback#";
  fallback.cpp_function = "custom::native::add_out_fallback";
  Kernel keyed = add_out("src/b.cpp", 10);
  Kernel other_key = add_out("src/b.cpp", 80);
  other_key.kernel_key = "v1/7;0,1,2,3|7;0,1,2,3|7;0,1,2,3";
  other_key.usr = "c:@F@add_out_double#";
  MergeResult merged = merge({fragment({{"src/b.cpp", kShaB}}, {other_key, keyed}),
                              fragment({{"src/a.cpp", kShaA}}, {fallback})});
  EXPECT_TRUE(merged.diagnostics.empty());
  ASSERT_EQ(merged.module.kernels.size(), 3u);
  EXPECT_EQ(merged.module.kernels[0].kernel_key, "");
  EXPECT_EQ(merged.module.kernels[1].kernel_key, keyed.kernel_key);
  EXPECT_EQ(merged.module.kernels[2].kernel_key, other_key.kernel_key);
}

TEST(IrMerge, SameSourceWithDifferentContentIsStale) {
  Module one = fragment({{"src/a.cpp", kShaA}, {"include/k.h", kShaA}}, {});
  Module two = fragment({{"src/b.cpp", kShaA}, {"include/k.h", kShaB}}, {});
  Module three = fragment({{"include/k.h", kShaC}}, {});
  Module four = fragment({{"include/k.h", kShaA}}, {});
  for (const auto& fragments : std::vector<std::vector<Module>>{
           {one, two}, {two, one}, {one, two, three}, {three, two, one}, {four, two, one, three}}) {
    MergeResult merged = merge(fragments);
    ASSERT_EQ(merged.diagnostics.size(), 1u); // one per file, however many fragments disagree
    const diag::Diagnostic& d = merged.diagnostics[0];
    EXPECT_EQ(d.code, "opscan-ir-stale");
    EXPECT_EQ(d.severity, diag::Severity::error);
    EXPECT_EQ(d.location.file, "include/k.h");
    EXPECT_NE(d.message.find("scan it again"), std::string::npos);
  }
}

TEST(IrMerge, SameSourceWithSameContentIsFine) {
  MergeResult merged =
      merge({fragment({{"include/k.h", kShaA}}, {}), fragment({{"include/k.h", kShaA}}, {})});
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_EQ(merged.module.sources, (std::vector<SourceFile>{{"include/k.h", kShaA}}));
}

TEST(IrMerge, MergedLibrariesMakeNoLibrary) {
  // Merging (--lib) makes a new library: the inputs' library records do not
  // carry over.
  Module a = fragment({{"src/a.cpp", kShaA}}, {scale("src/a.cpp", 10)});
  a.library = LibraryInfo{"a", "named", "torch::executor::register_a_kernels", "executorch"};
  Module b = fragment({{"src/b.cpp", kShaB}}, {add_out("src/b.cpp", 10)});
  b.library = LibraryInfo{"b", "static", "", "executorch"};
  MergeResult merged = merge({a, b});
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_EQ(merged.module.library, std::nullopt);
  EXPECT_EQ(merged.module.kernels.size(), 2u);
}

TEST(IrMerge, NothingToMerge) {
  MergeResult merged = merge({});
  EXPECT_TRUE(merged.diagnostics.empty());
  EXPECT_EQ(merged.module, Module{});
}

// ===== Selecting operators ==================================================

// The operators of a module's kernels, "ns::name.overload [key]", in order.
std::vector<std::string> operators_of(const Module& m) {
  std::vector<std::string> ops;
  for (const Kernel& k : m.kernels)
    ops.push_back(k.op.str() + (k.kernel_key.empty() ? "" : " [" + k.kernel_key + "]"));
  return ops;
}

// full_module(): aten::add.out (fallback and keyed) and custom::scale.
TEST(IrSelect, KeepsEveryKernelKeyOfTheOperatorsNamed) {
  SelectResult add = select_operators(full_module(), {"aten::add.out"});
  EXPECT_TRUE(add.diagnostics.empty());
  EXPECT_EQ(operators_of(add.module),
            (std::vector<std::string>{"aten::add.out",
                                      "aten::add.out [v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3]"}));
  // Everything but the kernels is kept.
  Module expected = full_module();
  expected.kernels.pop_back();
  EXPECT_EQ(add.module, expected);

  // A name without overload is the operator without one.
  SelectResult scale = select_operators(full_module(), {"custom::scale"});
  EXPECT_TRUE(scale.diagnostics.empty());
  EXPECT_EQ(operators_of(scale.module), std::vector<std::string>{"custom::scale"});
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

// ===== The JSON Schema ======================================================

#ifndef OPSCAN_IR_SCHEMA
#error "OPSCAN_IR_SCHEMA must name lib/ir/opscan-ir.schema.json"
#endif

// Checks a document written by to_json against the schema's structure: every
// key written is a declared property, every required property is written,
// leaves have the declared type. Records which properties each object schema
// saw, so the caller can check that none is stale.
class SchemaWalker {
public:
  explicit SchemaWalker(const nlohmann::json& schema) : root_(schema) {}

  void walk(const Json& doc, const nlohmann::json& schema, const std::string& where) {
    const nlohmann::json& s = resolve(schema);
    SCOPED_TRACE(where.empty() ? "/" : where);
    if (s.contains("const")) {
      EXPECT_EQ(nlohmann::json::parse(doc.dump()), s["const"]);
      return;
    }
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& v : s["enum"])
        found = found || nlohmann::json::parse(doc.dump()) == v;
      EXPECT_TRUE(found) << doc.dump();
      return;
    }
    ASSERT_TRUE(s.contains("type")) << "no type, const or enum in the schema";
    std::string type = s["type"];
    if (type == "object") {
      ASSERT_TRUE(doc.is_object());
      EXPECT_EQ(s.value("additionalProperties", true), false);
      const nlohmann::json& properties = s.at("properties");
      for (const auto& [key, value] : doc.items()) {
        seen_[&s].insert(key);
        if (!properties.contains(key)) {
          ADD_FAILURE() << "written key " << where << "/" << key << " is not in the schema";
          continue;
        }
        walk(value, properties[key], where + "/" + key);
      }
      for (const auto& key : s.value("required", nlohmann::json::array())) {
        EXPECT_TRUE(doc.contains(key.get<std::string>()))
            << "required " << where << "/" << key.get<std::string>() << " is not written";
      }
    } else if (type == "array") {
      ASSERT_TRUE(doc.is_array());
      for (size_t i = 0; i < doc.size(); ++i) {
        walk(doc[i], s.at("items"), where + "/" + std::to_string(i));
      }
    } else if (type == "string") {
      ASSERT_TRUE(doc.is_string());
      if (s.contains("pattern")) {
        EXPECT_TRUE(
            std::regex_search(doc.get<std::string>(), std::regex(s["pattern"].get<std::string>())))
            << doc << " does not match " << s["pattern"];
      }
      if (s.contains("minLength")) {
        EXPECT_GE(doc.get<std::string>().size(), s["minLength"].get<size_t>());
      }
    } else if (type == "boolean") {
      EXPECT_TRUE(doc.is_boolean());
    } else if (type == "integer") {
      ASSERT_TRUE(doc.is_number_integer());
      if (s.contains("minimum")) {
        EXPECT_GE(doc.get<int64_t>(), s["minimum"].get<int64_t>());
      }
      if (s.contains("maximum")) {
        EXPECT_LE(doc.get<int64_t>(), s["maximum"].get<int64_t>());
      }
    } else {
      ADD_FAILURE() << "unexpected schema type " << type;
    }
  }

  // Every property of every object schema the walk reached was written at
  // least once.
  void expect_all_properties_seen() const {
    for (const auto& [schema, keys] : seen_) {
      for (const auto& [key, value] : schema->at("properties").items()) {
        EXPECT_TRUE(keys.count(key)) << "schema property '" << key << "' is never written";
      }
    }
  }

  size_t objects_seen() const { return seen_.size(); }

private:
  // Follows "$ref": "#/$defs/..." (the only references the schema uses).
  const nlohmann::json& resolve(const nlohmann::json& schema) const {
    if (!schema.contains("$ref"))
      return schema;
    std::string ref = schema["$ref"];
    EXPECT_EQ(ref.rfind("#/", 0), 0u) << ref;
    return resolve(root_.at(nlohmann::json::json_pointer(ref.substr(1))));
  }

  const nlohmann::json& root_;
  std::map<const nlohmann::json*, std::set<std::string>> seen_;
};

nlohmann::json load_schema() {
  std::ifstream in(OPSCAN_IR_SCHEMA);
  EXPECT_TRUE(in.good()) << "cannot read " << OPSCAN_IR_SCHEMA;
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// Every subschema (reached through properties, items, $defs) describes its
// meaning.
void expect_descriptions(const nlohmann::json& s, const std::string& where) {
  if (!s.is_object())
    return;
  if (!where.ends_with("/items")) {
    EXPECT_TRUE(s.contains("description")) << where << " has no description";
  }
  if (s.contains("properties")) {
    for (const auto& [key, value] : s["properties"].items()) {
      expect_descriptions(value, where + "/properties/" + key);
    }
  }
  if (s.contains("items"))
    expect_descriptions(s["items"], where + "/items");
  if (s.contains("$defs")) {
    for (const auto& [key, value] : s["$defs"].items()) {
      expect_descriptions(value, where + "/$defs/" + key);
    }
  }
}

TEST(IrSchema, IsDraft202012WithFormatAndVersion) {
  nlohmann::json schema = load_schema();
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(schema["properties"]["format"]["const"], std::string(kFormat));
  EXPECT_EQ(schema["properties"]["version"]["const"], kVersion);
  EXPECT_EQ(schema["$defs"]["source"]["properties"]["sha256"]["pattern"], "^[0-9a-f]{64}$");
  expect_descriptions(schema, "");
}

TEST(IrSchema, DescribesEverythingToJsonWrites) {
  nlohmann::json schema = load_schema();
  SchemaWalker walker(schema);
  walker.walk(Json::parse(to_json(full_module())), schema, "");
  // A static library writes what a named one does not: its link anchor.
  Module static_lib = full_module();
  static_lib.library =
      LibraryInfo{"ops", "static", "", "executorch", "opscan_static_registration_ops"};
  walker.walk(Json::parse(to_json(static_lib)), schema, "");
  walker.expect_all_properties_seen();
  // document, library, source, operator, kernel, argument, return, location
  EXPECT_EQ(walker.objects_seen(), 8u);
}

TEST(IrSchema, DefaultIsOptional) {
  nlohmann::json schema = load_schema();
  const nlohmann::json& argument = schema["$defs"]["argument"];
  EXPECT_TRUE(argument["properties"].contains("default"));
  for (const auto& key : argument["required"])
    EXPECT_NE(key, "default");

  Module module = full_module();
  for (Kernel& k : module.kernels) {
    for (Argument& a : k.arguments)
      a.default_value.reset();
  }
  SchemaWalker walker(schema);
  walker.walk(Json::parse(to_json(module)), schema, "");
}

TEST(IrSchema, WalkerCatchesMismatches) {
  // The walker is a check on the schema, so make sure it can fail: a written
  // key the schema lacks, and a bad hash.
  nlohmann::json schema = load_schema();
  schema["$defs"]["return"]["properties"].erase("name");
  SchemaWalker walker(schema);
  Module module = full_module();
  module.sources[0].sha256 = "ABC";
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    walker.walk(Json::parse(to_json(module)), schema, "");
  }
  std::string all;
  for (int i = 0; i < failures.size(); ++i)
    all += failures.GetTestPartResult(i).message();
  EXPECT_NE(all.find("/kernels/0/returns/0/name is not in the schema"), std::string::npos) << all;
  EXPECT_NE(all.find("does not match"), std::string::npos) << all;
}

} // namespace
