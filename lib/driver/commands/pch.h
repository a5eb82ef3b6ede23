// `opscan pch`: a precompiled header for faster scans, as a build step; with
// --shared, the automatic precompiled headers of kernel sources made into
// the scans' cache ahead of one scan per source, and the list of those made.
#pragma once

#include "driver/session.h"

#include <string>
#include <vector>

namespace opscan::driver::pch_command {

struct Args {
  std::vector<std::string> files; // the header (with shared: the sources)
  std::string output;             // -o: the header, or the list of those made
  bool shared = false;            // --shared
  std::string cache;              // --cache (with --shared)
  std::string flags_file;         // --flags-file
  std::string depfile;            // --depfile; empty: none
  std::string stamp;              // --stamp; empty: none
  std::vector<std::string> clang_args;
};

Status run(const Args& args, Session& session);

} // namespace opscan::driver::pch_command
