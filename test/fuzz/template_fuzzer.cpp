// libFuzzer target for the code template engine (lib/emit/code_template.h).
// The input is a template, then optionally a NUL byte and values separated by
// NUL bytes (a value starting with \x01 is a list of \x01-separated items).
// Whatever the bytes: no crash; a parse error points at the "${" it is
// about; a missing value is reported at its placeholder; a template whose
// every placeholder has a value renders (and the same way twice); a
// template without placeholders renders as its text, "$$" read as "$" and
// line ends as LF.
#include "emit/code_template.h"

#include "fuzz_check.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#define FUZZ_TARGET "template_fuzzer"

namespace {

using namespace opscan::emit;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos)
      return parts;
    start = end + 1;
  }
}

std::string_view chop_cr(std::string_view line) {
  return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}

// Line `line` (1-based) of `text` as the engine reads it, CR dropped.
std::string_view line_at(std::string_view text, size_t line) {
  const std::vector<std::string_view> lines = split(text, '\n');
  return line >= 1 && line <= lines.size() ? chop_cr(lines[line - 1]) : std::string_view();
}

// What a template without placeholders renders to.
std::string plain_text(std::string_view text) {
  std::string out;
  const std::vector<std::string_view> lines = split(text, '\n');
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string_view line = chop_cr(lines[n]);
    for (size_t i = 0; i < line.size(); ++i) {
      out += line[i];
      if (line[i] == '$' && i + 1 < line.size() && line[i + 1] == '$')
        ++i;
    }
    if (n + 1 < lines.size())
      out += '\n';
  }
  return out;
}

bool is_identifier(std::string_view s) {
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  return !s.empty() && start(s[0]) &&
         std::all_of(s.begin() + 1, s.end(), [&](char c) { return start(c) || (c >= '0' && c <= '9'); });
}

// The error is at a "${" of the template (its line and byte column).
void check_located(const TemplateError& e, std::string_view text, std::string_view input) {
  FUZZ_CHECK(e.template_name == "fuzz.tmpl", input);
  FUZZ_CHECK(!e.message.empty(), input);
  const std::string_view line = line_at(text, e.line);
  FUZZ_CHECK(e.column >= 1 && e.column + 1 <= line.size(), input);
  FUZZ_CHECK(line.substr(e.column - 1, 2) == "${", input);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  std::vector<std::string_view> values;
  if (nul != std::string_view::npos)
    values = split(input.substr(nul + 1), '\0');

  auto parsed = CodeTemplate::parse("fuzz.tmpl", text);
  if (const auto* error = std::get_if<TemplateError>(&parsed)) {
    check_located(*error, text, input);
    return 0;
  }
  const CodeTemplate& t = std::get<CodeTemplate>(parsed);
  FUZZ_CHECK(t.name() == "fuzz.tmpl", input);
  const std::vector<std::string> names = t.placeholders();
  for (size_t i = 0; i < names.size(); ++i) {
    FUZZ_CHECK(is_identifier(names[i]), input);
    FUZZ_CHECK(text.find("${" + names[i] + "}") != std::string_view::npos, input);
    FUZZ_CHECK(std::find(names.begin(), names.begin() + i, names[i]) == names.begin() + i, input);
  }

  const auto bare = t.render({});
  if (names.empty()) {
    FUZZ_CHECK(std::holds_alternative<std::string>(bare), input);
    FUZZ_CHECK(std::get<std::string>(bare) == plain_text(text), input);
    return 0;
  }
  // The first placeholder is the first without a value.
  const auto* missing = std::get_if<TemplateError>(&bare);
  FUZZ_CHECK(missing != nullptr, input);
  check_located(*missing, text, input);
  FUZZ_CHECK(line_at(text, missing->line).substr(missing->column - 1).starts_with("${" + names[0] + "}"),
             input);
  FUZZ_CHECK(missing->message.find(names[0]) != std::string::npos, input);

  TemplateEnv env, empty_env;
  for (size_t i = 0; i < names.size(); ++i) {
    empty_env.emplace(names[i], std::string());
    if (values.empty()) {
      env.emplace(names[i], names[i]);
      continue;
    }
    const std::string_view value = values[i % values.size()];
    if (value.starts_with('\x01')) {
      std::vector<std::string> items;
      for (std::string_view item : split(value.substr(1), '\x01'))
        items.emplace_back(item);
      env.emplace(names[i], std::move(items));
    } else {
      env.emplace(names[i], std::string(value));
    }
  }
  const auto rendered = t.render(env);
  FUZZ_CHECK(std::holds_alternative<std::string>(rendered), input);
  const auto rendered_again = t.render(env);
  FUZZ_CHECK(std::holds_alternative<std::string>(rendered_again), input);
  FUZZ_CHECK(std::get<std::string>(rendered_again) == std::get<std::string>(rendered), input);
  // Empty values only take text away: "${x}" and its line's blanks go.
  const auto emptied = t.render(empty_env);
  FUZZ_CHECK(std::holds_alternative<std::string>(emptied), input);
  FUZZ_CHECK(std::get<std::string>(emptied).size() <= text.size(), input);
  return 0;
}
