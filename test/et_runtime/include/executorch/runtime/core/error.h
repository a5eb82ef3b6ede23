// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstdint>

namespace executorch::runtime {

typedef uint32_t error_code_t;

// Values match the real runtime's error codes.
enum class Error : error_code_t {
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,
  AlreadyLoaded = 0x04,
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  RegistrationExceedingMaxKernels = 0x15,
  RegistrationAlreadyRegistered = 0x16,
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::Error;
using ::executorch::runtime::error_code_t;
} // namespace torch::executor
