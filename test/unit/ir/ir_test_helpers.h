// Shared by the tests of lib/ir: modules with every field set, builders for
// kernels and their parts, readable failure messages, and where a value is
// in a JSON text (found without the reader under test).
#pragma once

#include "diag/diag.h"
#include "emit/registry.h"
#include "ir/ir.h"
#include "ir/json.h"
#include "schema/schema.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// Readable failure messages for the IR structs.
namespace opscan::ir {
inline void PrintTo(const SourceFile& s, std::ostream* os) {
  *os << s.path << "@" << s.sha256;
}
inline void PrintTo(const Kernel& k, std::ostream* os) {
  *os << k.cpp_function << " for " << k.schema().str() << " [" << k.field("kernel_key") << "|"
      << k.field("dispatch_key") << "] at " << k.location.file << ":" << k.location.offset;
}
inline void PrintTo(const LibraryInfo& l, std::ostream* os) {
  *os << l.name << " (" << to_string(l.registration) << ", " << l.target << ", " << l.function
      << ", " << l.link_anchor << ")";
}
inline void PrintTo(const Module& m, std::ostream* os) {
  *os << "\n" << to_json(m, emit::builtin_targets().fields());
}
} // namespace opscan::ir
namespace opscan::diag {
inline void PrintTo(const Location& l, std::ostream* os) {
  *os << l.file << ":" << l.line << ":" << l.column << " (offset " << l.offset << ")";
}
inline void PrintTo(const Diagnostic& d, std::ostream* os) {
  *os << d.location.file << ":" << d.location.line << ":" << d.location.column << ": " << d.code
      << ": " << d.message;
}
} // namespace opscan::diag

