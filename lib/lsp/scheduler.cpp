// The documents, their queue of analyses, and the thread that runs them.
#include "lsp/scheduler.h"

#include "diag/diag.h"
#include "lsp/diagnostics.h"
#include "lsp/workspace.h"
#include "support/files.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace opscan::lsp {
namespace {

using Clock = std::chrono::steady_clock;

// An analysis that crashed or timed out, and the text it was of: the
// document is not analysed again until its text differs.
struct Failure {
  size_t text_hash = 0;
  Json diagnostic;
};

// A request waiting for its document's analysis.
struct Pending {
  Json id;
  std::string method;
  std::string uri;
  Scheduler::Action action;
};

std::string seconds(std::chrono::milliseconds limit) {
  return fmt::format("{:g} s", static_cast<double>(limit.count()) / 1000);
}

// The array member `name` of a worker's snapshot (an empty array if it
// lacks one: a worker's bug must not break the server).
Json array_of(Json& snapshot, const char* name) {
  if (snapshot.is_object() && snapshot.contains(name) && snapshot[name].is_array())
    return std::move(snapshot[name]);
  return Json::array();
}

// The diagnostic of an analysis that did not end well, at the start of
// the document.
Json failure_diagnostic(const Document& doc, Encoding encoding, bool timed_out,
                        std::string message) {
  const size_t line_end = std::min(doc.text().find('\n'), doc.text().size());
  const Range range{{0, 0}, doc.position(line_end, encoding)};
  diag::Diagnostic d;
  d.severity = timed_out ? diag::Severity::warning : diag::Severity::error;
  d.code = timed_out ? "opscan-analysis-timeout" : "opscan-analysis-crashed";
  return lsp_diagnostic(d, range, std::move(message));
}

} // namespace

struct Scheduler::State {
  Send send;
  SchedulerOptions options;

  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::map<std::string, Document> documents; // by URI
  std::map<std::string, Clock::time_point> due;
  std::deque<Pending> requests;
  std::set<std::string> cancelled; // request ids, dumped
  std::map<std::string, Snapshot> snapshots;
  std::map<std::string, Failure> failures; // by URI
  std::set<std::string> told;              // messages logged once
  // Whether an open document's text is its file's as saved, as last found
  // (saved_as_is()), by URI; forgotten when the text changes.
  struct Saved {
    int64_t version = 0;
    Stamp stamp;
    bool same = false;
  };
  std::map<std::string, Saved> saved;

  std::unique_ptr<Worker> worker; // used by the analysis thread; interrupt() from any
  std::thread analysis_thread;

  void fail(const Json& id, int code, std::string message) {
    send(error_response(id, code, std::move(message)));
  }

  void work();
  bool saved_as_is(const Document& doc);
  Json request_for(const std::string& uri, const Document& doc);
  void absorb(Json& answer, Snapshot& snapshot);
  Json failure(const Document& doc, const WorkerOutcome& outcome, std::chrono::milliseconds limit);
  void analyze_locked(std::unique_lock<std::mutex>& lock, const std::string& uri);
  void answer_locked(std::unique_lock<std::mutex>& lock, const Pending& request);
};

