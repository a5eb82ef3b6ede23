// Generators, ATen's and the stable ABI's: each is schema type Generator.
// The stable one is declared as libtorch's stable headers declare it, in a
// namespace of hidden visibility.
#include "aten_types.h"

namespace torch {
namespace stable __attribute__((visibility("hidden"))) {
class Generator {};
} // namespace stable
} // namespace torch

namespace generators {

OPSCAN_KERNEL("t::aten_generator")
void aten_generator(const at::Generator& gen, std::optional<at::Generator> maybe);

OPSCAN_KERNEL("t::stable_generator")
void stable_generator(torch::stable::Generator gen,
                      const std::optional<torch::stable::Generator>& maybe);

} // namespace generators