namespace opscan::ir_test {

// The annotation fields the IR carries in opscan: the built-in targets'.
inline const ir::Fields& test_fields() {
  return emit::builtin_targets().fields();
}

using Json = nlohmann::ordered_json;

// The file name IR texts are read as.
inline constexpr const char* kPath = "lib/kernels.ir.json";

// Arbitrary but well-formed content hashes.
inline const std::string kShaA(64, 'a');
inline const std::string kShaB = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
inline const std::string kShaC(64, 'c');

// A schema type from its spelling; the tests only spell valid ones.
inline schema::Type type_of(std::string_view text) {
  auto parsed = schema::parse_type(text);
  if (!parsed)
    throw std::invalid_argument("not a schema type: " + std::string(text));
  return *parsed.value;
}

inline ir::Argument argument(std::string name, std::string_view type, std::string cpp_type,
                             std::string canonical, bool kwarg_only = false,
                             std::optional<std::string> default_value = std::nullopt) {
  ir::Argument a;
  a.schema.name = std::move(name);
  a.schema.type = type_of(type);
  a.schema.kwarg_only = kwarg_only;
  a.schema.default_value = std::move(default_value);
  a.cpp_type = std::move(cpp_type);
  a.cpp_canonical_type = std::move(canonical);
  return a;
}

inline schema::Return result(std::string_view type, std::string name = "") {
  return {type_of(type), std::move(name)};
}

// aten::add.out as an ExecuTorch kernel with every field set: a declared
// schema with a default and keyword-only arguments, a kernel key, a
// dispatch key, an inline namespace, noexcept and a runtime context.
inline ir::Kernel add_out(std::string file = "src/ops/añadir_核.cpp", uint32_t offset = 120) {
  ir::Kernel k;
  k.op = {"aten", "add", "out"};
  k.arguments = {
      argument("self", "Tensor", "const Tensor &", "const executorch::runtime::etensor::Tensor &"),
      argument("other", "Tensor", "const Tensor &", "const executorch::runtime::etensor::Tensor &"),
      argument("alpha", "Scalar", "const Scalar &", "const executorch::runtime::etensor::Scalar &",
               true, "1"),
      argument("out", "Tensor(a!)", "Tensor &", "executorch::runtime::etensor::Tensor &", true),
  };
  k.returns = {result("Tensor(a!)")};
  k.schema_origin = ir::SchemaOrigin::declared;
  k.cpp_function = "custom::v2::native::add_out";
  k.cpp_inline_namespaces = {"custom::v2"};
  k.cpp_linkage = ir::Linkage::cxx;
  k.cpp_noexcept = true;
  k.cpp_return_type = "Tensor &";
  k.cpp_canonical_return_type = "executorch::runtime::etensor::Tensor &";
  k.usr = "c:@N@custom@N@v2@N@native@F@add_out#";
  k.context = ir::ContextKind::runtime_context;
  k.set_field("kernel_key", "v1/6;0,1|6;0,1|6;0,1");
  k.set_field("dispatch_key", "CPU");
  k.location = {std::move(file), 7, 19, offset};
  return k;
}

// The fallback of aten::add.out as a torch kernel: a schema from a
// known-schemas file, a DispatchKeySet, no keys.
inline ir::Kernel add_out_fallback(std::string file = "src/ops/añadir_核.cpp",
                                   uint32_t offset = 400) {
  ir::Kernel k = add_out(std::move(file), offset);
  k.schema_origin = ir::SchemaOrigin::known;
  k.cpp_function = "custom::add_out_fallback";
  k.cpp_inline_namespaces = {};
  k.cpp_noexcept = false;
  k.usr = "c:@N@custom@F@add_out_fallback#";
  k.context = ir::ContextKind::dispatch_key_set;
  k.set_field("kernel_key", "");
  k.set_field("dispatch_key", "");
  k.location.line = 20;
  return k;
}

// custom::scale: an inferred schema with a named return, extern "C", no
// context and no keys.
inline ir::Kernel scale(std::string file = "src/scale.cpp", uint32_t offset = 40) {
  ir::Kernel k;
  k.op = {"custom", "scale", ""};
  k.arguments = {
      argument("x", "Tensor", "const Tensor &", "const executorch::runtime::etensor::Tensor &"),
      argument("factor", "float", "double", "double"),
  };
  k.returns = {result("Tensor", "result")};
  k.schema_origin = ir::SchemaOrigin::inferred;
  k.cpp_function = "custom::scale";
  k.cpp_linkage = ir::Linkage::c;
  k.cpp_return_type = "Tensor";
  k.cpp_canonical_return_type = "executorch::runtime::etensor::Tensor";
  k.usr = "c:@F@scale";
  k.context = ir::ContextKind::none;
  k.location = {std::move(file), 3, 8, offset};
  return k;
}

// A library IR with every field of every struct set (but the link anchor:
// see static_library()), valid by ir::validate and already in canonical
// order: kernels[0] is add_out_fallback(), [1] add_out(), [2] scale().
inline ir::Module full_module() {
  ir::Module m;
  m.generator = "opscan 0.2.0";
  m.libclang_version = "Debian clang version 14.0.6";
  m.aliases = {{"c10::optional", "std::optional"},
               {"c10::string_view", "std::basic_string_view<char>"}};
  m.library = ir::LibraryInfo{"portable", ir::Registration::named, "executorch",
                              "torch::executor::register_portable_kernels", ""};
  m.sources = {{"src/ops/añadir_核.cpp", kShaA}, {"src/scale.cpp", kShaB}};
  m.kernels = {add_out_fallback(), add_out(), scale()};
  return m;
}

// full_module() registered statically: no function, a link anchor.
inline ir::Module static_library() {
  ir::Module m = full_module();
  m.library = ir::LibraryInfo{"portable", ir::Registration::static_init, "executorch", "",
                              "opscan_static_registration_portable"};
  return m;
}

// Scan output: no library record.
inline ir::Module fragment(std::vector<ir::SourceFile> sources, std::vector<ir::Kernel> kernels) {
  ir::Module m;
  m.generator = "opscan 0.2.0";
  m.libclang_version = "clang 14";
  m.sources = std::move(sources);
  m.kernels = std::move(kernels);
  return m;
}

// ----- Where values are in a JSON text ----------------------------------

// The location of byte `offset` of `text`, as the reader reports it
// (1-based line and byte column).
inline diag::Location location_in(std::string_view text, size_t offset,
                                  const std::string& file = kPath) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const auto line = static_cast<uint32_t>(std::count(before.begin(), before.end(), '\n') + 1);
  const size_t line_start =
      before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  return {file, line, static_cast<uint32_t>(offset - line_start + 1),
          static_cast<uint32_t>(offset)};
}

