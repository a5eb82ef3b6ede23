// The templates of every target, compiled into the binary, and loading them
// with an optional override directory.
#pragma once

#include "emit/code_template.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace opscan::emit {

// "executorch/RegisterKernels.cpp" -> its text, as in templates/.
const std::map<std::string_view, std::string_view>& embedded_templates();

// Loads `name` from `override_dir` when it has that file, else the built-in
// template.
std::variant<CodeTemplate, TemplateError>
load_template(const std::string& name, const std::optional<std::string>& override_dir);

} // namespace opscan::emit
