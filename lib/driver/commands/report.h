// `opscan report IR...`: what kernel libraries provide, and their coverage
// of a list of operators (audit/report.h).
#pragma once

#include "driver/session.h"

#include <string>
#include <vector>

namespace opscan::driver::report_command {

struct Args {
  std::vector<std::string> inputs; // IR files or directories of generated libraries
  std::string against;             // --against LIST; empty: no coverage
  std::string format = "markdown"; // markdown, json
  std::string output;              // -o FILE; empty: stdout
  bool fail_on_missing = false;    // --fail-on-missing
};

// Puts (or writes) the report; ok unless the inputs are wrong, or, with
// --fail-on-missing, an operator of the list is missing.
Status run(const Args& args, Session& session);

} // namespace opscan::driver::report_command
