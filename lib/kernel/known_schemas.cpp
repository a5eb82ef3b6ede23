// Reading a file of known schemas (`--schemas`): one per line, or operator YAML.
#include "kernel/known_schemas.h"

#include "schema/autogen.h"
#include "support/files.h"
#include "yaml/operator_yaml.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <utility>
#include <vector>

namespace opscan::kernel {
namespace {

// What could not be known, reported in one note at the first of them.
class Skipped {
public:
  void add(bool autogen, const diag::Location& where, std::string reason) {
    ++(autogen ? autogen_ : grammar_);
    if (!first_) {
      first_ = where;
      first_reason_ = std::move(reason);
    }
  }

  void report(diag::Diagnostics& diags) const {
    if (!first_)
      return;
    auto plural = [](uint32_t n) { return n == 1 ? "" : "s"; };
    std::string message;
    if (autogen_ == 0) {
      message = fmt::format("{} schema{} outside the operator grammar skipped", grammar_,
                            plural(grammar_));
    } else {
      const uint32_t total = grammar_ + autogen_;
      message = fmt::format("{} schema{} skipped: ", total, plural(total));
      if (grammar_ > 0)
        message += fmt::format("{} outside the operator grammar, ", grammar_);
      message += fmt::format("{} autogen variant{} not derived", autogen_, plural(autogen_));
    }
    diags.push_back(diag::make_note("opscan-known-schemas-skipped", *first_,
                                    message + " (the first: " + first_reason_ + ")"));
  }

private:
  uint32_t grammar_ = 0;
  uint32_t autogen_ = 0;
  std::optional<diag::Location> first_;
  std::string first_reason_;
};

// See the header: the name, or else the first character that matters, since
// a schema starts with its namespace.
bool is_operator_yaml(const std::string& path, std::string_view text) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".yaml" || extension == ".yml")
    return true;
  size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++i;
    } else if (c == '#') {
      i = text.find('\n', i);
      if (i == std::string_view::npos)
        return false;
    } else {
      return c == '-' || c == '[' || c == '{' || c == '%';
    }
  }
  return false;
}

KnownSchemas from_lines(const std::string& path, const std::string& text, Skipped& skipped) {
  KnownSchemas known;
  std::istringstream lines(text);
  std::string line;
  uint32_t number = 0, offset = 0;
  for (; std::getline(lines, line); offset += static_cast<uint32_t>(line.size()) + 1) {
    ++number;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#')
      continue;
    diag::Location where{path, number, static_cast<uint32_t>(start + 1),
                         offset + static_cast<uint32_t>(start)};
    auto parsed = schema::parse_schema(std::string_view(line).substr(start));
    if (!parsed) {
      diag::Location at = where;
      at.column += static_cast<uint32_t>(parsed.error->offset);
      at.offset += static_cast<uint32_t>(parsed.error->offset);
      skipped.add(false, at, parsed.error->message);
      continue;
    }
    schema::OperatorName name = parsed.value->name; // before the schema moves
    known.insert_or_assign(std::move(name), KnownSchema{std::move(*parsed.value), where});
  }
  return known;
}

std::optional<KnownSchemas> from_yaml(const std::string& path, const std::string& text,
                                      Skipped& skipped, diag::Diagnostics& diags) {
  auto entries = yaml::parse_operator_yaml(text, path, diags);
  if (!entries)
    return std::nullopt;
  KnownSchemas known;
  // Derived schemas go in last: an operator written out wins.
  std::vector<std::pair<schema::OperatorName, KnownSchema>> derived;
  for (const yaml::Entry& entry : *entries) {
    if (!entry.func)
      continue; // an ExecuTorch "op:" names an operator, no schema
    auto parsed = yaml::parse_func(*entry.func);
    if (!parsed) {
      skipped.add(false, entry.func->at(parsed.error->offset), parsed.error->message);
      for (const yaml::Scalar& name : entry.autogen)
        skipped.add(true, name.where,
                    "autogen '" + name.text + "': its func is outside the operator grammar");
      continue;
    }
    const schema::Schema& from = *parsed.value;
    for (const yaml::Scalar& name : entry.autogen) {
      auto op = yaml::parse_operator(name, from.name.ns);
      if (!op) {
        skipped.add(true, name.at(op.error->offset),
                    "autogen '" + name.text + "': " + op.error->message);
        continue;
      }
      schema::Derived variant = schema::autogen_variant(from, *op.value);
      if (!variant) {
        skipped.add(true, name.where, "autogen '" + name.text + "': " + variant.error);
        continue;
      }
      derived.emplace_back(std::move(*op.value),
                           KnownSchema{std::move(*variant.schema), name.where});
    }
    schema::OperatorName op = from.name; // before the schema moves
    known.insert_or_assign(std::move(op), KnownSchema{std::move(*parsed.value), entry.func->where});
  }
  for (auto& [name, schema] : derived)
    known.try_emplace(std::move(name), std::move(schema));
  return known;
}

} // namespace

std::optional<KnownSchemas> load_known_schemas(const std::string& path, diag::Diagnostics& diags) {
  std::string error;
  auto text = support::read_file(path, &error);
  if (!text) {
    diags.push_back(diag::make_error("opscan-io", {path, 0, 0, 0},
                                     "cannot read the schemas file " + path + ": " + error));
    return std::nullopt;
  }
  Skipped skipped;
  std::optional<KnownSchemas> known;
  if (is_operator_yaml(path, *text))
    known = from_yaml(path, *text, skipped, diags);
  else
    known = from_lines(path, *text, skipped);
  if (known)
    skipped.report(diags);
  return known;
}

std::optional<KnownSchemas> load_known_schemas(const std::vector<std::string>& paths,
                                               diag::Diagnostics& diags) {
  KnownSchemas merged;
  diag::Diagnostics conflicts;
  bool ok = true;
  for (const std::string& path : paths) {
    std::optional<KnownSchemas> known = load_known_schemas(path, diags);
    if (!known) {
      ok = false;
      continue;
    }
    for (auto& [name, schema] : *known) {
      auto [first, fresh] = merged.try_emplace(name, std::move(schema)); // kept when not fresh
      if (fresh || first->second.schema == schema.schema)
        continue;
      auto place = [](const diag::Location& at) { return fmt::format("{}:{}", at.file, at.line); };
      auto d = diag::make_error(
          "opscan-known-schemas-conflict", schema.where,
          fmt::format("the schemas files disagree on {}: {} gives '{}', {} gives '{}'", name.str(),
                      place(schema.where), schema.schema.str(), place(first->second.where),
                      first->second.schema.str()));
      d.notes.push_back({"the other schema of " + name.str(), first->second.where});
      conflicts.push_back(std::move(d));
      ok = false;
    }
  }
  // Two releases of one file can disagree on hundreds: a screen of them,
  // the first in the files.
  diag::sort(conflicts);
  conflicts = diag::capped(std::move(conflicts), 20, "opscan-known-schemas-more");
  diags.insert(diags.end(), conflicts.begin(), conflicts.end());
  if (!ok)
    return std::nullopt;
  return merged;
}

} // namespace opscan::kernel
