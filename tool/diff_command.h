// `opscan diff OLD NEW`: the classified changes between two sets of
// kernel libraries (audit/diff.h), judged against an allow-list.
#pragma once

#include "driver/driver.h"

#include <string>

namespace opscan::tool {

struct DiffArgs {
  std::string old_path; // an IR file, or a directory of generated libraries
  std::string new_path;
  std::string format = "text"; // text, json, markdown: the report's
  std::string allow_file;      // --allow; empty: none
  std::string today;           // --today YYYY-MM-DD; empty: the current UTC date
};

// Prints the report on stdout; ok when no breaking change is left that the
// allow-list does not allow and no entry has expired.
driver::Status run_diff(const DiffArgs& args);

} // namespace opscan::tool
