// The language server: LSP messages in and out, analyses run through the worker.
#include "lsp/server.h"

#include "diag/codes.h"
#include "driver/driver.h"
#include "emit/registry.h"
#include "lsp/analysis.h"
#include "lsp/document.h"
#include "lsp/workspace.h"
#include "support/files.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace opscan::lsp {
namespace {

using Clock = std::chrono::steady_clock;

// A malformed message: answered with invalid_params, never a crash.
struct BadParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const Json& member(const Json& object, const char* name) {
  if (!object.is_object() || !object.contains(name))
    throw BadParams(fmt::format("missing '{}'", name));
  return object.at(name);
}

std::string string_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_string())
    throw BadParams(fmt::format("'{}' is not a string", name));
  return value.get<std::string>();
}

int64_t integer_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_number_integer())
    throw BadParams(fmt::format("'{}' is not an integer", name));
  return value.get<int64_t>();
}

uint32_t unsigned_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_number_unsigned() || value.get<uint64_t>() > UINT32_MAX)
    throw BadParams(fmt::format("'{}' is not an unsigned integer", name));
  return value.get<uint32_t>();
}

Position position_of(const Json& json) {
  return {unsigned_member(json, "line"), unsigned_member(json, "character")};
}

Range range_of(const Json& json) {
  return {position_of(member(json, "start")), position_of(member(json, "end"))};
}

Json to_json(Position p) {
  return {{"line", p.line}, {"character", p.character}};
}

Json to_json(const Range& r) {
  return {{"start", to_json(r.start)}, {"end", to_json(r.end)}};
}

bool inside(Position p, const Range& r) {
  auto before = [](Position a, Position b) {
    return a.line < b.line || (a.line == b.line && a.character <= b.character);
  };
  return before(r.start, p) && before(p, r.end);
}

bool overlaps(const Range& a, const Range& b) {
  return inside(a.start, b) || inside(a.end, b) || inside(b.start, a);
}

// The latest analysis of a document, as the worker made it (analysis.h).
struct Snapshot {
  int64_t version = 0;
  Json diagnostics = Json::array();
  Json fixes = Json::array();
  Json kernels = Json::array();
  Json suggestions = Json::array();
};

// An analysis that crashed or timed out, and the text it was of: the
// document is not analysed again until its text differs.
struct Failure {
  size_t text_hash = 0;
  Json diagnostic;
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

} // namespace

struct Server::State {
  Send send;
  ServerOptions options;

  mutable std::mutex mutex;
  std::condition_variable wake;
  bool initialized = false;
  bool shut_down = false;
  bool exit = false;
  bool stop = false;
  Encoding encoding = Encoding::utf16;
  bool document_changes = false;
  bool watch_files = false; // the client registers file watchers for servers
  std::string default_target = "executorch";
  std::map<std::string, Document> documents; // by URI
  std::map<std::string, Clock::time_point> due;
  std::deque<Json> requests;
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

  // --- reader thread ---

  void reply(const Json& id, Json result) { send(response(id, std::move(result))); }
  void fail(const Json& id, int code, std::string message) {
    send(error_response(id, code, std::move(message)));
  }
  void log(int type, std::string message) {
    send(notification("window/logMessage", {{"type", type}, {"message", std::move(message)}}));
  }

