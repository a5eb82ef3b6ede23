// `opscan diff`'s report as text, JSON and Markdown.
#include "audit/render.h"

#include "audit/inputs.h"
#include "support/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace opscan::audit {

namespace {

using Json = nlohmann::ordered_json;

// Where a change is: the new kernel, else the old one; "" when neither
// side has a file.
std::string where(const Change& c) {
  for (const std::optional<Site>* side : {&c.new_site, &c.old_site}) {
    if (!*side || (*side)->location.file.empty())
      continue;
    const diag::Location& at = (*side)->location;
    return at.line > 0 ? fmt::format("{}:{}", at.file, at.line) : at.file;
  }
  return "";
}

std::string summary(const DiffResult& result) {
  const size_t breaking = result.count(Compatibility::breaking);
  const size_t compatible = result.count(Compatibility::compatible);
  if (breaking + compatible == 0)
    return "no changes";
  std::string text = fmt::format("{} breaking change{}", breaking, breaking == 1 ? "" : "s");
  if (result.allowed() > 0)
    text += fmt::format(" ({} allowed)", result.allowed());
  return text + fmt::format(", {} compatible", compatible);
}

// How a change is marked: "breaking", "allowed" or "compatible".
std::string_view verdict(const Change& c) {
  if (c.compatibility == Compatibility::compatible)
    return "compatible";
  return c.allowed ? "allowed" : "breaking";
}

Json site_json(const std::optional<Site>& site) {
  if (!site)
    return nullptr;
  return Json{{"library", site->library},
              {"value", site->value},
              {"file", site->location.file},
              {"line", site->location.line},
              {"column", site->location.column}};
}

} // namespace

std::string render_text(const DiffResult& result) {
  std::string out = "opscan diff: " + summary(result) + "\n";
  const std::string* library = nullptr;
  const std::string* op = nullptr;
  for (const Change& c : result.changes) {
    if (library == nullptr || *library != c.library) {
      library = &c.library;
      op = nullptr;
      out += fmt::format("library {}:\n", support::quoted(display_name(c.library), 200));
    }
    if (op == nullptr || *op != c.op) {
      op = &c.op;
      out += fmt::format("  {}:\n", c.op.empty() ? "(the library)" : c.op);
    }
    out += fmt::format("    {} {}: {}", verdict(c), c.change, c.message);
    if (const std::string at = where(c); !at.empty())
      out += " [" + at + "]";
    if (c.allowed) {
      out += fmt::format("\n      allowed until {}: {}", c.allowed->expires,
                         support::clipped(c.allowed->reason, 500));
    }
    out += "\n";
  }
  return out;
}

std::string render_json(const DiffResult& result) {
  Json changes = Json::array();
  for (const Change& c : result.changes) {
    Json allowed = nullptr;
    if (c.allowed)
      allowed = Json{{"reason", c.allowed->reason}, {"expires", c.allowed->expires}};
    changes.push_back(Json{{"library", c.library},
                           {"operator", c.op},
                           {"change", c.change},
                           {"compatibility", to_string(c.compatibility)},
                           {"argument", c.argument.empty() ? Json(nullptr) : Json(c.argument)},
                           {"position", c.position ? Json(*c.position) : Json(nullptr)},
                           {"message", c.message},
                           {"old", site_json(c.old_site)},
                           {"new", site_json(c.new_site)},
                           {"allowed", allowed}});
  }
  Json doc{{"version", 1},
           {"breaking", result.count(Compatibility::breaking)},
           {"compatible", result.count(Compatibility::compatible)},
           {"allowed", result.allowed()},
           {"changes", std::move(changes)}};
  // Replacement characters for bytes that are not UTF-8: no input makes the
  // document unwritable.
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '|':
      out += "\\|";
      break;
    case '`':
      out += "\\`";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '\n':
    case '\r':
      out += ' ';
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  if (text.find_first_of("`\n\r") != std::string_view::npos)
    return markdown_cell(text);
  std::string out = "`";
  for (char c : text)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out + "`";
}

std::string render_markdown(const DiffResult& result) {
  std::string out = "### opscan diff: " + summary(result) + "\n";
  if (result.changes.empty())
    return out;
  if (result.not_allowed() > 0)
    out += fmt::format("\n**{} breaking change{} not allowed.**\n", result.not_allowed(),
                       result.not_allowed() == 1 ? "" : "s");
  out += "\n| | Library | Operator | Change | Details | Location |\n"
         "|---|---|---|---|---|---|\n";
  // Breaking (not allowed) first, then allowed, then compatible.
  for (std::string_view pass : {"breaking", "allowed", "compatible"}) {
    for (const Change& c : result.changes) {
      if (verdict(c) != pass)
        continue;
      std::string details = markdown_cell(c.message);
      if (c.allowed) {
        details += markdown_cell(fmt::format(" (allowed until {}: {})", c.allowed->expires,
                                             support::clipped(c.allowed->reason, 500)));
      }
      out += fmt::format(
          "| {} | {} | {} | `{}` | {} | {} |\n", pass, markdown_cell(display_name(c.library)),
          c.op.empty() ? "" : markdown_code(c.op), c.change, details, markdown_cell(where(c)));
    }
  }
  return out;
}

} // namespace opscan::audit
