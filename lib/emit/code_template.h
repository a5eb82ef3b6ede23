// Code templates with torchgen's "${name}" convention:
//  - "${name}" alone on a line (only whitespace around it) expands a list one
//    item per line, each line of each item indented like the placeholder; an
//    empty list removes the line;
//  - "${name}" inside a line expands a string, or a list joined with ", ".
//  - "$$" is a literal "$".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace opscan::emit {

using TemplateValue = std::variant<std::string, std::vector<std::string>>;
using TemplateEnv = std::map<std::string, TemplateValue, std::less<>>;

struct TemplateError {
  std::string template_name;
  size_t line = 0;     // 1-based
  size_t column = 0;   // 1-based
  std::string message; // e.g. "no value for '${kernels}'"
};

class CodeTemplate {
public:
  // Parses `text`; fails on a malformed placeholder ("${", "${}", "${a b}").
  static std::variant<CodeTemplate, TemplateError> parse(std::string name, std::string_view text);

  // Fails when a placeholder has no value in `env`, or a list is used where
  // only a string fits. Values in env that are not used are not an error.
  std::variant<std::string, TemplateError> render(const TemplateEnv& env) const;

  const std::string& name() const { return name_; }
  // Placeholder names used by the template, in order of first use.
  std::vector<std::string> placeholders() const;

private:
  struct Piece {
    std::string text; // literal text, or the placeholder name
    bool is_placeholder = false;
    bool is_block = false; // placeholder alone on its line
    std::string indent;    // block only
    size_t line = 0, column = 0;
  };
  std::string name_;
  std::vector<Piece> pieces_;
};

} // namespace opscan::emit
