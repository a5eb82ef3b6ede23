// Parsing and checking ExecuTorch kernel keys ("v1/6;0,1|...").
#include "executorch/kernel_key.h"

#include <fmt/format.h>
#include <vector>

namespace opscan::executorch {
namespace {

// Reads a decimal number at `pos`; nullopt when there is none.
std::optional<long> number(std::string_view text, size_t& pos) {
  size_t start = pos;
  long value = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - start < 6) {
    value = value * 10 + (text[pos++] - '0');
  }
  if (pos == start)
    return std::nullopt;
  return value;
}

// The tensor arguments of `kernel` a key has one entry for: plain tensors
// are required, optional ones may be left out (required, all).
std::pair<size_t, size_t> key_tensors(const ir::Kernel& kernel) {
  size_t required = 0, all = 0;
  for (const ir::Argument& a : kernel.arguments) {
    const schema::Type& t = a.schema.type;
    if (t.base != "Tensor" || t.is_list())
      continue;
    ++all;
    required += !t.is_optional();
  }
  return {required, all};
}

} // namespace

const ir::Field& kernel_key_field() {
  static const ir::Field field{
      "key",
      kKernelKeyField,
      "opscan-kernel-key",
      "kernel key",
      "kernel key '{}'",
      "",
      [](std::string_view value, const ir::Kernel& kernel) -> std::optional<ir::FieldProblem> {
        auto [required, all] = key_tensors(kernel);
        if (auto e = check_kernel_key(value, required, all, returned_key_tensors(kernel.returns)))
          return ir::FieldProblem{e->offset, e->message};
        return std::nullopt;
      }};
  return field;
}

size_t returned_key_tensors(const std::vector<schema::Return>& returns) {
  return returns.size() == 1 && returns[0].type.base == "Tensor" && !returns[0].type.is_list() &&
                 !returns[0].type.is_optional()
             ? 1
             : 0;
}

std::optional<KernelKeyError> check_kernel_key(std::string_view key, size_t required_tensors,
                                               size_t all_tensors, size_t returned_tensors) {
  constexpr std::string_view kVersion = "v1/";
  if (key == "default") {
    return KernelKeyError{0, "'default' is not a kernel key: omit 'key' for the fallback kernel"};
  }
  if (!key.starts_with(kVersion)) {
    return KernelKeyError{0,
                          "kernel key must start with 'v1/' (format: v1/<dtype>;<dim order>|..., "
                          "e.g. v1/6;0,1|6;0,1)"};
  }
  size_t pos = kVersion.size();
  size_t entries = 0;
  while (true) {
    ++entries;
    const size_t entry_at = pos;
    auto dtype = number(key, pos);
    if (!dtype || *dtype > 127) {
      return KernelKeyError{entry_at,
                            fmt::format("entry {} of the kernel key must start with a dtype "
                                        "number (ScalarType, e.g. 6 for Float)",
                                        entries)};
    }
    if (pos >= key.size() || key[pos] != ';') {
      return KernelKeyError{pos, fmt::format("expected ';' after the dtype of entry {}", entries)};
    }
    ++pos;
    // The dim order: a permutation of 0..n-1 (empty for a 0-dim tensor).
    std::vector<bool> seen;
    std::vector<long> order;
    while (pos < key.size() && key[pos] != '|') {
      const size_t dim_at = pos;
      auto dim = number(key, pos);
      if (!dim)
        return KernelKeyError{dim_at,
                              fmt::format("expected a dimension number in entry {}", entries)};
      order.push_back(*dim);
      if (pos < key.size() && key[pos] == ',') {
        ++pos;
        if (pos == key.size() || key[pos] == '|') {
          return KernelKeyError{pos,
                                fmt::format("expected a dimension after ',' in entry {}", entries)};
        }
      } else if (pos < key.size() && key[pos] != '|') {
        return KernelKeyError{
            pos, fmt::format("unexpected '{}' in entry {} of the kernel key", key[pos], entries)};
      }
    }
    seen.assign(order.size(), false);
    for (long d : order) {
      if (d < 0 || static_cast<size_t>(d) >= order.size() || seen[static_cast<size_t>(d)]) {
        return KernelKeyError{entry_at,
                              fmt::format("the dim order of entry {} is not a permutation of "
                                          "0..{}",
                                          entries, order.size() - 1)};
      }
      seen[static_cast<size_t>(d)] = true;
    }
    if (pos == key.size())
      break;
    ++pos; // '|'
  }
  if (entries < required_tensors || entries > all_tensors + returned_tensors) {
    std::string expected = required_tensors == all_tensors
                               ? std::to_string(all_tensors)
                               : fmt::format("{} to {}", required_tensors, all_tensors);
    // Entries count the arguments, then the returned tensor.
    std::string returns, then;
    if (returned_tensors > 0) {
      returns = fmt::format(" and returns {} tensor{}", returned_tensors,
                            returned_tensors == 1 ? "" : "s");
      then = ", then one per returned tensor (programs pass it again)";
    }
    return KernelKeyError{
        0, fmt::format("kernel key has {} entr{}, the operator has {} tensor argument{}{}: one "
                       "entry per tensor argument{}",
                       entries, entries == 1 ? "y" : "ies", expected, all_tensors == 1 ? "" : "s",
                       returns, then)};
  }
  return std::nullopt;
}

} // namespace opscan::executorch
