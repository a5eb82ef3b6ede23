// IR <-> JSON. Writing is deterministic; reading checks every field and
// reports the first problem at its JSON path.
#include "ir/json.h"

#include "support/text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <simdjson.h>
#include <tuple>
#include <utility>

namespace opscan::ir {

// What a parsed IR file keeps for its Positions; in a named namespace, as
// Positions::Document (declared in the header) holds them.
namespace json_detail {

// A JSON value as the reader sees it: what it holds, where it starts, and
// for strings, keys and numbers, their value. Lighter than an nlohmann
// document, whose maps and strings, built and destroyed, cost more than the
// reading itself.
struct Node {
  enum class Kind { null, boolean, unsigned_integer, other_number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  uint64_t number = 0;
  std::string_view text;      // a string's value
  std::string_view key;       // an object member's name
  uint32_t offset = 0;        // of the value in the text; 0 when not known
  std::vector<Node> children; // array items, object members in order
};

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
  struct Parse {
    // simdjson's parser, whose buffer holds the strings the nodes view.
    std::unique_ptr<simdjson::ondemand::parser> simdjson;
    nlohmann::json json;             // the document, when nlohmann parsed it
    std::optional<json_detail::Node> root;
  };
  std::string text;
  const json_detail::LineTable& lines() const {
    std::call_once(lines_made, [this] { line_table.emplace(text); });
    return *line_table;
  }
  // The parse of `text`, by `parse` (below) when not given by `keep`.
  const Parse& parsed() const;
  void keep(Parse&& p) const {
    std::call_once(parse_made, [&] { parse.emplace(std::move(p)); });
  }
  mutable std::once_flag lines_made, parse_made;
  mutable std::optional<json_detail::LineTable> line_table;
  mutable std::optional<Parse> parse;
};

using json_detail::LineTable;
using json_detail::Node;

namespace {

// The bytes a JSON string holds as they are, escaped or not: printable
// ASCII but '"' and '\\'. Looked up, as strings are most of an IR.
constexpr auto kPlain = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c)
    plain[c] = c != '"' && c != '\\';
  return plain;
}();

// JSON's short escapes: the letter after the backslash, and what it means.
constexpr std::string_view kEscapeLetters = "\"\\/bfnrt", kEscaped = "\"\\/\b\f\n\r\t";

// The IR nests 6 levels deep. Reading gives up on, or leaves out, values
// nested deeper than this, so that no nesting depth can exhaust the stack.
constexpr int kMaxDepth = 16;

// Writes JSON text exactly as nlohmann's dump(2) wrote the IR before (its
// DOM cost a third of `generate`): two-space indent, members in the order
// written, "[]" and "{}" for empty containers. A container's members are
// written by the function passed to object() or array().
class Writer {
public:
  template <typename F>
  void object(F&& members) {
    open('{');
    members();
    close('}');
  }
  template <typename F>
  void array(F&& items) {
    open('[');
    items();
    close(']');
  }
  // The next value written is this member's. `name` is one of the IR's own
  // keys, which need no escaping.
  Writer& key(std::string_view name) {
    begin_item();
    out_ += '"';
    out_ += name;
    out_ += "\": ";
    after_key_ = true;
    return *this;
  }
  void string(std::string_view s) {
    begin_item();
    quoted(s);
  }
  void boolean(bool b) {
    begin_item();
    out_ += b ? "true" : "false";
  }
  void integer(uint32_t n) {
    begin_item();
    char digits[16];
    out_.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
  }
  std::string take() { return std::move(out_); }

private:
  void begin_item() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (depth_ == 0)
      return;
    if (!empty_)
      out_ += ',';
    newline();
    empty_ = false;
  }
  void open(char bracket) {
    begin_item();
    out_ += bracket;
    ++depth_;
    empty_ = true;
  }
  void close(char bracket) {
    --depth_;
    if (!empty_)
      newline();
    out_ += bracket;
    empty_ = false; // the enclosing container has this one as a member
  }
  void newline() {
    out_ += '\n';
    out_.append(2 * depth_, ' ');
  }
  // Escapes as nlohmann does: the short escapes, other control characters as
  // "\\u00" and two lowercase hex digits, UTF-8 as it is. Invalid UTF-8 (a
  // path in a legacy encoding) must not abort the run: each maximal
  // ill-formed subsequence becomes one U+FFFD, as nlohmann's
  // error_handler_t::replace made it.
  void quoted(std::string_view s) {
    out_ += '"';
    size_t plain = 0; // start of the bytes not yet copied
    for (size_t i = 0; i < s.size();) {
      auto c = static_cast<unsigned char>(s[i]);
      if (kPlain[c]) {
        ++i;
        continue;
      }
      out_.append(s, plain, i - plain);
      if (c >= 0x80) {
        auto [length, valid] = support::utf8_sequence(s, i);
        if (valid)
          out_.append(s, i, length);
        else
          out_ += "\xEF\xBF\xBD"; // U+FFFD
        i += length;
      } else {
        escape(c);
        ++i;
      }
      plain = i;
    }
    out_.append(s, plain);
    out_ += '"';
  }
  void escape(unsigned char c) {
    out_ += '\\';
    if (size_t at = kEscaped.find(static_cast<char>(c)); at != std::string_view::npos) {
      out_ += kEscapeLetters[at];
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out_ += "u00";
      out_ += kHex[c >> 4];
      out_ += kHex[c & 0xf];
    }
  }
  std::string out_;
  size_t depth_ = 0;
  bool empty_ = true;      // no member written yet in the innermost open container
  bool after_key_ = false; // a key was written; its value comes next
};

