# The opscan CMake package: the opscan::opscan tool, the opscan::annotations
# headers, and opscan_add_kernel_library() (see OpscanKernelLibrary.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/opscanTargets.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/OpscanKernelLibrary.cmake")
