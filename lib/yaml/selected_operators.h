// Reading ExecuTorch's selective-build file, selected_operators.yaml (what
// opscan writes beside each library, and what ExecuTorch's tools make from
// a model): the operators to build and, per operator, the kernel keys.
//
//   operators:
//     aten::add.out: {is_root_operator: true, include_all_overloads: false, ...}
//   include_all_operators: false
//   et_kernel_metadata:
//     aten::add.out: [default, "v1/6;0,1|6;0,1"]   # default: the fallback kernel
//
// Other keys (custom_classes, build_features, kernel_metadata, ...) are not
// read. An operator with no et_kernel_metadata entry needs every kernel; one
// that only et_kernel_metadata names is selected too.
//
// Diagnostic codes (errors; reading stops at the first):
//   opscan-yaml-syntax          not well-formed YAML
//   opscan-selected-operators   well-formed YAML that is not in this format:
//                               the top level, operators or et_kernel_metadata
//                               not a mapping, a kernel key list not a list of
//                               strings, an operator name not a string, a flag
//                               not true or false, a file too large to read
#pragma once

#include "diag/diag.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::yaml {

struct SelectedKey {
  std::string key; // "" for "default" (the fallback kernel)
  diag::Location where;
};

struct SelectedOperator {
  std::string name; // as written: "aten::add.out"
  diag::Location where;
  bool include_all_overloads = false;
  // The et_kernel_metadata entry; nullopt when it has none (every kernel).
  std::optional<std::vector<SelectedKey>> keys;
};

struct SelectedOperators {
  bool include_all_operators = false;
  std::vector<SelectedOperator> operators; // in the file's order
};

// The selection `text` (the content of `path`, named in locations) holds;
// nullopt, with one error in `diags`, when it is not such a file.
std::optional<SelectedOperators>
parse_selected_operators(std::string_view text, const std::string& path, diag::Diagnostics& diags);

} // namespace opscan::yaml
