// Response files (@FILE arguments), read as any other input.
#pragma once

#include "diag/diag.h"

#include <optional>
#include <string>
#include <vector>

namespace opscan::scan {

// `args` with each @FILE argument replaced by the arguments in FILE, split
// with GNU quoting as clang reads them; FILE relative to `directory`, and a
// response file named inside another relative to that one's directory (as
// libclang reads a compilation database's). Each is read as any input: a
// regular file of at most 1 MiB, nested at most 8 deep, 16 MiB in all.
// Nullopt, with an opscan-io error naming the file and why, when one
// cannot be read. `read`, when given, gets each file read, once (a build
// step depends on them).
std::optional<std::vector<std::string>> expand_response_files(const std::vector<std::string>& args,
                                                              const std::string& directory,
                                                              diag::Diagnostics& diags,
                                                              std::vector<std::string>* read = nullptr);

} // namespace opscan::scan
