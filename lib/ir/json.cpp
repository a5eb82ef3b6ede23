// IR <-> JSON. Writing is deterministic; reading checks every field and
// reports the first problem at its JSON path.
#include "ir/json.h"

#include "support/json_reader.h"
#include "support/json_writer.h"
#include "support/text.h"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <optional>
#include <utility>

namespace opscan::ir {

// What a parsed IR file keeps for its Positions; in a named namespace, as
// Positions::Document (declared in the header) holds it.
namespace json_detail {

// 1-based lines and columns of byte offsets in a text.
class LineTable {
public:
  explicit LineTable(std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n')
        starts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
  diag::Location at(const std::string& file, size_t offset) const {
    auto line = std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin();
    uint32_t start = starts_[static_cast<size_t>(line - 1)];
    return {file, static_cast<uint32_t>(line), static_cast<uint32_t>(offset - start + 1),
            static_cast<uint32_t>(offset)};
  }

private:
  std::vector<uint32_t> starts_{0};
};

} // namespace json_detail

// The text of an IR file, kept for locating values when a diagnostic asks.
// Its parse is dropped after reading (it would double the memory a large IR
// holds while generating) and made again on the first question: most files
// have no error.
struct Positions::Document {
  using Parse = support::JsonTree;
  std::string text;
  const json_detail::LineTable& lines() const {
    std::call_once(lines_made, [this] { line_table.emplace(text); });
    return *line_table;
  }
  // The parse of `text`, by parse_json when not given by `keep`.
  const Parse& parsed() const;
  void keep(Parse&& p) const {
    std::call_once(parse_made, [&] { parse.emplace(std::move(p)); });
  }
  mutable std::once_flag lines_made, parse_made;
  mutable std::optional<json_detail::LineTable> line_table;
  mutable std::optional<Parse> parse;
};

using json_detail::LineTable;
using Node = support::JsonNode;
using Writer = support::JsonWriter;

namespace {

void write_location(Writer& w, const diag::Location& loc) {
  w.object([&] {
    w.key("file").string(loc.file);
    w.key("line").integer(loc.line);
    w.key("column").integer(loc.column);
    w.key("offset").integer(loc.offset);
  });
}

void write_kernel(Writer& w, const Kernel& k, const Fields& fields) {
  w.object([&] {
    w.key("operator").object([&] {
      w.key("namespace").string(k.op.ns);
      w.key("name").string(k.op.name);
      w.key("overload").string(k.op.overload);
    });
    w.key("schema").string(k.schema().str());
    w.key("schema_origin").string(to_string(k.schema_origin));
    // Every field the IR can carry, "" when unset; then, not to lose them,
    // any others the kernel sets (a reader with these fields refuses them).
    for (const Field& field : fields)
      w.key(field.key).string(k.field(field.key));
    for (const auto& [key, value] : k.fields) {
      if (fields.by_key(key) == nullptr)
        w.key(key).string(value);
    }
    w.key("cpp_function").string(k.cpp_function);
    w.key("cpp_inline_namespaces").array([&] {
      for (const std::string& ns : k.cpp_inline_namespaces)
        w.string(ns);
    });
    w.key("cpp_linkage").string(to_string(k.cpp_linkage));
    w.key("cpp_noexcept").boolean(k.cpp_noexcept);
    w.key("context").string(to_string(k.context));
    w.key("arguments").array([&] {
      for (const Argument& a : k.arguments) {
        w.object([&] {
          w.key("name").string(a.schema.name);
          w.key("schema_type").string(a.schema.type.str());
          w.key("kwarg_only").boolean(a.schema.kwarg_only);
          if (a.schema.default_value)
            w.key("default").string(*a.schema.default_value);
          w.key("cpp_type").string(a.cpp_type);
          w.key("cpp_canonical_type").string(a.cpp_canonical_type);
        });
      }
    });
    w.key("returns").array([&] {
      for (const schema::Return& r : k.returns) {
        w.object([&] {
          w.key("name").string(r.name);
          w.key("schema_type").string(r.type.str());
        });
      }
    });
    w.key("cpp_return_type").string(k.cpp_return_type);
    w.key("cpp_canonical_return_type").string(k.cpp_canonical_return_type);
    w.key("usr").string(k.usr);
    write_location(w.key("location"), k.location);
  });
}

// Thrown inside the reader only; turned into one diagnostic at `path` (or
// at `offset`, for a value the path does not tell apart: a key given twice).
struct ReadError {
  std::string path;
  std::string message;
  std::optional<uint32_t> offset = std::nullopt;
};

// Typed access to one JSON object of the IR, which must have exactly the
// members `required` plus any of `optional`, each once. Errors name the JSON
// path of the value; Positions finds where it is.
class Reader {
public:
  Reader(const Node& value, std::string at, std::initializer_list<const char*> required,
         std::initializer_list<const char*> optional = {}, const Fields* fields = nullptr)
      : value_(value), path_(std::move(at)) {
    if (value_.kind != Node::Kind::object)
      throw ReadError{path_, "must be an object"};
    for (size_t i = 0; i < value_.children.size(); ++i) {
      const Node& member = value_.children[i];
      auto known = [&](std::initializer_list<const char*> names) {
        return std::any_of(names.begin(), names.end(),
                           [&](const char* n) { return member.key == n; });
      };
      if (!known(required) && !known(optional) &&
          (fields == nullptr || fields->by_key(member.key) == nullptr)) {
        throw ReadError{path(member.key),
                        "unknown field (a misspelling, or an IR from another opscan?)"};
      }
      for (size_t j = 0; j < i; ++j) {
        if (value_.children[j].key == member.key) {
          throw ReadError{path(member.key),
                          "given twice (readers could disagree on which one counts)",
                          member.offset};
        }
      }
    }
    for (const char* name : required) {
      if (member(name) == nullptr)
        throw ReadError{path(name), "missing"};
    }
    if (fields != nullptr) {
      for (const Field& field : *fields) {
        if (member(field.key) == nullptr)
          throw ReadError{path(field.key), "missing"};
      }
    }
  }
  std::string path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  std::string str(const char* key) const {
    const Node& v = field(key);
    if (v.kind != Node::Kind::string)
      throw ReadError{path(key), "must be a string"};
    return std::string(v.text);
  }
  std::optional<std::string> optional_str(const char* key) const {
    if (member(key) == nullptr)
      return std::nullopt;
    return str(key);
  }
  bool boolean(const char* key) const {
    const Node& v = field(key);
    if (v.kind != Node::Kind::boolean)
      throw ReadError{path(key), "must be true or false"};
    return v.boolean;
  }
  uint32_t number(const char* key) const {
    const Node& v = field(key);
    if (v.kind != Node::Kind::unsigned_integer || v.number > UINT32_MAX) {
      throw ReadError{path(key), "must be a non-negative integer"};
    }
    return static_cast<uint32_t>(v.number);
  }
  // One of an enum's spellings, parsed by `parse`.
  template <typename E>
  E choice(const char* key, std::optional<E> (*parse)(std::string_view),
           std::string_view choices) const {
    std::string text = str(key);
    std::optional<E> value = parse(text);
    if (!value) {
      throw ReadError{path(key),
                      "must be " + std::string(choices) + ", not " + support::quoted(text)};
    }
    return *value;
  }
  // Calls read_item(item node, item path) for each item of an array.
  template <typename F>
  void each(const char* key, F&& read_item) const {
    const Node& v = field(key);
    if (v.kind != Node::Kind::array)
      throw ReadError{path(key), "must be an array"};
    for (size_t i = 0; i < v.children.size(); ++i)
      read_item(v.children[i], path(key) + "[" + std::to_string(i) + "]");
  }
  Reader object(const char* key, std::initializer_list<const char*> required,
                std::initializer_list<const char*> optional = {}) const {
    return Reader(field(key), path(key), required, optional);
  }
  Reader item(const Node& node, std::string path, std::initializer_list<const char*> required,
              std::initializer_list<const char*> optional = {},
              const Fields* fields = nullptr) const {
    return Reader(node, std::move(path), required, optional, fields);
  }
  bool has(const char* key) const { return member(key) != nullptr; }
  std::string item_str(const Node& node, const std::string& path) const {
    if (node.kind != Node::Kind::string)
      throw ReadError{path, "must be a string"};
    return std::string(node.text);
  }

private:
  const Node* member(std::string_view name) const {
    for (const Node& child : value_.children) {
      if (child.key == name)
        return &child;
    }
    return nullptr;
  }
  const Node& field(const char* key) const {
    const Node* v = member(key);
    if (v == nullptr)
      throw ReadError{path(key), "missing"};
    return *v;
  }

