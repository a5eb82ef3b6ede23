// The worker's most recently used translation units.
#include "lsp/units.h"

namespace opscan::lsp {
namespace {

constexpr size_t kMaxUnits = 8;

} // namespace

// The unit for `command`: one per main file and kind of walk, so a unit
// parsed with other arguments (a compile_commands.json since changed) is
// dropped when its replacement is made.
scan::LiveUnit& UnitCache::unit_for(const FileCommand& command, const std::string& path) {
  const bool main_file_only = command.main_file == path;
  const std::string file_key = (main_file_only ? "main\n" : "all\n") + command.main_file;
  std::string key = file_key + '\n' + command.directory;
  for (const std::string& a : command.args)
    key += '\n' + a;
  for (auto it = units_.begin(); it != units_.end(); ++it) {
    if (it->first == key) {
      units_.splice(units_.begin(), units_, it);
      return *units_.front().second;
    }
  }
  units_.remove_if([&](const auto& entry) {
    return entry.first == file_key || entry.first.starts_with(file_key + "\n");
  });
  units_.emplace_front(key, std::make_unique<scan::LiveUnit>(command.main_file, command.args,
                                                             main_file_only, command.directory));
  if (units_.size() > kMaxUnits)
    units_.pop_back();
  return *units_.front().second;
}

scan::LiveAnalysis UnitCache::analyze(const FileCommand& command,
                                      const std::vector<scan::Buffer>& buffers,
                                      const std::string& path, const kernel::KnownSchemas* known,
                                      const ir::Fields& fields) {
  scan::LiveUnit& unit = unit_for(command, path);
  try {
    return unit.analyze(buffers, known, fields, path);
  } catch (const std::exception& e) {
    // One file's failure is that file's diagnostic; the worker goes on.
    units_.remove_if([&](const auto& entry) { return entry.second.get() == &unit; });
    scan::LiveAnalysis failed;
    failed.diagnostics.push_back(diag::make_error("opscan-internal", {path, 1, 1, 0},
                                                  std::string("the analysis failed: ") + e.what()));
    return failed;
  }
}

} // namespace opscan::lsp
