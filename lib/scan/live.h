// A translation unit an editor keeps open: parsed once with libclang's
// precompiled preamble, then re-parsed from memory after each edit, so an
// edit below the #include lines costs the file's own declarations only.
#pragma once

#include "diag/diag.h"
#include "ir/ir.h"
#include "kernel/known_schemas.h"
#include "kernel/signature.h"
#include "scan/scan.h"

#include <memory>
#include <string>
#include <vector>

namespace opscan::scan {

// A file's text as the editor has it, standing for the file on disk.
struct Buffer {
  std::string path; // absolute
  std::string text;
};

struct LiveAnalysis {
  ir::Module fragment; // the unit's kernels
  // Every finding, as a scan of the file would report them (libclang's
  // errors, the annotations' and signatures' problems, the IR's rules);
  // paths absolute, as libclang opened them.
  diag::Diagnostics diagnostics;
  // Functions of the file asked about that would be kernels if annotated.
  std::vector<KernelSuggestion> suggestions;
  std::vector<std::string> files; // every file the unit read, the main file first
  bool reparsed = false;          // the preamble of an earlier parse was reused
};

class LiveUnit {
public:
  // `args`: the compile command's arguments (without the compiler and the
  // file), filtered as a scan filters them. With `main_file_only`, only the
  // main file's declarations are walked, not those of the headers its
  // preamble holds (which libclang would read back from the preamble on
  // every walk: half the cost of an edit); a unit parsed for a header it
  // includes needs them all. `directory`: a database entry's (see
  // parse_arguments).
  LiveUnit(std::string main_file, std::vector<std::string> args, bool main_file_only,
           const std::string& directory = {});
  ~LiveUnit();
  LiveUnit(const LiveUnit&) = delete;
  LiveUnit& operator=(const LiveUnit&) = delete;

  const std::string& main_file() const { return main_file_; }
  const std::vector<std::string>& args() const { return args_; }

  // Parses (the first time, or after a failure) or re-parses with `buffers`
  // in place of their files, and extracts the kernels; suggestions are for
  // `suggest_in` (the main file, or a header it includes).
  LiveAnalysis analyze(const std::vector<Buffer>& buffers, const kernel::KnownSchemas* known,
                       const ir::Fields& fields, const std::string& suggest_in);

private:
  struct State;
  std::string main_file_;
  bool main_file_only_;
  std::vector<std::string> args_;
  std::unique_ptr<State> state_;
};

} // namespace opscan::scan
