// Hovers and code actions, answered from a document's snapshot.
#include "lsp/features.h"

#include <algorithm>
#include <vector>

namespace opscan::lsp {
namespace {

bool inside(Position p, const Range& r) {
  auto before = [](Position a, Position b) {
    return a.line < b.line || (a.line == b.line && a.character <= b.character);
  };
  return before(r.start, p) && before(p, r.end);
}

bool overlaps(const Range& a, const Range& b) {
  return inside(a.start, b) || inside(a.end, b) || inside(b.start, a);
}

Json edit_of(const std::string& uri, const Snapshot& s, const Json& edits, bool document_changes) {
  if (document_changes) {
    return {{"documentChanges",
             {{{"textDocument", {{"uri", uri}, {"version", s.version}}}, {"edits", edits}}}}};
  }
  return {{"changes", {{uri, edits}}}};
}

} // namespace

Json hover(const Snapshot& s, Position at) {
  for (const Json& kernel : s.kernels) {
    if (!inside(at, range_of(kernel.at("range"))))
      continue;
    return {{"contents", {{"kind", "markdown"}, {"value", kernel.at("hover")}}},
            {"range", kernel.at("range")}};
  }
  return nullptr;
}

Json code_actions(const std::string& uri, const Snapshot& s, const Range& range,
                  bool document_changes) {
  Json actions = Json::array();
  std::vector<const Json*> offered; // the edits of each action
  for (const Json& fix : s.fixes) {
    if (!overlaps(range_of(fix.at("range")), range))
      continue;
    const Json& edits = fix.at("edits");
    const size_t index = fix.at("diagnostic").get<size_t>();
    const Json diagnostic = index < s.diagnostics.size() ? s.diagnostics[index] : Json();
    // Two diagnostics with one fix (a schema that several mismatches
    // rewrite) are one action.
    auto same =
        std::find_if(offered.begin(), offered.end(), [&](const Json* e) { return *e == edits; });
    if (same != offered.end()) {
      actions[static_cast<size_t>(same - offered.begin())]["diagnostics"].push_back(diagnostic);
      continue;
    }
    offered.push_back(&edits);
    actions.push_back({{"title", fix.at("title")},
                       {"kind", "quickfix"},
                       {"isPreferred", true},
                       {"diagnostics", {diagnostic}},
                       {"edit", edit_of(uri, s, edits, document_changes)}});
  }
  for (const Json& suggestion : s.suggestions) {
    if (!overlaps(range_of(suggestion.at("range")), range))
      continue;
    actions.push_back({{"title", suggestion.at("title")},
                       {"kind", "refactor.rewrite"},
                       {"edit", edit_of(uri, s, suggestion.at("edits"), document_changes)}});
  }
  return actions;
}

} // namespace opscan::lsp
