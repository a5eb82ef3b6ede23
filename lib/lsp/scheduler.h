// The open documents and their analyses, as clangd's TUScheduler keeps its
// translation units: one analysis thread that owns the worker process
// (worker.h; libclang and the parsed units live there, kept warm across
// edits), each document's latest snapshot, and the queue of what is due.
// Each document has one pending analysis, of its latest text, debounced
// after edits; the one due longest goes first, so edits to one cannot
// starve the others. Requests about a document run on the analysis thread,
// after the analysis of its current text, with its snapshot. An analysis
// that crashes or times out gives the document one diagnostic saying so,
// and the document is not analysed again until its text differs.
#pragma once

#include "lsp/document.h"
#include "lsp/features.h"
#include "lsp/protocol.h"
#include "lsp/worker.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opscan::lsp {

struct SchedulerOptions {
  // How long after an edit the file is analysed, if no other edit comes.
  std::chrono::milliseconds debounce{25};
  // How long one analysis may take; then its worker is killed.
  std::chrono::milliseconds analysis_timeout{30000};
  WorkerCommand worker;
  Encoding encoding = Encoding::utf16;
  Json hello; // the worker's first message (worker.h)
};

class Scheduler {
public:
  // `send` gets what the scheduler says on its own, from the analysis
  // thread: diagnostics, log messages, the answers of requests.
  using Send = std::function<void(const Json& message)>;
  // What a request makes of its document's snapshot; an exception fails
  // the request with internal_error.
  using Action = std::function<Json(const Snapshot& snapshot)>;

  explicit Scheduler(Send send);
  ~Scheduler(); // ends the analysis thread, abandoning an analysis under way
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Starts the analysis thread (once, at initialize); the worker process
  // starts with the first analysis.
  void start(SchedulerOptions options);
  // For `exit`: ends the thread's work at once; an analysis under way is
  // abandoned, not waited for.
  void stop();

  // Document synchronisation: open or replace, edit (BadParams when it is
  // not open), analyse again now (a save), close (its diagnostics are
  // cleared), and analyse every document again (files they read changed;
  // `database`: a compile database did, which may end a crash or a hang).
  void open(const std::string& uri, const std::string& path, int64_t version, std::string text);
  void change(const std::string& uri, int64_t version, const std::vector<Change>& changes);
  void save(const std::string& uri);
  void close(const std::string& uri);
  void files_changed(bool database);

  // Request `id` (`method`, about document `uri`) is answered with `action`
  // applied to the snapshot of the document's current text, unless it is
  // cancelled first (cancel(), by the id's JSON) or the document is closed
  // or changed meanwhile (the request then fails as LSP says).
  void run(const Json& id, std::string method, std::string uri, Action action);
  void cancel(const std::string& id);

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace opscan::lsp
