// The language server's options in tests: its analyses run in the opscan
// binary of this build (`opscan lsp --worker`), as in the real server.
#pragma once

#include "lsp/server.h"

namespace opscan::lsp::testing {

inline ServerOptions server_options() {
  ServerOptions options;
  options.worker = {OPSCAN_BINARY, {"opscan", "lsp", "--worker"}};
  return options;
}

} // namespace opscan::lsp::testing
