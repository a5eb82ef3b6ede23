// IR <-> JSON. Writing is deterministic; reading validates every field and
// reports the first problem with its JSON path.
#include "ir/ir.h"

#include <array>
#include <charconv>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <utility>

namespace opscan::ir {
namespace {

// The length of the UTF-8 sequence at s[i] (a byte >= 0x80) and whether it
// is well formed (Unicode table 3-7: no overlong forms, surrogates or code
// points past U+10FFFF). An ill-formed one's length is that of its longest
// well-formed prefix, at least 1: the bytes one U+FFFD replaces.
std::pair<size_t, bool> utf8_sequence(std::string_view s, size_t i) {
  auto lead = static_cast<unsigned char>(s[i]);
  size_t continuations;
  unsigned char low = 0x80, high = 0xBF; // the range of the next byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuations = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuations = 2;
    low = lead == 0xE0 ? 0xA0 : low;   // overlong
    high = lead == 0xED ? 0x9F : high; // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuations = 3;
    low = lead == 0xF0 ? 0x90 : low;   // overlong
    high = lead == 0xF4 ? 0x8F : high; // past U+10FFFF
  } else {
    return {1, false};
  }
  for (size_t n = 1; n <= continuations; ++n) {
    if (i + n >= s.size())
      return {n, false};
    auto c = static_cast<unsigned char>(s[i + n]);
    if (c < low || c > high)
      return {n, false};
    low = 0x80;
    high = 0xBF;
  }
  return {continuations + 1, true};
}

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
        auto [length, valid] = utf8_sequence(s, i);
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
    w.key("schema").string(k.schema);
    w.key("schema_origin")
        .string(k.schema_origin == SchemaOrigin::declared ? "declared" : "inferred");
    w.key("kernel_key").string(k.kernel_key);
    w.key("dispatch_key").string(k.dispatch_key);
    w.key("cpp_function").string(k.cpp_function);
    w.key("has_context").boolean(k.has_context);
    w.key("arguments").array([&] {
      for (const Argument& a : k.arguments) {
        w.object([&] {
          w.key("name").string(a.name);
          w.key("schema_type").string(a.schema_type);
          w.key("kwarg_only").boolean(a.kwarg_only);
          if (a.default_value)
            w.key("default").string(*a.default_value);
          w.key("cpp_type").string(a.cpp_type);
          w.key("cpp_canonical_type").string(a.cpp_canonical_type);
        });
      }
    });
    w.key("returns").array([&] {
      for (const Return& r : k.returns) {
        w.object([&] {
          w.key("name").string(r.name);
          w.key("schema_type").string(r.schema_type);
        });
      }
    });
    w.key("cpp_return_type").string(k.cpp_return_type);
    w.key("cpp_canonical_return_type").string(k.cpp_canonical_return_type);
    w.key("usr").string(k.usr);
    write_location(w.key("location"), k.location);
  });
}

// A JSON value as the reader sees it: what it holds, and for strings, keys
// and numbers, their value. Lighter than an nlohmann::json document, whose
// maps and strings, built and destroyed, cost more than the reading itself.
struct Node {
  enum class Kind { other, boolean, unsigned_integer, string, array, object };
  Kind kind = Kind::other; // other: null, or a number no IR field can hold
  bool boolean = false;
  uint64_t number = 0;
  std::string_view text;      // a string's value
  std::string_view key;       // an object member's name
  std::vector<Node> children; // array items, object members in order

  const Node* member(std::string_view name) const {
    // The last of equal keys, as nlohmann keeps it.
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      if (it->key == name)
        return &*it;
    }
    return nullptr;
  }
};

using Json = nlohmann::json;

