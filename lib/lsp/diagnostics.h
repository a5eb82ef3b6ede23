// opscan's diagnostics in LSP's terms: the one place a diag::Diagnostic
// becomes an LSP Diagnostic, for a document's own findings, the build's
// library overlaps and the server's analysis failures alike. Its fixes
// become the snapshot's "fixes" (analysis.h), each naming its diagnostic.
#pragma once

#include "diag/diag.h"
#include "lsp/document.h"
#include "lsp/protocol.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace opscan::lsp {

// The LSP Diagnostic of `d` at `range`, saying `message` (the diagnostic's
// own, or one that places it), with `related` as its relatedInformation
// (left out when empty). Its code links to its help when opscan knows it.
Json lsp_diagnostic(const diag::Diagnostic& d, const Range& range, std::string message,
                    Json related = Json::array());

// The diagnostics of one analysed document, as they are added: each
// located in the document's text, its notes anywhere (other files are read
// once, for their positions), its fix-its in the document an edit.
class DocumentDiagnostics {
public:
  // `text`: the document's text as analysed; `path`: its file.
  DocumentDiagnostics(const std::string& text, const std::string& path, Encoding encoding);

  // Whether `file` (a path from the analysis) is the document.
  bool here(const std::string& file);
  // The word or string literal at `where` in the document (an empty range
  // when it has no line).
  Range range_of(const diag::Location& where) const;
  // The position of a byte offset in the document.
  Position position(size_t offset) const { return lines_.position(text_, offset, encoding_); }
  // An LSP Location of `where`, in any file.
  Json location(const diag::Location& where);
  // LSP TextEdits of fix-its in the document.
  Json edits(const std::vector<diag::FixIt>& fixits) const;

  // Adds `d` at `range` saying `message`; its notes with a place are its
  // related information, and its fix-its in the document (those that fit
  // its text) a fix.
  void add(const diag::Diagnostic& d, const Range& range, std::string message);

  Json take_diagnostics() { return std::move(diagnostics_); }
  Json take_fixes() { return std::move(fixes_); }

private:
  const std::string& text_;
  std::string self_; // the document's file, canonical
  Encoding encoding_;
  LineIndex lines_;
  std::map<std::string, bool> is_self_; // path -> whether it is the document
  // Other files' texts and line starts, each read once.
  std::map<std::string, std::optional<std::pair<std::string, LineIndex>>> others_;
  Json diagnostics_ = Json::array();
  Json fixes_ = Json::array();
};

} // namespace opscan::lsp
