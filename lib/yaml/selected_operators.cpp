// A document tree (YAML::Load) is fine here: the driver reads these files up
// to a few MiB only, and the walk below counts the nodes it visits, so an
// alias repeated many times cannot multiply the work without bound.
#include "yaml/selected_operators.h"

#include "yaml/marks.h"

#include <map>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

namespace opscan::yaml {
namespace {

constexpr std::string_view kFormat = "opscan-selected-operators";

// The most nodes read: far above any real file (one per operator and key).
constexpr size_t kMaxNodes = 200'000;

struct Problem {
  diag::Location where;
  std::string message;
};

class Walker {
public:
  Walker(std::string_view text, const std::string& path) : path_(path), bom_(bom_size(text)) {}

  diag::Location at(const YAML::Node& node) const { return location(node.Mark(), path_, bom_); }

  [[noreturn]] void fail(const YAML::Node& node, std::string message) const {
    throw Problem{at(node), std::move(message)};
  }

  void visit(const YAML::Node& node) {
    if (++visited_ > kMaxNodes)
      fail(node, "too many entries (more than " + std::to_string(kMaxNodes) + ")");
  }

  std::string scalar(const YAML::Node& node, std::string_view what) {
    visit(node);
    if (!node.IsScalar())
      fail(node, std::string(what) + " must be a string");
    return node.Scalar();
  }

  bool flag(const YAML::Node& node, std::string_view what) {
    const std::string text = scalar(node, what);
    if (text == "true" || text == "True")
      return true;
    if (text == "false" || text == "False")
      return false;
    fail(node, std::string(what) + " must be true or false, not '" + text.substr(0, 40) + "'");
  }

  // A mapping, or nothing (absent, null).
  bool mapping(const YAML::Node& node, std::string_view what) {
    visit(node);
    if (!node || node.IsNull())
      return false;
    if (!node.IsMap())
      fail(node, std::string(what) + " must be a mapping");
    return true;
  }

private:
  const std::string& path_;
  size_t bom_;
  size_t visited_ = 0;
};

SelectedOperators walk(const YAML::Node& root, Walker& w) {
  SelectedOperators out;
  if (!root.IsMap())
    w.fail(root, "not a selected_operators.yaml file: the top level must be a mapping with "
                 "'operators' (and 'et_kernel_metadata')");
  std::map<std::string, size_t> index; // name -> out.operators
  auto entry = [&](const YAML::Node& key) -> SelectedOperator& {
    std::string name = w.scalar(key, "an operator name");
    auto [it, added] = index.try_emplace(name, out.operators.size());
    if (added)
      out.operators.push_back({name, w.at(key), false, std::nullopt});
    return out.operators[it->second];
  };
  for (const auto& item : root) {
    const std::string key = w.scalar(item.first, "a key");
    const YAML::Node& value = item.second;
    if (key == "include_all_operators") {
      out.include_all_operators = w.flag(value, "include_all_operators");
    } else if (key == "operators") {
      if (!w.mapping(value, "operators"))
        continue;
      for (const auto& op : value) {
        SelectedOperator& selected = entry(op.first);
        if (!w.mapping(op.second, "an operator's entry"))
          continue;
        for (const auto& field : op.second) {
          if (w.scalar(field.first, "a key") == "include_all_overloads")
            selected.include_all_overloads = w.flag(field.second, "include_all_overloads");
        }
      }
    } else if (key == "et_kernel_metadata") {
      if (!w.mapping(value, "et_kernel_metadata"))
        continue;
      for (const auto& op : value) {
        SelectedOperator& selected = entry(op.first);
        w.visit(op.second);
        if (!op.second.IsSequence())
          w.fail(op.second, "the kernel keys of an operator must be a list ([default] or "
                            "[\"v1/6;0,1|6;0,1\", ...])");
        if (!selected.keys)
          selected.keys.emplace();
        for (const auto& k : op.second) {
          std::string text = w.scalar(k, "a kernel key");
          selected.keys->push_back({text == "default" ? "" : std::move(text), w.at(k)});
        }
      }
    }
  }
  return out;
}

} // namespace

std::optional<SelectedOperators>
parse_selected_operators(std::string_view text, const std::string& path, diag::Diagnostics& diags) {
  Walker walker(text, path);
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    if (!root || root.IsNull()) {
      diags.push_back(diag::make_error(std::string(kFormat), {path, 1, 1, 0},
                                       "not a selected_operators.yaml file: it is empty"));
      return std::nullopt;
    }
    return walk(root, walker);
  } catch (const Problem& p) {
    diags.push_back(diag::make_error(std::string(kFormat), p.where, p.message));
  } catch (const YAML::DeepRecursion& e) {
    diags.push_back(diag::make_error("opscan-yaml-syntax", location(e.mark, path, bom_size(text)),
                                     "malformed YAML: nested deeper than the reader allows"));
  } catch (const YAML::Exception& e) {
    diags.push_back(diag::make_error("opscan-yaml-syntax", location(e.mark, path, bom_size(text)),
                                     "malformed YAML: " + e.msg));
  }
  return std::nullopt;
}

} // namespace opscan::yaml
