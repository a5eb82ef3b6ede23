// Operator schemas: a recursive-descent parser over schema/lexer.h, and the
// checks of operator names (the printer is schema/print.cpp). The parser
// reports the first problem only, as a byte offset into the input plus a
// code, and never recurses without bound: the only recursion (nested list
// defaults) is capped at kMaxDepth.
#include "schema/schema.h"

#include "ident/ident.h"
#include "schema/lexer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <type_traits>

namespace opscan::schema {
namespace {

constexpr int kMaxDepth = 32;

constexpr std::array<std::string_view, 18> kBaseTypes = {
    "Tensor",    "Scalar",  "ScalarType", "Layout", "MemoryFormat", "Device",
    "Generator", "Dimname", "Storage",    "Stream", "QScheme",      "str",
    "int",       "SymInt",  "float",      "bool",   "SymBool",      "complex"};

constexpr std::string_view kSyntax = "opscan-schema-syntax";

// libtorch's lexer keywords that are identifiers elsewhere: TK_DEF, TK_IF,
// ... TK_NONE_TYPE in torch/csrc/jit/frontend/lexer.h (1.13), sorted.
// test/torch/schema_parity_test runs each through parseSchema.
constexpr std::array<std::string_view, 28> kReservedWords = {
    "Ellipsis", "False", "None",   "NoneType", "True",   "and",   "as",
    "assert",   "break", "class",  "continue", "def",    "del",   "elif",
    "else",     "for",   "global", "if",       "import", "in",    "is",
    "not",      "or",    "pass",   "raise",    "return", "while", "with"};
static_assert(std::is_sorted(kReservedWords.begin(), kReservedWords.end()));

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0)
      out += sep;
    out += parts[i];
  }
  return out;
}

// ---------------------------------------------------------------------------
// Parser

// Thrown to unwind from the point of failure to the public entry point; it
// never escapes this file.
struct Failure {
  Error error;
};

