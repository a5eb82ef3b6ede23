// `opscan check`: everything generate checks (and generates in memory),
// writing nothing but a stamp: library IRs can be linked into one program,
// fragments (with --lib) make a library; with --model, whether the
// libraries serve every operator and kernel key an ExecuTorch program calls.
#pragma once

#include "driver/commands/generation.h"

namespace opscan::driver::check_command {

struct Args {
  std::vector<std::string> ir_files;
  GenerateArgs generate;
  std::string stamp; // --stamp; empty: none
  std::string model; // --model PROGRAM.pte; empty: none
};

Status run(const Args& args, Session& session);

} // namespace opscan::driver::check_command
