// Kernels that are valid C++ and name things the generated code also
// names: C linkage, an inline namespace, parameters called like the
// wrapper's own variables and types, an operator namespace "std", noexcept,
// and schema text built to break out of comments and literals (and, with
// the exception boundary, what its handler names). Each
// returns a sum that shows which argument went where.
#include <cstdint>
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
#include <string_view>

using executorch::runtime::KernelRuntimeContext;

extern "C" {
OPSCAN_KERNEL("hygiene::c_linkage")
int64_t c_linkage(KernelRuntimeContext& ctx, int64_t x);
}

int64_t c_linkage(KernelRuntimeContext&, int64_t x) {
  return x + 1;
}

namespace hygiene {
inline namespace v2 {
OPSCAN_KERNEL("hygiene::versioned")
int64_t versioned(KernelRuntimeContext& ctx, int64_t x) noexcept;
int64_t versioned(KernelRuntimeContext&, int64_t x) noexcept {
  return x + 2;
}
} // namespace v2

OPSCAN_KERNEL("hygiene::shadows")
int64_t shadows(KernelRuntimeContext& ctx, int64_t EValue, int64_t stack, int64_t stack_,
                int64_t result, int64_t context, int64_t Span);
int64_t shadows(KernelRuntimeContext&, int64_t EValue, int64_t stack, int64_t stack_,
                int64_t result, int64_t context, int64_t Span) {
  return EValue + 10 * stack + 100 * stack_ + 1000 * result + 10000 * context + 100000 * Span;
}

OPSCAN_KERNEL("std::thing")
int64_t thing(KernelRuntimeContext& ctx, int64_t x);
int64_t thing(KernelRuntimeContext&, int64_t x) {
  return x + 3;
}

// Schema text that would end a comment, start a directive or form
// trigraphs if it reached generated code as it is.
OPSCAN_KERNEL(
    "hygiene::text(int x, str a=\"*/ #define X ?\?/\", str b='\\\\', str c=\"\\\"\") -> int")
int64_t text(KernelRuntimeContext& ctx, int64_t x, std::string_view a, std::string_view b,
             std::string_view c);
int64_t text(KernelRuntimeContext&, int64_t x, std::string_view a, std::string_view b,
             std::string_view c) {
  return x + static_cast<int64_t>(a.size() + b.size() + c.size());
}

// Parameters named like what the exception boundary's handler names.
OPSCAN_KERNEL("hygiene::handler_names")
int64_t handler_names(KernelRuntimeContext& ctx, int64_t kLibrary, int64_t fail_on_exception,
                      int64_t exception, int64_t uint32_t, int64_t Error);
int64_t handler_names(KernelRuntimeContext&, int64_t kLibrary, int64_t fail_on_exception,
                      int64_t exception, int64_t uint32_t, int64_t Error) {
  return kLibrary + 10 * fail_on_exception + 100 * exception + 1000 * uint32_t + 10000 * Error;
}
} // namespace hygiene
