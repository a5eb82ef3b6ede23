// How ExecuTorch passes each schema type between its EValue stack and a
// kernel's C++ parameters and returns. Private to the ExecuTorch target.
#pragma once

#include "ir/ir.h"
#include "schema/schema.h"

#include <string>
#include <string_view>
#include <variant>

namespace opscan::emit::executorch {

// How an argument of one schema type travels from the EValue stack to the
// kernel: its C++ type in ExecuTorch, the EValue accessor that yields it, and
// the canonical C++ type libclang reports for a kernel taking it.
struct Conversion {
  std::string cpp_type;
  std::string accessor; // "to<::std::int64_t>()", "toTensorList()", ...
  std::string canonical;
};

// The C++ type of one return, or why the return slot cannot hold it.
struct ReturnConversion {
  std::string cpp_type;
  std::string canonical;
};

// Every type generated code names is spelled from the global namespace, so
// no namespace of the user's (an operator namespace "std", say) can capture
// it.
std::string aten(std::string_view name);

// The conversion of an argument type, or why ExecuTorch cannot pass it. Only
// what the real EValue defines is generated: to<T>() for every value type and
// their optionals, the list accessors, toOptional<ArrayRef<T>>() for optional
// lists and toListOptionalTensor() for Tensor?[].
std::variant<Conversion, std::string> conversion_of(const schema::Type& type);

std::variant<ReturnConversion, std::string> return_conversion_of(const schema::Type& type);

// A canonical type of ExecuTorch's portable mode as ExecuTorch's ATen mode
// (USE_ATEN_LIB) makes it: executorch::runtime::etensor::Tensor is
// at::Tensor, the other etensor types (Scalar, ScalarType, Layout,
// MemoryFormat, Device) c10's, and executorch::runtime::ArrayRef
// c10::ArrayRef. Other names are ATen mode's already, or no ExecuTorch type.
std::string aten_mode_canonical(std::string_view canonical);

// `kernel` with its canonical types as ATen mode makes them: a kernel
// scanned in either mode, checked as it is compiled in ATen mode.
ir::Kernel in_aten_mode(ir::Kernel kernel);

} // namespace opscan::emit::executorch
