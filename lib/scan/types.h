// C++ parameter and return types -> schema types, matched on canonical
// types so typedefs, aliases and using-declarations all work.
#pragma once

#include "ir/ir.h"
#include "kernel/signature.h"
#include "schema/schema.h"

#include <clang-c/Index.h>
#include <optional>
#include <string>

namespace opscan::scan {

kernel::MappedType map_parameter_type(CXType type);
kernel::MappedType map_return_type(CXType type); // also unpacks nothing: see tuple_elements

// The element types of a std::tuple return, or nullopt when not a tuple.
std::optional<std::vector<CXType>> tuple_elements(CXType type);

// Whether a first parameter is a runtime context: KernelRuntimeContext&
// (ExecuTorch) or c10::DispatchKeySet (PyTorch).
ir::ContextKind context_kind(CXType type);

} // namespace opscan::scan
