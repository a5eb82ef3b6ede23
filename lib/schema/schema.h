// PyTorch-style operator schemas: model, parser, printer and invariant
// checks, in PyTorch's grammar (ns::name.overload(args) -> returns, as in
// native_functions.yaml). Printing a parsed schema gives its canonical
// spelling; canonical input round-trips exactly. String defaults hold
// printable ASCII only.
//
// Diagnostic codes. Parsing (parse_schema, parse_type, parse_operator_name):
//   opscan-schema-syntax              malformed text (also a bad identifier)
//   opscan-schema-name-whitespace     whitespace inside an operator name
//                                     ("demo::m .out"), with a fix removing it
//   opscan-schema-unknown-type        base type not one of is_base_type()
//   opscan-schema-duplicate-argument  two arguments with one name
//   opscan-schema-kwarg-marker        '*' twice, or with nothing after it
// Operator names (check_operator_name, and so check_schema):
//   opscan-schema-out-suffix          name ends in "_out": use overload "out"
//   opscan-schema-reserved-overload   overload "default"
//   opscan-schema-reserved-name       name or overload starts with "__"
//   opscan-schema-reserved-word       a keyword of libtorch's schema lexer
//                                     (also as an argument or return name)
//   opscan-schema-macro-name          namespace or name is a macro where
//                                     generated code is compiled (also as an
//                                     argument name; ident::macro_origin)
// Invariants of a parsed schema (check_schema), after torchgen:
//   opscan-schema-out-group           a non-mutable argument after the first
//                                     keyword-only mutable one (out group)
//   opscan-schema-out-returns         returns neither one per out argument nor
//                                     none (list/optional outs: none)
//   opscan-schema-out-return-alias    return i's annotation differs from out
//                                     argument i's
//   opscan-schema-mixed-returns       mutable and immutable returns mixed
//   opscan-schema-return-alias        mutable return aliasing no out argument
//                                     and not 'self'
//   opscan-schema-inplace             "name_" whose positional 'self' is missing
//                                     or immutable, or that does not return
//                                     self (Tensor self) / nothing (otherwise)
//   opscan-schema-default-order       positional argument without default
//                                     after one with a default
//   opscan-schema-duplicate-alias     two mutable arguments, one alias set
//   opscan-schema-default-type        default value that does not fit the type,
//                                     or that the runtimes cannot read: an
//                                     int outside int64, a float that over-
//                                     or underflows a double, inf or nan, a
//                                     complex number, a bad Device string or
//                                     string escape, a list libtorch cannot
//                                     build (see check.cpp)
//   opscan-schema-alias-type          alias annotation on a type other than
//                                     Tensor, Storage or Generator
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opscan::schema {

// "ns::name.overload"; overload may be empty.
struct OperatorName {
  std::string ns;
  std::string name;
  std::string overload;

  std::string str() const;         // "ns::name.overload" or "ns::name"
  std::string unqualified() const; // "name.overload" or "name"
  friend auto operator<=>(const OperatorName&, const OperatorName&) = default;
};

// "(a)", "(a!)", "(a -> *)", "(a|b)": alias sets before and after, and
// whether the value is written.
struct AliasInfo {
  std::vector<std::string> before;
  bool is_write = false;
  std::vector<std::string> after;
  friend bool operator==(const AliasInfo&, const AliasInfo&) = default;
};

// A suffix applied to a type, left to right: "?" or "[N]" (with its alias).
struct TypeSuffix {
  enum class Kind { optional, list };
  Kind kind = Kind::optional;
  std::optional<int64_t> size;    // list only: "int[2]"
  std::optional<AliasInfo> alias; // list only: "Tensor(a!)[](b)" is rare but legal
  friend bool operator==(const TypeSuffix&, const TypeSuffix&) = default;
};

// base [alias] {suffix}, e.g. "Tensor(a!)?" or "int[2]" or "Tensor?[]".
struct Type {
  std::string base;               // "Tensor", "int", "Scalar", ...
  std::optional<AliasInfo> alias; // alias of the base
  std::vector<TypeSuffix> suffixes;

  std::string str() const;
  bool is_optional() const; // outermost suffix is "?"
  bool is_list() const;     // outermost suffix is a list
  bool is_mutable() const;  // any alias annotation with "!"
  friend bool operator==(const Type&, const Type&) = default;
};

struct Argument {
  Type type;
  std::string name;
  std::optional<std::string> default_value; // as written: "1", "None", "[0, 1]", "'mean'"
  bool kwarg_only = false;                  // after "*"
  friend bool operator==(const Argument&, const Argument&) = default;
};

struct Return {
  Type type;
  std::string name; // may be empty
  friend bool operator==(const Return&, const Return&) = default;
};

struct Schema {
  OperatorName name;
  std::vector<Argument> arguments;
  std::vector<Return> returns;

  std::string str() const; // canonical spelling
  friend bool operator==(const Schema&, const Schema&) = default;
};

// A replacement of `length` bytes at `offset` of the parsed string.
struct Edit {
  size_t offset = 0;
  size_t length = 0;
  std::string replacement;
  friend bool operator==(const Edit&, const Edit&) = default;
};

// A problem in a schema string. `offset` is the 0-based byte offset inside
// the parsed string, so callers can map it back to a source location.
struct Error {
  size_t offset = 0;
  std::string code; // e.g. "opscan-schema-syntax"
  std::string message;
  std::optional<Edit> fix; // the one obvious repair, when there is one

  Error() = default;
  Error(size_t at, std::string error_code, std::string text, std::optional<Edit> repair = {})
      : offset(at), code(std::move(error_code)), message(std::move(text)), fix(std::move(repair)) {}
};

template <typename T>
struct Parsed {
  std::optional<T> value;
  std::optional<Error> error; // set exactly when value is not
  explicit operator bool() const { return value.has_value(); }
};

Parsed<Schema> parse_schema(std::string_view text);

// Where the parts of a schema are in some text, as byte offsets: either the
// text it was parsed from (parse_schema_with_layout) or its canonical
// spelling (layout_of). Diagnostics from check_schema point at these.
struct SchemaLayout {
  size_t name = 0;                             // operator name
  std::vector<size_t> arguments;               // each argument's type
  std::vector<size_t> argument_names;          // each argument's name
  std::vector<std::optional<size_t>> defaults; // each argument's default value
  size_t return_list = 0;                      // what follows "->"
  std::vector<size_t> returns;                 // each return's type
  friend bool operator==(const SchemaLayout&, const SchemaLayout&) = default;
};

struct ParsedSchema {
  Schema schema;
  SchemaLayout layout;
};

Parsed<ParsedSchema> parse_schema_with_layout(std::string_view text);

// The layout of schema.str(), for schemas built in code (e.g. inferred from a
// C++ signature): offsets point into the canonical spelling.
SchemaLayout layout_of(const Schema& schema);

Parsed<OperatorName> parse_operator_name(std::string_view text);
Parsed<Type> parse_type(std::string_view text);

// The candidate closest to `text` by edit distance (case differences are
// free), for "did you mean" messages: fewer than three edits away and fewer
// than `text` has characters; the first of equally close ones. nullopt when
// none is that close.
std::optional<std::string_view> closest_match(std::string_view text,
                                              std::span<const std::string_view> candidates);

// The base types of PyTorch's schemas ("Tensor", "int", "SymInt", ...).
bool is_base_type(std::string_view name);

// The words libtorch's schema lexer reads as keywords, not identifiers
// (torch/csrc/jit/frontend/lexer.h, TC_FORALL_TOKEN_KINDS: def, if, None,
// class, ...): libtorch refuses them as any name in a schema.
bool is_reserved_word(std::string_view name);

// The largest size of a fixed-size list type ("int[N]"): libtorch keeps it
// in 32 bits.
inline constexpr int64_t kMaxListSize = 2147483647;

// Naming rules for operators: ASCII identifiers for namespace, name and
// overload, none a keyword of libtorch's schema lexer (is_reserved_word),
// namespace and name not a macro (ident::macro_origin); no "_out" suffix on
// the name (use overload "out"); overload "default" and names starting with
// "__" refused. Offsets are relative to OperatorName::str().
std::vector<Error> check_operator_name(const OperatorName& name);

// The name check_operator_name's messages prescribe, when its errors have
// that one repair: overload "default" dropped, then a "_out" name suffix
// made the overload ("add_out" -> "add.out", "add_out.Scalar" ->
// "add.Scalar_out"). Nullopt when the name has no error, or one with no
// obvious repair (a reserved "__" name, a bad identifier).
std::optional<OperatorName> repaired_operator_name(const OperatorName& name);

// All findings of check_operator_name plus the invariants listed at the top
// of this file, sorted by offset. No schema of native_functions.yaml has any
// but the dunder names opscan reserves. `layout` must come from the same
// schema: parse_schema_with_layout for text, layout_of for built schemas (a
// shorter layout is tolerated: missing offsets fall back to the name's).
std::vector<Error> check_schema(const Schema& schema, const SchemaLayout& layout);

} // namespace opscan::schema