[[noreturn]] void fail(size_t offset, std::string_view code, std::string message) {
  throw Failure{Error{offset, std::string(code), std::move(message)}};
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      // Case differences are free: "tensor" is surely "Tensor".
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      const size_t next = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

std::string unknown_type_message(std::string_view name) {
  std::string msg = "unknown type " + quote(name);
  if (auto best = closest_match(name, kBaseTypes))
    return msg + "; did you mean '" + std::string(*best) + "'?";
  return msg + "; expected a base type such as 'Tensor', 'Scalar', 'int', 'float' or 'bool'";
}

class Parser {
public:
  explicit Parser(std::string_view src) : lex_(src) { cur_ = lex_.next(); }

  Schema schema(SchemaLayout& layout);
  OperatorName operator_name();
  Type type(std::string_view what);
  void expect_end(std::string_view after) {
    if (!at(Tok::end))
      unexpected("end of input after " + std::string(after));
  }

private:
  bool at(Tok kind) const { return cur_.kind == kind; }
  Token take() {
    Token tok = cur_;
    cur_ = lex_.next();
    return tok;
  }
  bool accept(Tok kind) {
    if (!at(kind))
      return false;
    take();
    return true;
  }
  Token expect(Tok kind, std::string_view what) {
    if (!at(kind))
      unexpected(what);
    return take();
  }
  [[noreturn]] void unexpected(std::string_view what) {
    fail(cur_.offset, kSyntax, "expected " + std::string(what) + ", found " + describe(cur_));
  }

  enum class Part { colons, name, overload };
  void glued(size_t at, Part next, size_t name_start);
  AliasInfo alias();
  std::vector<std::string> alias_set();
  int64_t list_size(const Token& tok);
  std::vector<Argument> arguments(const OperatorName& name, SchemaLayout& layout);
  std::string default_value(int depth);
  std::vector<Return> returns(SchemaLayout& layout);
  Return ret(SchemaLayout& layout);

  Lexer lex_;
  Token cur_;
};

Schema Parser::schema(SchemaLayout& layout) {
  Schema s;
  layout.name = cur_.offset;
  s.name = operator_name();
  s.arguments = arguments(s.name, layout);
  s.returns = returns(layout);
  expect_end("returns");
  return s;
}

// The parts of an operator name follow each other without whitespace, which
// the lexer would otherwise skip: "demo::m .out" must not register
// demo::m.out. Whitespace at `at` that a next part follows is refused, with
// the name as meant and a fix removing it.
void Parser::glued(size_t at, Part next, size_t name_start) {
  const std::string_view src = lex_.source();
  size_t end = at;
  while (const size_t n = space_at(src, end))
    end += n;
  if (end == at)
    return;
  const std::string_view rest = src.substr(end);
  const bool continues = next == Part::colons ? rest.starts_with("::")
                         : next == Part::name
                             ? !rest.empty() && is_ident_start(rest[0])
                             : rest.size() > 1 && rest[0] == '.' && is_ident_start(rest[1]);
  if (!continues)
    return;
  // The name as meant: its characters, across whitespace that a part
  // follows or that follows "::" or ".".
  std::string meant;
  size_t i = name_start;
  while (i < src.size()) {
    if (is_ident_char(src[i]) || src[i] == ':' || src[i] == '.') {
      meant += src[i++];
      continue;
    }
    size_t j = i;
    while (const size_t n = space_at(src, j))
      j += n;
    const bool joins = j > i && j < src.size() &&
                       (src[j] == ':' || src[j] == '.' ||
                        (!meant.empty() && (meant.back() == ':' || meant.back() == '.') &&
                         is_ident_start(src[j])));
    if (!joins)
      break;
    i = j;
  }
  throw Failure{Error{at, "opscan-schema-name-whitespace",
                      "operator name " + quote(meant) + " is written with " +
                          describe_space(src, at) +
                          " inside it; operator names hold no whitespace: write " + quote(meant),
                      Edit{at, end - at, ""}}};
}

OperatorName Parser::operator_name() {
  OperatorName n;
  const Token ns = expect(Tok::ident, "operator namespace");
  n.ns = ns.text;
  glued(ns.offset + ns.text.size(), Part::colons, ns.offset);
  const Token colons = expect(Tok::colons, "'::' after namespace " + quote(n.ns));
  glued(colons.offset + 2, Part::name, ns.offset);
  const Token name = expect(Tok::ident, "operator name after '::'");
  n.name = name.text;
  glued(name.offset + name.text.size(), Part::overload, ns.offset);
  if (at(Tok::dot)) {
    const Token dot = take();
    glued(dot.offset + 1, Part::name, ns.offset);
    n.overload = expect(Tok::ident, "overload name after '.'").text;
  }
  return n;
}

Type Parser::type(std::string_view what) {
  const Token base = expect(Tok::ident, what);
  if (!is_base_type(base.text))
    fail(base.offset, "opscan-schema-unknown-type", unknown_type_message(base.text));
  Type t;
  t.base = base.text;
  if (at(Tok::lparen))
    t.alias = alias();
  // Suffixes are a loop, not recursion, so "Tensor????..." cannot overflow.
  for (;;) {
    if (accept(Tok::question)) {
      t.suffixes.push_back(TypeSuffix{TypeSuffix::Kind::optional, std::nullopt, std::nullopt});
    } else if (accept(Tok::lbracket)) {
      TypeSuffix s{TypeSuffix::Kind::list, std::nullopt, std::nullopt};
      if (at(Tok::number))
        s.size = list_size(take());
      expect(Tok::rbracket, s.size ? "']' after list size" : "list size or ']'");
      if (at(Tok::lparen))
        s.alias = alias();
      t.suffixes.push_back(std::move(s));
    } else {
      return t;
    }
  }
}

int64_t Parser::list_size(const Token& tok) {
  int64_t value = 0;
  const char* end = tok.text.data() + tok.text.size();
  const auto [ptr, ec] = std::from_chars(tok.text.data(), end, value);
  if (ec != std::errc() && ec != std::errc::result_out_of_range)
    fail(tok.offset, kSyntax, "list size " + quote(tok.text) + " is not an integer");
  if (ptr != end)
    fail(tok.offset, kSyntax, "list size " + quote(tok.text) + " is not an integer");
  if (ec == std::errc::result_out_of_range || value > kMaxListSize)
    fail(tok.offset, kSyntax,
         "list size " + quote(tok.text) +
             " is too large: libtorch keeps list sizes in 32 bits "
             "(at most " +
             std::to_string(kMaxListSize) + ")");
  return value;
}

AliasInfo Parser::alias() {
  take(); // "("
  AliasInfo a;
  a.before = alias_set();
  a.is_write = accept(Tok::bang);
  if (accept(Tok::arrow))
    a.after = alias_set();
  expect(Tok::rparen, "')' to close the alias annotation");
  return a;
}

std::vector<std::string> Parser::alias_set() {
  std::vector<std::string> set;
  do {
    if (!at(Tok::ident) && !at(Tok::star))
      unexpected("alias set name or '*'");
    set.emplace_back(take().text);
  } while (accept(Tok::pipe));
  return set;
}

std::vector<Argument> Parser::arguments(const OperatorName& name, SchemaLayout& layout) {
  expect(Tok::lparen, "'(' after operator name " + quote(name.str()));
  std::vector<Argument> args;
  if (accept(Tok::rparen))
    return args;
  std::map<std::string_view, size_t> seen; // name -> offset of its first use
  std::optional<size_t> star;
  for (;;) {
    if (at(Tok::star)) {
      const Token tok = take();
      if (star)
        fail(tok.offset, "opscan-schema-kwarg-marker",
             "'*' given twice; keyword-only arguments already start at offset " +
                 std::to_string(*star));
      // A trailing "*" marks nothing and would not survive printing.
      if (at(Tok::rparen))
        fail(tok.offset, "opscan-schema-kwarg-marker",
             "'*' must be followed by at least one keyword-only argument");
      star = tok.offset;
      expect(Tok::comma, "',' after '*'");
      continue;
    }
    Argument a;
    layout.arguments.push_back(cur_.offset);
    layout.defaults.emplace_back();
    a.type = type("argument type");
    const Token arg_name = expect(Tok::ident, "argument name after type " + quote(a.type.str()));
    layout.argument_names.push_back(arg_name.offset);
    if (auto [it, fresh] = seen.emplace(arg_name.text, arg_name.offset); !fresh)
      fail(arg_name.offset, "opscan-schema-duplicate-argument",
           "duplicate argument " + quote(arg_name.text) + " (first declared at offset " +
               std::to_string(it->second) + ")");
    a.name = arg_name.text;
    a.kwarg_only = star.has_value();
    if (accept(Tok::equals)) {
      layout.defaults.back() = cur_.offset;
      a.default_value = default_value(0);
    }
    args.push_back(std::move(a));
    if (accept(Tok::comma))
      continue;
    if (accept(Tok::rparen))
      return args;
    unexpected("')' or ',' after argument " + quote(arg_name.text));
  }
}

std::string Parser::default_value(int depth) {
  if (at(Tok::lbracket)) {
    const Token open = take();
    if (depth >= kMaxDepth)
      fail(open.offset, kSyntax,
           "list default nested more than " + std::to_string(kMaxDepth) + " levels deep");
    std::vector<std::string> items;
    if (!accept(Tok::rbracket)) {
      for (;;) {
        items.push_back(default_value(depth + 1));
        if (accept(Tok::comma))
          continue;
        if (accept(Tok::rbracket))
          break;
        unexpected("',' or ']' in list default");
      }
    }
    return "[" + join(items, ", ") + "]";
  }
  if (accept(Tok::minus)) {
    if (at(Tok::number) || (at(Tok::ident) && cur_.text == "inf"))
      return "-" + std::string(take().text);
    unexpected("number after '-'");
  }
  if (at(Tok::string)) {
    // Schemas reach generated code and other tools: their strings are
    // printable ASCII, so no default can hide a line break or a byte that
    // some reader would take differently.
    for (size_t i = 1; i + 1 < cur_.text.size(); ++i) {
      const char c = cur_.text[i];
      if (c < 0x20 || c > 0x7e) {
        fail(cur_.offset + i, kSyntax,
             "string default holds " + describe_char(c) +
                 ": schema strings are printable ASCII (write it with an escape, such as \\n, "
                 "or leave it out)");
      }
    }
    return std::string(take().text); // kept as written
  }
  if (at(Tok::ident) || at(Tok::number))
    return std::string(take().text); // kept as written
  unexpected("default value");
}

std::vector<Return> Parser::returns(SchemaLayout& layout) {
  expect(Tok::arrow, "'->' after the argument list");
  layout.return_list = cur_.offset;
  std::vector<Return> rets;
  if (!accept(Tok::lparen)) {
    rets.push_back(ret(layout));
    return rets;
  }
  if (accept(Tok::rparen))
    return rets;
  for (;;) {
    rets.push_back(ret(layout));
    if (accept(Tok::comma))
      continue;
    if (accept(Tok::rparen))
      return rets;
    unexpected("')' or ',' after return " + quote(rets.back().type.str()));
  }
}

Return Parser::ret(SchemaLayout& layout) {
  layout.returns.push_back(cur_.offset);
  Return r;
  r.type = type("return type");
  if (at(Tok::ident))
    r.name = take().text;
  return r;
}

template <typename T, typename F>
Parsed<T> run(std::string_view text, F parse) {
  try {
    Parser p(text);
    return Parsed<T>{parse(p), std::nullopt};
  } catch (Failure& f) {
    return Parsed<T>{std::nullopt, std::move(f.error)};
  }
}

// Appends an error if `text` is not an ASCII identifier, pointing at the
// first offending byte.
void check_identifier(std::string_view text, std::string_view what, size_t offset,
                      std::vector<Error>& errors) {
  if (text.empty()) {
    errors.push_back({offset, std::string(kSyntax), std::string(what) + " is empty"});
    return;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 0 ? is_ident_start(text[i]) : is_ident_char(text[i]))
      continue;
    errors.push_back({offset + i, std::string(kSyntax),
                      std::string(what) + " " + quote(text) + " is not an ASCII identifier: " +
                          describe_char(text[i]) + " at position " + std::to_string(i)});
    return;
  }
}

