// `opscan scan`: kernel sources into an IR file, as a build step (with a
// depfile of every file the scan read, and a stamp).
#pragma once

#include "driver/commands/scanning.h"

namespace opscan::driver::scan_command {

struct Args {
  ScanArgs scan;
  std::string output;  // -o: the IR file
  std::string depfile; // --depfile; empty: none
  std::string stamp;   // --stamp; empty: none
};

Status run(const Args& args, Session& session);

} // namespace opscan::driver::scan_command
