// Diagnostics: one model shared by every stage of opscan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opscan::diag {

enum class Severity { note, warning, error };

// A position in a source file. Lines and columns are 1-based; the column
// counts bytes (as clang does); offset is the 0-based byte offset.
struct Location {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t offset = 0;

  bool valid() const { return line != 0; }
  friend bool operator==(const Location&, const Location&) = default;
};

// Replaces `length` bytes at `offset` of `file` with `replacement`.
struct FixIt {
  std::string file;
  uint32_t offset = 0;
  uint32_t length = 0;
  std::string replacement;
  friend bool operator==(const FixIt&, const FixIt&) = default;
};

struct Note {
  std::string message;
  Location location;
  friend bool operator==(const Note&, const Note&) = default;
};

struct Diagnostic {
  Severity severity = Severity::error;
  std::string code; // e.g. "opscan-scan-invalid-type"
  std::string message;
  Location location; // may be invalid for file-less problems
  std::vector<Note> notes;
  std::vector<FixIt> fixits;
  friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

using Diagnostics = std::vector<Diagnostic>;

inline Diagnostic make_error(std::string code, Location where, std::string message) {
  return {Severity::error, std::move(code), std::move(message), std::move(where), {}, {}};
}
inline Diagnostic make_warning(std::string code, Location where, std::string message) {
  return {Severity::warning, std::move(code), std::move(message), std::move(where), {}, {}};
}
inline Diagnostic make_note(std::string code, Location where, std::string message) {
  return {Severity::note, std::move(code), std::move(message), std::move(where), {}, {}};
}

bool has_errors(const Diagnostics& diags);

// Orders diagnostics by file, offset, then code and message, so output does
// not depend on the order work was done in.
void sort(Diagnostics& diags);

const char* to_string(Severity severity);

} // namespace opscan::diag
