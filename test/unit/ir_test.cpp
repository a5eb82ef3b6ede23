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
  *os << l.name << " (" << l.registration << ", " << l.function << ", " << l.target << ")";
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

  // Static registration: no function.
  Module static_lib = full_module();
  static_lib.library = LibraryInfo{"all", "static", "", "executorch"};
  read = from_json(to_json(static_lib), kPath);
  ASSERT_TRUE(read.module.has_value()) << read.diagnostics[0].message;
  EXPECT_EQ(*read.module, static_lib);
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
      {Json::json_pointer("/library/target"), "tflite", "/library/target must be \"executorch\" or \"torch\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pointer.to_string());
    Json doc = full_json();
    doc[c.pointer] = c.value;
    expect_invalid(doc.dump(), c.message);
  }
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
