// Diagnostics as a SARIF 2.1.0 log (`--format sarif`), with stable fingerprints.
#include "diag/sarif.h"

#include "diag/codes.h"
#include "diag/source_file.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/text.h"
#include "support/version.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <tuple>
#include <vector>

namespace opscan::diag {
namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr std::string_view kRootId = "%SRCROOT%";
constexpr std::string_view kFingerprint = "opscanFingerprint/v1";

std::string_view trimmed(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; };
  while (!text.empty() && blank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && blank(text.back()))
    text.remove_suffix(1);
  return text;
}

// A rule's "friendly name", a Pascal-case identifier as SARIF recommends:
// opscan-scan-unnamed-parameter -> ScanUnnamedParameter.
std::string friendly_name(std::string_view code) {
  if (code.starts_with("opscan-"))
    code.remove_prefix(7);
  std::string name;
  bool word_start = true;
  for (char c : code) {
    if (c == '-') {
      word_start = true;
      continue;
    }
    name += word_start && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    word_start = false;
  }
  return name;
}

bool is_within(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  // A trailing separator of `dir` is an empty last component.
  return d == dir.end() || (std::next(d) == dir.end() && d->empty());
}

class Renderer {
public:
  explicit Renderer(const SarifOptions& options) : options_(options) {
    working_dir_ = options.working_dir.empty() ? fs::current_path() : options.working_dir;
    root_ = absolute(options.source_root);
  }

  json log(const Diagnostics& diags) {
    json results = json::array();
    for (const Diagnostic& d : diags)
      results.push_back(result(d));
    std::string root_uri = "file://" + uri_path(root_.generic_string());
    if (root_uri.back() != '/')
      root_uri += '/';
    json driver = {{"name", "opscan"},
                   {"version", support::opscan_version()},
                   {"semanticVersion", support::opscan_version()},
                   {"informationUri", docs_url()},
                   {"rules", std::move(rules_)}};
    json run = {{"tool", {{"driver", std::move(driver)}}},
                {"originalUriBaseIds", {{kRootId, {{"uri", root_uri}}}}},
                // opscan's columns count bytes; SARIF's count characters of
                // a kind the log names. Columns are converted from the
                // file's line text to Unicode code points.
                {"columnKind", "unicodeCodePoints"},
                {"results", std::move(results)}};
    return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
            {"version", "2.1.0"},
            {"runs", json::array({std::move(run)})}};
  }

