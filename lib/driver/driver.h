// What opscan's commands do, as functions the command line (and the language
// server) call: reading and validating IR files, deciding what a generation
// makes of them (fragments merged into one library, or library IRs each
// generated as recorded), the checks between libraries, writing outputs,
// and the files of a build step (flags files, depfiles, stamps). Nothing
// here prints or exits.
#pragma once

#include "diag/diag.h"
#include "emit/generate.h"
#include "emit/registry.h"
#include "ir/ir.h"
#include "ir/json.h"
#include "kernel/signature.h"
#include "scan/scan.h"
#include "support/files.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opscan::driver {

// How a command ended; the command line maps these to its exit codes.
enum class Status {
  ok,
  errors,  // the input has errors (diagnostics say which)
  usage,   // the request itself is wrong
  failure, // an I/O or internal failure
};

// The worse of two statuses.
Status worst(Status a, Status b);

// The status diagnostics make: a failure when one is an I/O error
// (opscan-io, or an unreadable compilation database), errors when one is an
// error, else ok.
Status status_of(const diag::Diagnostics& diags);

// "opscan <version>", the version CMake gives the project.
std::string generator_name();
std::string version();

// One IR file, read and validated (read_irs).
struct IrFile : ir::File {
  // A library IR as read_irs regenerated it to validate it, and the options
  // it used: a generation with the same options takes it instead of
  // generating the library a second time.
  std::shared_ptr<const emit::Output> regenerated = {};
  emit::Options regenerated_with = {};
};

// Reads IR files for every command that reads them (generate, check, diff,
// report, check --model), so that each refuses a file alike. A file is
// valid when ir::validate finds nothing and generate would take it on its
// own, as it is: a library IR's record (as check_libraries reads it) and
// its regeneration as recorded (emit::generate, with the target's checks;
// kept in the IrFile); scan output's annotation fields as a scan checks them
// (ir::check_fields), the rest depending on the target and library a generation
// gives it. Only a file's errors are reported.
struct ReadIrs {
  std::vector<IrFile> files; // those that could be read and are valid
  diag::Diagnostics diagnostics;
  Status status = Status::ok;
};
ReadIrs read_irs(const std::vector<std::string>& paths,
                 const emit::TargetRegistry& targets = emit::builtin_targets());

// What to generate, as `generate`, `check` and `run` are asked.
struct Request {
  emit::Options options;                             // registration, library, templates...
  bool target_given = false;                         // --target
  bool registration_given = false;                   // --registration
  std::optional<std::vector<std::string>> operators; // --operators
  // --operators-from (driver/model.h, read_operator_selection); with
  // --operators, the operators of both are kept (an operator --operators
  // names keeps every kernel).
  std::optional<ir::OperatorSelection> operators_from;
};

// The libraries a generation makes, rendered, in input order.
struct Plan {
  std::vector<emit::Output> libraries; // empty unless status is ok
  diag::Diagnostics diagnostics;
  Status status = Status::ok;
};

// What `generate` (and `check`, which writes nothing) make of IR files:
//  - only library IRs and no --lib: each library again, with the name,
//    registration mode and target its record gives (--registration, if
//    given, for every one), after checking that they can live in one
//    program (check_libraries);
//  - fragments, or --lib: everything merged into one library (--operators
//    selects from it; --registration is required).
// Anything else is a usage error. Every input passed ir::validate, and each
// library passes emit::generate's checks: `check` succeeds exactly when
// `generate` would.
Plan plan(std::vector<IrFile> inputs, const Request& request, const emit::TargetRegistry& targets);

// What `run` makes of a scan: one library (--operators selects from it).
Plan plan_scanned(ir::Module scanned, const Request& request, const emit::TargetRegistry& targets);

// What check_libraries finds, for the command line (generate and check
// report `diagnostics`) and the language server (which checks an open
// file's kernels against `claims` and converts what it finds to LSP
// diagnostics).
struct LibraryCheck {
  // A claim a library's kernel makes in its runtime (emit::Target::claims).
  struct Claim {
    size_t library; // index into check_libraries' inputs
    size_t kernel;  // index into that input's module.kernels
    std::string description;
  };
  // Every claim of the libraries whose records are valid, by runtime
  // (emit::Target::runtime) and key, in input and kernel order.
  std::map<std::pair<std::string, std::string>, std::vector<Claim>> claims;
  // Claims two libraries of one runtime make: for each, the first library
  // to make it and the first other library (once per claim).
  struct Overlap {
    const emit::Target* target;
    Claim first;
    Claim later;
  };
  std::vector<Overlap> overlaps;
  // The errors below, overlaps included, in input order.
  diag::Diagnostics diagnostics;
};

