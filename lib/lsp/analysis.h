// One document's analysis, as the language server's worker process runs it
// (worker.h): its compile command (workspace.h), libclang's parse kept warm
// across edits (units.h, scan/live.h), opscan's findings, what the build's
// libraries say of it (libraries.h); the result is a snapshot in LSP's
// terms (positions in the negotiated encoding, diagnostics converted by
// diagnostics.h) that the server answers requests from without libclang
// (features.h).
//
// The messages (JSON, framed as LSP's, protocol.h):
//   hello, once:  {"parent": pid, "options": {AnalyzerOptions}}
//   request:      {"uri", "version", "text", "buffers": [{"uri", "text"}]}
//                 (buffers: the other open documents whose text is not their
//                 file's as saved, standing for their files; paths travel as
//                 file: URIs, so that any byte of a name survives)
//   answer:       {"snapshot": {...}, "log": [{"type", "message"}]}
// A snapshot: {"diagnostics": [LSP diagnostics],
//              "fixes": [{"range", "diagnostic": index, "title", "edits"}],
//              "kernels": [{"range", "hover": markdown}],
//              "suggestions": [{"range", "title", "edits"}]}
// (edits: LSP TextEdits in the analysed text).
#pragma once

#include "emit/target.h"
#include "lsp/document.h"
#include "lsp/protocol.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opscan::lsp {

// The server's settings an analysis needs (from its command line and the
// client's initializationOptions).
struct AnalyzerOptions {
  std::optional<std::string> compilation_database_dir;
  std::vector<std::string> schemas;           // known-schemas files
  std::string target = emit::kDefaultTarget;  // for files no generated library holds
  Encoding encoding = Encoding::utf16;
};

Json to_json(const AnalyzerOptions& options);
AnalyzerOptions analyzer_options(const Json& json);

class Analyzer {
public:
  explicit Analyzer(AnalyzerOptions options);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // Answers one request (above); a malformed one gets a snapshot with an
  // internal-error diagnostic.
  Json analyze(const Json& request);

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace opscan::lsp
