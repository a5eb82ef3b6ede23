// PyTorch-style operator schemas: model, parser and printer
// (grammar in REFERENCE.md §A). Printing a parsed schema gives its canonical
// spelling; canonical input round-trips exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// A problem in a schema string. `offset` is the 0-based byte offset inside
// the parsed string, so callers can map it back to a source location.
struct Error {
  size_t offset = 0;
  std::string code; // e.g. "opscan-schema-syntax"
  std::string message;
};

template <typename T>
struct Parsed {
  std::optional<T> value;
  std::optional<Error> error; // set exactly when value is not
  explicit operator bool() const { return value.has_value(); }
};

Parsed<Schema> parse_schema(std::string_view text);
Parsed<OperatorName> parse_operator_name(std::string_view text);
Parsed<Type> parse_type(std::string_view text);

// The base types of REFERENCE.md §A ("Tensor", "int", "SymInt", ...).
bool is_base_type(std::string_view name);

// Naming rules for operators (DESIGN.md §5): ASCII identifiers for namespace,
// name and overload; no "_out" suffix on the name (use overload "out");
// overload "default" and names starting with "__" refused. Offsets are
// relative to OperatorName::str().
std::vector<Error> check_operator_name(const OperatorName& name);

} // namespace opscan::schema