  void handle(const Json& message) {
    const std::string method =
        message.at("method").is_string() ? message.at("method").get<std::string>() : std::string();
    const bool request = is_request(message);
    const Json id = request ? message.at("id") : Json();
    if (request && !(id.is_string() || id.is_number_integer()))
      return fail(nullptr, error_code::invalid_request, "a request id is a string or an integer");
    const Json params = message.contains("params") ? message.at("params") : Json::object();
    try {
      if (method == "exit") {
        std::lock_guard lock(mutex);
        exit = true;
        stop = true;
        wake.notify_all();
        // An analysis under way is abandoned: exit does not wait for it.
        if (worker)
          worker->interrupt();
        return;
      }
      if (method == "initialize") {
        if (!request)
          return;
        if (initialized)
          return fail(id, error_code::invalid_request, "initialize was sent twice");
        return reply(id, initialize(params));
      }
      if (!initialized) {
        if (request)
          fail(id, error_code::server_not_initialized, "the server is not initialized");
        return;
      }
      if (method == "shutdown") {
        std::lock_guard lock(mutex);
        shut_down = true;
        return reply(id, nullptr);
      }
      if (shut_down) {
        if (request)
          fail(id, error_code::invalid_request, "the server is shut down");
        return;
      }
      if (method == "textDocument/didOpen")
        return did_open(params);
      if (method == "textDocument/didChange")
        return did_change(params);
      if (method == "textDocument/didSave")
        return schedule(string_member(member(params, "textDocument"), "uri"), {});
      if (method == "textDocument/didClose")
        return did_close(params);
      if (method == "workspace/didChangeWatchedFiles")
        return did_change_watched_files(params);
      if (method == "initialized")
        return watch();
      if (method == "$/cancelRequest") {
        std::lock_guard lock(mutex);
        // Clients cancel requests already answered too: keep the set small.
        if (cancelled.size() > 1000)
          cancelled.clear();
        cancelled.insert(member(params, "id").dump());
        return;
      }
      if (method == "textDocument/codeAction" || method == "textDocument/hover") {
        // Checked here, so the analysis thread only meets well-formed requests.
        string_member(member(params, "textDocument"), "uri");
        if (method == "textDocument/hover")
          position_of(member(params, "position"));
        else
          range_of(member(params, "range"));
        std::lock_guard lock(mutex);
        requests.push_back(message);
        wake.notify_all();
        return;
      }
      if (method == "workspace/didChangeConfiguration" || method.starts_with("$/"))
        return;
      if (request)
        fail(id, error_code::method_not_found, "unknown method '" + method + "'");
    } catch (const std::exception& e) { // BadParams, and nlohmann's type errors
      if (request)
        fail(id, error_code::invalid_params, method + ": " + e.what());
      else
        log(1, "opscan: ignored " + method + ": " + e.what());
    }
  }

