// opscan's language server: LSP 3.17 requests and notifications in, JSON
// messages out. Transport-free: the caller reads framed messages (protocol.h)
// and hands each to receive(); `send` is called, from any thread, with each
// message to write. Analyses are debounced after edits and run one at a time
// in a worker process (worker.h), each bounded by a time limit: libclang
// never runs in the server, so no document can crash or freeze it, and the
// reader thread never waits for an analysis (`shutdown` and `exit` are
// answered at once). A document whose analysis crashes or times out gets
// one diagnostic saying so, and is not analysed again until it changes.
//
// Split as clangd's server is: this front checks each message and
// dispatches it through its method table (server.cpp; the lifecycle too);
// the scheduler (scheduler.h) keeps the documents, the analysis thread and
// the worker process; features.h answers hovers and code actions from a
// document's snapshot; the worker's analysis (analysis.h) makes snapshots,
// its diagnostics converted to LSP's in one place (diagnostics.h).
#pragma once

#include "lsp/protocol.h"
#include "lsp/worker.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace opscan::lsp {

struct ServerOptions {
  // How long after an edit the file is analysed, if no other edit comes.
  std::chrono::milliseconds debounce{25};
  // Overrides the workspace's compile_commands.json search (a directory).
  std::optional<std::string> compilation_database_dir;
  // How to start the analysis worker: the opscan binary, `lsp --worker`.
  WorkerCommand worker;
  // How long one analysis may take; then its worker is killed and the
  // document gets an opscan-analysis-timeout diagnostic.
  std::chrono::milliseconds analysis_timeout{30000};
};

class Server {
public:
  using Send = std::function<void(const Json& message)>;
  Server(Send send, ServerOptions options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // One message's body, as read: malformed JSON or an invalid message gets
  // an error response (when it has an id to answer), and serving goes on.
  void receive(std::string_view body);
  // A framing error (from FrameReader): answered as a parse error.
  void receive_error(const std::string& message);

  // Whether `exit` was received, and the process's exit code for it (0
  // after shutdown, 1 without, as LSP says).
  bool exited() const;
  int exit_code() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace opscan::lsp
