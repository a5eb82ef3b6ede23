// IR <-> JSON. Writing is deterministic; reading validates every field and
// reports the first problem with its JSON path.
#include "ir/ir.h"

#include <nlohmann/json.hpp>

namespace opscan::ir {
namespace {

using Json = nlohmann::ordered_json;

Json location_json(const diag::Location& loc) {
  return {{"file", loc.file}, {"line", loc.line}, {"column", loc.column}, {"offset", loc.offset}};
}

Json kernel_json(const Kernel& k) {
  Json args = Json::array();
  for (const Argument& a : k.arguments) {
    Json arg = {{"name", a.name}, {"schema_type", a.schema_type}, {"kwarg_only", a.kwarg_only}};
    if (a.default_value)
      arg["default"] = *a.default_value;
    arg["cpp_type"] = a.cpp_type;
    arg["cpp_canonical_type"] = a.cpp_canonical_type;
    args.push_back(std::move(arg));
  }
  Json rets = Json::array();
  for (const Return& r : k.returns)
    rets.push_back({{"name", r.name}, {"schema_type", r.schema_type}});
  return {
      {"operator", {{"namespace", k.op.ns}, {"name", k.op.name}, {"overload", k.op.overload}}},
      {"schema", k.schema},
      {"schema_origin", k.schema_origin == SchemaOrigin::declared ? "declared" : "inferred"},
      {"kernel_key", k.kernel_key},
      {"dispatch_key", k.dispatch_key},
      {"cpp_function", k.cpp_function},
      {"has_context", k.has_context},
      {"arguments", std::move(args)},
      {"returns", std::move(rets)},
      {"cpp_return_type", k.cpp_return_type},
      {"cpp_canonical_return_type", k.cpp_canonical_return_type},
      {"usr", k.usr},
      {"location", location_json(k.location)},
  };
}

// Thrown inside the reader only; turned into one diagnostic.
struct ReadError {
  std::string message;
};

// Typed access to a JSON object that names the offending path on failure.
class Reader {
public:
  Reader(const Json& value, std::string path) : value_(value), path_(std::move(path)) {
    if (!value_.is_object()) {
      throw ReadError{(path_.empty() ? "the IR" : path_) + " must be an object"};
    }
  }
  const Json& field(const char* key) const {
    auto it = value_.find(key);
    if (it == value_.end())
      throw ReadError{"missing field " + path_ + "/" + key};
    return *it;
  }
  std::string path(const char* key) const { return path_ + "/" + key; }
  std::string str(const char* key) const {
    const Json& v = field(key);
    if (!v.is_string())
      throw ReadError{path(key) + " must be a string"};
    return v.get<std::string>();
  }
  std::optional<std::string> optional_str(const char* key) const {
    if (!value_.contains(key))
      return std::nullopt;
    return str(key);
  }
  bool boolean(const char* key) const {
    const Json& v = field(key);
    if (!v.is_boolean())
      throw ReadError{path(key) + " must be true or false"};
    return v.get<bool>();
  }
  uint32_t number(const char* key) const {
    const Json& v = field(key);
    if (!v.is_number_unsigned() || v.get<uint64_t>() > UINT32_MAX) {
      throw ReadError{path(key) + " must be a non-negative integer"};
    }
    return v.get<uint32_t>();
  }
  template <typename F>
  void each(const char* key, F&& read_item) const {
    const Json& v = field(key);
    if (!v.is_array())
      throw ReadError{path(key) + " must be an array"};
    for (size_t i = 0; i < v.size(); ++i)
      read_item(Reader(v[i], path(key) + "/" + std::to_string(i)));
  }
  Reader object(const char* key) const { return Reader(field(key), path(key)); }
  bool has(const char* key) const { return value_.contains(key); }

private:
  const Json& value_;
  std::string path_;
};

Kernel read_kernel(const Reader& r) {
  Kernel k;
  Reader op = r.object("operator");
  k.op = {op.str("namespace"), op.str("name"), op.str("overload")};
  k.schema = r.str("schema");
  if (!schema::parse_schema(k.schema))
    throw ReadError{r.path("schema") + " is not a valid schema"};
  std::string origin = r.str("schema_origin");
  if (origin != "declared" && origin != "inferred") {
    throw ReadError{r.path("schema_origin") + " must be \"declared\" or \"inferred\""};
  }
  k.schema_origin = origin == "declared" ? SchemaOrigin::declared : SchemaOrigin::inferred;
  k.kernel_key = r.str("kernel_key");
  k.dispatch_key = r.str("dispatch_key");
  k.cpp_function = r.str("cpp_function");
  k.has_context = r.boolean("has_context");
  r.each("arguments", [&](const Reader& a) {
    k.arguments.push_back({a.str("name"), a.str("schema_type"), a.str("cpp_type"),
                           a.str("cpp_canonical_type"), a.boolean("kwarg_only"),
                           a.optional_str("default")});
  });
  r.each("returns", [&](const Reader& ret) {
    k.returns.push_back({ret.str("name"), ret.str("schema_type")});
  });
  k.cpp_return_type = r.str("cpp_return_type");
  k.cpp_canonical_return_type = r.str("cpp_canonical_return_type");
  k.usr = r.str("usr");
  Reader loc = r.object("location");
  k.location = {loc.str("file"), loc.number("line"), loc.number("column"), loc.number("offset")};
  return k;
}

LibraryInfo read_library(const Reader& r) {
  LibraryInfo lib{r.str("name"), r.str("registration"), r.str("function"), r.str("target")};
  if (lib.name.empty())
    throw ReadError{r.path("name") + " must not be empty"};
  if (lib.registration != "static" && lib.registration != "manual" && lib.registration != "named") {
    throw ReadError{r.path("registration") + " must be \"static\", \"manual\" or \"named\""};
  }
  if (lib.target != "executorch" && lib.target != "torch")
    throw ReadError{r.path("target") + " must be \"executorch\" or \"torch\""};
  return lib;
}

// 1-based line and column of byte `offset` in `text`.
diag::Location location_of(std::string_view text, size_t offset, const std::string& path) {
  offset = std::min(offset, text.size());
  diag::Location loc{path, 1, 1, static_cast<uint32_t>(offset)};
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

} // namespace

std::string to_json(const Module& input) {
  Module module = input;
  canonicalize(module);
  Json sources = Json::array();
  for (const SourceFile& s : module.sources)
    sources.push_back({{"path", s.path}, {"sha256", s.sha256}});
  Json kernels = Json::array();
  for (const Kernel& k : module.kernels)
    kernels.push_back(kernel_json(k));
  Json doc = {{"format", kFormat},
              {"version", kVersion},
              {"generator", module.generator},
              {"libclang_version", module.libclang_version}};
  if (const LibraryInfo* lib = module.library ? &*module.library : nullptr) {
    doc["library"] = {{"name", lib->name},
                      {"registration", lib->registration},
                      {"function", lib->function},
                      {"target", lib->target}};
  }
  doc["sources"] = std::move(sources);
  doc["kernels"] = std::move(kernels);
  // Invalid UTF-8 (a path in a legacy encoding) must not abort the run.
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

ReadResult from_json(std::string_view text, const std::string& path) {
  ReadResult result;
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte counts the characters read, including the offending one (the
    // end of input counts as one past the last byte).
    size_t at = e.byte > 0 ? e.byte - 1 : 0;
    bool at_end = at >= text.size();
    result.diagnostics.push_back(
        diag::make_error("opscan-ir-invalid", location_of(text, at, path),
                         at_end ? "not valid JSON: the file ends too early (truncated?)"
                                : "not valid JSON: the IR file is damaged"));
    return result;
  }
  try {
    Reader r(doc, "");
    if (r.str("format") != kFormat) {
      throw ReadError{"not an opscan IR file (\"format\" is not \"opscan-ir\")"};
    }
    uint32_t version = r.number("version");
    if (version != kVersion) {
      throw ReadError{"IR version " + std::to_string(version) +
                      " is not supported (this opscan reads version " + std::to_string(kVersion) +
                      ")"};
    }
    Module m;
    m.generator = r.str("generator");
    m.libclang_version = r.str("libclang_version");
    if (r.has("library"))
      m.library = read_library(r.object("library"));
    r.each("sources", [&](const Reader& s) {
      m.sources.push_back({s.str("path"), s.str("sha256")});
    });
    r.each("kernels", [&](const Reader& k) { m.kernels.push_back(read_kernel(k)); });
    result.module = std::move(m);
  } catch (const ReadError& e) {
    result.diagnostics.push_back(diag::make_error("opscan-ir-invalid", {path, 0, 0, 0}, e.message));
  }
  return result;
}

} // namespace opscan::ir
