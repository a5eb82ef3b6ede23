// What the commands that generate share (generate, check, run): their
// arguments, the request they make of them, reading IR inputs, and writing
// a plan's libraries with a summary of each.
#pragma once

#include "driver/driver.h"
#include "driver/session.h"

#include <optional>
#include <string>
#include <vector>

namespace opscan::driver {

struct GenerateArgs {
  std::string target = emit::kDefaultTarget; // --target
  bool target_given = false;
  std::optional<std::string> dispatch_key; // --dispatch-key
  std::string registration;                // --registration; empty: not given
  std::optional<std::string> lib;          // --lib
  std::string templates_dir;               // --templates
  std::string out_dir;                     // -o
  std::optional<std::vector<std::string>> operators; // --operators: set when given
  std::string operators_from;                        // --operators-from
  bool no_profiling = false;
  bool exception_boundary = false; // --exception-boundary
  std::optional<std::string> torch_target_version; // --torch-target-version
  bool use_aten_lib = false;                       // --use-aten-lib
};

// What generate and check do first: their inputs (the IR files, those of
// `args`, and `more`) and --stamp in the ledger, checked; then the choices.
Status start_generation(const std::vector<std::string>& ir_files, const GenerateArgs& args,
                        const std::string& stamp, Session& session,
                        const std::vector<RoleFile>& more = {});

// The target and mode asked for, judged before any work: unknown ones are
// usage errors, with the choices.
Status check_choices(const GenerateArgs& args, Session& session);

// The request `args` make (check_choices passed).
Request request_of(const GenerateArgs& args);
// Reads --operators-from, if given, into `request`.
Status read_operators_from(const GenerateArgs& args, Request& request, Session& session);

// Every file a generation reads besides its IR files' own: --operators-from
// and the templates; with `ir_files`, those too.
std::vector<RoleFile> generation_inputs(const std::vector<std::string>& ir_files,
                                        const GenerateArgs& args);

// Reads IR files into `files`; diagnostics show lines of these files only.
Status read_inputs(const std::vector<std::string>& paths, Session& session,
                   std::vector<IrFile>& files);

// Writes every library of a successful plan, all or nothing (with the
// fixes file), then the stamp; says what each library holds.
Status write_plan(const Plan& plan, const std::string& out_dir,
                  const std::vector<RoleFile>& inputs, Session& session,
                  const std::string& stamp = {});

} // namespace opscan::driver
