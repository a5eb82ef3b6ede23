// The IR as JSON ("format": "opscan-ir", described by
// ir/opscan-ir.schema.json): the only place its strings are parsed or printed.
#pragma once

#include "diag/diag.h"
#include "ir/fields.h"
#include "ir/ir.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace opscan::ir {

inline constexpr std::string_view kFormat = "opscan-ir";
inline constexpr int kVersion = 2;

// Deterministic JSON (canonicalised, two-space indent, trailing newline).
// Each kernel names every one of `fields` ("" when unset), in their order.
std::string to_json(const Module& module, const Fields& fields);

struct ReadResult;

// Where each value of an IR file is, by JSON path: "kernels[3].cpp_function",
// "library.name", "kernels[0].arguments[1].schema_type". Looked up only when
// a diagnostic needs it; copies share the parsed file.
class Positions {
public:
  Positions() = default;
  explicit Positions(std::string file) : file_(std::move(file)) {}
  // The value at `path`, else that of the nearest enclosing path, else the
  // start of the file.
  diag::Location at(std::string_view path) const;
  const std::string& file() const { return file_; }

  struct Document; // the parsed text (ir/json.cpp)

private:
  friend ReadResult from_json(std::string text, const std::string& path, const Fields& fields);
  std::string file_;
  std::shared_ptr<const Document> document_;
};

struct ReadResult {
  std::optional<Module> module;
  diag::Diagnostics diagnostics; // located in the file, naming the JSON path
  Positions positions;
};

// One IR file, read and validated: its path, its IR and where each value
// is (for diagnostics).
struct File {
  std::string path;
  Module module;
  Positions positions;
};

// Reads an IR document. Refuses, naming the JSON path of the first problem:
// anything but JSON, duplicate keys, another format or version, unknown or
// missing fields, values of the wrong JSON type or outside an enum, types
// and schemas that do not parse, and a "schema" that is not what the
// operator, arguments and returns spell. Each kernel names every one of
// `fields` (the annotation fields of the targets the reader knows), and no
// other. The rest of the rules (grammar, invariants, duplicates) are
// ir::validate's.
ReadResult from_json(std::string text, const std::string& path, const Fields& fields);

} // namespace opscan::ir
