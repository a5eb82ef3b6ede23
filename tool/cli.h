// The command line: every command's options bound to its Args
// (lib/driver/commands), with their help texts.
#pragma once

#include "driver/commands/check.h"
#include "driver/commands/diff.h"
#include "driver/commands/generate.h"
#include "driver/commands/import_yaml.h"
#include "driver/commands/pch.h"
#include "driver/commands/report.h"
#include "driver/commands/run.h"
#include "driver/commands/scan.h"
#include "lsp_command.h"

#include <CLI/CLI.hpp>

namespace opscan::tool {

// Every command's arguments, bound to the command line.
struct Commands {
  std::string format = "text"; // --format of the commands whose diagnostics it sets
  driver::ReportOptions report;
  unsigned parse_timeout = 300; // --parse-timeout, seconds; 0: no limit
  driver::scan_command::Args scan;
  driver::pch_command::Args pch;
  driver::generate_command::Args generate;
  driver::check_command::Args check;
  driver::run_command::Args run;
  driver::import_yaml_command::Args import_yaml;
  driver::diff_command::Args diff;
  driver::report_command::Args report_args;
  tool::LspArgs lsp;
};

// Adds every command to `app`, bound to `c`; the lsp command, which the
// tool runs apart (it speaks LSP on stdout).
CLI::App* bind_commands(CLI::App& app, Commands& c);

} // namespace opscan::tool
