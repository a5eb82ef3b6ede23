// The worker's parsed translation units (scan::LiveUnit), kept between
// analyses so that libclang re-parses an edited file against its warm
// preamble. Each holds a preamble (tens of MB): only the most recently
// used are kept.
#pragma once

#include "kernel/known_schemas.h"
#include "kernel/signature.h"
#include "lsp/workspace.h"
#include "scan/live.h"

#include <list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace opscan::lsp {

class UnitCache {
public:
  // The analysis of `path` through `command`'s unit (made, or re-parsed
  // with `buffers` standing for their files). A unit that throws is
  // dropped, and the failure is the file's opscan-internal diagnostic.
  scan::LiveAnalysis analyze(const FileCommand& command, const std::vector<scan::Buffer>& buffers,
                             const std::string& path, const kernel::KnownSchemas* known,
                             const ir::Fields& fields);

private:
  scan::LiveUnit& unit_for(const FileCommand& command, const std::string& path);
  std::list<std::pair<std::string, std::unique_ptr<scan::LiveUnit>>> units_; // most recent first
};

} // namespace opscan::lsp
