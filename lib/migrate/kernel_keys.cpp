// ExecuTorch kernel keys derived from a YAML entry's arg_meta, as ExecuTorch derives them.
#include "migrate/kernel_keys.h"

#include "emit/targets/executorch/kernel_key.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <utility>

namespace opscan::migrate {
namespace {

constexpr std::string_view kCode = "opscan-import-arg-meta";

// The dtype names ExecuTorch's generator knows (its own ScalarType subset,
// numbered as c10's ScalarType).
std::optional<int> dtype_number(std::string_view name) {
  static constexpr std::pair<std::string_view, int> kDtypes[] = {
      {"Byte", 0}, {"Char", 1},  {"Short", 2},  {"Int", 3},
      {"Long", 4}, {"Float", 6}, {"Double", 7}, {"Bool", 11}};
  for (const auto& [known, number] : kDtypes) {
    if (known == name)
      return number;
  }
  return std::nullopt;
}

const yaml::Alias* find_alias(const std::vector<yaml::Alias>& aliases, const std::string& name) {
  auto it = std::find_if(aliases.begin(), aliases.end(),
                         [&](const yaml::Alias& a) { return a.name.text == name; });
  return it == aliases.end() ? nullptr : &*it;
}

std::string names_of(const std::vector<yaml::Alias>& aliases) {
  std::string names;
  for (const yaml::Alias& a : aliases)
    names += (names.empty() ? "" : ", ") + a.name.text;
  return names.empty() ? "none" : names;
}

// One argument of arg_meta, resolved.
struct Arg {
  size_t type_alias; // index into the type aliases used
  std::string dim_order;
};

} // namespace

std::optional<KernelKeys> derive_kernel_keys(const yaml::Entry& entry, const yaml::Kernel& kernel,
                                             std::string_view kernel_desc,
                                             diag::Diagnostics& diags) {
  auto refuse = [&](diag::Location where, std::string why) {
    diags.push_back(diag::make_warning(
        std::string(kCode), std::move(where),
        fmt::format("{}: {}; no kernel key derived, not annotated", kernel_desc, why)));
    return std::nullopt;
  };
  const std::vector<yaml::ArgMeta>& meta = *kernel.arg_meta;
  if (meta.empty())
    return refuse(kernel.where, "arg_meta names no argument");

  std::vector<const yaml::Alias*> used; // type aliases, in order of first use
  std::vector<Arg> args;
  for (const yaml::ArgMeta& arg : meta) {
    const std::string& name = arg.argument.text;
    if (arg.aliases.size() != 2) {
      return refuse(arg.argument.where,
                    fmt::format("arg_meta of '{}' lists {} alias{}, not [type alias, dim order "
                                "alias]",
                                name, arg.aliases.size(), arg.aliases.size() == 1 ? "" : "es"));
    }
    // [type alias, dim order alias], each defined by the entry.
    const std::vector<yaml::Alias>* defined[] = {&entry.type_alias, &entry.dim_order_alias};
    static constexpr std::string_view kKinds[][2] = {{"type alias", "type_alias"},
                                                     {"dim order alias", "dim_order_alias"}};
    const yaml::Alias* resolved[2] = {};
    for (size_t i = 0; i < 2; ++i) {
      resolved[i] = find_alias(*defined[i], arg.aliases[i].text);
      if (!resolved[i]) {
        return refuse(arg.aliases[i].where,
                      fmt::format("arg_meta of '{}': {} '{}' is not defined in the entry's {} "
                                  "(defined: {})",
                                  name, kKinds[i][0], arg.aliases[i].text, kKinds[i][1],
                                  names_of(*defined[i])));
      }
    }
    const yaml::Alias* type = resolved[0];
    const yaml::Alias* dims = resolved[1];
    if (std::find(used.begin(), used.end(), type) == used.end()) {
      if (type->values.empty()) {
        return refuse(type->name.where,
                      fmt::format("type alias '{}' lists no dtype", type->name.text));
      }
      for (const yaml::Scalar& dtype : type->values) {
        if (!dtype_number(dtype.text)) {
          return refuse(dtype.where, fmt::format("type alias '{}': '{}' is not a dtype "
                                                 "ExecuTorch's generator knows (Byte, Char, "
                                                 "Short, Int, Long, Float, Double, Bool)",
                                                 type->name.text, dtype.text));
        }
      }
      used.push_back(type);
    }
    // Numbers joined by ',' (ExecuTorch's runtime's form; see the header).
    std::string dim_order;
    for (const yaml::Scalar& dim : dims->values) {
      if (dim.text.empty() || dim.text.find_first_not_of("0123456789") != std::string::npos) {
        return refuse(dim.where, fmt::format("dim order alias '{}': '{}' is not a dimension",
                                             dims->name.text, dim.text));
      }
      dim_order += (dim_order.empty() ? "" : ",") + dim.text;
    }
    args.push_back(
        Arg{static_cast<size_t>(std::find(used.begin(), used.end(), type) - used.begin()),
            std::move(dim_order)});
  }

  // itertools.product's order: the last alias varies fastest. The count
  // saturates: beyond one key, only the first few are listed.
  KernelKeys result;
  result.count = 1;
  for (const yaml::Alias* alias : used) {
    const size_t n = alias->values.size();
    result.count = result.count > std::numeric_limits<size_t>::max() / n
                       ? std::numeric_limits<size_t>::max()
                       : result.count * n;
  }
  const size_t listed = std::min(result.count, kListedKeys);
  for (size_t index = 0; index < listed; ++index) {
    std::vector<size_t> choice(used.size());
    for (size_t rest = index, a = used.size(); a-- > 0;) {
      choice[a] = rest % used[a]->values.size();
      rest /= used[a]->values.size();
    }
    std::string key = "v1/";
    for (size_t i = 0; i < args.size(); ++i) {
      const yaml::Alias& type = *used[args[i].type_alias];
      key += fmt::format("{}{};{}", i == 0 ? "" : "|",
                         *dtype_number(type.values[choice[args[i].type_alias]].text),
                         args[i].dim_order);
    }
    // The dtypes are valid by now; what opscan's check can still refuse is
    // an argument's dim order, so the warning goes to its alias.
    if (auto error = emit::executorch::check_kernel_key(key, 0, args.size())) {
      const size_t arg = static_cast<size_t>(
          std::count(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(error->offset), '|'));
      return refuse(meta[std::min(arg, meta.size() - 1)].aliases[1].where,
                    fmt::format("kernel key '{}': {}", key, error->message));
    }
    result.keys.push_back(std::move(key));
  }
  return result;
}

} // namespace opscan::migrate
