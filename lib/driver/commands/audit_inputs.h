// What `opscan diff` and `opscan report` share: reading the file an option
// names, and their IR inputs (files, or directories of generated
// libraries). Their --format is their report's, so their diagnostics are
// text, showing lines of their input files only.
#pragma once

#include "audit/inputs.h"
#include "driver/session.h"

#include <optional>
#include <string>
#include <vector>

namespace opscan::driver {

// The file an option names (`what`: "the allow-list"), whose lines
// diagnostics may show; nullopt after reporting why it cannot be read (an
// opscan-io failure in `status`).
std::optional<std::string> read_option_file(const std::string& path, const std::string& what,
                                            Session& session, Status& status);

// Reads the IR files `path` names (audit::ir_files_of), each validated,
// into `inputs`; reports what is wrong with them.
Status read_ir_inputs(const std::string& path, std::vector<audit::Input>& inputs,
                      Session& session);

} // namespace opscan::driver
