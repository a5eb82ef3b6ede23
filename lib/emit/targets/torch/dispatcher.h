// What both targets of PyTorch's dispatcher share (torch and torch-stable):
// the annotation field `dispatch = "CUDA"` naming the dispatch key a kernel
// registers under, what a registration claims, and the text of their
// registration code.
#pragma once

#include "emit/target.h"
#include "ir/fields.h"
#include "ir/ir.h"

#include <string>
#include <string_view>
#include <vector>

namespace opscan::emit::torch {

// The field's IR key.
inline constexpr const char* kDispatchKeyField = "dispatch_key";

// `dispatch = "..."`: a key c10::DispatchKey names, CPU by default.
const ir::Field& dispatch_key_field();

// A kernel's registration: its operator under its dispatch key.
std::string identity(const ir::Kernel& kernel);

// Whether a library registering `kernel` defines its schema: aten's
// operators are libtorch's own.
bool defines_schema(const ir::Kernel& kernel);

// `claimed` and, for an operator the library defines, its schema: the
// dispatcher takes one definition of each.
std::vector<Target::Claim> with_schema_claim(const ir::Kernel& kernel,
                                             std::vector<Target::Claim> claimed);

// Each line of each item, indented.
std::string indented(const std::vector<std::string>& items, const char* indent);

// RegisterKernels.h's text in static mode, where there is nothing to call.
std::string static_registration_note(const LibrarySpec& library, const Symbols& symbols);

} // namespace opscan::emit::torch
