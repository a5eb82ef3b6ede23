#include "scan/known_schemas.h"

#include "support/files.h"

#include <fmt/format.h>
#include <sstream>

namespace opscan::scan {

std::optional<KnownSchemas> load_known_schemas(const std::string& path, diag::Diagnostics& diags) {
  std::string error;
  auto text = support::read_file(path, &error);
  if (!text) {
    diags.push_back(
        diag::make_error("opscan-io", {path, 0, 0, 0}, "cannot read the schemas file: " + error));
    return std::nullopt;
  }
  KnownSchemas known;
  std::istringstream lines(*text);
  std::string line;
  uint32_t number = 0, offset = 0, skipped = 0;
  std::optional<diag::Location> first_skipped;
  std::string first_reason;
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
      if (!first_skipped) {
        first_skipped = where;
        first_skipped->column += static_cast<uint32_t>(parsed.error->offset);
        first_skipped->offset += static_cast<uint32_t>(parsed.error->offset);
        first_reason = parsed.error->message;
      }
      ++skipped;
      continue;
    }
    schema::OperatorName name = parsed.value->name; // before the schema moves
    known.insert_or_assign(std::move(name), KnownSchema{std::move(*parsed.value), where});
  }
  if (skipped > 0) {
    diags.push_back(diag::make_note(
        "opscan-known-schemas-skipped", *first_skipped,
        fmt::format("{} schema{} outside the operator grammar skipped (the first: {})", skipped,
                    skipped == 1 ? "" : "s", first_reason)));
  }
  return known;
}

} // namespace opscan::scan
