// Included through -isystem: its declarations are not the scanned library's.
#pragma once

#include "../et_types.h"

OPSCAN_KERNEL("t::from_system.out")
Tensor& from_system_out(const Tensor& self, Tensor& out);
