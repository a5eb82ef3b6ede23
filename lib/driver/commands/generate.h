// `opscan generate`: registration code from IR files (scan output merged
// into one library, or library IRs each generated as recorded); with
// --list-outputs, the files and symbols it would write.
#pragma once

#include "driver/commands/generation.h"

namespace opscan::driver::generate_command {

struct Args {
  std::vector<std::string> ir_files;
  GenerateArgs generate;
  bool list_outputs = false; // --list-outputs
  std::string stamp;         // --stamp; empty: none
};

Status run(const Args& args, Session& session);

} // namespace opscan::driver::generate_command