  Json initialize(const Json& params) {
    const Json capabilities = params.value("capabilities", Json::object());
    const Json encodings =
        capabilities.value("general", Json::object()).value("positionEncodings", Json::array());
    Json options = params.value("initializationOptions", Json::object());
    if (!options.is_object())
      options = Json::object();
    AnalyzerOptions analyzer;
    analyzer.compilation_database_dir = this->options.compilation_database_dir;
    if (options.contains("compilationDatabasePath") &&
        options["compilationDatabasePath"].is_string())
      analyzer.compilation_database_dir = options["compilationDatabasePath"].get<std::string>();
    if (options.contains("debounceMs") && options["debounceMs"].is_number_unsigned())
      this->options.debounce = std::chrono::milliseconds(
          std::min<uint64_t>(options["debounceMs"].get<uint64_t>(), 10000));
    if (options.contains("analysisTimeout") && options["analysisTimeout"].is_number() &&
        options["analysisTimeout"].get<double>() > 0) {
      // Seconds; at most a day (a larger count is no limit anyway).
      this->options.analysis_timeout = std::chrono::milliseconds(static_cast<int64_t>(
          std::min(options["analysisTimeout"].get<double>(), 86400.0) * 1000 + 0.5));
    }
    if (options.contains("target") && options["target"].is_string() &&
        emit::builtin_targets().find(options["target"].get<std::string>()))
      default_target = options["target"].get<std::string>();
    analyzer.target = default_target;
    if (options.contains("schemas") && options["schemas"].is_string())
      analyzer.schemas = options["schemas"].get<std::string>();
    {
      std::lock_guard lock(mutex);
      encoding = Encoding::utf16;
      if (encodings.is_array()) {
        for (const Json& e : encodings) {
          if (e == "utf-8")
            encoding = Encoding::utf8;
        }
      }
      analyzer.encoding = encoding;
      document_changes = capabilities.value("workspace", Json::object())
                             .value("workspaceEdit", Json::object())
                             .value("documentChanges", false);
      const Json watched = capabilities.value("workspace", Json::object())
                               .value("didChangeWatchedFiles", Json::object());
      watch_files = watched.is_object() && watched.value("dynamicRegistration", false) == true;
      initialized = true;
    }
    worker =
        std::make_unique<Worker>(this->options.worker, Json{{"options", lsp::to_json(analyzer)}});
    analysis_thread = std::thread([this] { work(); });
    return {{"capabilities",
             {{"positionEncoding", encoding == Encoding::utf8 ? "utf-8" : "utf-16"},
              {"textDocumentSync",
               {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
              {"codeActionProvider", {{"codeActionKinds", {"quickfix", "refactor.rewrite"}}}},
              {"hoverProvider", true}}},
            {"serverInfo", {{"name", "opscan"}, {"version", driver::version()}}}};
  }

  // Asks the client to report changes of the files analyses read besides
  // the documents: compile databases and the build's library IRs.
  void watch() {
    if (!watch_files)
      return;
    send({{"jsonrpc", "2.0"},
          {"id", "watch-files"},
          {"method", "client/registerCapability"},
          {"params",
           {{"registrations",
             {{{"id", "watch-files"},
               {"method", "workspace/didChangeWatchedFiles"},
               {"registerOptions",
                {{"watchers",
                  {{{"globPattern", "**/compile_commands.json"}},
                   {{"globPattern", "**/*.opscan/include/*/ir.json"}}}}}}}}}}}});
  }

  void did_change_watched_files(const Json& params) {
    const Json& changes = member(params, "changes");
    bool database = false;
    if (changes.is_array()) {
      for (const Json& change : changes)
        database = database || string_member(change, "uri").ends_with("/compile_commands.json");
    }
    std::lock_guard lock(mutex);
    // A new compile command may end a crash or a hang: every document is
    // tried again.
    if (database)
      failures.clear();
    const Clock::time_point when = Clock::now() + options.debounce;
    for (const auto& [uri, document] : documents)
      due[uri] = when;
    wake.notify_all();
  }

  void did_open(const Json& params) {
    const Json& item = member(params, "textDocument");
    const std::string uri = string_member(item, "uri");
    const std::optional<std::string> path = path_of_uri(uri);
    if (!path)
      return log(2, "opscan: not a file: URI, not analysed: " + uri);
    std::lock_guard lock(mutex);
    documents.erase(uri);
    saved.erase(uri);
    documents.emplace(uri, Document(uri, std::filesystem::path(*path).lexically_normal().string(),
                                    integer_member(item, "version"), string_member(item, "text")));
    due[uri] = Clock::now();
    wake.notify_all();
  }

  void did_change(const Json& params) {
    const Json& item = member(params, "textDocument");
    const std::string uri = string_member(item, "uri");
    const int64_t version = integer_member(item, "version");
    std::vector<Change> changes;
    const Json& list = member(params, "contentChanges");
    if (!list.is_array())
      throw BadParams("'contentChanges' is not an array");
    for (const Json& c : list) {
      Change change;
      change.text = string_member(c, "text");
      if (c.contains("range"))
        change.range = range_of(c.at("range"));
      changes.push_back(std::move(change));
    }
    std::lock_guard lock(mutex);
    auto it = documents.find(uri);
    if (it == documents.end())
      throw BadParams("a change to a document that is not open: " + uri);
    it->second.apply(changes, version, encoding);
    saved.erase(uri);
    due[uri] = Clock::now() + options.debounce;
    wake.notify_all();
  }

  void schedule(const std::string& uri, std::chrono::milliseconds delay) {
    std::lock_guard lock(mutex);
    if (documents.contains(uri)) {
      due[uri] = Clock::now() + delay;
      wake.notify_all();
    }
  }

  void did_close(const Json& params) {
    const std::string uri = string_member(member(params, "textDocument"), "uri");
    {
      std::lock_guard lock(mutex);
      documents.erase(uri);
      due.erase(uri);
      snapshots.erase(uri);
      saved.erase(uri);
    }
    send(notification("textDocument/publishDiagnostics",
                      {{"uri", uri}, {"diagnostics", Json::array()}}));
  }

  // --- analysis thread ---

  void work() {
    std::unique_lock lock(mutex);
    for (;;) {
      if (stop)
        return;
      const Clock::time_point now = Clock::now();
      // Each document has one pending analysis, of its latest text; the one
      // due longest goes first, so edits to one cannot starve the others.
      auto next = std::min_element(
          due.begin(), due.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
      if (next != due.end() && next->second <= now) {
        const std::string uri = next->first;
        due.erase(next);
        analyze_locked(lock, uri, /*publish=*/true);
        continue;
      }
      if (!requests.empty()) {
        Json request = std::move(requests.front());
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

  // The diagnostic of an analysis that did not end well, at the start of
  // the document.
  Json failure_diagnostic(const Document& doc, const std::string& code, int severity,
                          std::string message) {
    const size_t line_end = std::min(doc.text().find('\n'), doc.text().size());
    const Range range{{0, 0}, doc.position(line_end, encoding)};
    return {{"range", to_json(range)},
            {"severity", severity},
            {"source", "opscan"},
            {"code", code},
            {"codeDescription", {{"href", diag::help_url(code)}}},
            {"message", std::move(message)}};
  }

  // Whether `doc`'s text is its file's as saved: the worker reads that
  // file from disk as it is, so the text need not be sent (with 400 files
  // open, every analysis sent all of them). Read again when the document
  // or the file's stamp changes, or while the stamp cannot tell (racy()).
  bool saved_as_is(const Document& doc) {
    const Stamp stamp = stamp_of(doc.path());
    if (stamp.size != static_cast<off_t>(doc.text().size())) {
      saved.erase(doc.uri());
      return false;
    }
    auto [it, fresh] = saved.try_emplace(doc.uri());
    if (fresh || it->second.version != doc.version() || it->second.stamp != stamp ||
        racy(stamp)) {
      const std::optional<std::string> text =
          support::read_file(doc.path(), nullptr, doc.text().size());
      it->second = {doc.version(), stamp, text && *text == doc.text()};
    }
    return it->second.same;
  }

  // Analyses `uri` in the worker with the lock released; stores (and
  // publishes) the result if the document is still open.
  void analyze_locked(std::unique_lock<std::mutex>& lock, const std::string& uri, bool publish) {
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
      Json request = {{"uri", uri},
                      {"version", version},
                      {"text", it->second.text()},
                      {"buffers", Json::array()}};
      for (const auto& [other_uri, document] : documents) {
        if (other_uri != uri && !saved_as_is(document))
          request["buffers"].push_back({{"uri", other_uri}, {"text", document.text()}});
      }
      const std::string path = it->second.path();
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
        Json& answer = outcome.answer;
        if (answer.contains("log") && answer["log"].is_array()) {
          for (const Json& entry : answer["log"]) {
            if (!entry.is_object() || !entry.contains("message") || !entry["message"].is_string())
              continue;
            const std::string message = entry["message"].get<std::string>();
            if (told.insert(message).second)
              log(entry.contains("type") && entry["type"].is_number_integer()
                      ? entry["type"].get<int>()
                      : 3,
                  message);
          }
        }
        Json& made = answer["snapshot"];
        snapshot.diagnostics = array_of(made, "diagnostics");
        snapshot.fixes = array_of(made, "fixes");
        snapshot.kernels = array_of(made, "kernels");
        snapshot.suggestions = array_of(made, "suggestions");
      } else {
        const bool timed_out = outcome.kind == WorkerOutcome::Kind::timed_out;
        const std::string message =
            timed_out
                ? fmt::format("opscan stopped analysing this file after {} (the time limit: "
                              "opscan lsp --analysis-timeout, or the analysisTimeout "
                              "initialization option); it is analysed again when it changes",
                              seconds(limit))
                : fmt::format("opscan's analysis of this file crashed (its worker process {}); "
                              "it is analysed again when it changes, and other files are not "
                              "affected",
                              outcome.why);
        log(2, fmt::format("opscan: the analysis of {} {}", path,
                           timed_out ? "took longer than " + seconds(limit) + " and was stopped"
                                     : "crashed: " + outcome.why));
        const Json diagnostic = failure_diagnostic(
            it->second, timed_out ? "opscan-analysis-timeout" : "opscan-analysis-crashed",
            timed_out ? 2 : 1, message);
        failures[uri] = {text_hash, diagnostic};
        snapshot.diagnostics.push_back(diagnostic);
      }
    }
    const bool current = it->second.version() == version;
    if (publish && current) {
      send(notification(
          "textDocument/publishDiagnostics",
          {{"uri", uri}, {"version", version}, {"diagnostics", snapshot.diagnostics}}));
    }
    snapshots[uri] = std::move(snapshot);
  }

  void answer_locked(std::unique_lock<std::mutex>& lock, const Json& request) {
    const Json id = request.at("id");
    const std::string method = request.at("method").get<std::string>();
    const Json& params = request.at("params");
    const std::string uri = params.at("textDocument").at("uri").get<std::string>();
    if (cancelled.erase(id.dump()))
      return fail(id, error_code::request_cancelled, "cancelled");
    if (!documents.contains(uri))
      return fail(id, error_code::invalid_params, "the document is not open: " + uri);
    // Answer from an analysis of the text as it is now.
    if (due.erase(uri) || !snapshots.contains(uri) ||
        snapshots.at(uri).version != documents.at(uri).version())
      analyze_locked(lock, uri, /*publish=*/true);
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
      if (method == "textDocument/hover")
        return reply(id, hover(snap->second, position_of(params.at("position"))));
      reply(id, code_actions(uri, snap->second, range_of(params.at("range"))));
    } catch (const std::exception& e) {
      // A snapshot the worker made wrong (a bug) fails the request, not the server.
      fail(id, error_code::internal_error, method + ": " + e.what());
    }
  }

  Json edit_of(const std::string& uri, const Snapshot& s, const Json& edits) {
    if (document_changes) {
      return {{"documentChanges",
               {{{"textDocument", {{"uri", uri}, {"version", s.version}}}, {"edits", edits}}}}};
    }
    return {{"changes", {{uri, edits}}}};
  }

  Json code_actions(const std::string& uri, const Snapshot& s, const Range& range) {
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
                         {"edit", edit_of(uri, s, edits)}});
    }
    for (const Json& suggestion : s.suggestions) {
      if (!overlaps(range_of(suggestion.at("range")), range))
        continue;
      actions.push_back({{"title", suggestion.at("title")},
                         {"kind", "refactor.rewrite"},
                         {"edit", edit_of(uri, s, suggestion.at("edits"))}});
    }
    return actions;
  }