void check_word(std::string_view text, std::string_view what, size_t offset,
                std::vector<Error>& errors) {
  if (is_reserved_word(text))
    errors.push_back({offset, "opscan-schema-reserved-word",
                      std::string(what) + " " + quote(text) +
                          " is a keyword of libtorch's schema parser, which refuses it as a name; "
                          "choose another",
                      std::nullopt});
}

void check_macro(std::string_view text, std::string_view what, size_t offset,
                 std::vector<Error>& errors) {
  if (auto from = ident::macro_origin(text))
    errors.push_back({offset, "opscan-schema-macro-name",
                      std::string(what) + " " + quote(text) +
                          " is a macro in generated code, from " + std::string(*from) +
                          "; the preprocessor would replace it there: choose another",
                      std::nullopt});
}

} // namespace

// ---------------------------------------------------------------------------
// Public entry points

Parsed<Schema> parse_schema(std::string_view text) {
  return run<Schema>(text, [](Parser& p) {
    SchemaLayout unused;
    return p.schema(unused);
  });
}

Parsed<ParsedSchema> parse_schema_with_layout(std::string_view text) {
  return run<ParsedSchema>(text, [](Parser& p) {
    ParsedSchema result;
    result.schema = p.schema(result.layout);
    return result;
  });
}

Parsed<OperatorName> parse_operator_name(std::string_view text) {
  return run<OperatorName>(text, [](Parser& p) {
    OperatorName n = p.operator_name();
    p.expect_end("operator name");
    return n;
  });
}

