// Private to scan's argument handling (flags.cpp, named_files.cpp).
#pragma once

#include <string>

namespace opscan::scan {

// -Xclang and -Xpreprocessor: the next argument is the frontend's.
inline bool is_wrapper(const std::string& arg) {
  return arg == "-Xclang" || arg == "-Xpreprocessor";
}

} // namespace opscan::scan
