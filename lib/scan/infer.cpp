#include "scan/infer.h"

#include <fmt/format.h>

namespace opscan::scan {
namespace {

schema::AliasInfo write_alias(size_t index) {
  // a..z, then a1..z1, ...: enough for any real kernel.
  std::string name(1, static_cast<char>('a' + index % 26));
  if (index >= 26)
    name += std::to_string(index / 26);
  return {{name}, true, {}};
}

// Places the alias on the tensor itself: "Tensor(a!)" or "Tensor(a!)?".
schema::Type with_alias(schema::Type type, const schema::AliasInfo& alias) {
  type.alias = alias;
  return type;
}

// The type with alias names dropped, so that "Tensor(a!)" and "Tensor(b!)"
// compare equal; fixed list sizes and SymInt are normalised too.
std::string comparable(schema::Type type) {
  auto strip = [](std::optional<schema::AliasInfo>& alias) {
    if (alias)
      alias = schema::AliasInfo{{"_"}, alias->is_write, {}};
  };
  strip(type.alias);
  for (auto& suffix : type.suffixes) {
    strip(suffix.alias);
    suffix.size.reset();
  }
  if (type.base == "SymInt")
    type.base = "int";
  if (type.base == "SymBool")
    type.base = "bool";
  return type.str();
}

} // namespace

std::variant<schema::Schema, InferError> infer_schema(const schema::OperatorName& name,
                                                      const std::vector<CppParam>& params,
                                                      const CppReturn& ret) {
  schema::Schema result;
  result.name = name;
  const bool in_place = !name.name.empty() && name.name.back() == '_';

  // The out group: the trailing run of mutable tensors.
  size_t out_begin = params.size();
  if (!in_place) {
    while (out_begin > 0 && params[out_begin - 1].is_mutable)
      --out_begin;
  }
  std::vector<schema::AliasInfo> mutable_aliases;
  for (size_t i = 0; i < params.size(); ++i) {
    const CppParam& p = params[i];
    schema::Argument arg{p.type, p.name, std::nullopt, i >= out_begin};
    if (p.is_mutable) {
      mutable_aliases.push_back(write_alias(mutable_aliases.size()));
      arg.type = with_alias(p.type, mutable_aliases.back());
    }
    result.arguments.push_back(std::move(arg));
  }

  size_t mutable_returns = 0;
  for (const CppParam& r : ret.values)
    mutable_returns += r.is_mutable;
  if (mutable_returns == 0) {
    for (const CppParam& r : ret.values)
      result.returns.push_back({r.type, ""});
    return result;
  }
  if (mutable_returns != ret.values.size()) {
    return InferError{-1, "opscan-infer-mixed-returns",
                      "returns mix references to tensors with values: return references to all "
                      "out tensors, or values only"};
  }
  if (mutable_returns != mutable_aliases.size()) {
    return InferError{
        -1, "opscan-infer-return-count",
        fmt::format("returns {} tensor reference{} but takes {} mutable tensor{}: a returned "
                    "reference must be one of the out tensors, in order{}",
                    mutable_returns, mutable_returns == 1 ? "" : "s", mutable_aliases.size(),
                    mutable_aliases.size() == 1 ? "" : "s",
                    mutable_aliases.size() > 1 ? " (return std::tuple<Tensor&, ...>)" : "")};
  }
  for (size_t i = 0; i < ret.values.size(); ++i) {
    result.returns.push_back({with_alias(ret.values[i].type, mutable_aliases[i]), ""});
  }
  return result;
}

std::vector<InferError> check_declared(const schema::Schema& declared,
                                       const schema::Schema& inferred) {
  std::vector<InferError> errors;
  const auto& want = declared.arguments;
  const auto& have = inferred.arguments;
  if (want.size() != have.size()) {
    errors.push_back({-1, "opscan-schema-mismatch",
                      fmt::format("schema declares {} argument{}, the C++ function takes {}",
                                  want.size(), want.size() == 1 ? "" : "s", have.size())});
    return errors;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    std::string w = comparable(want[i].type), h = comparable(have[i].type);
    if (w != h) {
      errors.push_back({static_cast<int>(i), "opscan-schema-mismatch",
                        fmt::format("argument {} '{}': schema says {}, C++ parameter is {}", i + 1,
                                    want[i].name, want[i].type.str(), have[i].type.str())});
    }
  }
  bool same_returns = declared.returns.size() == inferred.returns.size();
  for (size_t i = 0; same_returns && i < declared.returns.size(); ++i) {
    same_returns = comparable(declared.returns[i].type) == comparable(inferred.returns[i].type);
  }
  if (!same_returns) {
    auto list = [](const schema::Schema& s) {
      std::string text = s.str();
      return text.substr(text.rfind(" -> ") + 4);
    };
    errors.push_back({-1, "opscan-schema-mismatch",
                      fmt::format("schema returns {}, the C++ function returns {}", list(declared),
                                  list(inferred))});
  }
  return errors;
}

} // namespace opscan::scan