// The JSON path the reader names ("kernels[1].arguments[2].default") of a
// JSON pointer ("/kernels/1/arguments/2/default"). IR keys are never
// numbers, so a number is an array index.
inline std::string path_of(const Json::json_pointer& pointer) {
  std::string path;
  std::string text = pointer.to_string();
  size_t at = 0;
  while (at < text.size()) {
    size_t next = text.find('/', at + 1);
    std::string token = text.substr(at + 1, next == std::string::npos ? next : next - at - 1);
    const bool index = !token.empty() && std::all_of(token.begin(), token.end(),
                                                     [](char c) { return c >= '0' && c <= '9'; });
    if (index)
      path += "[" + token + "]";
    else
      path += (path.empty() ? "" : ".") + token;
    at = next == std::string::npos ? text.size() : next;
  }
  return path;
}

// The JSON pointer of a JSON path the reader names: the inverse of path_of.
inline Json::json_pointer pointer_of(std::string_view path) {
  std::string pointer;
  for (char c : path) {
    if (c == '.' || c == '[')
      pointer += '/';
    else if (c != ']')
      pointer += c;
  }
  if (!path.empty() && path.front() != '[')
    pointer.insert(0, "/");
  return Json::json_pointer(pointer);
}

// Where the value at `pointer` starts in doc.dump(2) (the layout to_json
// writes): dumping a copy with a marker in its place changes nothing before
// it.
inline diag::Location value_location(const Json& doc, const Json::json_pointer& pointer,
                                     const std::string& file = kPath) {
  static const std::string kMarker = "\"@@opscan-test-marker@@\"";
  Json marked = doc;
  marked[pointer] = "@@opscan-test-marker@@";
  const std::string text = marked.dump(2);
  const size_t at = text.find(kMarker);
  EXPECT_NE(at, std::string::npos) << pointer.to_string();
  return location_in(text, at, file);
}

// The pointers of `value` (at `at`) and of everything in it, depth first:
// every object, array and leaf.
inline void collect_pointers(const Json& value, const Json::json_pointer& at,
                             std::vector<Json::json_pointer>& out) {
  out.push_back(at);
  if (value.is_object()) {
    for (const auto& [key, member] : value.items())
      collect_pointers(member, at / key, out);
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i)
      collect_pointers(value[i], at / i, out);
  }
}
inline std::vector<Json::json_pointer> all_pointers(const Json& doc) {
  std::vector<Json::json_pointer> out;
  collect_pointers(doc, Json::json_pointer(), out);
  return out;
}

// Erases member `key` of the object at `object`. An argument's default is
// part of its kernel's schema, which is then spelled without it, so that the
// document differs only by the missing member.
inline void erase_member(Json& doc, const Json::json_pointer& object, const std::string& key) {
  if (key == "default") {
    const Json& argument = doc[object];
    Json& schema = doc[object.parent_pointer().parent_pointer() / "schema"];
    std::string text = schema.get<std::string>();
    const std::string spelled =
        " " + argument["name"].get<std::string>() + "=" + argument["default"].get<std::string>();
    const size_t at = text.find(spelled);
    EXPECT_NE(at, std::string::npos) << spelled;
    if (at != std::string::npos)
      text.replace(at, spelled.size(), " " + argument["name"].get<std::string>());
    schema = text;
  }
  doc[object].erase(key);
}

} // namespace opscan::ir_test
