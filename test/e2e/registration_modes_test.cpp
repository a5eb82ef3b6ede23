// Static and manual registration of the example library (compiled once per
// mode, with OPSCAN_MODE_STATIC or OPSCAN_MODE_MANUAL): the same files, the
// same kernels, a different way in.
#include "RegisterKernels.h"

#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>

namespace {

using executorch::runtime::Error;

#if defined(OPSCAN_MODE_STATIC)
TEST(StaticRegistration, KernelsAreRegisteredWhenTheProgramLoads) {
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("aten::add.out"));
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("demo::total.out"));
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), 9u);
}
#elif defined(OPSCAN_MODE_MANUAL)
TEST(ManualRegistration, RegisterAllKernelsRegistersOnce) {
  EXPECT_FALSE(executorch::runtime::registry_has_op_function("aten::add.out"));
  EXPECT_EQ(torch::executor::register_all_kernels(), Error::Ok);
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("aten::add.out"));
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), 9u);
  EXPECT_EQ(torch::executor::register_all_kernels(), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), 9u);
}
#else
#error "define OPSCAN_MODE_STATIC or OPSCAN_MODE_MANUAL"
#endif

} // namespace