void Scheduler::State::work() {
  std::unique_lock lock(mutex);
  for (;;) {
    if (stop)
      return;
    const Clock::time_point now = Clock::now();
    // The one due longest goes first.
    auto next = std::min_element(due.begin(), due.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    if (next != due.end() && next->second <= now) {
      const std::string uri = next->first;
      due.erase(next);
      analyze_locked(lock, uri);
      continue;
    }
    if (!requests.empty()) {
      Pending request = std::move(requests.front());
      requests.pop_front();
      answer_locked(lock, request);
      continue;
    }
    if (next != due.end())
      wake.wait_until(lock, next->second);
    else
      wake.wait(lock);
  }
}

// Whether `doc`'s text is its file's as saved: the worker reads that
// file from disk as it is, so the text need not be sent (with 400 files
// open, every analysis sent all of them). Read again when the document
// or the file's stamp changes, or while the stamp cannot tell (racy()).
bool Scheduler::State::saved_as_is(const Document& doc) {
  const Stamp stamp = stamp_of(doc.path());
  if (stamp.size != static_cast<off_t>(doc.text().size())) {
    saved.erase(doc.uri());
    return false;
  }
  auto [it, fresh] = saved.try_emplace(doc.uri());
  if (fresh || it->second.version != doc.version() || it->second.stamp != stamp || racy(stamp)) {
    const std::optional<std::string> text =
        support::read_file(doc.path(), nullptr, doc.text().size());
    it->second = {doc.version(), stamp, text && *text == doc.text()};
  }
  return it->second.same;
}

// The worker's request for `doc` (analysis.h), with the other open
// documents whose text differs from their file's.
Json Scheduler::State::request_for(const std::string& uri, const Document& doc) {
  Json request = {
      {"uri", uri}, {"version", doc.version()}, {"text", doc.text()}, {"buffers", Json::array()}};
  for (const auto& [other_uri, document] : documents) {
    if (other_uri != uri && !saved_as_is(document))
      request["buffers"].push_back({{"uri", other_uri}, {"text", document.text()}});
  }
  return request;
}

// Takes a worker's answer into `snapshot`, logging what it says to log
// (each message once).
void Scheduler::State::absorb(Json& answer, Snapshot& snapshot) {
  if (answer.contains("log") && answer["log"].is_array()) {
    for (const Json& entry : answer["log"]) {
      if (!entry.is_object() || !entry.contains("message") || !entry["message"].is_string())
        continue;
      const std::string message = entry["message"].get<std::string>();
      if (told.insert(message).second)
        send(log_message(entry.contains("type") && entry["type"].is_number_integer()
                             ? entry["type"].get<int>()
                             : 3,
                         message));
    }
  }
  Json& made = answer["snapshot"];
  snapshot.diagnostics = array_of(made, "diagnostics");
  snapshot.fixes = array_of(made, "fixes");
  snapshot.kernels = array_of(made, "kernels");
  snapshot.suggestions = array_of(made, "suggestions");
}

// The diagnostic of an analysis that crashed or timed out (logged too).
Json Scheduler::State::failure(const Document& doc, const WorkerOutcome& outcome,
                               std::chrono::milliseconds limit) {
  const bool timed_out = outcome.kind == WorkerOutcome::Kind::timed_out;
  const std::string message =
      timed_out ? fmt::format("opscan stopped analysing this file after {} (the time limit: "
                              "opscan lsp --analysis-timeout, or the analysisTimeout "
                              "initialization option); it is analysed again when it changes",
                              seconds(limit))
                : fmt::format("opscan's analysis of this file crashed (its worker process {}); "
                              "it is analysed again when it changes, and other files are not "
                              "affected",
                              outcome.why);
  send(log_message(2,
                   fmt::format("opscan: the analysis of {} {}", doc.path(),
                               timed_out ? "took longer than " + seconds(limit) + " and was stopped"
                                         : "crashed: " + outcome.why)));
  return failure_diagnostic(doc, options.encoding, timed_out, message);
}

// Analyses `uri` in the worker with the lock released; stores and
// publishes the result if the document is still open.
void Scheduler::State::analyze_locked(std::unique_lock<std::mutex>& lock, const std::string& uri) {
  auto it = documents.find(uri);
  if (it == documents.end())
    return;
  const int64_t version = it->second.version();
  const size_t text_hash = std::hash<std::string>{}(it->second.text());
  Snapshot snapshot;
  snapshot.version = version;
  if (auto failed = failures.find(uri);
      failed != failures.end() && failed->second.text_hash == text_hash) {
    // It failed on this very text: not again until the text changes.
    snapshot.diagnostics.push_back(failed->second.diagnostic);
  } else {
    Json request = request_for(uri, it->second);
    const std::chrono::milliseconds limit = options.analysis_timeout;
    lock.unlock();
    WorkerOutcome outcome = worker->call(request, limit);
    request = Json();
    lock.lock();
    if (outcome.kind == WorkerOutcome::Kind::interrupted)
      return;
    it = documents.find(uri);
    if (it == documents.end())
      return;
    if (outcome.kind == WorkerOutcome::Kind::answered) {
      absorb(outcome.answer, snapshot);
    } else {
      const Json diagnostic = failure(it->second, outcome, limit);
      failures[uri] = {text_hash, diagnostic};
      snapshot.diagnostics.push_back(diagnostic);
    }
  }
  if (it->second.version() == version) {
    send(notification("textDocument/publishDiagnostics",
                      {{"uri", uri}, {"version", version}, {"diagnostics", snapshot.diagnostics}}));
  }
  snapshots[uri] = std::move(snapshot);
}

void Scheduler::State::answer_locked(std::unique_lock<std::mutex>& lock, const Pending& request) {
  const Json& id = request.id;
  const std::string& uri = request.uri;
  if (cancelled.erase(id.dump()))
    return fail(id, error_code::request_cancelled, "cancelled");
  if (!documents.contains(uri))
    return fail(id, error_code::invalid_params, "the document is not open: " + uri);
  // Answer from an analysis of the text as it is now.
  if (due.erase(uri) || !snapshots.contains(uri) ||
      snapshots.at(uri).version != documents.at(uri).version())
    analyze_locked(lock, uri);
  if (stop)
    return;
  if (cancelled.erase(id.dump()))
    return fail(id, error_code::request_cancelled, "cancelled");
  auto doc = documents.find(uri);
  auto snap = snapshots.find(uri);
  if (doc == documents.end() || snap == snapshots.end())
    return fail(id, error_code::content_modified, "the document was closed");
  if (snap->second.version != doc->second.version())
    return fail(id, error_code::content_modified, "the document changed; ask again");
  try {
    send(response(id, request.action(snap->second)));
  } catch (const std::exception& e) {
    // A snapshot the worker made wrong (a bug) fails the request, not the server.
    fail(id, error_code::internal_error, request.method + ": " + e.what());
  }
}

Scheduler::Scheduler(Send send) : state_(std::make_unique<State>()) {
  state_->send = std::move(send);
}

Scheduler::~Scheduler() {
  stop();
  if (state_->analysis_thread.joinable())
    state_->analysis_thread.join();
}

void Scheduler::start(SchedulerOptions options) {
  state_->options = std::move(options);
  state_->worker = std::make_unique<Worker>(state_->options.worker, state_->options.hello);
  state_->analysis_thread = std::thread([state = state_.get()] { state->work(); });
}

void Scheduler::stop() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
    state_->wake.notify_all();
  }
  if (state_->worker)
    state_->worker->interrupt();
}