void write_location(Writer& w, const diag::Location& loc) {
  w.object([&] {
    w.key("file").string(loc.file);
    w.key("line").integer(loc.line);
    w.key("column").integer(loc.column);
    w.key("offset").integer(loc.offset);
  });
}

void write_kernel(Writer& w, const Kernel& k) {
  w.object([&] {
    w.key("operator").object([&] {
      w.key("namespace").string(k.op.ns);
      w.key("name").string(k.op.name);
      w.key("overload").string(k.op.overload);
    });
    w.key("schema").string(k.schema().str());
    w.key("schema_origin").string(to_string(k.schema_origin));
    w.key("kernel_key").string(k.kernel_key);
    w.key("dispatch_key").string(k.dispatch_key);
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

using Json = nlohmann::json;

// An nlohmann document as a Node tree, viewing its strings and keys, without
// offsets; containers deeper than kMaxDepth are left empty.
Node node_of(const Json& json, int depth = 0) {
  Node node;
  if (json.is_boolean()) {
    node.kind = Node::Kind::boolean;
    node.boolean = json.get<bool>();
  } else if (json.is_number_unsigned()) {
    node.kind = Node::Kind::unsigned_integer;
    node.number = json.get<uint64_t>();
  } else if (json.is_number()) {
    node.kind = Node::Kind::other_number;
  } else if (json.is_string()) {
    node.kind = Node::Kind::string;
    node.text = json.get_ref<const std::string&>();
  } else if (json.is_array() || json.is_object()) {
    node.kind = json.is_array() ? Node::Kind::array : Node::Kind::object;
    for (auto it = json.begin(); depth < kMaxDepth && it != json.end(); ++it) {
      Node& child = node.children.emplace_back(node_of(*it, depth + 1));
      if (json.is_object())
        child.key = it.key();
    }
  }
  return node;
}

// Whether a JSON number is too large for a double: nlohmann refuses it
// (and nothing else in the grammar) with an out_of_range error.
bool overflows(std::string_view number) {
  double d = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), d);
  if (ec != std::errc::result_out_of_range)
    return false;
  return std::isinf(std::strtod(std::string(number).c_str(), nullptr));
}

// The offset and text of the first number in JSON `text` too large for a
// double, nlohmann's out_of_range error reports without a position. Only
// strings are stepped over: the text is valid JSON up to that number, or
// nlohmann would have stopped earlier.
std::optional<std::pair<size_t, std::string_view>> overflowing_number(std::string_view text) {
  auto number_char = [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  };
  for (size_t at = 0; at < text.size();) {
    if (text[at] == '"') {
      for (++at; at < text.size() && text[at] != '"'; ++at)
        at += text[at] == '\\' ? 1 : 0;
      ++at;
    } else if (text[at] == '-' || (text[at] >= '0' && text[at] <= '9')) {
      const size_t start = at;
      while (at < text.size() && number_char(text[at]))
        ++at;
      if (std::string_view number = text.substr(start, at - start); overflows(number))
        return std::pair{start, number};
    } else {
      ++at;
    }
  }
  return std::nullopt;
}

// Reads JSON into Nodes with their offsets with simdjson's On-Demand
// parser, which validates as it goes (UTF-8, strings, numbers, structure);
// its first pass over the text uses the vector instructions of the CPU it
// runs on.
// It gives up on anything it would have to report (any error); nlohmann then
// parses the text instead, so error messages are nlohmann's. Containers
// nested deeper than kMaxDepth are kept empty and not read: then skipped()
// is true and the caller has nlohmann check the text. Object members are
// all kept, duplicates too (the reader refuses those). Strings view the
// parser's buffer, which the Parse keeps. `text` must have
// simdjson::SIMDJSON_PADDING bytes of capacity after its end.
class FastParser {
public:
  FastParser(const std::string& text, simdjson::ondemand::parser& parser)
      : text_(text), parser_(parser) {}

  bool skipped() const { return skipped_; }

  std::optional<Node> parse() {
    // A byte-order mark, as nlohmann skips it.
    const size_t bom = std::string_view(text_).starts_with("\xEF\xBB\xBF") ? 3 : 0;
    simdjson::ondemand::document doc;
    if (parser_
            .iterate(simdjson::padded_string_view(text_.data() + bom, text_.size() - bom,
                                                  text_.capacity() - bom))
            .get(doc)) {
      return std::nullopt;
    }
    Node root;
    simdjson::ondemand::json_type type;
    if (doc.type().get(type))
      return std::nullopt;
    if (type == simdjson::ondemand::json_type::object ||
        type == simdjson::ondemand::json_type::array) {
      simdjson::ondemand::value value;
      if (doc.get_value().get(value) || !read(value, root, 0))
        return std::nullopt;
    } else if (!read(doc, root, 0)) {
      return std::nullopt;
    }
    // Nothing after the value: the end is out of bounds.
    if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS)
      return std::nullopt;
    return root;
  }

private:
  static bool token_of(simdjson::ondemand::value& value, std::string_view& token) {
    token = value.raw_json_token();
    return true;
  }
  static bool token_of(simdjson::ondemand::document& doc, std::string_view& token) {
    return !doc.raw_json_token().get(token);
  }
  // A value or a scalar document (simdjson has a type for each).
  template <typename Value>
  bool read(Value& value, Node& out, int depth) {
    using simdjson::ondemand::json_type;
    std::string_view token;
    json_type type;
    if (!token_of(value, token) || value.type().get(type))
      return false;
    out.offset = static_cast<uint32_t>(token.data() - text_.data());
    switch (type) {
    case json_type::object: {
      out.kind = Node::Kind::object;
      if (depth >= kMaxDepth)
        return skipped_ = true; // the enclosing iteration steps over it
      simdjson::ondemand::object object;
      if (value.get_object().get(object))
        return false;
      for (auto member : object) {
        simdjson::ondemand::field field;
        if (std::move(member).get(field))
          return false;
        Node& child = out.children.emplace_back();
        if (field.unescaped_key().get(child.key) || !read(field.value(), child, depth + 1))
          return false;
      }
      return true;
    }
    case json_type::array: {
      out.kind = Node::Kind::array;
      if (depth >= kMaxDepth)
        return skipped_ = true;
      simdjson::ondemand::array array;
      if (value.get_array().get(array))
        return false;
      for (auto item : array) {
        simdjson::ondemand::value item_value;
        if (std::move(item).get(item_value) ||
            !read(item_value, out.children.emplace_back(), depth + 1))
          return false;
      }
      return true;
    }
    case json_type::string:
      out.kind = Node::Kind::string;
      return !value.get_string().get(out.text);
    case json_type::number: {
      // simdjson checks the grammar and that a double holds it (a number
      // too large for one is nlohmann's error to report). Unsigned integers
      // that fit 64 bits keep their value; every other number is only known
      // to be one.
      double ignored = 0;
      if (value.get_double().get(ignored))
        return false;
      const size_t digits = std::min(token.find_first_not_of("0123456789"), token.size());
      out.kind = Node::Kind::other_number;
      if (digits > 0 && (digits == token.size() ||
                         std::string_view(".eE").find(token[digits]) == std::string_view::npos)) {
        auto [end, ec] = std::from_chars(token.data(), token.data() + digits, out.number);
        if (ec == std::errc())
          out.kind = Node::Kind::unsigned_integer;
      }
      return true;
    }
    case json_type::boolean:
      out.kind = Node::Kind::boolean;
      return !value.get_bool().get(out.boolean);
    case json_type::null: {
      bool null = false;
      return !value.is_null().get(null) && null;
    }
    }
    return false;
  }
  const std::string& text_;
  simdjson::ondemand::parser& parser_;
  bool skipped_ = false;
};

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
         std::initializer_list<const char*> optional = {})
      : value_(value), path_(std::move(at)) {
    if (value_.kind != Node::Kind::object)
      throw ReadError{path_, "must be an object"};
    for (size_t i = 0; i < value_.children.size(); ++i) {
      const Node& member = value_.children[i];
      auto known = [&](std::initializer_list<const char*> names) {
        return std::any_of(names.begin(), names.end(),
                           [&](const char* n) { return member.key == n; });
      };
      if (!known(required) && !known(optional)) {
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
              std::initializer_list<const char*> optional = {}) const {
    return Reader(node, std::move(path), required, optional);
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

Kernel read_kernel(const Reader& r) {
  Kernel k;
  Reader op = r.object("operator", {"namespace", "name", "overload"});
  k.op = {op.str("namespace"), op.str("name"), op.str("overload")};
  const std::string schema_text = r.str("schema");
  k.schema_origin =
      r.choice("schema_origin", &parse_schema_origin, "\"inferred\", \"declared\" or \"known\"");
  k.kernel_key = r.str("kernel_key");
  k.dispatch_key = r.str("dispatch_key");
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

std::string to_json(const Module& input) {
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
        write_kernel(w, k);
    });
  });
  std::string out = w.take();
  out += '\n';
  return out;
}

