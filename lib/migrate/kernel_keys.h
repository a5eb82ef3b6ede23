// The ExecuTorch kernel keys of a dtype-specialised kernel (one with
// arg_meta), derived from arg_meta and its entry's type_alias and
// dim_order_alias as ExecuTorch's generator derives them (codegen/model.py,
// ETKernelKey.gen_from_yaml and to_native_string):
//
//   - each argument of arg_meta, in the order written, is [type alias, dim
//     order alias], both defined by the entry;
//   - there is one key per combination of the dtypes of the type aliases
//     used: an alias used by several arguments has one dtype in a key;
//   - a key is "v1/" and, per argument, "<dtype number>;<dim order>" joined
//     by '|', the dim order's numbers joined by ',';
//   - the dtype names are those of ExecuTorch's ScalarType, numbered as
//     c10's: Byte 0, Char 1, Short 2, Int 3, Long 4, Float 6, Double 7,
//     Bool 11 (any other name is refused, as ExecuTorch's generator does).
//
// One deviation: ExecuTorch's generator writes a one-dimension dim order as
// "0," (Python's tuple text), a key its runtime never builds ("0"), so the
// kernel would never be chosen; the runtime's form is taken.
//
// Diagnostic code:
//   opscan-import-arg-meta  (warning) an arg_meta no key can be derived from:
//                           an argument that is not [type alias, dim order
//                           alias], an alias the entry does not define, an
//                           unknown dtype name, a dim order that is not a
//                           permutation of numbers, a type alias listing no
//                           dtype, an empty arg_meta
#pragma once

#include "diag/diag.h"
#include "yaml/operator_yaml.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::migrate {

struct KernelKeys {
  size_t count = 0;              // how many the kernel has
  std::vector<std::string> keys; // the first of them (all up to kListedKeys)
};

inline constexpr size_t kListedKeys = 16;

// The keys of `kernel` (arg_meta set), an ExecuTorch kernel of `entry`, in
// the order the type aliases are first used (the first varies slowest).
// Nullopt, with a warning at the fault in `diags`, when it has none;
// `kernel_desc` names the kernel in messages.
std::optional<KernelKeys> derive_kernel_keys(const yaml::Entry& entry, const yaml::Kernel& kernel,
                                             std::string_view kernel_desc,
                                             diag::Diagnostics& diags);

} // namespace opscan::migrate
