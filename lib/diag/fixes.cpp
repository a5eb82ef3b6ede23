// Diagnostics' fix-its as clang-tidy's --export-fixes YAML.
#include "diag/fixes.h"

#include "support/text.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <tuple>

namespace opscan::diag {
namespace {

namespace fs = std::filesystem;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view skip_digits(std::string_view s) {
  while (!s.empty() && is_digit(s.front()))
    s.remove_prefix(1);
  return s;
}

// What YAML would read as a number (LLVM's isNumeric): such text is quoted
// to stay a string.
bool is_numeric(std::string_view s) {
  if (s.empty() || s == "+" || s == "-")
    return false;
  if (s == ".nan" || s == ".NaN" || s == ".NAN")
    return true;
  std::string_view tail = s.front() == '-' || s.front() == '+' ? s.substr(1) : s;
  if (tail == ".inf" || tail == ".Inf" || tail == ".INF")
    return true;
  auto only = [](std::string_view digits, const char* allowed) {
    return !digits.empty() && digits.find_first_not_of(allowed) == std::string_view::npos;
  };
  if (s.starts_with("0o"))
    return only(s.substr(2), "01234567");
  if (s.starts_with("0x"))
    return only(s.substr(2), "0123456789abcdefABCDEF");
  // [-+]? (\. [0-9]+ | [0-9]+ (\. [0-9]*)?) ([eE] [-+]? [0-9]+)?
  s = tail;
  if (s.starts_with('.') && (s.size() == 1 || !is_digit(s[1])))
    return false;
  if (s.starts_with('e') || s.starts_with('E'))
    return false;
  s = skip_digits(s);
  if (s.empty())
    return true;
  if (s.front() == '.') {
    s = skip_digits(s.substr(1));
    if (s.empty())
      return true;
  }
  if (s.front() != 'e' && s.front() != 'E')
    return false;
  s.remove_prefix(1);
  if (!s.empty() && (s.front() == '+' || s.front() == '-'))
    s.remove_prefix(1);
  return !s.empty() && skip_digits(s).empty();
}

enum class Quoting { none, single, double_quoted };

// LLVM's needsQuotes (llvm/Support/YAMLTraits.h), which clang-tidy's
// output follows.
Quoting quoting_of(std::string_view s) {
  if (s.empty())
    return Quoting::single;
  Quoting needed = Quoting::none;
  auto space = [](char c) { return std::strchr(" \t\n\v\f\r", c) != nullptr; };
  if (space(s.front()) || space(s.back()))
    needed = Quoting::single;
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s == "true" || s == "True" ||
      s == "TRUE" || s == "false" || s == "False" || s == "FALSE" || is_numeric(s))
    needed = Quoting::single;
  // Indicators would start another YAML construct.
  if (std::string_view(R"(-?:\,[]{}#&*!|>'"%@`)").find(s.front()) != std::string_view::npos)
    needed = Quoting::single;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(ch);
    if (alnum || std::strchr("_-^., \t", ch) != nullptr)
      continue;
    // Line breaks, other control characters, DEL and non-ASCII text are
    // written with escapes.
    if (c < 0x20 || c == 0x7F || c >= 0x80)
      return Quoting::double_quoted;
    needed = Quoting::single;
  }
  return needed;
}

std::string double_quoted(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      auto [length, valid] = support::utf8_sequence(s, i);
      // YAML is Unicode: a byte that is not UTF-8 becomes U+FFFD.
      out += valid ? std::string(s.substr(i, length)) : std::string("\xEF\xBF\xBD");
      i += length;
      continue;
    }
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '"':
      out += "\\\"";
      break;
    case '\0':
      out += "\\0";
      break;
    case '\a':
      out += "\\a";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\v':
      out += "\\v";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\r':
      out += "\\r";
      break;
    case 0x1B:
      out += "\\e";
      break;
    default:
      if (c < 0x20 || c == 0x7F) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      } else {
        out += static_cast<char>(c);
      }
    }
    ++i;
  }
  return out + "\"";
}

// "Key:" padded as LLVM pads a mapping key (to 16 columns, then a blank).
std::string key(std::string_view name) {
  std::string out = std::string(name) + ":";
  out.resize(std::max<size_t>(out.size(), 16), ' ');
  return out + " ";
}

using Replacement = std::tuple<std::string, uint32_t, uint32_t, std::string>;

} // namespace

std::string yaml_scalar(std::string_view text) {
  switch (quoting_of(text)) {
  case Quoting::none:
    return std::string(text);
  case Quoting::single: {
    std::string out = "'";
    for (char c : text)
      out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  }
  case Quoting::double_quoted:
    return double_quoted(text);
  }
  return std::string(text);
}

std::string render_fixes(const Diagnostics& diags, const FixesOptions& options) {
  const fs::path working_dir =
      options.working_dir.empty() ? fs::current_path() : options.working_dir;
  auto absolute = [&](const std::string& file) {
    const fs::path path(file);
    return (path.is_absolute() ? path : working_dir / path).lexically_normal().string();
  };
  std::string main_source;
  if (!options.main_source_file.empty())
    main_source = absolute(options.main_source_file);

  std::string out = "---\n" + key("MainSourceFile") + yaml_scalar(main_source) + "\n";
  std::string listed;
  std::set<Replacement> seen;
  for (const Diagnostic& d : diags) {
    std::vector<Replacement> fresh;
    for (const FixIt& fix : d.fixits) {
      Replacement r{absolute(fix.file), fix.offset, fix.length, fix.replacement};
      if (seen.insert(r).second)
        fresh.push_back(std::move(r));
    }
    if (fresh.empty())
      continue;
    auto message = [&](std::string_view indent, const std::string& text, const Location& where,
                       const std::vector<Replacement>& replacements) {
      listed += std::string(indent) + key("Message") + yaml_scalar(text) + "\n";
      listed += std::string(indent) + key("FilePath") +
                yaml_scalar(where.file.empty() ? "" : absolute(where.file)) + "\n";
      listed += std::string(indent) + key("FileOffset") + std::to_string(where.offset) + "\n";
      if (replacements.empty()) {
        listed += std::string(indent) + key("Replacements") + "[]\n";
        return;
      }
      listed += std::string(indent) + "Replacements:\n";
      for (const auto& [file, offset, length, text] : replacements) {
        listed += std::string(indent) + "  - " + key("FilePath") + yaml_scalar(file) + "\n";
        listed += std::string(indent) + "    " + key("Offset") + std::to_string(offset) + "\n";
        listed += std::string(indent) + "    " + key("Length") + std::to_string(length) + "\n";
        listed += std::string(indent) + "    " + key("ReplacementText") + yaml_scalar(text) + "\n";
      }
    };
    listed += "  - " + key("DiagnosticName") + yaml_scalar(d.code) + "\n";
    listed += "    DiagnosticMessage:\n";
    message("      ", d.message, d.location, fresh);
    if (!d.notes.empty()) {
      listed += "    Notes:\n";
      for (const Note& note : d.notes) {
        listed += "      - ";
        const size_t start = listed.size();
        message("        ", note.message, note.location, {});
        listed.erase(start, 8); // the first key goes after "- "
      }
    }
    listed += "    " + key("Level") +
              (d.severity == Severity::error     ? "Error"
               : d.severity == Severity::warning ? "Warning"
                                                 : "Remark") +
              "\n";
    listed += "    " + key("BuildDirectory") + yaml_scalar(working_dir.string()) + "\n";
  }
  out += listed.empty() ? key("Diagnostics") + "[]\n" : "Diagnostics:\n" + listed;
  return out + "...\n";
}

} // namespace opscan::diag
