// `opscan report`: what kernel libraries provide (operators, schemas,
// kernels, where they are declared, how each library registers), and how
// much of a list of operators (say, the Core ATen set) they cover.
#pragma once

#include "audit/inputs.h"
#include "diag/diag.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opscan::audit {

// A list of operators, one per line: a full name (ns::name.overload, or
// ns::name) or a whole schema, whose name is taken; blank lines and '#'
// comments are skipped, a name given twice counts once.
struct OperatorList {
  std::vector<std::string> names; // as OperatorName::str() spells them, in file order
};

// Errors: a malformed name, at its line and column, with the schema
// parser's code (opscan-schema-syntax, ...). `list` is set only when there
// is none.
struct ListRead {
  std::optional<OperatorList> list;
  diag::Diagnostics diagnostics;
};
ListRead parse_operator_list(std::string_view text, const std::string& path);

// Which operators of a list the libraries serve (exact names), and which
// none does.
struct Coverage {
  std::string list; // the list's file, for the report
  std::vector<std::pair<std::string, std::vector<std::string>>> covered; // operator, libraries
  std::vector<std::string> missing;
  size_t total() const { return covered.size() + missing.size(); }
  double percent() const; // 100 for an empty list
};
Coverage coverage_of(const std::vector<Library>& libraries, const OperatorList& list,
                     std::string list_file);

// The report as Markdown (per library a table of its kernels, then the
// coverage, if any) or as one JSON document (version 1; docs/auditing.md,
// "Coverage: opscan report", describes it).
// Each kernel shows its annotation `fields`.
std::string render_report_markdown(const std::vector<Library>& libraries,
                                   const std::optional<Coverage>& coverage,
                                   const ir::Fields& fields);
std::string render_report_json(const std::vector<Library>& libraries,
                               const std::optional<Coverage>& coverage, const ir::Fields& fields);

} // namespace opscan::audit
