// Generating one kernel library for a target: the checks every generation
// passes through (target, registration mode, library name, annotation
// fields, kernel identities, each kernel), then the target's files and the
// library IR. Everything is rendered in memory; write_outputs() writes.
#pragma once

#include "diag/diag.h"
#include "emit/registry.h"
#include "emit/target.h"
#include "ir/ir.h"
#include "ir/validate.h"

#include <filesystem>
#include <string>
#include <vector>

namespace opscan::emit {

struct Output {
  LibrarySpec library;
  Symbols symbols;
  std::vector<OutputFile> files; // the target's, then "<lib>/ir.json"; empty on errors
  ir::Module module;             // the library IR, as "<lib>/ir.json" holds it
  diag::Diagnostics diagnostics;
};

// Generates one library from `module` (validated by ir::validate; its
// `library` record, if any, is replaced by this generation's). Kernels take
// the target's defaults (or options.field_defaults) for the annotation
// fields they leave unset; the library IR records the values used.
// Problems with kernels are located by `locator`. Errors:
//   opscan-unknown-target, opscan-unsupported-registration,
//   opscan-unsupported-field   the target does not read a field a kernel
//                              (or a default) sets
//   a field's code (opscan-kernel-key, ...)   its value is not one the
//                              runtime understands
//   opscan-duplicate-kernel    two kernels of one identity (the target's)
//   opscan-no-kernels, opscan-libname-*, opscan-ident-*, and the target's own.
Output generate(ir::Module module, const Options& options, const TargetRegistry& targets,
                const ir::Locator& locator);

// What a generation with `options` would write and define, without any
// input: the same checks of the target, mode and library name, then the
// target's generation of no kernels through a sink that lists (files
// without content; no template is read).
struct OutputList {
  LibrarySpec library;
  Symbols symbols;
  std::vector<OutputFile> files;
  diag::Diagnostics diagnostics;
};
OutputList list_outputs(const Options& options, const TargetRegistry& targets);

// A kernel as `target` tells kernels apart: its operator and the fields the
// target reads that are set ("aten::add.out (kernel key 'v1/6;0')").
std::string describe(const Target& target, const ir::Kernel& kernel);

struct WriteReport {
  std::vector<std::string> written;
  std::vector<std::string> unchanged;
  diag::Diagnostics diagnostics;
};

// Writes every file under `out_dir` whose content differs from what is
// there, all or nothing (support::write_files): on an error, no file under
// `out_dir` has changed. A symbolic link planted below `out_dir` (in place
// of a library's directory, say) is refused: nothing outside it is written.
WriteReport write_outputs(const std::filesystem::path& out_dir,
                          const std::vector<OutputFile>& files);

} // namespace opscan::emit
