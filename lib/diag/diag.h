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

// The longest message a diagnostic carries; longer ones are clipped
// (support::clipped), however much hostile input they quote.
inline constexpr size_t kMaxMessageBytes = 1000;

Diagnostic make_error(std::string code, Location where, std::string message);
Diagnostic make_warning(std::string code, Location where, std::string message);
Diagnostic make_note(std::string code, Location where, std::string message);

bool has_errors(const Diagnostics& diags);

// Orders diagnostics by file, offset, then code and message, so output does
// not depend on the order work was done in.
void sort(Diagnostics& diags);

// The first `shown` diagnostics of each code, in order, and for each code
// with more a note (`note_code`) at the first left out counting them: a
// thousand entries that fail alike are one screen, not megabytes.
Diagnostics capped(Diagnostics diags, size_t shown, const std::string& note_code);

const char* to_string(Severity severity);

} // namespace opscan::diag
