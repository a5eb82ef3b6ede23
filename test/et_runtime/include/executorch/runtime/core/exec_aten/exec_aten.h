// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// The executorch::aten aliases of the real header's two modes: the portable types,
// and ATen's with USE_ATEN_LIB (for kernels registered with PyTorch's dispatcher:
// the executorch-aot target's tests, which build against libtorch).
// Not provided: TensorImpl, Half, BFloat16, complex, qint types, safe_numel.
#pragma once

#ifdef USE_ATEN_LIB

#include <ATen/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>
#include <executorch/runtime/core/error.h>
#include <optional>
#include <string_view>

// ATen mode's own namespace for what the runtime defines per mode (the
// context), so that both modes' libraries can be linked into one program.
#ifndef ET_RUNTIME_NAMESPACE
#define ET_RUNTIME_NAMESPACE runtime::aten
#endif

namespace executorch::aten {

using std::nullopt;
using std::nullopt_t;
using std::optional;
using std::string_view;

using Tensor = at::Tensor;
template <typename T>
using ArrayRef = c10::ArrayRef<T>;
using ScalarType = c10::ScalarType;
using TensorList = ArrayRef<Tensor>;
using Scalar = c10::Scalar;
using MemoryFormat = c10::MemoryFormat;
using Device = c10::Device;
using DeviceType = c10::DeviceType;
using Layout = c10::Layout;
using IntArrayRef = c10::IntArrayRef;
using SizesType = int64_t;
using DimOrderType = uint8_t;
using StridesType = int64_t;

} // namespace executorch::aten

namespace exec_aten = executorch::aten;

#else

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/portable_type/scalar.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/portable_type/tensor.h>
#include <executorch/runtime/core/portable_type/tensor_options.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_shape_dynamism.h>
#include <executorch/runtime/platform/assert.h>
#include <optional>
#include <string_view>

#ifndef ET_RUNTIME_NAMESPACE
#define ET_RUNTIME_NAMESPACE runtime
#endif

namespace executorch::aten {

using TensorShapeDynamism = executorch::runtime::TensorShapeDynamism;

using std::nullopt;
using std::nullopt_t;
using std::optional;
using std::string_view;

using Tensor = torch::executor::Tensor;
template <typename T>
using ArrayRef = torch::executor::ArrayRef<T>;
using ScalarType = torch::executor::ScalarType;
using TensorList = ArrayRef<Tensor>;
using Scalar = torch::executor::Scalar;
using MemoryFormat = torch::executor::MemoryFormat;
using SizesType = torch::executor::Tensor::SizesType;
using DimOrderType = torch::executor::Tensor::DimOrderType;
using StridesType = torch::executor::Tensor::StridesType;
using Device = torch::executor::Device;
using DeviceType = torch::executor::DeviceType;
using Layout = torch::executor::Layout;
using IntArrayRef = torch::executor::IntArrayRef;
template <typename T>
using OptionalArrayRef = std::optional<torch::executor::ArrayRef<T>>;
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

using torch::executor::compute_numel;

} // namespace executorch::aten

namespace exec_aten = executorch::aten;

namespace torch::executor {
using TensorList = ::executorch::aten::TensorList;
} // namespace torch::executor

#endif // USE_ATEN_LIB
