// The IR's enums as text, and its canonical order of sources and kernels.
#include "ir/ir.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

namespace opscan::ir {
namespace {

// An enum's JSON spellings, in enumerator order.
template <typename E, size_t N>
struct Names {
  std::array<std::string_view, N> names;
  std::string_view of(E value) const { return names[static_cast<size_t>(value)]; }
  std::optional<E> parse(std::string_view text) const {
    auto it = std::find(names.begin(), names.end(), text);
    if (it == names.end())
      return std::nullopt;
    return static_cast<E>(it - names.begin());
  }
};

constexpr Names<ContextKind, 3> kContexts{{"none", "KernelRuntimeContext", "DispatchKeySet"}};
constexpr Names<SchemaOrigin, 3> kOrigins{{"inferred", "declared", "known"}};
constexpr Names<Registration, 3> kRegistrations{{"static", "manual", "named"}};
constexpr Names<Linkage, 2> kLinkages{{"C++", "C"}};

// Path, then hash: one path with two hashes (stale fragments) must not
// depend on input order, and equal entries must end up adjacent for unique.
auto order_key(const SourceFile& s) {
  return std::tie(s.path, s.sha256);
}
auto order_key(const Kernel& k) {
  return std::tie(k.op, k.fields, k.location.file, k.location.offset, k.usr);
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

std::string_view to_string(ContextKind kind) {
  return kContexts.of(kind);
}
std::string_view to_string(SchemaOrigin origin) {
  return kOrigins.of(origin);
}
std::string_view to_string(Registration mode) {
  return kRegistrations.of(mode);
}
std::string_view to_string(Linkage linkage) {
  return kLinkages.of(linkage);
}
std::optional<ContextKind> parse_context_kind(std::string_view text) {
  return kContexts.parse(text);
}
std::optional<SchemaOrigin> parse_schema_origin(std::string_view text) {
  return kOrigins.parse(text);
}
std::optional<Registration> parse_registration(std::string_view text) {
  return kRegistrations.parse(text);
}
std::optional<Linkage> parse_linkage(std::string_view text) {
  return kLinkages.parse(text);
}

schema::Schema Kernel::schema() const {
  schema::Schema s{op, {}, returns};
  s.arguments.reserve(arguments.size());
  for (const Argument& a : arguments)
    s.arguments.push_back(a.schema);
  return s;
}

void Kernel::set_field(const std::string& key, std::string value) {
  if (value.empty())
    fields.erase(key);
  else
    fields[key] = std::move(value);
}

std::string_view Kernel::field(std::string_view key) const {
  auto it = fields.find(key);
  return it == fields.end() ? std::string_view() : std::string_view(it->second);
}

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
