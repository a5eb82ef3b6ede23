// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch::runtime::etensor {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

constexpr size_t kNumDeviceTypes = 2;

using DeviceIndex = int8_t;

struct Device final {
  using Type = DeviceType;

  /* implicit */ Device(DeviceType type, DeviceIndex index = 0) : type_(type), index_(index) {}

  DeviceType type() const noexcept { return type_; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  DeviceIndex index() const noexcept { return index_; }
  bool operator==(const Device& o) const noexcept { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const noexcept { return !(*this == o); }

private:
  DeviceType type_;
  DeviceIndex index_ = 0;
};

} // namespace executorch::runtime::etensor

namespace torch::executor {
using ::executorch::runtime::etensor::Device;
using ::executorch::runtime::etensor::DeviceType;
} // namespace torch::executor
