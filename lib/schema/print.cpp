// The canonical printer of schemas, names and types, and the layout of
// where each part of a printed schema lands.
#include "schema/schema.h"

#include <algorithm>
#include <string>

namespace opscan::schema {
namespace {

// The printers append to one string: schemas are printed by the thousand.
void append_joined(std::string& out, const std::vector<std::string>& parts, char sep) {
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0)
      out += sep;
    out += parts[i];
  }
}

void append_alias(std::string& out, const AliasInfo& alias) {
  out += '(';
  append_joined(out, alias.before, '|');
  if (alias.is_write)
    out += '!';
  if (!alias.after.empty()) {
    out += " -> ";
    append_joined(out, alias.after, '|');
  }
  out += ')';
}

void append_type(std::string& out, const Type& type) {
  out += type.base;
  if (type.alias)
    append_alias(out, *type.alias);
  for (const TypeSuffix& s : type.suffixes) {
    if (s.kind == TypeSuffix::Kind::optional) {
      out += '?';
      continue;
    }
    out += '[';
    if (s.size)
      out += std::to_string(*s.size);
    out += ']';
    if (s.alias)
      append_alias(out, *s.alias);
  }
}

} // namespace

// ---------------------------------------------------------------------------
// Printing

std::string OperatorName::str() const {
  return ns + "::" + unqualified();
}

std::string OperatorName::unqualified() const {
  return overload.empty() ? name : name + "." + overload;
}

std::string Type::str() const {
  std::string out;
  append_type(out, *this);
  return out;
}

bool Type::is_optional() const {
  return !suffixes.empty() && suffixes.back().kind == TypeSuffix::Kind::optional;
}

bool Type::is_list() const {
  return !suffixes.empty() && suffixes.back().kind == TypeSuffix::Kind::list;
}

bool Type::is_mutable() const {
  if (alias && alias->is_write)
    return true;
  return std::any_of(suffixes.begin(), suffixes.end(),
                     [](const TypeSuffix& s) { return s.alias && s.alias->is_write; });
}

namespace {

// The canonical printer; records where each part lands so that layout_of
// cannot drift from str().
std::string print(const Schema& schema, SchemaLayout* layout) {
  std::string out;
  out.reserve(64 + 32 * (schema.arguments.size() + schema.returns.size()));
  out += schema.name.ns;
  out += "::";
  out += schema.name.name;
  if (!schema.name.overload.empty()) {
    out += '.';
    out += schema.name.overload;
  }
  out += '(';
  bool star = false;
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    const Argument& a = schema.arguments[i];
    if (i > 0)
      out += ", ";
    if (a.kwarg_only && !star) {
      out += "*, ";
      star = true;
    }
    if (layout)
      layout->arguments.push_back(out.size());
    append_type(out, a.type);
    out += ' ';
    if (layout)
      layout->argument_names.push_back(out.size());
    out += a.name;
    std::optional<size_t> default_at;
    if (a.default_value) {
      default_at = out.size() + 1;
      out += '=';
      out += *a.default_value;
    }
    if (layout)
      layout->defaults.push_back(default_at);
  }
  out += ") -> ";
  if (layout)
    layout->return_list = out.size();
  // As in torchgen, a single return is printed without parentheses even when
  // named; "()" means no returns.
  const bool parens = schema.returns.size() != 1;
  if (parens)
    out += "(";
  for (size_t i = 0; i < schema.returns.size(); ++i) {
    const Return& r = schema.returns[i];
    if (i > 0)
      out += ", ";
    if (layout)
      layout->returns.push_back(out.size());
    append_type(out, r.type);
    if (!r.name.empty()) {
      out += ' ';
      out += r.name;
    }
  }
  if (parens)
    out += ")";
  return out;
}

} // namespace

std::string Schema::str() const {
  return print(*this, nullptr);
}

SchemaLayout layout_of(const Schema& schema) {
  SchemaLayout layout;
  print(schema, &layout);
  return layout;
}

} // namespace opscan::schema
