// A model (an ExecuTorch program, .pte) against a build's kernel libraries:
// what `opscan check --model` reports, and the selection `--operators-from`
// makes from a model or from a selected_operators.yaml. The program format
// is lib/pte's business; this file joins it with the libraries' IRs.
#pragma once

#include "driver/driver.h"
#include "executorch/program.h"
#include "ir/ir.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opscan::driver {

// A model read from its file: only the program part is read (up to
// support::kMaxInputBytes), so the data segments of a large model cost
// nothing. Refusals: opscan-io (missing, not a regular file, too large;
// a failure), lib/pte's opscan-pte-* codes (errors).
struct ReadModel {
  std::optional<executorch::Program> program;
  diag::Diagnostics diagnostics;
  Status status = Status::ok;
};
ReadModel read_model(const std::string& path);

// What --operators-from FILE selects: FILE is a model (the identifier "ET12"
// at bytes 4..8) whose calls give the operators and kernel keys, or else a
// selected_operators.yaml (lib/yaml/selected_operators.h), whose kernel keys
// are checked (opscan-kernel-key, at the key). The runtime's prim ops
// (executorch::is_prim_op) are not the libraries' to serve: they are
// selected apart, in `prim_ops`.
struct ReadSelection {
  std::optional<ir::OperatorSelection> selection;
  std::vector<std::string> prim_ops; // sorted, once each
  diag::Diagnostics diagnostics;
  Status status = Status::ok;
};
ReadSelection read_operator_selection(const std::string& path);

// One needed operator and kernel key, and the kernel that serves it.
struct ModelRow {
  std::string op;
  std::string key;     // "" for calls without tensors
  std::string library; // "" when nothing serves it; kPrimOps for a prim op
  const ir::Kernel* kernel = nullptr;
  bool fallback = false;  // served by a kernel without key
  bool dim_order = false; // not served, and only the dim orders keep the closest key from it
};

// The library a prim op's row names: the runtime's own.
inline constexpr const char* kPrimOps = "(prim ops)";

// Whether the libraries serve every call of the program (a prim op is the
// runtime's: served, and named so). Errors (at the
// model's path):
//   opscan-model-missing-operator    an operator no library implements
//   opscan-model-missing-kernel-key  a key neither a kernel with it nor a
//                                    fallback of the operator serves
//   opscan-model-dim-order           such a key, whose closest key differs
//                                    only in dim orders: names the arguments,
//                                    their dim orders and that key
//   opscan-model-served-twice        a kernel (operator and key) of a called
//                                    operator that two libraries register
// Notes: opscan-model-delegate (the program runs delegates: their backends
// must be linked); opscan-model-dim-order-fallback (a fallback kernel serves
// a key with tensors not in the default dim order: whether it handles them
// is known only when it runs, as ExecuTorch's portable kernels check dim
// orders at run time); a warning, opscan-model-library-target, for a library
// of another target than executorch (its kernels are not counted).
struct ModelCheck {
  std::vector<ModelRow> rows; // by operator, then key (a key served twice has two rows)
  std::set<std::string> missing_operators; // those no library implements
  diag::Diagnostics diagnostics;
  size_t libraries = 0; // those whose kernels count (the others are warned of)
};
ModelCheck check_model(const executorch::Program& program, const std::string& path,
                       const std::vector<IrFile>& libraries);

} // namespace opscan::driver
