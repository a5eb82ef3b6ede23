// Kernels of the "aten_generators" library: written against ATen, taking
// at::Generator, generated for torch-stable, whose wrappers pass them the
// at::Generator the stable ABI's generator handle holds.
#include <ATen/ATen.h>
#include <cstdint>
#include <opscan/annotations.h>
#include <optional>

namespace aten_generators {

// The seed of the generator given: the caller's own, not a new one.
OPSCAN_KERNEL("aten_gen_ops::seed_of")
int64_t seed_of(const at::Generator& gen) {
  return static_cast<int64_t>(gen.current_seed());
}

// An optional generator: numbers drawn from it (or from the default one),
// uniform in [0, 1), in a tensor shaped as `self`.
OPSCAN_KERNEL("aten_gen_ops::uniform_with")
at::Tensor uniform_with(const at::Tensor& self, const std::optional<at::Generator>& gen) {
  return at::empty_like(self).uniform_(0, 1, gen);
}

} // namespace aten_generators
