// Reading the operator YAML formats: PyTorch's native_functions.yaml and
// ExecuTorch's functions.yaml / custom_ops.yaml. Each is a YAML sequence of
// mappings, one per operator:
//
//   - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//     autogen: add.out                      # comma-separated operator names
//   - op: add.out                           # ExecuTorch: an operator by name
//     type_alias: {T0: [Float, Double]}     # dtype names an arg_meta alias stands for
//     dim_order_alias: {D0: [0, 1]}         # the dim order an arg_meta alias stands for
//     kernels:
//       - arg_meta: null                    # or {self: [T0, D0], ...}
//         kernel_name: torch::executor::add_out
//
// This module returns those entries as written, each value located in the
// file; what they mean (schemas, derived variants) is for its callers. Keys
// it does not read (dispatch:, variants:, tags:, ...) are
// skipped without being looked into.
//
// Diagnostic codes (errors; reading stops at the first):
//   opscan-yaml-syntax  not well-formed YAML (as yaml-cpp reports it, with
//                       its position; also nesting deeper than it allows)
//   opscan-yaml-format  well-formed YAML that is not an operator file: the
//                       top level is not a sequence, an entry not a mapping,
//                       a value of the wrong kind, a key given twice, an
//                       entry with neither or both of func and op, a kernel
//                       without kernel_name, an alias of type_alias or
//                       dim_order_alias that is not a list of strings, an
//                       empty autogen name, more than
//                       one document, a merge key ('<<'), or an alias of a
//                       mapping or sequence where this module reads one
#pragma once

#include "diag/diag.h"
#include "schema/schema.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::yaml {

// A string value and where it is in the file.
struct Scalar {
  std::string text;
  diag::Location where; // its first byte (a quoted value's opening quote if not verbatim)
  // The text stands byte for byte at `where`, on one line (plain or quoted
  // without escapes), so offsets into it are offsets in the file.
  bool verbatim = false;

  // Where byte `offset` of text is: exact when verbatim, else `where`.
  diag::Location at(size_t offset) const;
};

// "self: [T0, D0]" in a kernel's arg_meta: an argument and the names of its
// type and dim-order aliases.
struct ArgMeta {
  Scalar argument;
  std::vector<Scalar> aliases;
};

// One of an entry's kernels (ExecuTorch).
struct Kernel {
  diag::Location where;
  // Absent or null: the kernel for any dtype and dim order.
  std::optional<std::vector<ArgMeta>> arg_meta;
  Scalar kernel_name;
};

// "T0: [Float, Double]" in type_alias, "D0: [0, 1]" in dim_order_alias: an
// alias and the values it stands for, as written.
struct Alias {
  Scalar name;
  std::vector<Scalar> values;
};

struct Entry {
  diag::Location where;        // the entry's mapping
  std::optional<Scalar> func;  // a schema; its namespace is "aten" when it names none
  std::optional<Scalar> op;    // an operator by name (ExecuTorch); exactly one of func, op
  std::vector<Scalar> autogen; // split at commas, trimmed, each located
  std::vector<Kernel> kernels;
  std::vector<Alias> type_alias;      // in the file's order; absent or null: none
  std::vector<Alias> dim_order_alias; // likewise
};

// The entries of `text`, the content of the file `path` (named in
// locations). An empty document has none. Nullopt, with one error in
// `diags`, when `text` is not an operator YAML file. Memory stays
// proportional to the entries read, whatever the file holds: no YAML tree is
// built and aliases are never expanded.
std::optional<std::vector<Entry>>
parse_operator_yaml(std::string_view text, const std::string& path, diag::Diagnostics& diags);

// The schema in `func`, qualified with "aten::" when it names no namespace,
// as torchgen reads it. Error offsets index func.text (func.at(offset)).
schema::Parsed<schema::Schema> parse_func(const Scalar& func);

// An operator name, "name.overload" or "ns::name.overload"; `ns` when it
// names no namespace. Error offsets index name.text.
schema::Parsed<schema::OperatorName> parse_operator(const Scalar& name, std::string_view ns);

} // namespace opscan::yaml
