// The published JSON Schema of the IR (lib/ir/opscan-ir.schema.json): it
// describes exactly what to_json writes and from_json reads, its required
// lists are the reader's, its enums the reader's spellings, and its patterns
// accept exactly what the reader and ir::validate accept.
#include "files.h"
#include "ir/ir_test_helpers.h"
#include "ir/validate.h"

#include <fstream>
#include <functional>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#ifndef OPSCAN_IR_SCHEMA
#error "OPSCAN_IR_SCHEMA must name lib/ir/opscan-ir.schema.json"
#endif

namespace {

using namespace opscan;
using namespace opscan::ir;
using namespace opscan::ir_test;
using Schema = nlohmann::json;

Schema load_schema() {
  EXPECT_TRUE(std::ifstream(OPSCAN_IR_SCHEMA).good()) << "cannot read " << OPSCAN_IR_SCHEMA;
  return Schema::parse(opscan::testing::read_file(OPSCAN_IR_SCHEMA));
}

// JSON Schema counts a string's length in code points.
size_t code_points(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Checks documents against the schema's structure, as a validator would for
// the keywords the schema uses (and fails on any other): $ref (with
// sibling keywords), const, enum, type, properties, required,
// additionalProperties, items, uniqueItems, pattern, minLength, minimum,
// maximum. Records every object it meets with the subschema describing it.
class Walker {
public:
  explicit Walker(const Schema& root) : root_(root) {}

  struct Object {
    Json::json_pointer at; // in the document
    std::string schema;    // pointer of its subschema in the schema
  };
  std::vector<Object> objects;
  std::map<std::string, std::set<std::string>> keys_seen; // by object subschema
  std::set<std::string> defs_reached;

  void walk(const Json& doc) { walk(doc, "", Json::json_pointer()); }

  // The subschema at `at` merged with what its $refs refer to (the
  // referring keywords win), and the pointer of the last one.
  std::pair<std::string, Schema> resolve(std::string at) {
    Schema merged = Schema::object();
    for (int hops = 0; hops < 8; ++hops) {
      const Schema& s = root_.at(Schema::json_pointer(at));
      for (const auto& [key, value] : s.items()) {
        if (key != "$ref" && !merged.contains(key))
          merged[key] = value;
      }
      if (!s.contains("$ref"))
        return {at, merged};
      const std::string ref = s["$ref"];
      EXPECT_TRUE(ref.starts_with("#/$defs/")) << ref;
      at = ref.substr(1);
      defs_reached.insert(at);
    }
    ADD_FAILURE() << "$ref cycle at " << at;
    return {at, merged};
  }

private:
  void walk(const Json& doc, const std::string& at, const Json::json_pointer& where) {
    SCOPED_TRACE("document " + where.to_string() + ", schema " + at);
    auto [id, s] = resolve(at);
    static const std::set<std::string> kKnown = {"$schema",
                                                 "title",
                                                 "description",
                                                 "type",
                                                 "properties",
                                                 "required",
                                                 "additionalProperties",
                                                 "items",
                                                 "uniqueItems",
                                                 "pattern",
                                                 "minLength",
                                                 "minimum",
                                                 "maximum",
                                                 "const",
                                                 "enum",
                                                 "$defs"};
    for (const auto& [key, value] : s.items()) {
      EXPECT_TRUE(kKnown.contains(key)) << "keyword " << key << " is not checked here";
    }
    const Schema value = Schema::parse(doc.dump());
    if (s.contains("const")) {
      EXPECT_EQ(value, s["const"]);
    }
    if (s.contains("enum")) {
      const Schema& choices = s["enum"];
      EXPECT_NE(std::find(choices.begin(), choices.end(), value), choices.end()) << doc.dump();
    }
    if (!s.contains("type")) {
      EXPECT_TRUE(s.contains("const") || s.contains("enum")) << "no type, const or enum";
      return;
    }
    const std::string type = s["type"];
    if (type == "object") {
      ASSERT_TRUE(doc.is_object());
      EXPECT_EQ(s.value("additionalProperties", true), false);
      objects.push_back({where, id});
      const Schema& properties = s.at("properties");
      for (const auto& [key, member] : doc.items()) {
        keys_seen[id].insert(key);
        if (!properties.contains(key)) {
          ADD_FAILURE() << "written key " << (where / key).to_string() << " is not in the schema";
          continue;
        }
        walk(member, id + "/properties/" + key, where / key);
      }
      for (const auto& key : s.value("required", Schema::array())) {
        EXPECT_TRUE(doc.contains(key.get<std::string>()))
            << "required " << (where / key.get<std::string>()).to_string() << " is not written";
      }
    } else if (type == "array") {
      ASSERT_TRUE(doc.is_array());
      for (size_t i = 0; i < doc.size(); ++i)
        walk(doc[i], id + "/items", where / i);
      if (s.value("uniqueItems", false)) {
        std::set<std::string> items;
        for (const auto& item : doc) {
          EXPECT_TRUE(items.insert(item.dump()).second) << "repeated " << item.dump();
        }
      }
    } else if (type == "string") {
      ASSERT_TRUE(doc.is_string());
      const std::string text = doc.get<std::string>();
      if (s.contains("pattern")) {
        EXPECT_TRUE(std::regex_search(text, std::regex(s["pattern"].get<std::string>())))
            << doc << " does not match " << s["pattern"];
      }
      if (s.contains("minLength")) {
        EXPECT_GE(code_points(text), s["minLength"].get<size_t>()) << doc;
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
      ADD_FAILURE() << "unexpected type " << type;
    }
  }

  const Schema& root_;
};

// Documents that together write every key: a named and a static library,
// a fragment, defaults present and absent.
std::vector<Json> documents() {
  Module fragment_module = full_module();
  fragment_module.library.reset();
  return {Json::parse(to_json(full_module(), test_fields())),
          Json::parse(to_json(static_library(), test_fields())),
          Json::parse(to_json(fragment_module, test_fields())),
          Json::parse(to_json(Module{}, test_fields()))};
}

TEST(IrSchemaFile, IsDraft202012ForVersion2) {
  const Schema schema = load_schema();
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(schema["properties"]["format"]["const"], std::string(kFormat));
  EXPECT_EQ(schema["properties"]["version"]["const"], kVersion);
  EXPECT_EQ(kVersion, 2);
}

// Every subschema says what it means; no text cites a document outside
// the repository.
void expect_described(const Schema& s, const std::string& where) {
  if (!s.is_object())
    return;
  EXPECT_TRUE(s.contains("description")) << where << " has no description";
  if (s.contains("description")) {
    const std::string text = s["description"];
    EXPECT_EQ(text.find("http"), std::string::npos) << where;
    EXPECT_EQ(text.find(".md"), std::string::npos) << where;
  }
  for (const char* group : {"properties", "$defs"}) {
    if (s.contains(group)) {
      for (const auto& [key, value] : s[group].items())
        expect_described(value, where + "/" + group + "/" + key);
    }
  }
  if (s.contains("items") && !s["items"].contains("$ref"))
    expect_described(s["items"], where + "/items");
}

TEST(IrSchemaFile, EverySubschemaIsDescribed) {
  expect_described(load_schema(), "");
}

TEST(IrSchemaFile, DescribesEveryKeyToJsonWritesAndNothingElse) {
  const Schema schema = load_schema();
  Walker walker(schema);
  for (const Json& doc : documents())
    walker.walk(doc);
  // Every property of every object is written by one of the documents.
  for (const auto& [id, keys] : walker.keys_seen) {
    const Schema object = walker.resolve(id).second;
    for (const auto& [key, value] : object.at("properties").items()) {
      EXPECT_TRUE(keys.contains(key))
          << "schema property " << id << "/" << key << " is never written";
    }
  }
  // document, alias, library, source, kernel, operator, argument, return,
  // location
  EXPECT_EQ(walker.keys_seen.size(), 9u);
  // No definition is left unused.
  for (const auto& [name, value] : schema["$defs"].items()) {
    EXPECT_TRUE(walker.defs_reached.contains("/$defs/" + name)) << name << " is never used";
  }
}

TEST(IrSchemaFile, WalkerFindsMismatches) {
  // The walker checks the schema, so make sure it can fail: a key the
  // schema lacks, a hash its pattern refuses, a required key not written.
  Schema schema = load_schema();
  schema["$defs"]["return"]["properties"].erase("name");
  schema["$defs"]["location"]["required"].push_back("end");
  Walker walker(schema);
  Module module = full_module();
  module.sources[0].sha256 = "ABC";
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    walker.walk(Json::parse(to_json(module, test_fields())));
  }
  std::string all;
  for (int i = 0; i < failures.size(); ++i)
    all += failures.GetTestPartResult(i).message() + std::string("\n");
  EXPECT_NE(all.find("written key /kernels/0/returns/0/name is not in the schema"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("does not match"), std::string::npos) << all;
  EXPECT_NE(all.find("required /kernels/0/location/end is not written"), std::string::npos) << all;
}

// Every object of `doc` with its subschema.
std::vector<Walker::Object> objects_of(const Schema& schema, const Json& doc) {
  Walker walker(schema);
  walker.walk(doc);
  return walker.objects;
}

bool reads(const Json& doc) {
  return from_json(doc.dump(2), kPath, test_fields()).module.has_value();
}

TEST(IrSchemaFile, RequiredIsWhatTheReaderRequires) {
  const Schema schema = load_schema();
  Walker resolver(schema);
  size_t checked = 0;
  for (const Json& doc : documents()) {
    ASSERT_TRUE(reads(doc));
    for (const Walker::Object& object : objects_of(schema, doc)) {
      const Schema s = resolver.resolve(object.schema).second;
      const Schema required = s.value("required", Schema::array());
      for (const auto& key : required) {
        EXPECT_TRUE(s["properties"].contains(key)) << object.schema << " requires " << key;
      }
      for (const auto& [key, value] : doc[object.at].items()) {
        SCOPED_TRACE((object.at / key).to_string());
        Json without = doc;
        erase_member(without, object.at, key);
        const bool is_required = std::find(required.begin(), required.end(), key) != required.end();
        EXPECT_EQ(reads(without), !is_required);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 300u);
}

TEST(IrSchemaFile, NoObjectTakesOtherKeysAndNeitherDoesTheReader) {
  const Schema schema = load_schema();
  Walker resolver(schema);
  const Json doc = Json::parse(to_json(static_library(), test_fields()));
  for (const Walker::Object& object : objects_of(schema, doc)) {
    SCOPED_TRACE(object.at.to_string());
    EXPECT_EQ(resolver.resolve(object.schema).second.value("additionalProperties", true), false);
    Json more = doc;
    more[object.at]["x-comment"] = "hand-edited";
    EXPECT_FALSE(reads(more));
  }
}

TEST(IrSchemaFile, EnumsAreTheSpellingsTheReaderTakes) {
  const Schema schema = load_schema();
  struct Case {
    std::string schema_at;
    Json::json_pointer doc_at;
    std::set<std::string> spellings; // the C++ enum's, in the JSON
  };
  const std::vector<Case> cases = {
      {"/$defs/kernel/properties/context",
       Json::json_pointer("/kernels/0/context"),
       {std::string(to_string(ContextKind::none)),
        std::string(to_string(ContextKind::runtime_context)),
        std::string(to_string(ContextKind::dispatch_key_set))}},
      {"/$defs/kernel/properties/schema_origin",
       Json::json_pointer("/kernels/0/schema_origin"),
       {std::string(to_string(SchemaOrigin::inferred)),
        std::string(to_string(SchemaOrigin::declared)),
        std::string(to_string(SchemaOrigin::known))}},
      {"/$defs/kernel/properties/cpp_linkage",
       Json::json_pointer("/kernels/0/cpp_linkage"),
       {std::string(to_string(Linkage::cxx)), std::string(to_string(Linkage::c))}},
      {"/$defs/library/properties/registration",
       Json::json_pointer("/library/registration"),
       {std::string(to_string(Registration::static_init)),
        std::string(to_string(Registration::manual)), std::string(to_string(Registration::named))}},
  };
  const Json doc = Json::parse(to_json(full_module(), test_fields()));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.schema_at);
    const Schema& choices = schema.at(Schema::json_pointer(c.schema_at)).at("enum");
    EXPECT_EQ(choices.get<std::set<std::string>>(), c.spellings);
    for (const std::string& spelling : c.spellings) {
      Json with = doc;
      with[c.doc_at] = spelling;
      EXPECT_TRUE(reads(with)) << spelling;
    }
    Json other = doc;
    other[c.doc_at] = "other";
    EXPECT_FALSE(reads(other));
  }
}

TEST(IrSchemaFile, NumbersAreWhatTheReaderTakes) {
  const Schema schema = load_schema();
  const Json doc = Json::parse(to_json(full_module(), test_fields()));
  for (const char* key : {"line", "column", "offset"}) {
    SCOPED_TRACE(key);
    const Schema& s = schema["$defs"]["location"]["properties"][key];
    EXPECT_EQ(s["type"], "integer");
    for (int64_t n : {s["minimum"].get<int64_t>(), s["maximum"].get<int64_t>()}) {
      Json with = doc;
      with["kernels"][0]["location"][key] = n;
      EXPECT_TRUE(reads(with)) << n;
    }
    for (int64_t n : {s["minimum"].get<int64_t>() - 1, s["maximum"].get<int64_t>() + 1}) {
      Json with = doc;
      with["kernels"][0]["location"][key] = n;
      EXPECT_FALSE(reads(with)) << n;
    }
  }
  for (int version : {kVersion - 1, kVersion + 1}) {
    Json with = doc;
    with["version"] = version;
    EXPECT_FALSE(reads(with));
  }
}

// Whether opscan takes `module` with no problem at `path`: it reads back,
// and ir::validate reports nothing there.
bool accepted_at(const Module& module, const std::string& path) {
  ReadResult read = from_json(to_json(module, test_fields()), kPath, test_fields());
  if (!read.module)
    return false;
  Locator locator;
  locator.add(*read.module, read.positions);
  for (const diag::Diagnostic& d : validate(*read.module, locator)) {
    if (d.message.starts_with(path + ": "))
      return false;
  }
  return true;
}

// A pattern (or minimum length) of the schema and what opscan accepts agree
// on every sample, in both directions: the schema refuses no IR opscan
// takes, and its patterns are the rule, not an approximation.
TEST(IrSchemaFile, PatternsAcceptWhatOpscanAccepts) {
  const Schema schema = load_schema();
  Walker resolver(schema);
  struct Case {
    std::string schema_at;
    std::string path; // where ir::validate reports the rule
    std::function<void(Module&, const std::string&)> set;
    std::vector<std::string> samples;
  };
  const std::vector<std::string> identifiers = {
      "aten", "_x", "a1", "A", "", "1a", "a-b", "a b", "\xc3\xbc", "a::b", "a\n", "a.b", "x)"};
  const std::vector<Case> cases = {
      {"/$defs/kernel/properties/operator/properties/namespace", "kernels[0].operator",
       [](Module& m, const std::string& v) { m.kernels[0].op.ns = v; }, identifiers},
      {"/$defs/kernel/properties/operator/properties/name", "kernels[0].operator",
       [](Module& m, const std::string& v) { m.kernels[0].op.name = v; },
       [&] {
         std::vector<std::string> names = identifiers;
         names.insert(names.end(),
                      {"add_", "_out", "a_out", "add_out", "__add", "_add", "a__b", "out", "__"});
         return names;
       }()},
      {"/$defs/kernel/properties/operator/properties/overload", "kernels[0].operator",
       [](Module& m, const std::string& v) { m.kernels[0].op.overload = v; },
       [&] {
         std::vector<std::string> names = identifiers;
         names.insert(names.end(), {"out", "Scalar_out", "default", "Default", "defaults", "__x",
                                    "x__", "_out"});
         return names;
       }()},
      {"/$defs/argument/properties/name", "kernels[0].arguments[1].name",
       [](Module& m, const std::string& v) { m.kernels[0].arguments[1].schema.name = v; },
       identifiers},
      {"/$defs/return/properties/name", "kernels[0].returns[0].name",
       [](Module& m, const std::string& v) { m.kernels[0].returns[0].name = v; }, identifiers},
      {"/$defs/library/properties/target", "library.target",
       [](Module& m, const std::string& v) { m.library->target = v; }, identifiers},
      {"/$defs/source/properties/sha256",
       "sources[0].sha256",
       [](Module& m, const std::string& v) { m.sources[0].sha256 = v; },
       {kShaA, kShaB, std::string(64, 'A'), std::string(63, 'a'), std::string(65, 'a'), "",
        std::string(63, 'a') + "\n", std::string(63, 'a') + "g"}},
      {"/$defs/source/properties/path",
       "sources[0].path",
       [](Module& m, const std::string& v) { m.sources[0].path = v; },
       {"src/scale.cpp", "", "a\nb", "\xc3\xa9", "a\x7f"}},
      {"/properties/generator",
       "generator",
       [](Module& m, const std::string& v) { m.generator = v; },
       {"opscan 0.2.0", "", "a\nb", "\t", "a\x7f", "\x1b[2J", "\xc3\xa9\xe6\xa0\xb8", "~"}},
      {"/$defs/kernel/properties/usr",
       "kernels[0].usr",
       [](Module& m, const std::string& v) { m.kernels[0].usr = v; },
       {"c:@F@scale", "", "c:@F@\n", "c:@F@\x01"}},
      {"/$defs/kernel/properties/kernel_key",
       "kernels[0].kernel_key",
       [](Module& m, const std::string& v) { m.kernels[0].set_field("kernel_key", v); },
       {"", "v1/6;0", "v1\n", "\x7f"}},
      {"/$defs/argument/properties/cpp_type",
       "kernels[0].arguments[0].cpp_type",
       [](Module& m, const std::string& v) { m.kernels[0].arguments[0].cpp_type = v; },
       {"const Tensor &", "", "a\tb", "\x1f"}},
      {"/$defs/library/properties/function",
       "library.function",
       [](Module& m, const std::string& v) { m.library->function = v; },
       {"torch::executor::register_portable_kernels", "x\ny"}},
  };
  for (const Case& c : cases) {
    const Schema s = resolver.resolve(c.schema_at).second;
    ASSERT_TRUE(s.contains("pattern") || s.contains("minLength")) << c.schema_at;
    for (const std::string& sample : c.samples) {
      SCOPED_TRACE(c.schema_at + " = " + ::testing::PrintToString(sample));
      // One kernel and one source, which no change can move in the order.
      Module m = full_module();
      m.kernels = {scale()};
      m.sources = {{"src/scale.cpp", kShaB}};
      c.set(m, sample);
      const bool matches =
          (!s.contains("pattern") ||
           std::regex_search(sample, std::regex(s["pattern"].get<std::string>()))) &&
          code_points(sample) >= s.value("minLength", size_t{0});
      EXPECT_EQ(matches, accepted_at(m, c.path));
    }
  }
}

TEST(IrSchemaFile, InlineNamespacesAreUniqueAndNotEmpty) {
  const Schema schema = load_schema();
  const Schema& s = schema["$defs"]["kernel"]["properties"]["cpp_inline_namespaces"];
  EXPECT_EQ(s["uniqueItems"], true);
  EXPECT_EQ(s["items"]["minLength"], 1);
  // What ir::validate refuses, for the reasons the schema can express.
  Module twice = full_module();
  twice.kernels[1].cpp_inline_namespaces = {"custom::v2", "custom::v2"};
  EXPECT_FALSE(accepted_at(twice, "kernels[1].cpp_inline_namespaces[1]"));
  Module empty = full_module();
  empty.kernels[1].cpp_inline_namespaces = {""};
  EXPECT_FALSE(accepted_at(empty, "kernels[1].cpp_inline_namespaces[0]"));
}

} // namespace
