#include "ir/ir.h"

#include <algorithm>
#include <tuple>

namespace opscan::ir {
namespace {

// Path, then hash: one path with two hashes (stale fragments) must not
// depend on input order, and equal entries must end up adjacent for unique.
auto order_key(const SourceFile& s) {
  return std::tie(s.path, s.sha256);
}
auto order_key(const Kernel& k) {
  return std::tie(k.op, k.kernel_key, k.location.file, k.location.offset, k.usr);
}
constexpr auto in_order = [](const auto& a, const auto& b) { return order_key(a) < order_key(b); };

// No two neighbours equal in order: unique would keep every source, and a
// sort could not swap two kernels.
template <typename T>
bool strictly_ordered(const std::vector<T>& items) {
  return std::adjacent_find(items.begin(), items.end(),
                            [](const T& a, const T& b) { return !in_order(a, b); }) == items.end();
}

} // namespace

void canonicalize(Module& module) {
  std::sort(module.sources.begin(), module.sources.end(), in_order);
  module.sources.erase(std::unique(module.sources.begin(), module.sources.end()),
                       module.sources.end());
  std::sort(module.kernels.begin(), module.kernels.end(), in_order);
}

bool is_canonical(const Module& module) {
  return strictly_ordered(module.sources) && strictly_ordered(module.kernels);
}

} // namespace opscan::ir
