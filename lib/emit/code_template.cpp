// Template syntax, beyond the summary in code_template.h:
//  - a "$" not followed by "{" or "$" is literal text (so "$x" stays "$x");
//  - CRLF line ends in the template are read as LF, so output never has CRLF
//    from the template; block items are split into lines the same way;
//  - in a block, indentation goes only on non-empty lines, and a single
//    trailing newline of an item is ignored ("a\n" is one line, "" is one
//    empty line);
//  - inline strings are inserted exactly as given.
#include "emit/code_template.h"

#include <algorithm>
#include <span>

namespace opscan::emit {
namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}
bool is_identifier(std::string_view s) {
  return !s.empty() && is_ident_start(s[0]) && std::all_of(s.begin() + 1, s.end(), is_ident_char);
}

std::string_view chop_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  return line;
}

// A string in block position behaves as a one-item list.
std::span<const std::string> items_of(const TemplateValue& value) {
  if (const auto* s = std::get_if<std::string>(&value))
    return {s, 1};
  return std::get<std::vector<std::string>>(value);
}

void append_indented(std::string& out, std::string_view indent, std::string_view item) {
  if (!item.empty() && item.back() == '\n')
    item.remove_suffix(1);
  for (size_t start = 0;;) {
    size_t end = item.find('\n', start);
    std::string_view line = chop_cr(item.substr(start, end - start));
    if (!line.empty()) {
      out += indent;
      out += line;
    }
    if (end == std::string_view::npos)
      return;
    out += '\n';
    start = end + 1;
  }
}

void append_joined(std::string& out, std::span<const std::string> items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != 0)
      out += ", ";
    out += items[i];
  }
}

} // namespace

std::variant<CodeTemplate, TemplateError> CodeTemplate::parse(std::string name,
                                                              std::string_view text) {
  CodeTemplate t;
  t.name_ = std::move(name);
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) {
      t.pieces_.emplace_back().text = std::move(literal);
      literal.clear();
    }
  };
  auto add_placeholder = [&](std::string_view id, size_t line, size_t column) -> Piece& {
    flush();
    Piece& p = t.pieces_.emplace_back();
    p.text = id;
    p.is_placeholder = true;
    p.line = line;
    p.column = column;
    return p;
  };

  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    ++line_no;
    size_t nl = text.find('\n', pos);
    std::string_view line = chop_cr(text.substr(pos, nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;

    // Block: the placeholder is the only thing on its line. The line's newline
    // stays in the next literal, so render() can drop it with an empty list.
    size_t indent = line.find_first_not_of(" \t");
    if (indent != std::string_view::npos && line.substr(indent, 2) == "${") {
      size_t close = line.find('}', indent);
      if (close != std::string_view::npos &&
          is_identifier(line.substr(indent + 2, close - indent - 2)) &&
          line.find_first_not_of(" \t", close + 1) == std::string_view::npos) {
        Piece& p =
            add_placeholder(line.substr(indent + 2, close - indent - 2), line_no, indent + 1);
        p.is_block = true;
        p.indent = line.substr(0, indent);
        if (nl != std::string_view::npos)
          literal += '\n';
        continue;
      }
    }

    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] != '$' || i + 1 == line.size() || (line[i + 1] != '{' && line[i + 1] != '$')) {
        literal += line[i];
        continue;
      }
      if (line[i + 1] == '$') {
        literal += '$';
        ++i;
        continue;
      }
      auto error = [&](std::string message) {
        return TemplateError{t.name_, line_no, i + 1, std::move(message)};
      };
      size_t close = line.find('}', i + 2);
      if (close == std::string_view::npos)
        return error("unterminated placeholder: '${' without '}' on the same line");
      std::string_view id = line.substr(i + 2, close - i - 2);
      if (id.empty())
        return error("empty placeholder '${}'");
      if (!is_identifier(id))
        return error("invalid placeholder '${" + std::string(id) +
                     "}': the name must match [A-Za-z_][A-Za-z0-9_]*");
      add_placeholder(id, line_no, i + 1);
      i = close;
    }
    if (nl != std::string_view::npos)
      literal += '\n';
  }
  flush();
  return t;
}

std::variant<std::string, TemplateError> CodeTemplate::render(const TemplateEnv& env) const {
  // Resolve every value first: a missing one fails before any output is
  // built, and the size estimate lets the output be reserved once.
  std::vector<const TemplateValue*> values;
  values.reserve(pieces_.size());
  size_t size = 0;
  for (const Piece& p : pieces_) {
    if (!p.is_placeholder) {
      size += p.text.size();
      continue;
    }
    auto it = env.find(p.text);
    if (it == env.end())
      return TemplateError{name_, p.line, p.column, "no value for '${" + p.text + "}'"};
    values.push_back(&it->second);
    for (const std::string& item : items_of(it->second))
      size += item.size() + p.indent.size() + 2;
  }

  std::string out;
  out.reserve(size);
  auto value = values.begin();
  bool drop_newline = false; // set by a block that expanded to nothing
  for (const Piece& p : pieces_) {
    if (!p.is_placeholder) {
      std::string_view text = p.text;
      if (drop_newline && text.front() == '\n')
        text.remove_prefix(1);
      drop_newline = false;
      out += text;
      continue;
    }
    std::span<const std::string> items = items_of(**value++);
    if (!p.is_block) {
      append_joined(out, items);
      continue;
    }
    drop_newline = items.empty();
    for (size_t i = 0; i < items.size(); ++i) {
      if (i != 0)
        out += '\n';
      append_indented(out, p.indent, items[i]);
    }
  }
  return out;
}

std::vector<std::string> CodeTemplate::placeholders() const {
  std::vector<std::string> names;
  for (const Piece& p : pieces_)
    if (p.is_placeholder && std::find(names.begin(), names.end(), p.text) == names.end())
      names.push_back(p.text);
  return names;
}

} // namespace opscan::emit