  Json hover(const Snapshot& s, Position at) {
    for (const Json& kernel : s.kernels) {
      if (!inside(at, range_of(kernel.at("range"))))
        continue;
      return {{"contents", {{"kind", "markdown"}, {"value", kernel.at("hover")}}},
              {"range", kernel.at("range")}};
    }
    return nullptr;
  }
};

Server::Server(Send send, ServerOptions options) : state_(std::make_unique<State>()) {
  state_->send = std::move(send);
  state_->options = std::move(options);
}

Server::~Server() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
    state_->wake.notify_all();
  }
  if (state_->worker)
    state_->worker->interrupt();
  if (state_->analysis_thread.joinable())
    state_->analysis_thread.join();
}

void Server::receive(std::string_view body) {
  Parsed parsed = parse_message(body);
  if (!parsed.error.empty())
    return state_->fail(nullptr, parsed.code, parsed.error);
  Json& message = parsed.json;
  if (!message.is_object() || message.value("jsonrpc", Json()) != "2.0") {
    const Json id = message.is_object() && message.contains("id") ? message["id"] : Json();
    return state_->fail(id, error_code::invalid_request, "not a JSON-RPC 2.0 message");
  }
  if (!message.contains("method")) {
    if (message.contains("id") && (message.contains("result") || message.contains("error")))
      return; // a response to nothing the server asked
    return state_->fail(message.value("id", Json()), error_code::invalid_request,
                        "a message without a method");
  }
  if (!message["method"].is_string()) {
    return state_->fail(message.value("id", Json()), error_code::invalid_request,
                        "'method' is not a string");
  }
  state_->handle(message);
}

void Server::receive_error(const std::string& message) {
  state_->fail(nullptr, error_code::parse_error, message);
}

bool Server::exited() const {
  std::lock_guard lock(state_->mutex);
  return state_->exit;
}

int Server::exit_code() const {
  std::lock_guard lock(state_->mutex);
  return state_->shut_down ? 0 : 1;
}

} // namespace opscan::lsp
