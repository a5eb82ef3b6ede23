// What modules other than ExecuTorch's target know of ExecuTorch as a
// target: its name (the IR's library records name their target).
#pragma once

#include <string_view>

namespace opscan::executorch {

inline constexpr std::string_view kTargetName = "executorch";

} // namespace opscan::executorch