Parsed<Type> parse_type(std::string_view text) {
  return run<Type>(text, [](Parser& p) {
    Type t = p.type("type");
    p.expect_end("type");
    return t;
  });
}

std::optional<std::string_view> closest_match(std::string_view text,
                                              std::span<const std::string_view> candidates) {
  // Only small edits count as close; for anything further a suggestion is
  // more likely to mislead than help.
  std::optional<std::string_view> best;
  size_t best_distance = 3;
  for (std::string_view candidate : candidates) {
    const size_t gap = text.size() > candidate.size() ? text.size() - candidate.size()
                                                      : candidate.size() - text.size();
    if (gap >= best_distance)
      continue;
    const size_t d = edit_distance(text, candidate);
    if (d < best_distance && d < text.size()) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

bool is_base_type(std::string_view name) {
  return std::find(kBaseTypes.begin(), kBaseTypes.end(), name) != kBaseTypes.end();
}

bool is_reserved_word(std::string_view name) {
  return std::binary_search(kReservedWords.begin(), kReservedWords.end(), name);
}

std::vector<Error> check_operator_name(const OperatorName& name) {
  std::vector<Error> errors;
  const size_t name_at = name.ns.size() + 2;
  const size_t overload_at = name_at + name.name.size() + 1;
  check_identifier(name.ns, "namespace", 0, errors);
  check_identifier(name.name, "name", name_at, errors);
  if (!name.overload.empty())
    check_identifier(name.overload, "overload", overload_at, errors);
  check_word(name.ns, "namespace", 0, errors);
  check_word(name.name, "name", name_at, errors);
  if (!name.overload.empty())
    check_word(name.overload, "overload", overload_at, errors);
  // The namespace and the name are C++ names in generated code (ExecuTorch's
  // Functions.h: torch::executor::<ns>::<name>()); the overload never is.
  check_macro(name.ns, "namespace", 0, errors);
  check_macro(name.name, "name", name_at, errors);

  const std::string_view n = name.name;
  if (n.starts_with("__"))
    errors.push_back({name_at, "opscan-schema-reserved-name",
                      "name " + quote(n) + " starts with '__', which is reserved"});
  if (n.size() > 4 && n.ends_with("_out")) {
    // PyTorch spells out= variants as an overload: add.out, add.Scalar_out.
    const std::string base(n.substr(0, n.size() - 4));
    const std::string overload = name.overload.empty() ? "out" : name.overload + "_out";
    errors.push_back({name_at + n.size() - 4, "opscan-schema-out-suffix",
                      "name " + quote(n) + " ends in '_out': name it '" + base +
                          "' with overload '" + overload + "' (" + base + "." + overload + ")"});
  }
  if (name.overload == "default")
    errors.push_back({overload_at, "opscan-schema-reserved-overload",
                      "overload name 'default' is reserved for the operator without an "
                      "overload; leave the overload empty"});
  else if (name.overload.starts_with("__"))
    errors.push_back({overload_at, "opscan-schema-reserved-name",
                      "overload " + quote(name.overload) + " starts with '__', which is reserved"});
  return errors;
}

std::optional<OperatorName> repaired_operator_name(const OperatorName& name) {
  OperatorName repaired = name;
  if (repaired.overload == "default")
    repaired.overload.clear();
  const std::string_view n = repaired.name;
  if (n.size() > 4 && n.ends_with("_out")) {
    repaired.name.resize(n.size() - 4);
    repaired.overload = repaired.overload.empty() ? "out" : repaired.overload + "_out";
  }
  if (repaired == name || !check_operator_name(repaired).empty())
    return std::nullopt;
  return repaired;
}

} // namespace opscan::schema
