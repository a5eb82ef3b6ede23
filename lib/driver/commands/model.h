// `opscan check --model PROGRAM.pte LIB_IR...`: whether a build's kernel
// libraries serve every operator and kernel key an ExecuTorch program
// calls, and a table of what serves each.
#pragma once

#include "driver/driver.h"

#include <string>
#include <vector>

namespace opscan::driver {

struct ModelOutcome {
  diag::Diagnostics diagnostics;
  Status status = Status::ok;
  // What serves each call, one line per operator and key, for stdout
  // (empty when the inputs could not be read).
  std::string table;
};

// Reads the library IRs and the model, and checks one against the other.
ModelOutcome check_model_against(const std::string& model, const std::vector<std::string>& irs);

} // namespace opscan::driver
