// A registry too small for two kernel libraries: the second library's
// registration returns an error and registers none of its kernels, where
// ExecuTorch's registry would abort the process. Built twice: with the
// registry and the libraries compiled with MAX_KERNEL_NUM, and with the
// registry sized by the kernel count header opscan generated for the first
// library (exactly its kernels, as a selective build sizes it).
#include "named/examples/RegisterKernels.h"
#include "types/types/RegisterKernels.h"

#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>

#if defined(OPSCAN_SIZED_BY_HEADER)
#include <executorch/runtime/kernel/selected_max_kernel_num.h>
#endif

namespace {

using executorch::runtime::Error;

TEST(RegistryCapacity, ALibraryThatDoesNotFitIsRefusedWithoutAborting) {
  ASSERT_EQ(torch::executor::register_examples_kernels(), Error::Ok);
  const size_t registered = executorch::runtime::get_registered_kernels().size();
#if defined(OPSCAN_SIZED_BY_HEADER)
  EXPECT_EQ(registered, size_t(EXECUTORCH_SELECTED_MAX_KERNEL_NUM)); // full, exactly
#else
  EXPECT_LT(registered, size_t(MAX_KERNEL_NUM)); // room left, but not enough
#endif
  EXPECT_EQ(torch::executor::register_types_kernels(), Error::RegistrationExceedingMaxKernels);
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), registered);
  EXPECT_FALSE(executorch::runtime::registry_has_op_function("types::scale_"));
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("aten::add.out"));
}

} // namespace
