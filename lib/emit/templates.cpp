// Loading a target's template: the one compiled in, or a file from --templates.
#include "emit/templates.h"

#include "support/files.h"

#include <filesystem>

namespace opscan::emit {

std::variant<CodeTemplate, TemplateError>
load_template(const std::string& name, const std::optional<std::string>& override_dir) {
  if (override_dir) {
    std::filesystem::path path = std::filesystem::path(*override_dir) / name;
    if (std::filesystem::exists(path)) {
      std::string error;
      auto text = support::read_file(path, &error);
      if (!text)
        return TemplateError{path.string(), 0, 0, "cannot read the template " + path.string() + ": " + error};
      return CodeTemplate::parse(path.string(), *text);
    }
  }
  const auto& builtin = embedded_templates();
  auto it = builtin.find(name);
  if (it == builtin.end())
    return TemplateError{name, 0, 0, "no such template"};
  return CodeTemplate::parse(name, it->second);
}

} // namespace opscan::emit
