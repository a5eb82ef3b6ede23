// The functions of sources, located for the YAML import (locate_functions).
#include "scan/scan.h"

#include "scan/batch.h"
#include "scan/clang.h"
#include "scan/extract.h"
#include "scan/flags.h"
#include "scan/preamble_unit.h"
#include "support/files.h"

#include <atomic>

namespace opscan::scan {

LocateResult locate_functions(const Options& options) {
  LocateResult out;
  std::unique_ptr<CompilationDatabase> db;
  if (!ready_to_parse(options, db, out.diagnostics))
    return out;
  const std::vector<CompileCommand> commands = commands_for(options, db.get(), out.diagnostics);
  std::vector<std::optional<SourceSites>> sites(commands.size());
  std::vector<diag::Diagnostics> diagnostics(commands.size());
  std::vector<PchCandidate> candidates;
  for (const CompileCommand& command : commands)
    candidates.push_back({command.file, command.args});
  // As scan parses them: files that share leading #include lines in units,
  // and a file the unit reports anything about, or whose sites cannot be
  // mapped back, alone.
  std::atomic<size_t> in_unit{0};
  in_units(candidates, options.auto_pch, jobs_for(options, commands.size()),
           [&](Indexes& indexes, PreambleUnit* unit, size_t i) {
             const CompileCommand& command = commands[i];
             if (unit) {
               UnitPlacement at;
               const std::optional<std::string> text =
                   support::read_file(command.file, nullptr, kMaxSourceBytes);
               CXTranslationUnit tu =
                   text ? unit->parse(index_of(indexes.skip_pch, true), command.file, *text, at)
                        : nullptr;
               if (tu && clang_getNumDiagnostics(tu) == 0)
                 sites[i] = unit_sites_of(tu, at);
               if (sites[i]) {
                 ++in_unit;
                 return true;
               }
             }
             TranslationUnit tu =
                 parse(index_of(indexes.plain, false), command.file, command.args,
                       CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing,
                       diagnostics[i]);
             if (!tu)
               return false;
             diag::Diagnostics errors = clang_errors(tu.get());
             if (!errors.empty())
               diagnostics[i].insert(diagnostics[i].end(), errors.begin(), errors.end());
             else
               sites[i] = sites_of(tu.get(), command.file);
             return false;
           });
  out.files_in_units = in_unit;
  for (size_t i = 0; i < commands.size(); ++i) {
    out.diagnostics.insert(out.diagnostics.end(), diagnostics[i].begin(), diagnostics[i].end());
    if (sites[i])
      out.files.push_back(std::move(*sites[i]));
  }
  for (auto& d : out.diagnostics)
    d.location.file = display(d.location);
  diag::sort(out.diagnostics);
  return out;
}

} // namespace opscan::scan
