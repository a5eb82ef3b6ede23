// Files that start with the same #include lines, parsed as successive
// re-parses of one translation unit whose preamble holds those lines:
// libclang precompiles a unit's leading #include lines once, keeps them in
// memory, and reuses them while they stay the same, so each further file
// costs about a hundredth of parsing its headers. (A precompiled header
// loaded from a file costs about a third.) Private to lib/scan.
//
// A file is parsed as the unit's main file (named as one of the files)
// holding
//
//     <the shared #include lines>
//     ;
//     #line 1 "<the file>"
//     <the file's text>
//
// The empty declaration ends the preamble; #line gives __LINE__ and
// __FILE__ the values they have in the file. Why the result is that of the
// file parsed alone:
// - the unit is in the file's directory and compiled with its arguments, so
//   every name is found where the file finds it;
// - each shared header is guarded against a second inclusion (or a system
//   header), so the file's own #include lines of them add nothing;
// - no header the preamble holds mentions an annotation (its declarations
//   are not walked);
// - the file's text names neither __BASE_FILE__ nor __TIMESTAMP__, whose
//   values the unit's name and time would change; no kernel has a name of
//   internal linkage, whose libclang name (USR) holds the file's name;
// - whatever libclang or the extraction reports sends the file to a plain
//   parse (the caller's), so that diagnostics are a plain parse's;
// - locations in the unit are mapped back to the file (UnitParse).
#pragma once

#include "scan/auto_pch.h"
#include "scan/clang.h"

#include <clang-c/Index.h>
#include <cstdint>
#include <string>
#include <vector>

namespace opscan::scan {

// Where a file's text sits in a unit.
struct UnitPlacement {
  std::string unit;   // the unit's main file, as libclang names it
  std::string file;   // the file, as given (a plain parse names it so)
  uint32_t lines = 0; // lines before the file's first
  uint32_t bytes = 0; // bytes before it
  uint32_t includes = 0; // the shared #include lines, the unit's first
};

class PreambleUnit {
public:
  // `prefix`: the shared lines, their arguments and directory; `main_file`:
  // one of the files, whose name the unit takes (libclang makes no preamble
  // for a main file that is not on disk).
  PreambleUnit(PlannedPch prefix, std::string main_file);

  // Parses `file` (whose bytes are `text`) in the unit, with `index` (which
  // must exclude declarations from precompiled headers); null when the
  // unit cannot stand for a plain parse of it (a file of another extension,
  // which may decide its language, is one). The unit stays usable for
  // other files unless the preamble itself is unfit (then every later call
  // returns null at once).
  CXTranslationUnit parse(CXIndex index, const std::string& file, const std::string& text,
                          UnitPlacement& placement);

private:
  bool check_preamble();

  PlannedPch prefix_;
  std::string path_;      // the unit's main file
  std::string main_name_; // as libclang names it
  std::string shared_;    // its #include lines
  TranslationUnit tu_;
  bool checked_ = false;
  bool unfit_ = false;
};

// Whether `text` uses what a unit would change: __BASE_FILE__, __TIMESTAMP__.
bool needs_own_unit(const std::string& text);

} // namespace opscan::scan
