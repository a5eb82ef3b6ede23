// `opscan run`: scan kernel sources and generate their library in one step.
#pragma once

#include "driver/commands/generation.h"
#include "driver/commands/scanning.h"

namespace opscan::driver::run_command {

struct Args {
  ScanArgs scan;
  GenerateArgs generate; // its out_dir is required
};

Status run(const Args& args, Session& session);

} // namespace opscan::driver::run_command
