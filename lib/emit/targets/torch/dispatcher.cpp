// What the torch and torch-stable targets share: dispatch keys, claims, registration text.
#include "emit/targets/torch/dispatcher.h"

#include "support/text.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace opscan::emit::torch {
namespace {

// The dispatch keys a kernel may be registered under (c10::DispatchKey).
bool is_dispatch_key(std::string_view key) {
  static constexpr std::array<std::string_view, 38> kKeys = {
      "CPU",
      "CUDA",
      "HIP",
      "XLA",
      "MPS",
      "IPU",
      "XPU",
      "HPU",
      "VE",
      "Lazy",
      "Meta",
      "MTIA",
      "PrivateUse1",
      "PrivateUse2",
      "PrivateUse3",
      "QuantizedCPU",
      "QuantizedCUDA",
      "SparseCPU",
      "SparseCUDA",
      "SparseCsrCPU",
      "SparseCsrCUDA",
      "MkldnnCPU",
      "NestedTensorCPU",
      "NestedTensorCUDA",
      "BackendSelect",
      "Python",
      "Functionalize",
      "ADInplaceOrView",
      "AutogradCPU",
      "AutogradCUDA",
      "AutogradOther",
      "AutogradPrivateUse1",
      "Autograd",
      "CompositeImplicitAutograd",
      "CompositeExplicitAutograd",
      "CompositeExplicitAutogradNonFunctional",
      "AutocastCPU",
      "AutocastCUDA"};
  return std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end();
}

} // namespace

const ir::Field& dispatch_key_field() {
  static const ir::Field field{
      "dispatch",
      kDispatchKeyField,
      "opscan-dispatch-key",
      "dispatch key",
      "dispatch key {}",
      "CPU",
      [](std::string_view value, const ir::Kernel&) -> std::optional<ir::FieldProblem> {
        if (is_dispatch_key(value))
          return std::nullopt;
        return ir::FieldProblem{0, support::quoted(value) +
                                       " is not a dispatch key (e.g. CPU, CUDA, Meta, "
                                       "CompositeExplicitAutograd)"};
      }};
  return field;
}

std::string identity(const ir::Kernel& kernel) {
  return kernel.op.str() + "\n" + std::string(kernel.field(kDispatchKeyField));
}

bool defines_schema(const ir::Kernel& kernel) {
  return kernel.op.ns != "aten";
}

std::vector<Target::Claim> with_schema_claim(const ir::Kernel& kernel,
                                             std::vector<Target::Claim> claimed) {
  if (defines_schema(kernel))
    claimed.push_back({"schema\n" + kernel.op.str(), "the schema of " + kernel.op.str()});
  return claimed;
}

std::string indented(const std::vector<std::string>& items, const char* indent) {
  std::string out;
  for (const std::string& item : items) {
    for (size_t begin = 0, end; begin <= item.size(); begin = end + 1) {
      end = std::min(item.find('\n', begin), item.size());
      out += fmt::format("{}{}\n", indent, std::string_view(item).substr(begin, end - begin));
    }
  }
  return out;
}

std::string static_registration_note(const LibrarySpec& library, const Symbols& symbols) {
  return fmt::format("// The kernels of library '{}' register themselves when the program loads\n"
                     "// (static registration): there is nothing to call. Linking them from a\n"
                     "// static archive needs -Wl,--undefined={}\n"
                     "// (RegisterKernels.cpp defines it), or the linker drops them.",
                     library.name, symbols.link_anchor);
}

} // namespace opscan::emit::torch
