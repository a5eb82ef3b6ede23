// What the commands that parse sources share (scan, run, pch, import-yaml):
// their arguments, the check of the sources before libclang opens them, and
// the scan itself with its inputs recorded in the session's ledger.
#pragma once

#include "driver/session.h"
#include "ir/ir.h"
#include "scan/scan.h"

#include <functional>
#include <string>
#include <vector>

namespace opscan::driver {

struct ScanArgs {
  std::vector<std::string> files;
  std::string build_dir;    // -p: holds compile_commands.json
  std::vector<std::string> schemas_files; // --schemas, each
  std::string cache_dir;    // --cache
  std::string flags_file;   // --flags-file
  unsigned jobs = 0;        // -j; 0: one per core
  bool no_auto_pch = false;
  std::vector<std::string> clang_args; // after --
  // Called as each file is scanned (the tool shows it on a terminal).
  std::function<void(size_t done, size_t total, const std::string& file)> progress = {};
};

// Refuses sources libclang could block or choke on (FIFOs, devices, huge
// files) before it opens them.
Status check_sources(const std::vector<std::string>& files, Session& session);

// The scan::Options of `args` (their compiler arguments read), or nullopt
// after reporting why they cannot be read.
std::optional<scan::Options> scan_options(const std::vector<std::string>& files,
                                          const std::string& build_dir,
                                          const std::string& flags_file,
                                          const std::vector<std::string>& clang_args,
                                          Session& session);

// Scans `args`'s files into `module`; every file the scan read goes to
// `inputs` and to the session's inputs.
Status scan_into(const ScanArgs& args, Session& session, ir::Module& module,
                 std::vector<std::string>& inputs);

// The files a scan's options name (besides the sources and headers it
// reads): what no output may replace.
std::vector<RoleFile> option_inputs(const ScanArgs& args, const Session& session);

// Records a scan's sources and option files as the session's inputs.
void add_scan_inputs(const ScanArgs& args, Session& session);

// Records a build step's outputs: -o, and --depfile and --stamp if given.
void add_step_outputs(const std::string& output, const std::string& depfile,
                      const std::string& stamp, Session& session);

// The end of a build step (scan, pch): the files it read recorded as
// inputs (`role`), its diagnostics reported, then, without errors, its
// output and depfile written with the fixes file and its stamp touched.
Status write_build_step(StepFiles files, const std::vector<std::string>& read,
                        const std::string& role, const diag::Diagnostics& diags,
                        const std::vector<RoleFile>& option_inputs, Session& session);

// What every command does before it reads anything: the outputs and the
// fixes file known now, checked against the inputs known now.
Status check_ledger(Session& session);

} // namespace opscan::driver
