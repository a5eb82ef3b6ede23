// Code generation: IR -> registration code for one kernel library, from
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

enum class Target { executorch };
enum class Registration { static_init, manual, named };

std::optional<Target> parse_target(std::string_view name);
std::optional<Registration> parse_registration(std::string_view name);

struct Options {
  Target target = Target::executorch;
  Registration registration = Registration::named;
  std::optional<std::string> library;       // --lib; unset: the unnamed default library
  std::optional<std::string> templates_dir; // overrides the built-in templates
  std::string generator = "opscan";         // "opscan <version>", for the header line
};

struct OutputFile {
  std::string path; // relative to the output directory: "<lib>/RegisterKernels.h"
  std::string content;
};

struct Output {
  std::string library_dir;           // "<lib>", or "all" for the unnamed library
  std::string registration_function; // fully qualified; empty in static mode
  std::vector<OutputFile> files;
  diag::Diagnostics diagnostics; // nothing should be written when it has errors
};

Output generate(const ir::Module& module, const Options& options);

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
