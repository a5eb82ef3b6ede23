// Diagnostics as one JSON document (`--format json`).
#include "diag/json.h"

#include "diag/codes.h"

#include <nlohmann/json.hpp>

namespace opscan::diag {
namespace {

using nlohmann::json;

json location_json(const Location& location) {
  if (!location.valid() && location.file.empty())
    return nullptr;
  return {{"file", location.file},
          {"line", location.line},
          {"column", location.column},
          {"offset", location.offset}};
}

} // namespace

std::string render_json(const Diagnostics& diags) {
  json list = json::array();
  for (const Diagnostic& d : diags) {
    json notes = json::array();
    for (const Note& note : d.notes)
      notes.push_back({{"message", note.message}, {"location", location_json(note.location)}});
    json fixes = json::array();
    for (const FixIt& fix : d.fixits) {
      fixes.push_back({{"file", fix.file},
                       {"offset", fix.offset},
                       {"length", fix.length},
                       {"replacement", fix.replacement}});
    }
    list.push_back({{"code", d.code},
                    {"severity", to_string(d.severity)},
                    {"message", d.message},
                    {"location", location_json(d.location)},
                    {"notes", std::move(notes)},
                    {"fixes", std::move(fixes)},
                    {"help", help_url(d.code)}});
  }
  json document = {{"version", kJsonFormatVersion}, {"diagnostics", std::move(list)}};
  // Paths and quoted input need not be UTF-8; JSON must be.
  return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace opscan::diag
