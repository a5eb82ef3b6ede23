// C++ parameter and return types -> schema types (REFERENCE.md §B), matched
// on canonical types so typedefs, aliases and using-declarations all work.
#pragma once

#include "schema/schema.h"

#include <clang-c/Index.h>
#include <optional>
#include <string>

namespace opscan::scan {

struct MappedType {
  std::optional<schema::Type> type; // unset: not a kernel type; see error
  bool is_mutable = false;          // non-const reference to a tensor
  std::string error;                // names the type and what to use instead
};

MappedType map_parameter_type(CXType type);
MappedType map_return_type(CXType type); // also unpacks nothing: see tuple_elements

// The element types of a std::tuple return, or nullopt when not a tuple.
std::optional<std::vector<CXType>> tuple_elements(CXType type);

enum class ContextKind { none, executorch, torch };
// Whether a first parameter is the runtime context: KernelRuntimeContext&
// (ExecuTorch) or c10::DispatchKeySet (PyTorch).
ContextKind context_kind(CXType type);

} // namespace opscan::scan