// Parses `text` into `into` (which its nodes view). Throws nlohmann's
// errors for text that is not JSON.
void parse_text(const std::string& text, Positions::Document::Parse& into) {
  into.simdjson = std::make_unique<simdjson::ondemand::parser>();
  FastParser fast(text, *into.simdjson);
  into.root = fast.parse();
  // What the fast parser skipped is checked by nlohmann (which does not
  // recurse either).
  if (into.root && fast.skipped() && !Json::accept(text))
    into.root.reset();
  if (!into.root) {
    into.json = Json::parse(text);
    into.root = node_of(into.json);
  }
}

const Positions::Document::Parse& Positions::Document::parsed() const {
  std::call_once(parse_made, [this] {
    parse.emplace();
    try {
      parse_text(text, *parse);
    } catch (const Json::exception&) { // read once already: cannot happen
      parse->root.reset();
    }
  });
  return *parse;
}

ReadResult from_json(std::string text, const std::string& path) {
  ReadResult result;
  // Kept by the positions, which locate values when a diagnostic asks.
  auto document = std::make_shared<Positions::Document>();
  document->text = std::move(text);
  document->text.reserve(document->text.size() + simdjson::SIMDJSON_PADDING);
  result.positions = Positions(path);
  result.positions.document_ = document;
  Positions::Document::Parse parse;
  try {
    parse_text(document->text, parse);
  } catch (const Json::parse_error& e) {
    // e.byte counts the characters read, including the offending one (the
    // end of input counts as one past the last byte).
    const size_t size = document->text.size();
    size_t at = e.byte > 0 ? e.byte - 1 : 0;
    bool at_end = at >= size;
    result.diagnostics.push_back(
        diag::make_error("opscan-ir-invalid", document->lines().at(path, std::min(at, size)),
                         at_end ? "not valid JSON: the file ends too early (truncated?)"
                                : "not valid JSON: the IR file is damaged"));
    return result;
  } catch (const Json::exception&) { // a number too large for a double
    auto number = overflowing_number(document->text);
    result.diagnostics.push_back(diag::make_error(
        "opscan-ir-invalid", document->lines().at(path, number ? number->first : 0),
        "not valid JSON: " + (number ? "the number " + support::quoted(number->second) +
                                           " is outside a double's range"
                                     : std::string("a number is outside a double's range"))));
    return result;
  }
  try {
    Reader r(*parse.root, "",
             {"format", "version", "generator", "libclang_version", "sources", "kernels"},
             {"library"});
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
    if (r.has("library")) {
      m.library = read_library(
          r.object("library", {"name", "registration", "function", "target"}, {"link_anchor"}));
    }
    r.each("sources", [&](const Node& item, const std::string& item_path) {
      Reader s = r.item(item, item_path, {"path", "sha256"});
      m.sources.push_back({s.str("path"), s.str("sha256")});
    });
    r.each("kernels", [&](const Node& item, const std::string& item_path) {
      m.kernels.push_back(read_kernel(r.item(
          item, item_path,
          {"operator", "schema", "schema_origin", "kernel_key", "dispatch_key", "cpp_function",
           "cpp_inline_namespaces", "cpp_linkage", "cpp_noexcept", "context", "arguments",
           "returns", "cpp_return_type", "cpp_canonical_return_type", "usr", "location"})));
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
