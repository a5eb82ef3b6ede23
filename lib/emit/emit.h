// Code generation: IR -> registration code for kernel libraries, from
// templates. Everything is rendered in memory; write_outputs() then writes
// each file atomically and only when it changed.
#pragma once

#include "diag/diag.h"
#include "ir/ir.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opscan::emit {

enum class Target { executorch, torch };
enum class Registration { static_init, manual, named };

std::optional<Target> parse_target(std::string_view name);
std::optional<Registration> parse_registration(std::string_view name);
const char* to_string(Registration registration); // "static", "manual", "named"
const char* to_string(Target target);             // "executorch", "torch"

struct Options {
  Target target = Target::executorch;
  Registration registration = Registration::named;
  std::optional<std::string> library;       // --lib; unset: the unnamed default library
  std::optional<std::string> templates_dir; // overrides the built-in templates
  std::string generator = "opscan";         // "opscan <version>", for the header line
  std::string dispatch_key = "CPU";         // torch: for kernels whose annotation names none
};

struct OutputFile {
  std::string path; // relative to the output directory: "<lib>/RegisterKernels.h"
  std::string content;
};

struct Output {
  std::string library_dir;           // "<lib>", or "all" for the unnamed library
  std::string registration_function; // fully qualified; empty in static mode
  // Static mode only (else empty): "opscan_static_registration_<lib>", an
  // extern "C" symbol RegisterKernels.cpp defines. Nothing references a
  // statically registered library, so a link from a static archive needs
  // -Wl,--undefined=<link_anchor> to keep it.
  std::string link_anchor;
  std::vector<OutputFile> files;
  diag::Diagnostics diagnostics; // nothing should be written when it has errors
};

// Generates one library from `module` (its `library` record, if any, is
// replaced by the one of this generation). Files, under "<lib>/":
// RegisterKernels.h, RegisterKernels.cpp, NativeFunctions.h, Functions.h,
// selected_operators.yaml, ir.json (a library IR).
Output generate(const ir::Module& module, const Options& options);

// A library IR (an ir.json written by generate()) and where it was read from.
struct LibraryIr {
  std::string path;
  ir::Module module; // module.library is set
};

// Whether libraries can live in one program, registered with their
// runtimes (an ExecuTorch and a torch library may register one operator:
// the runtimes are separate). Errors:
//   opscan-duplicate-library       two libraries with the same name
//   opscan-duplicate-registration  two libraries with the same registration
//                                  function (e.g. two in manual mode)
//   opscan-library-overlap         an operator and kernel key registered by
//                                  two libraries of one target (one error
//                                  per operator, at the kernel of the later
//                                  library, with a note at the earlier one)
//   opscan-ir-not-library          an input without a library record
//   opscan-ir-invalid              a record naming an unknown registration
//                                  mode or target
diag::Diagnostics check_libraries(const std::vector<LibraryIr>& libraries);

struct Generation {
  std::vector<Output> libraries; // in input order; empty when there are errors
  diag::Diagnostics diagnostics;
};

// Generates several libraries in one run, each into its own directory with
// the name, registration mode and target its IR records (options.library,
// options.registration and options.target are not used), after
// check_libraries(). Any error, there or in a library's own generation,
// leaves no output.
Generation generate_libraries(const std::vector<LibraryIr>& libraries, const Options& options);

struct WriteReport {
  std::vector<std::string> written;
  std::vector<std::string> unchanged;
  diag::Diagnostics diagnostics;
};

// Writes every file under `out_dir`, each atomically and only if its content
// differs from what is there.
WriteReport write_outputs(const std::filesystem::path& out_dir,
                          const std::vector<OutputFile>& files);

} // namespace opscan::emit
