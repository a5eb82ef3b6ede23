// Shared by the scan tests' inputs: the annotation macro and ExecuTorch's
// kernel-facing types (the examples' stand-ins), with short names.
#pragma once

#include "../../../examples/include/opscan_examples/executorch_types.h"
#include "../../../include/opscan/annotations.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

using executorch::aten::ArrayRef;
using executorch::aten::Device;
using executorch::aten::Layout;
using executorch::aten::MemoryFormat;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;
