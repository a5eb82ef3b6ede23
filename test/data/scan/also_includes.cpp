// A second translation unit that includes decl_kernels.h.
#include "include/decl_kernels.h"
