// `opscan lsp`: the language server on stdin and stdout.
#pragma once

#include <optional>
#include <string>

namespace opscan::tool {

struct LspArgs {
  std::optional<std::string> compilation_database_dir; // --compile-commands-dir
  unsigned debounce_ms = 25;
  double analysis_timeout = 30; // --analysis-timeout, seconds
  bool worker = false;          // --worker: the server's analysis process (hidden)
};

// Serves until `exit`; the process's exit code (0 after shutdown).
int run_lsp(const LspArgs& args);

} // namespace opscan::tool
