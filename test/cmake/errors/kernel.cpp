// The kernel source the opscan_add_kernel_library() calls of the errors
// project name. The project is only configured, never built, so neither
// opscan nor a compiler ever reads this file; it only has to exist, since
// add_library() checks that its sources do.
