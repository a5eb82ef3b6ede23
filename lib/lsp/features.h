// What the server answers from an analysed document: hovers and code
// actions, read from the latest snapshot its analysis made (analysis.h).
// Pure functions of the snapshot: no libclang, no lock, no I/O.
#pragma once

#include "lsp/document.h"
#include "lsp/protocol.h"

#include <cstdint>
#include <string>

namespace opscan::lsp {

// The latest analysis of a document, as the worker made it (analysis.h).
struct Snapshot {
  int64_t version = 0;
  Json diagnostics = Json::array();
  Json fixes = Json::array();
  Json kernels = Json::array();
  Json suggestions = Json::array();
};

// The hover at `at`: the kernel there, or null.
Json hover(const Snapshot& snapshot, Position at);

// The code actions for `range` of the document `uri`: the quick fixes of
// its diagnostics there (one action for diagnostics that share a fix) and
// the rewrites suggested there; edits as documentChanges (versioned) when
// the client takes them.
Json code_actions(const std::string& uri, const Snapshot& snapshot, const Range& range,
                  bool document_changes);

} // namespace opscan::lsp