// Whether libraries (each as its record describes it) can live in one
// program, registered with their runtimes. Errors:
//   opscan-duplicate-library       two libraries with the same name
//   opscan-duplicate-registration  two libraries defining one registration
//                                  function (e.g. two in manual mode)
//   opscan-library-overlap         a kernel two libraries of one target
//                                  register under one identity (once per
//                                  identity, at the later library's kernel,
//                                  with a note at the earlier one)
//   opscan-ir-not-library          an input without a library record
//   opscan-ir-library              a record that names an unknown target or
//                                  a mode it lacks, or symbols other than
//                                  the target gives its name and mode
LibraryCheck check_libraries(const std::vector<IrFile>& libraries,
                             const emit::TargetRegistry& targets);

// What `generate --list-outputs` prints: for each library a generation of
// `inputs` (which may be none, when --lib names the library) would make, its
// files and symbols, without generating anything.
struct Listing {
  std::vector<emit::OutputList> libraries;
  diag::Diagnostics diagnostics;
  Status status = Status::ok;
};
Listing list_outputs(const std::vector<IrFile>& inputs, const Request& request,
                     const emit::TargetRegistry& targets);

// A file a command reads or writes, and what it is to the command, for
// messages: {"-o", "gen/l/ir.json"}, {"the IR file", "k.ir.json"}.
struct RoleFile {
  std::string role;
  std::string path;
};

// What a command that writes did.
struct Outcome {
  diag::Diagnostics diagnostics;
  Status status = Status::ok;
};

// Refuses outputs that would destroy an input or each other, before
// anything is written (usage errors):
//   opscan-output-is-input  an output that is one of the inputs (the same
//                           file: hard and symbolic links are seen through)
//   opscan-output-twice     two outputs that name one file
Outcome check_outputs(const std::vector<RoleFile>& outputs, const std::vector<RoleFile>& inputs);

// Refuses, before anything reads them, inputs that are not regular files
// of at most support::kMaxInputBytes (a FIFO would block, a device never
// end): opscan-io errors, a failure.
Outcome check_inputs(const std::vector<RoleFile>& inputs);

// Every regular file under `dir` (an input directory, e.g. --templates),
// as inputs with `role`.
std::vector<RoleFile> files_under(const std::string& dir, const std::string& role);

// A file written in the same all-or-nothing write as a command's outputs
// (its --export-fixes file): if it cannot be written, neither are they.
// The caller checks it against the command's inputs and outputs first
// (check_fixes_file).
struct Companion {
  std::string role; // for messages: "--export-fixes"
  support::FileWrite file;
};

struct Written {
  emit::WriteReport report;
  Status status = Status::ok;
};
// Writes every library of a plan under `out_dir` (and `companion`, if any),
// all or nothing, after check_outputs against `inputs`; then touches
// `stamp` (if not empty).
Written write_libraries(const std::vector<emit::Output>& libraries, const std::string& out_dir,
                        const std::vector<RoleFile>& inputs, const std::string& stamp = {},
                        const std::optional<Companion>& companion = {});

// The compiler arguments of scan and pch: the lines of `flags_file` (if not
// empty), each one argument as written (no quoting; empty lines skipped),
// then `extra`; each @FILE among them replaced by the arguments of that
// response file (scan::expand_response_files, relative to the working
// directory). Nullopt, with an error, when a file cannot be read.
// `response_files`, when given, gets the response files read: inputs of
// the step, as the flags file is.
std::optional<std::vector<std::string>> compiler_args(const std::string& flags_file,
                                                      const std::vector<std::string>& extra,
                                                      diag::Diagnostics& diags,
                                                      std::vector<std::string>* response_files = nullptr);

// The files of a build step (scan, pch): its output, and optionally its
// depfile (Make syntax: the stamp, or else the output, depends on every
// input) and its stamp, touched last even when nothing changed.
struct StepFiles {
  std::string output; // -o
  std::string content;
  std::string depfile; // --depfile; empty: none
  std::string stamp;   // --stamp; empty: none
};

// Writes a step's output and depfile (and `companion`) all or nothing, then
// touches its stamp; after check_outputs against `inputs` (every file the
// step read) and `option_inputs` (files named by options: flags,
// schemas...), which the depfile lists too. A path the depfile cannot hold (a line break) is
// an error (opscan-depfile-path) and nothing is written.
Outcome write_step(const StepFiles& files, const std::vector<std::string>& inputs,
                   const std::vector<RoleFile>& option_inputs,
                   const std::optional<Companion>& companion = {});

// Touches `stamp` (the end of `check`), unless it is one of `inputs`.
Outcome touch_stamp(const std::string& stamp, const std::vector<RoleFile>& inputs);

// Writes `files` (outputs of `role`, and `companion`) all or nothing, after
// check_outputs against `inputs`: what import-yaml does with the sources it
// edits.
Outcome write_files(const std::vector<support::FileWrite>& files, const std::string& role,
                    const std::vector<RoleFile>& inputs,
                    const std::optional<Companion>& companion = {});

} // namespace opscan::driver
