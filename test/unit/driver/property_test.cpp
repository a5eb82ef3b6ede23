// Property: whatever a hand-edited IR file holds, generate and check agree
// (they are one function, driver::plan), a refusal is located in that file,
// and what is accepted generates code that no payload got into unescaped.
#include "driver_test_helpers.h"
#include "support/text.h"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

namespace {

using namespace opscan;
using namespace opscan::testing;
using driver::Status;
using Json = nlohmann::ordered_json;

// Values a hostile user would put into a string field.
const std::vector<std::string> kPayloads = {
    "",
    "x\n#define PAYLOAD 1\n//",
    "x\"); system(\"touch /tmp/p\"); //",
    "x\\",
    "x */ y",
    "x ?\?/",
    "caf\xc3\xa9",
    "bad \xff",
    "../evil",
    "a b",
    "for",
    "std",
    "__x",
    "_X",
    "a::b",
    "(anonymous namespace)::f",
    "v1/6;0",
    "CUDA",
    std::string(300, 'z'),
};

// Every path to a string value of `json`, each a list of keys and indexes.
using Path = std::vector<std::variant<std::string, size_t>>;
void string_paths(const Json& json, Path& at, std::vector<Path>& out) {
  if (json.is_string()) {
    out.push_back(at);
  } else if (json.is_object()) {
    for (auto it = json.begin(); it != json.end(); ++it) {
      at.push_back(it.key());
      string_paths(*it, at, out);
      at.pop_back();
    }
  } else if (json.is_array()) {
    for (size_t i = 0; i < json.size(); ++i) {
      at.push_back(i);
      string_paths(json[i], at, out);
      at.pop_back();
    }
  }
}

Json& at_path(Json& json, const Path& path) {
  Json* node = &json;
  for (const auto& step : path) {
    if (const auto* key = std::get_if<std::string>(&step))
      node = &(*node)[*key];
    else
      node = &(*node)[std::get<size_t>(step)];
  }
  return *node;
}

std::string describe(const Path& path) {
  std::string out;
  for (const auto& step : path) {
    if (const auto* key = std::get_if<std::string>(&step))
      out += "/" + *key;
    else
      out += "/" + std::to_string(std::get<size_t>(step));
  }
  return out;
}

// `code` without its comments and the contents of its string and character
// literals: what the compiler reads as code. A payload may show in a
// literal (a kernel's source path does, escaped), never out of one.
std::string code_only(const std::string& code) {
  std::string out;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code.compare(i, 2, "//") == 0) {
      i = std::min(code.find('\n', i), code.size()) - 1;
    } else if (code.compare(i, 2, "/*") == 0) {
      i = std::min(code.find("*/", i + 2), code.size()) + 1;
    } else if (code[i] == '"' || code[i] == '\'') {
      const char quote = code[i];
      out += quote;
      for (++i; i < code.size() && code[i] != quote && code[i] != '\n'; ++i)
        i += code[i] == '\\' ? 1 : 0;
      out += quote;
    } else {
      out += code[i];
    }
  }
  return out;
}

// The generated code shows no payload as code: no line a payload could
// have started, and only UTF-8 without control characters but newlines.
// (The library IR, data, keeps every text as JSON escapes.)
void expect_clean(const emit::Output& library, const std::string& trace) {
  for (const emit::OutputFile& file : library.files) {
    if (file.kind == emit::OutputKind::data)
      continue;
    SCOPED_TRACE(trace + " in " + file.path);
    EXPECT_TRUE(support::is_utf8(file.content));
    for (char c : file.content)
      ASSERT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f);
    const std::string code = code_only(file.content);
    EXPECT_EQ(code.find("#define PAYLOAD"), std::string::npos);
    EXPECT_EQ(code.find("system("), std::string::npos);
  }
}

// Mutates every string of a valid IR to every payload, and a few shapes
// besides, and checks the property for each.
void check_mutations(const ir::Module& valid, const driver::Request& request) {
  TempDir dir;
  const Json base = Json::parse(ir::to_json(valid, test_fields()));
  std::vector<Path> paths;
  Path at;
  string_paths(base, at, paths);
  std::vector<std::pair<std::string, Json>> cases;
  for (const Path& path : paths) {
    for (const std::string& payload : kPayloads) {
      Json doc = base;
      at_path(doc, path) = payload;
      cases.emplace_back(describe(path) + " = " + support::quoted(payload, 20), std::move(doc));
    }
  }
  {
    Json doc = base;
    doc["kernels"].push_back(doc["kernels"][0]);
    cases.emplace_back("a kernel twice", std::move(doc));
  }
  {
    Json doc = base;
    doc["kernels"][0]["usr"] = "c:@F@other#";
    doc["kernels"].push_back(base["kernels"][0]);
    cases.emplace_back("two kernels of one identity", std::move(doc));
  }
  size_t refused = 0, accepted = 0;
  for (auto& [what, doc] : cases) {
    SCOPED_TRACE(what);
    const std::string path = dir.file("ir.json");
    // JSON text is UTF-8: a bad byte arrives as U+FFFD (raw ones are not JSON).
    write_file(path, doc.dump(2, ' ', false, Json::error_handler_t::replace));
    driver::ReadIrs read = driver::read_irs({path});
    driver::Plan as_check = read.status == Status::ok
                                ? driver::plan(read.files, request, emit::builtin_targets())
                                : driver::Plan{{}, read.diagnostics, read.status};
    driver::Plan as_generate = read.status == Status::ok
                                   ? driver::plan(read.files, request, emit::builtin_targets())
                                   : driver::Plan{{}, read.diagnostics, read.status};
    ASSERT_EQ(as_check.status, as_generate.status);
    ASSERT_EQ(as_check.diagnostics, as_generate.diagnostics);
    if (as_check.status == Status::ok) {
      ++accepted;
      for (const emit::Output& library : as_generate.libraries)
        expect_clean(library, what);
      continue;
    }
    ++refused;
    EXPECT_EQ(as_check.status, Status::errors);
    EXPECT_TRUE(as_check.libraries.empty());
    for (const diag::Diagnostic& d : as_check.diagnostics) {
      if (d.severity != diag::Severity::error)
        continue;
      EXPECT_EQ(d.location.file, path) << d.code << ": " << d.message;
      EXPECT_GE(d.location.line, 1u) << d.message;
    }
  }
  // Both outcomes happen, so the property is not vacuous.
  EXPECT_GT(refused, 0u);
  EXPECT_GT(accepted, 0u);
}

TEST(Property, HostileEditsOfAnExecuTorchLibraryIr) {
  ir::Kernel keyed = et_kernel("ops", "neg", "ns::neg_f32", "v1/6;0");
  check_mutations(library({et_kernel("ops", "neg", "ns::neg"), keyed}, "lib"), {});
}

TEST(Property, HostileEditsOfATorchLibraryIr) {
  check_mutations(library({torch_kernel("my", "neg", "ns::neg_cpu"),
                           torch_kernel("my", "neg", "ns::neg_cuda", "CUDA")},
                          "lib", "torch"),
                  {});
}

TEST(Property, HostileEditsOfAFragment) {
  driver::Request request;
  request.options.registration = ir::Registration::named;
  request.registration_given = true;
  request.options.library = "lib";
  check_mutations(fragment({et_kernel("ops", "neg", "ns::neg")}), request);
}

} // namespace