  const Node& value_;
  std::string path_;
};

schema::Type read_type(const Reader& r, const char* key) {
  std::string text = r.str(key);
  auto parsed = schema::parse_type(text);
  if (!parsed) {
    throw ReadError{r.path(key),
                    support::quoted(text) + " is not a schema type: " + parsed.error->message};
  }
  return std::move(*parsed.value);
}

Kernel read_kernel(const Reader& r, const Fields& fields) {
  Kernel k;
  Reader op = r.object("operator", {"namespace", "name", "overload"});
  k.op = {op.str("namespace"), op.str("name"), op.str("overload")};
  const std::string schema_text = r.str("schema");
  k.schema_origin =
      r.choice("schema_origin", &parse_schema_origin, "\"inferred\", \"declared\" or \"known\"");
  for (const Field& field : fields) {
    if (std::string value = r.str(field.key.c_str()); !value.empty())
      k.fields.emplace(field.key, std::move(value));
  }
  k.cpp_function = r.str("cpp_function");
  r.each("cpp_inline_namespaces", [&](const Node& item, const std::string& path) {
    k.cpp_inline_namespaces.push_back(r.item_str(item, path));
  });
  k.cpp_linkage = r.choice("cpp_linkage", &parse_linkage, "\"C++\" or \"C\"");
  k.cpp_noexcept = r.boolean("cpp_noexcept");
  k.context = r.choice("context", &parse_context_kind,
                       "\"none\", \"KernelRuntimeContext\" or \"DispatchKeySet\"");
  r.each("arguments", [&](const Node& item, const std::string& path) {
    Reader a =
        r.item(item, path, {"name", "schema_type", "kwarg_only", "cpp_type", "cpp_canonical_type"},
               {"default"});
    Argument arg;
    arg.schema.name = a.str("name");
    arg.schema.type = read_type(a, "schema_type");
    arg.schema.kwarg_only = a.boolean("kwarg_only");
    arg.schema.default_value = a.optional_str("default");
    arg.cpp_type = a.str("cpp_type");
    arg.cpp_canonical_type = a.str("cpp_canonical_type");
    k.arguments.push_back(std::move(arg));
  });
  r.each("returns", [&](const Node& item, const std::string& path) {
    Reader ret = r.item(item, path, {"name", "schema_type"});
    k.returns.push_back({read_type(ret, "schema_type"), ret.str("name")});
  });
  k.cpp_return_type = r.str("cpp_return_type");
  k.cpp_canonical_return_type = r.str("cpp_canonical_return_type");
  k.usr = r.str("usr");
  Reader loc = r.object("location", {"file", "line", "column", "offset"});
  k.location = {loc.str("file"), loc.number("line"), loc.number("column"), loc.number("offset")};
  // The schema is written for readers of the file; the parts are what counts.
  const std::string spelled = k.schema().str();
  if (schema_text != spelled) {
    throw ReadError{r.path("schema"), support::quoted(schema_text, 200) +
                                          " is not what the operator, arguments and returns "
                                          "spell: " +
                                          support::quoted(spelled, 200)};
  }
  return k;
}

LibraryInfo read_library(const Reader& r) {
  LibraryInfo lib;
  lib.name = r.str("name");
  lib.registration =
      r.choice("registration", &parse_registration, "\"static\", \"manual\" or \"named\"");
  lib.function = r.str("function");
  lib.target = r.str("target");
  lib.link_anchor = r.optional_str("link_anchor").value_or("");
  return lib;
}

} // namespace

diag::Location Positions::at(std::string_view path) const {
  if (!document_)
    return {file_, 1, 1, 0};
  const auto& root = document_->parsed().root;
  if (!root)
    return {file_, 1, 1, 0};
  // Down the path ("kernels[3].arguments[1].name") as far as the document
  // goes: the deepest value found is the nearest enclosing one.
  const Node* node = &*root;
  for (size_t at = 0; at < path.size();) {
    const Node* next = nullptr;
    if (path[at] == '[') {
      const size_t close = path.find(']', at);
      if (close == std::string_view::npos) // before path.data() + close overflows
        break;
      size_t index = 0;
      auto [end, ec] = std::from_chars(path.data() + at + 1, path.data() + close, index);
      if (ec != std::errc() || end != path.data() + close)
        break;
      if (node->kind == Node::Kind::array && index < node->children.size())
        next = &node->children[index];
      at = close + 1;
    } else {
      at += path[at] == '.' ? 1 : 0;
      const size_t end = std::min(path.find_first_of(".[", at), path.size());
      const std::string_view key = path.substr(at, end - at);
      if (node->kind == Node::Kind::object) {
        for (const Node& member : node->children) {
          if (member.key == key) {
            next = &member;
            break;
          }
        }
      }
      at = end;
    }
    if (next == nullptr)
      break;
    node = next;
  }
  return document_->lines().at(file_, node->offset);
}

std::string to_json(const Module& input, const Fields& fields) {
  // generate() passes a canonical module: copy and sort only when needed.
  std::optional<Module> sorted;
  if (!is_canonical(input)) {
    sorted = input;
    canonicalize(*sorted);
  }
  const Module& module = sorted ? *sorted : input;
  Writer w;
  w.object([&] {
    w.key("format").string(kFormat);
    w.key("version").integer(kVersion);
    w.key("generator").string(module.generator);
    w.key("libclang_version").string(module.libclang_version);
    if (!module.aliases.empty()) {
      w.key("aliases").array([&] {
        for (const auto& [name, denoted] : module.aliases) {
          w.object([&] {
            w.key("name").string(name);
            w.key("denotes").string(denoted);
          });
        }
      });
    }
    if (const LibraryInfo* lib = module.library ? &*module.library : nullptr) {
      w.key("library").object([&] {
        w.key("name").string(lib->name);
        w.key("registration").string(to_string(lib->registration));
        w.key("function").string(lib->function);
        w.key("target").string(lib->target);
        if (!lib->link_anchor.empty())
          w.key("link_anchor").string(lib->link_anchor);
      });
    }
    w.key("sources").array([&] {
      for (const SourceFile& s : module.sources) {
        w.object([&] {
          w.key("path").string(s.path);
          w.key("sha256").string(s.sha256);
        });
      }
    });
    w.key("kernels").array([&] {
      for (const Kernel& k : module.kernels)
        write_kernel(w, k, fields);
    });
  });
  std::string out = w.take();
  out += '\n';
  return out;
}

const Positions::Document::Parse& Positions::Document::parsed() const {
  std::call_once(parse_made, [this] {
    parse.emplace();
    support::parse_json(text, *parse); // read once already: cannot fail
  });
  return *parse;
}

ReadResult from_json(std::string text, const std::string& path, const Fields& fields) {
  ReadResult result;
  // Kept by the positions, which locate values when a diagnostic asks.
  auto document = std::make_shared<Positions::Document>();
  document->text = std::move(text);
  support::pad_for_json(document->text);
  result.positions = Positions(path);
  result.positions.document_ = document;
  Positions::Document::Parse parse;
  if (auto error = support::parse_json(document->text, parse)) {
    const size_t size = document->text.size();
    if (!error->number_too_large) {
      bool at_end = error->offset >= size;
      result.diagnostics.push_back(diag::make_error(
          "opscan-ir-invalid", document->lines().at(path, std::min(error->offset, size)),
          at_end ? "not valid JSON: the file ends too early (truncated?)"
                 : "not valid JSON: the IR file is damaged"));
    } else {
      result.diagnostics.push_back(diag::make_error(
          "opscan-ir-invalid", document->lines().at(path, error->offset),
          "not valid JSON: " +
              (!error->number.empty()
                   ? "the number " + support::quoted(error->number) + " is outside a double's range"
                   : std::string("a number is outside a double's range"))));
    }
    return result;
  }
  try {
    Reader r(*parse.root, "",
             {"format", "version", "generator", "libclang_version", "sources", "kernels"},
             {"library", "aliases"});
    if (r.str("format") != kFormat) {
      throw ReadError{"format", "not an opscan IR file (\"format\" is not \"opscan-ir\")"};
    }
    uint32_t version = r.number("version");
    if (version != kVersion) {
      throw ReadError{"version", "IR version " + std::to_string(version) +
                                     " is not supported: this opscan reads version " +
                                     std::to_string(kVersion) +
                                     "; make the file again with this opscan (opscan scan, then "
                                     "opscan generate)"};
    }
    Module m;
    m.generator = r.str("generator");
    m.libclang_version = r.str("libclang_version");
    if (r.has("aliases")) {
      r.each("aliases", [&](const Node& item, const std::string& item_path) {
        Reader a = r.item(item, item_path, {"name", "denotes"});
        if (!m.aliases.emplace(a.str("name"), a.str("denotes")).second)
          throw ReadError{a.path("name"), "names an alias listed before: each is listed once"};
      });
    }
    if (r.has("library")) {
      m.library = read_library(
          r.object("library", {"name", "registration", "function", "target"}, {"link_anchor"}));
    }
    r.each("sources", [&](const Node& item, const std::string& item_path) {
      Reader s = r.item(item, item_path, {"path", "sha256"});
      m.sources.push_back({s.str("path"), s.str("sha256")});
    });
    r.each("kernels", [&](const Node& item, const std::string& item_path) {
      m.kernels.push_back(read_kernel(
          r.item(item, item_path,
                 {"operator", "schema", "schema_origin", "cpp_function", "cpp_inline_namespaces",
                  "cpp_linkage", "cpp_noexcept", "context", "arguments", "returns",
                  "cpp_return_type", "cpp_canonical_return_type", "usr", "location"},
                 {}, &fields),
          fields));
    });
    result.module = std::move(m);
  } catch (const ReadError& e) {
    document->keep(std::move(parse)); // asked for at once, to locate the error
    // Every message starts with the JSON path it is about.
    const diag::Location where =
        e.offset ? document->lines().at(path, *e.offset) : result.positions.at(e.path);
    result.diagnostics.push_back(
        diag::make_error("opscan-ir-invalid", where,
                         (e.path.empty() ? std::string("the IR") : e.path) + ": " + e.message));
  }
  return result;
}

} // namespace opscan::ir
