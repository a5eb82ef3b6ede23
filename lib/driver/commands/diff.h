// `opscan diff OLD NEW`: the classified changes between two sets of kernel
// libraries (audit/diff.h), judged against an allow-list.
#pragma once

#include "driver/session.h"

#include <string>

namespace opscan::driver::diff_command {

struct Args {
  std::string old_path; // an IR file, or a directory of generated libraries
  std::string new_path;
  std::string format = "text"; // text, json, markdown: the report's
  std::string allow_file;      // --allow; empty: none
  std::string today;           // --today YYYY-MM-DD; empty: the current UTC date
};

// Puts the report on stdout; ok when no breaking change is left that the
// allow-list does not allow and no entry has expired.
Status run(const Args& args, Session& session);

} // namespace opscan::driver::diff_command
