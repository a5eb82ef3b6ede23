// diag::Diagnostic to LSP Diagnostic, and a document's diagnostics and fixes.
#include "lsp/diagnostics.h"

#include "diag/codes.h"
#include "support/files.h"
#include "support/text.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>

namespace opscan::lsp {
namespace {

const char* kSource = "opscan";

std::string canonical(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The bytes a diagnostic at `offset` covers: the word or string literal
// there, else one character (editors show an empty range badly).
std::pair<size_t, size_t> extent_at(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t end = offset;
  if (end < text.size() && text[end] == '"') {
    const size_t close = text.find_first_of("\"\n", end + 1);
    if (close != std::string_view::npos && text[close] == '"')
      return {offset, close + 1};
  }
  while (end < text.size() && (is_word(text[end]) || text[end] == ':'))
    ++end;
  if (end == offset && end < text.size() && text[end] != '\n')
    ++end;
  return {offset, end};
}

int severity_of(diag::Severity s) {
  switch (s) {
  case diag::Severity::error:
    return 1;
  case diag::Severity::warning:
    return 2;
  case diag::Severity::note:
    return 3;
  }
  return 1;
}

// What a fix does, for its action's title: the words it changes, without
// what the old and new text share ("Change 'float' to 'int'" for a schema
// rewritten whole).
std::string title_of(const std::vector<diag::FixIt>& fixits, std::string_view text) {
  if (fixits.size() != 1)
    return "Apply opscan's fix";
  const diag::FixIt& f = fixits.front();
  std::string_view old = text.substr(std::min<size_t>(f.offset, text.size()), f.length);
  std::string_view now = f.replacement;
  size_t prefix = 0;
  while (prefix < old.size() && prefix < now.size() && old[prefix] == now[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < old.size() - prefix && suffix < now.size() - prefix &&
         old[old.size() - 1 - suffix] == now[now.size() - 1 - suffix])
    ++suffix;
  // Whole words: back to where the word began and on to where it ends.
  while (prefix > 0 && is_word(old[prefix - 1]))
    --prefix;
  while (suffix > 0 && is_word(old[old.size() - suffix]))
    --suffix;
  auto shown = [](std::string_view s) {
    std::string one_line(s);
    std::replace(one_line.begin(), one_line.end(), '\n', ' ');
    return support::clipped(one_line, 60);
  };
  old = old.substr(prefix, old.size() - prefix - suffix);
  now = now.substr(prefix, now.size() - prefix - suffix);
  if (old.empty())
    return fmt::format("Insert '{}'", shown(now));
  if (now.empty())
    return fmt::format("Remove '{}'", shown(old));
  return fmt::format("Change '{}' to '{}'", shown(old), shown(now));
}

} // namespace

Json lsp_diagnostic(const diag::Diagnostic& d, const Range& range, std::string message,
                    Json related) {
  Json out = {{"range", to_json(range)},
              {"severity", severity_of(d.severity)},
              {"source", kSource},
              {"message", std::move(message)}};
  if (!d.code.empty()) {
    out["code"] = d.code;
    if (diag::find_code(d.code))
      out["codeDescription"] = {{"href", diag::help_url(d.code)}};
  }
  if (!related.empty())
    out["relatedInformation"] = std::move(related);
  return out;
}

DocumentDiagnostics::DocumentDiagnostics(const std::string& text, const std::string& path,
                                         Encoding encoding)
    : text_(text), self_(canonical(path)), encoding_(encoding), lines_(text) {}

bool DocumentDiagnostics::here(const std::string& file) {
  auto [it, fresh] = is_self_.try_emplace(file, false);
  if (fresh)
    it->second = !file.empty() && canonical(file) == self_;
  return it->second;
}

Range DocumentDiagnostics::range_of(const diag::Location& where) const {
  if (!where.valid())
    return Range{};
  auto [begin, end] = extent_at(text_, where.offset);
  return Range{lines_.position(text_, begin, encoding_), lines_.position(text_, end, encoding_)};
}

Json DocumentDiagnostics::location(const diag::Location& where) {
  Range r;
  if (here(where.file)) {
    r = range_of(where);
  } else if (where.valid()) {
    auto [it, fresh] = others_.try_emplace(where.file);
    if (fresh) {
      if (std::optional<std::string> other = support::read_file(where.file, nullptr, 16 << 20)) {
        LineIndex index(*other);
        it->second.emplace(std::move(*other), std::move(index));
      }
    }
    if (it->second && where.offset <= it->second->first.size()) {
      const auto& [other, index] = *it->second;
      auto [begin, end] = extent_at(other, where.offset);
      r = {index.position(other, begin, encoding_), index.position(other, end, encoding_)};
    } else {
      r.start = r.end = {where.line - 1, where.column > 0 ? where.column - 1 : 0};
    }
  }
  return {{"uri", uri_of_path(where.file)}, {"range", to_json(r)}};
}

Json DocumentDiagnostics::edits(const std::vector<diag::FixIt>& fixits) const {
  Json edits = Json::array();
  for (const diag::FixIt& f : fixits) {
    Range r{lines_.position(text_, f.offset, encoding_),
            lines_.position(text_, f.offset + f.length, encoding_)};
    edits.push_back({{"range", to_json(r)}, {"newText", f.replacement}});
  }
  return edits;
}

void DocumentDiagnostics::add(const diag::Diagnostic& d, const Range& range, std::string message) {
  Json related = Json::array();
  for (const diag::Note& note : d.notes) {
    if (note.location.file.empty())
      continue;
    related.push_back({{"location", location(note.location)}, {"message", note.message}});
  }
  std::vector<diag::FixIt> fixits;
  for (const diag::FixIt& f : d.fixits) {
    if (here(f.file) && f.offset + f.length <= text_.size() &&
        std::find(fixits.begin(), fixits.end(), f) == fixits.end())
      fixits.push_back(f);
  }
  if (!fixits.empty()) {
    fixes_.push_back({{"range", to_json(range)},
                      {"diagnostic", diagnostics_.size()},
                      {"title", title_of(fixits, text_)},
                      {"edits", edits(fixits)}});
  }
  diagnostics_.push_back(lsp_diagnostic(d, range, std::move(message), std::move(related)));
}

} // namespace opscan::lsp