// An nlohmann document as a Node tree, viewing its strings and keys;
// containers deeper than kMaxDepth are left empty.
Node node_of(const Json& json, int depth = 0) {
  Node node;
  if (json.is_boolean()) {
    node.kind = Node::Kind::boolean;
    node.boolean = json.get<bool>();
  } else if (json.is_number_unsigned()) {
    node.kind = Node::Kind::unsigned_integer;
    node.number = json.get<uint64_t>();
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

// Parses the JSON that opscan writes into Nodes, several times faster than
// nlohmann, whose lexer reads a character at a time (with its document, two
// fifths of `generate` on a large IR). It takes a subset of the JSON nlohmann
// takes and reads it as nlohmann does; for anything else (a \u escape, a
// number that is not an unsigned integer, a byte-order mark, nesting deeper
// than kMaxDepth, any error) it gives up, and nlohmann parses the text
// instead, so every document and every error message stays as it was.
// Strings view the text, or `decoded` when they have escapes.
class FastParser {
public:
  FastParser(std::string_view text, std::deque<std::string>& decoded)
      : text_(text), decoded_(decoded) {}

  std::optional<Node> parse() {
    Node doc;
    if (!value(doc, 0))
      return std::nullopt;
    skip_space();
    if (at_ != text_.size())
      return std::nullopt;
    return doc;
  }

private:
  bool value(Node& out, int depth) {
    skip_space();
    if (at_ == text_.size() || depth >= kMaxDepth)
      return false;
    char c = text_[at_];
    if (c == '{' || c == '[')
      return container(out, depth);
    if (c == '"') {
      out.kind = Node::Kind::string;
      return string(out.text);
    }
    if (c >= '0' && c <= '9')
      return number(out);
    for (auto [word, kind, boolean] : {std::tuple{"true", Node::Kind::boolean, true},
                                       {"false", Node::Kind::boolean, false},
                                       {"null", Node::Kind::other, false}}) {
      if (text_.substr(at_).starts_with(word)) {
        at_ += std::string_view(word).size();
        out.kind = kind;
        out.boolean = boolean;
        return true;
      }
    }
    return false;
  }
  bool container(Node& out, int depth) {
    const bool object = text_[at_++] == '{';
    const char end = object ? '}' : ']';
    out.kind = object ? Node::Kind::object : Node::Kind::array;
    skip_space();
    if (take(end))
      return true;
    do {
      Node& child = out.children.emplace_back();
      if (object) {
        skip_space();
        if (!string(child.key))
          return false;
        skip_space();
        if (!take(':'))
          return false;
      }
      if (!value(child, depth + 1))
        return false;
      skip_space();
    } while (take(','));
    return take(end);
  }
  bool string(std::string_view& out) {
    if (!take('"'))
      return false;
    const size_t start = at_;
    std::string* unescaped = nullptr; // from the first escape on
    while (at_ < text_.size()) {
      size_t plain = at_;
      while (at_ < text_.size() && kPlain[static_cast<unsigned char>(text_[at_])])
        ++at_;
      if (unescaped)
        unescaped->append(text_, plain, at_ - plain);
      if (at_ == text_.size())
        return false;
      auto c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') {
        out = unescaped ? std::string_view(*unescaped) : text_.substr(start, at_ - start);
        ++at_;
        return true;
      }
      if (c == '\\') {
        size_t which =
            at_ + 1 < text_.size() ? kEscapeLetters.find(text_[at_ + 1]) : std::string_view::npos;
        if (which == std::string_view::npos)
          return false; // \u, or not an escape
        if (!unescaped)
          unescaped = &decoded_.emplace_back(text_.substr(start, at_ - start));
        *unescaped += kEscaped[which];
        at_ += 2;
      } else if (c >= 0x80) {
        auto [length, valid] = utf8_sequence(text_, at_);
        if (!valid)
          return false;
        if (unescaped)
          unescaped->append(text_, at_, length);
        at_ += length;
      } else {
        return false; // a control character
      }
    }
    return false;
  }
  bool number(Node& out) {
    uint64_t n = 0;
    size_t start = at_;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
      if (n > (UINT64_MAX - 9) / 10)
        return false;
      n = n * 10 + static_cast<uint64_t>(text_[at_++] - '0');
    }
    bool leading_zero = text_[start] == '0' && at_ - start > 1;
    if (leading_zero || (at_ < text_.size() &&
                         std::string_view(".eE").find(text_[at_]) != std::string_view::npos)) {
      return false;
    }
    out.kind = Node::Kind::unsigned_integer;
    out.number = n;
    return true;
  }
  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t')) {
      ++at_;
    }
  }
  bool take(char c) {
    if (at_ == text_.size() || text_[at_] != c)
      return false;
    ++at_;
    return true;
  }

  std::string_view text_;
  std::deque<std::string>& decoded_; // stable addresses for the views
  size_t at_ = 0;
};