private:
  fs::path absolute(const fs::path& path) const {
    return (path.is_absolute() ? path : working_dir_ / path).lexically_normal();
  }

  // The artifactLocation of `file`: relative to %SRCROOT% when inside it.
  json artifact(const std::string& file) const {
    const fs::path path = absolute(file);
    if (is_within(path, root_)) {
      return {{"uri", uri_path(path.lexically_relative(root_).generic_string())},
              {"uriBaseId", kRootId}};
    }
    return {{"uri", "file://" + uri_path(path.generic_string())}};
  }

  const SourceFile* load(const std::string& file) {
    if (options_.source_files && !options_.source_files->contains(file))
      return nullptr;
    auto [it, fresh] = files_.try_emplace(file);
    if (fresh)
      it->second = read_source(absolute(file).string());
    return it->second ? &*it->second : nullptr;
  }

  // The text of `location`'s line, when the file can be read.
  std::optional<std::string_view> line_text(const Location& location) {
    const SourceFile* lines = location.valid() ? load(location.file) : nullptr;
    if (lines == nullptr || location.line > lines->line_starts.size())
      return std::nullopt;
    return lines->line(location.line);
  }

  // The code points of `line` (location's) before `byte`, counted from the
  // nearest of the checkpoints kept per line, so that thousands of
  // diagnostics on one long line (a minified file) take linear time.
  size_t code_points_before(const Location& location, std::string_view line, size_t byte) {
    constexpr size_t kStride = 4096;
    auto [it, fresh] = checkpoints_.try_emplace({location.file, location.line});
    std::vector<size_t>& marks = it->second; // code points before k * kStride
    if (fresh) {
      marks.push_back(0);
      for (size_t at = kStride; at <= line.size(); at += kStride)
        marks.push_back(marks.back() + code_points(line.substr(at - kStride, kStride)));
    }
    const size_t k = byte / kStride;
    return marks[k] + code_points(line.substr(k * kStride, byte - k * kStride));
  }

  json physical(const Location& location) {
    json physical = {{"artifactLocation", artifact(location.file)}};
    if (!location.valid())
      return physical;
    json region = {{"startLine", location.line}};
    std::optional<std::string_view> line = line_text(location);
    if (location.column != 0 && line) {
      const size_t byte = location.column - 1;
      const size_t column =
          byte <= line->size()
              ? code_points_before(location, *line, byte)
              : code_points_before(location, *line, line->size()) + (byte - line->size());
      region["startColumn"] = column + 1;
      // Only an offset the file confirms: not every stage records one.
      const SourceFile& lines = *load(location.file);
      if (lines.line_starts[location.line - 1] + byte == location.offset)
        region["byteOffset"] = location.offset;
    }
    physical["region"] = std::move(region);
    return physical;
  }

  json location_json(const Location& location) {
    if (!location.valid() && location.file.empty())
      return json::object();
    return {{"physicalLocation", physical(location)}};
  }

  size_t rule_index(const std::string& code) {
    auto [it, fresh] = rule_indices_.try_emplace(code, rules_.size());
    if (fresh) {
      const CodeInfo* info = find_code(code);
      json rule = {
          {"id", code},
          {"name", friendly_name(code)},
          {"shortDescription", {{"text", info != nullptr ? std::string(info->summary) : code}}},
          {"helpUri", help_url(code)}};
      rules_.push_back(std::move(rule));
    }
    return it->second;
  }

  // SHA-256 of the code, the file's URI, the trimmed line and the message,
  // each followed by a line break (but the message). The hash of what comes
  // before the message is kept per code and line: thousands of diagnostics
  // on one long line hash it once.
  std::string fingerprint(const Diagnostic& d) {
    auto [it, fresh] =
        fingerprint_prefixes_.try_emplace({d.code, d.location.file, d.location.line});
    if (fresh) {
      support::Sha256& prefix = it->second;
      prefix.update(d.code).update("\n");
      if (!d.location.file.empty())
        prefix.update(artifact(d.location.file)["uri"].get<std::string>());
      prefix.update("\n");
      if (std::optional<std::string_view> line = line_text(d.location))
        prefix.update(trimmed(*line));
      prefix.update("\n");
    }
    return support::Sha256(it->second).update(d.message).hex();
  }

  json fixes(const std::vector<FixIt>& fixits) const {
    // One fix: the diagnostic's fix-its together, grouped by file.
    json changes = json::array();
    std::map<std::string, size_t> change_of;
    for (const FixIt& fix : fixits) {
      auto [it, fresh] = change_of.try_emplace(fix.file, changes.size());
      if (fresh) {
        changes.push_back(
            {{"artifactLocation", artifact(fix.file)}, {"replacements", json::array()}});
      }
      changes[it->second]["replacements"].push_back(
          {{"deletedRegion", {{"byteOffset", fix.offset}, {"byteLength", fix.length}}},
           {"insertedContent", {{"text", fix.replacement}}}});
    }
    json fix = json::object();
    fix["artifactChanges"] = std::move(changes);
    return json::array({std::move(fix)});
  }

  json result(const Diagnostic& d) {
    const size_t index = rule_index(d.code);
    json result = {{"ruleId", d.code},
                   {"ruleIndex", index},
                   {"level", to_string(d.severity)},
                   {"message", {{"text", support::clipped(d.message, kMaxMessageBytes)}}}};
    if (!d.location.file.empty())
      result["locations"] = json::array({location_json(d.location)});
    if (!d.notes.empty()) {
      json related = json::array();
      for (size_t i = 0; i < d.notes.size(); ++i) {
        json location = location_json(d.notes[i].location);
        location["id"] = i;
        location["message"] = {{"text", support::clipped(d.notes[i].message, kMaxMessageBytes)}};
        related.push_back(std::move(location));
      }
      result["relatedLocations"] = std::move(related);
    }
    if (!d.fixits.empty())
      result["fixes"] = fixes(d.fixits);
    result["partialFingerprints"] = {{kFingerprint, fingerprint(d)}};
    return result;
  }

  const SarifOptions& options_;
  fs::path working_dir_;
  fs::path root_;
  json rules_ = json::array();
  std::map<std::string, size_t> rule_indices_;
  std::map<std::string, std::optional<SourceFile>> files_;
  std::map<std::pair<std::string, size_t>, std::vector<size_t>> checkpoints_;
  std::map<std::tuple<std::string, std::string, size_t>, support::Sha256> fingerprint_prefixes_;
};

} // namespace

std::string uri_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                            (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' ||
                            c == '~' || c == '/';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

std::string render_sarif(const Diagnostics& diags, const SarifOptions& options) {
  Renderer renderer(options);
  // Messages and paths need not be UTF-8; SARIF (JSON) must be.
  return renderer.log(diags).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace opscan::diag