void Scheduler::open(const std::string& uri, const std::string& path, int64_t version,
                     std::string text) {
  std::lock_guard lock(state_->mutex);
  state_->documents.erase(uri);
  state_->saved.erase(uri);
  state_->documents.emplace(uri, Document(uri, path, version, std::move(text)));
  state_->due[uri] = Clock::now();
  state_->wake.notify_all();
}

void Scheduler::change(const std::string& uri, int64_t version,
                       const std::vector<Change>& changes) {
  std::lock_guard lock(state_->mutex);
  auto it = state_->documents.find(uri);
  if (it == state_->documents.end())
    throw BadParams("a change to a document that is not open: " + uri);
  it->second.apply(changes, version, state_->options.encoding);
  state_->saved.erase(uri);
  state_->due[uri] = Clock::now() + state_->options.debounce;
  state_->wake.notify_all();
}

void Scheduler::save(const std::string& uri) {
  std::lock_guard lock(state_->mutex);
  if (state_->documents.contains(uri)) {
    state_->due[uri] = Clock::now();
    state_->wake.notify_all();
  }
}

void Scheduler::close(const std::string& uri) {
  {
    std::lock_guard lock(state_->mutex);
    state_->documents.erase(uri);
    state_->due.erase(uri);
    state_->snapshots.erase(uri);
    state_->saved.erase(uri);
  }
  state_->send(notification("textDocument/publishDiagnostics",
                            {{"uri", uri}, {"diagnostics", Json::array()}}));
}

void Scheduler::files_changed(bool database) {
  std::lock_guard lock(state_->mutex);
  // A new compile command may end a crash or a hang: every document is
  // tried again.
  if (database)
    state_->failures.clear();
  const Clock::time_point when = Clock::now() + state_->options.debounce;
  for (const auto& [uri, document] : state_->documents)
    state_->due[uri] = when;
  state_->wake.notify_all();
}

void Scheduler::run(const Json& id, std::string method, std::string uri, Action action) {
  std::lock_guard lock(state_->mutex);
  state_->requests.push_back({id, std::move(method), std::move(uri), std::move(action)});
  state_->wake.notify_all();
}

void Scheduler::cancel(const std::string& id) {
  std::lock_guard lock(state_->mutex);
  // Clients cancel requests already answered too: keep the set small.
  if (state_->cancelled.size() > 1000)
    state_->cancelled.clear();
  state_->cancelled.insert(id);
}

} // namespace opscan::lsp
