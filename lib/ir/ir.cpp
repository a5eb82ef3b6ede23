#include "ir/ir.h"

#include <algorithm>
#include <tuple>

namespace opscan::ir {

void canonicalize(Module& module) {
  // Path, then hash: one path with two hashes (stale fragments) must not
  // depend on input order, and equal entries must end up adjacent for unique.
  std::sort(module.sources.begin(), module.sources.end(),
            [](const SourceFile& a, const SourceFile& b) {
              return std::tie(a.path, a.sha256) < std::tie(b.path, b.sha256);
            });
  module.sources.erase(std::unique(module.sources.begin(), module.sources.end()),
                       module.sources.end());
  std::sort(module.kernels.begin(), module.kernels.end(), [](const Kernel& a, const Kernel& b) {
    return std::tie(a.op, a.kernel_key, a.location.file, a.location.offset, a.usr) <
           std::tie(b.op, b.kernel_key, b.location.file, b.location.offset, b.usr);
  });
}

} // namespace opscan::ir
