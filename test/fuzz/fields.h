// The built-in targets' annotation fields, named as they are (key =
// "...", dispatch = "..."; kernel_key, dispatch_key in the IR) without
// their checks, which are the targets' business, not the parsers'.
#pragma once

#include "ir/fields.h"

namespace opscan::fuzz {

inline const ir::Fields& builtin_fields() {
  static const ir::Fields fields(
      {{"key", "kernel_key", "opscan-kernel-key", "kernel key", "kernel key '{}'", "", {}},
       {"dispatch",
        "dispatch_key",
        "opscan-dispatch-key",
        "dispatch key",
        "dispatch key {}",
        "",
        {}}});
  return fields;
}

} // namespace opscan::fuzz