// Thrown inside the reader only; turned into one diagnostic.
struct ReadError {
  std::string message;
};

// Typed access to a JSON object that names the offending path on failure.
class Reader {
public:
  Reader(const Node& value, std::string path) : value_(value), path_(std::move(path)) {
    if (value_.kind != Node::Kind::object) {
      throw ReadError{(path_.empty() ? "the IR" : path_) + " must be an object"};
    }
  }
  const Node& field(const char* key) const {
    const Node* v = value_.member(key);
    if (v == nullptr)
      throw ReadError{"missing field " + path_ + "/" + key};
    return *v;
  }
  std::string path(const char* key) const { return path_ + "/" + key; }
  std::string str(const char* key) const {
    const Node& v = field(key);
    if (v.kind != Node::Kind::string)
      throw ReadError{path(key) + " must be a string"};
    return std::string(v.text);
  }
  std::optional<std::string> optional_str(const char* key) const {
    if (!has(key))
      return std::nullopt;
    return str(key);
  }
  bool boolean(const char* key) const {
    const Node& v = field(key);
    if (v.kind != Node::Kind::boolean)
      throw ReadError{path(key) + " must be true or false"};
    return v.boolean;
  }
  uint32_t number(const char* key) const {
    const Node& v = field(key);
    if (v.kind != Node::Kind::unsigned_integer || v.number > UINT32_MAX) {
      throw ReadError{path(key) + " must be a non-negative integer"};
    }
    return static_cast<uint32_t>(v.number);
  }
  template <typename F>
  void each(const char* key, F&& read_item) const {
    const Node& v = field(key);
    if (v.kind != Node::Kind::array)
      throw ReadError{path(key) + " must be an array"};
    for (size_t i = 0; i < v.children.size(); ++i)
      read_item(Reader(v.children[i], path(key) + "/" + std::to_string(i)));
  }
  Reader object(const char* key) const { return Reader(field(key), path(key)); }
  bool has(const char* key) const { return value_.member(key) != nullptr; }

private:
  const Node& value_;
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
  LibraryInfo lib{r.str("name"), r.str("registration"), r.str("function"), r.str("target"),
                  r.optional_str("link_anchor").value_or("")};
  if (lib.name.empty())
    throw ReadError{r.path("name") + " must not be empty"};
  if (lib.registration != "static" && lib.registration != "manual" && lib.registration != "named") {
    throw ReadError{r.path("registration") + " must be \"static\", \"manual\" or \"named\""};
  }
  if (lib.target != "executorch" && lib.target != "torch")
    throw ReadError{r.path("target") + " must be \"executorch\" or \"torch\""};
  // Written only when set, so an empty one would not read back as written.
  if (r.has("link_anchor") && lib.link_anchor.empty())
    throw ReadError{r.path("link_anchor") + " must not be empty (omit it outside static mode)"};
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
        w.key("registration").string(lib->registration);
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

ReadResult from_json(std::string_view text, const std::string& path) {
  ReadResult result;
  std::deque<std::string> decoded;
  std::optional<Node> doc = FastParser(text, decoded).parse();
  Json json; // only when the fast parser gives up: doc views its strings
  try {
    if (!doc) {
      json = Json::parse(text);
      doc = node_of(json);
    }
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
  } catch (const Json::exception& e) { // a number no double holds, say
    result.diagnostics.push_back(diag::make_error(
        "opscan-ir-invalid", {path, 0, 0, 0}, std::string("not valid JSON: ") + e.what()));
    return result;
  }
  try {
    Reader r(*doc, "");
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
