// Depfiles: the Makefile-syntax dependency lists that Ninja and Make read to
// learn which files a build step read (DEPFILE in CMake's add_custom_command).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opscan::support {

// "target: prerequisite \\\n  prerequisite\n", each path escaped the way both
// Make and Ninja unescape it (space, '#', '$', and a backslash before them).
// Nullopt when a path cannot be written in that syntax (it holds a line
// break); `unwritable` then names it.
std::optional<std::string> make_depfile(const std::string& target,
                                        const std::vector<std::string>& prerequisites,
                                        std::string* unwritable = nullptr);

} // namespace opscan::support
