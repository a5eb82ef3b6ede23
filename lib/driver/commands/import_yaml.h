// `opscan import-yaml`: annotates, in place, the kernels an ExecuTorch
// functions.yaml names. On any error nothing is written.
#pragma once

#include "driver/session.h"

#include <string>
#include <vector>

namespace opscan::driver::import_yaml_command {

struct Args {
  std::string yaml_file;
  std::vector<std::string> files; // the kernel sources to annotate
  std::string build_dir;          // -p
  std::string flags_file;         // --flags-file
  bool dry_run = false;           // --dry-run: report, write nothing
  std::vector<std::string> clang_args;
};

Status run(const Args& args, Session& session);

} // namespace opscan::driver::import_yaml_command
