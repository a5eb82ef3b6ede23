// opscan's language server: LSP 3.17 requests and notifications in, JSON
// messages out. Transport-free: the caller reads framed messages (protocol.h)
// and hands each to receive(); `send` is called, from any thread, with each
// message to write. Analyses run on a worker thread, debounced after edits;
// the reader thread never waits for libclang.
#pragma once

#include "lsp/protocol.h"

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
