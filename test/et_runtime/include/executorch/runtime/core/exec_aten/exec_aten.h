// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// The executorch::aten aliases of the real header's non-ATen (portable types) mode.
// Not provided: TensorImpl, Half, BFloat16, complex, qint types, safe_numel.
#pragma once

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
