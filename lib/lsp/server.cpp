// The LSP front: a message's checks, the method table, the lifecycle.
#include "lsp/server.h"

#include "driver/driver.h"
#include "emit/registry.h"
#include "lsp/analysis.h"
#include "lsp/document.h"
#include "lsp/features.h"
#include "lsp/scheduler.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

namespace opscan::lsp {

struct Server::State {
  // When a method may be handled: `exit` and `initialize` at any time,
  // `shutdown` once initialized, the rest while serving (initialized and
  // not shut down). An unknown method is held to the last.
  enum class Phase { any, initialized, serving };
  // A handler gets the message's params and its id (null for a
  // notification); BadParams (or a JSON type error) answers a request
  // with invalid_params and logs a notification.
  using Handler = void (State::*)(const Json& params, const Json& id);
  struct Method {
    Phase phase;
    Handler handler;
  };

  Send send;
  ServerOptions options;
  Scheduler scheduler;
  std::map<std::string, Method, std::less<>> methods;

  mutable std::mutex mutex; // for the lifecycle flags, read from any thread
  bool initialized = false;
  bool shut_down = false;
  bool exit = false;
  // What the client said at initialize (only the reader thread uses them).
  Encoding encoding = Encoding::utf16;
  bool document_changes = false;
  bool watch_files = false; // the client registers file watchers for servers

  State(Send s, ServerOptions o)
      : send(std::move(s)), options(std::move(o)), scheduler(send), methods(method_table()) {}

  static std::map<std::string, Method, std::less<>> method_table() {
    return {
        {"exit", {Phase::any, &State::on_exit}},
        {"initialize", {Phase::any, &State::on_initialize}},
        {"shutdown", {Phase::initialized, &State::on_shutdown}},
        {"initialized", {Phase::serving, &State::on_initialized}},
        {"$/cancelRequest", {Phase::serving, &State::on_cancel}},
        {"textDocument/didOpen", {Phase::serving, &State::on_did_open}},
        {"textDocument/didChange", {Phase::serving, &State::on_did_change}},
        {"textDocument/didSave", {Phase::serving, &State::on_did_save}},
        {"textDocument/didClose", {Phase::serving, &State::on_did_close}},
        {"workspace/didChangeWatchedFiles", {Phase::serving, &State::on_watched_files}},
        {"workspace/didChangeConfiguration", {Phase::serving, &State::ignore}},
        {"textDocument/hover", {Phase::serving, &State::on_hover}},
        {"textDocument/codeAction", {Phase::serving, &State::on_code_action}},
    };
  }

  void reply(const Json& id, Json result) { send(response(id, std::move(result))); }
  void fail(const Json& id, int code, std::string message) {
    send(error_response(id, code, std::move(message)));
  }
  void log(int type, std::string message) { send(log_message(type, std::move(message))); }

  void handle(const Json& message);
  Json initialize(const Json& params);
  AnalyzerOptions read_options(const Json& params);

  // --- the handlers (the method table's) ---
  void on_exit(const Json&, const Json&);
  void on_initialize(const Json& params, const Json& id);
  void on_shutdown(const Json&, const Json& id);
  void on_initialized(const Json&, const Json&);
  void on_cancel(const Json& params, const Json&);
  void on_did_open(const Json& params, const Json&);
  void on_did_change(const Json& params, const Json&);
  void on_did_save(const Json& params, const Json&);
  void on_did_close(const Json& params, const Json&);
  void on_watched_files(const Json& params, const Json&);
  void ignore(const Json&, const Json&) {}
  void on_hover(const Json& params, const Json& id);
  void on_code_action(const Json& params, const Json& id);
};

void Server::State::handle(const Json& message) {
  const std::string method =
      message.at("method").is_string() ? message.at("method").get<std::string>() : std::string();
  const bool request = is_request(message);
  const Json id = request ? message.at("id") : Json();
  if (request && !(id.is_string() || id.is_number_integer()))
    return fail(nullptr, error_code::invalid_request, "a request id is a string or an integer");
  const Json params = message.contains("params") ? message.at("params") : Json::object();
  auto found = methods.find(method);
  const Phase phase = found == methods.end() ? Phase::serving : found->second.phase;
  {
    std::unique_lock lock(mutex);
    if (phase != Phase::any && !initialized) {
      lock.unlock();
      if (request)
        fail(id, error_code::server_not_initialized, "the server is not initialized");
      return;
    }
    if (phase == Phase::serving && shut_down) {
      lock.unlock();
      if (request)
        fail(id, error_code::invalid_request, "the server is shut down");
      return;
    }
  }
  if (found == methods.end()) {
    // Notifications a server may ignore ($/ ones included) are.
    if (request && !method.starts_with("$/"))
      fail(id, error_code::method_not_found, "unknown method '" + method + "'");
    return;
  }
  try {
    (this->*found->second.handler)(params, id);
  } catch (const std::exception& e) { // BadParams, and nlohmann's type errors
    if (request)
      fail(id, error_code::invalid_params, method + ": " + e.what());
    else
      log(1, "opscan: ignored " + method + ": " + e.what());
  }
}

void Server::State::on_exit(const Json&, const Json&) {
  {
    std::lock_guard lock(mutex);
    exit = true;
  }
  // An analysis under way is abandoned: exit does not wait for it.
  scheduler.stop();
}

void Server::State::on_initialize(const Json& params, const Json& id) {
  if (id.is_null())
    return;
  if (std::lock_guard lock(mutex); initialized)
    return fail(id, error_code::invalid_request, "initialize was sent twice");
  reply(id, initialize(params));
}

void Server::State::on_shutdown(const Json&, const Json& id) {
  {
    std::lock_guard lock(mutex);
    shut_down = true;
  }
  reply(id, nullptr);
}

// The server's settings an analysis takes from initializationOptions (and
// the debounce and time limit, which the scheduler takes).
AnalyzerOptions Server::State::read_options(const Json& params) {
  Json given = params.value("initializationOptions", Json::object());
  if (!given.is_object())
    given = Json::object();
  AnalyzerOptions analyzer;
  analyzer.compilation_database_dir = options.compilation_database_dir;
  if (given.contains("compilationDatabasePath") && given["compilationDatabasePath"].is_string())
    analyzer.compilation_database_dir = given["compilationDatabasePath"].get<std::string>();
  if (given.contains("debounceMs") && given["debounceMs"].is_number_unsigned())
    options.debounce =
        std::chrono::milliseconds(std::min<uint64_t>(given["debounceMs"].get<uint64_t>(), 10000));
  if (given.contains("analysisTimeout") && given["analysisTimeout"].is_number() &&
      given["analysisTimeout"].get<double>() > 0) {
    // Seconds; at most a day (a larger count is no limit anyway).
    options.analysis_timeout = std::chrono::milliseconds(static_cast<int64_t>(
        std::min(given["analysisTimeout"].get<double>(), 86400.0) * 1000 + 0.5));
  }
  if (given.contains("target") && given["target"].is_string() &&
      emit::builtin_targets().find(given["target"].get<std::string>()))
    analyzer.target = given["target"].get<std::string>();
  // A file, or a list of them.
  if (given.contains("schemas") && given["schemas"].is_string())
    analyzer.schemas = {given["schemas"].get<std::string>()};
  if (given.contains("schemas") && given["schemas"].is_array()) {
    for (const Json& schemas : given["schemas"]) {
      if (schemas.is_string())
        analyzer.schemas.push_back(schemas.get<std::string>());
    }
  }
  return analyzer;
}

Json Server::State::initialize(const Json& params) {
  const Json capabilities = params.value("capabilities", Json::object());
  const Json encodings =
      capabilities.value("general", Json::object()).value("positionEncodings", Json::array());
  AnalyzerOptions analyzer = read_options(params);
  encoding = Encoding::utf16;
  if (encodings.is_array() &&
      std::find(encodings.begin(), encodings.end(), "utf-8") != encodings.end())
    encoding = Encoding::utf8;
  analyzer.encoding = encoding;
  const Json workspace = capabilities.value("workspace", Json::object());
  document_changes =
      workspace.value("workspaceEdit", Json::object()).value("documentChanges", false);
  const Json watched = workspace.value("didChangeWatchedFiles", Json::object());
  watch_files = watched.is_object() && watched.value("dynamicRegistration", false) == true;
  {
    std::lock_guard lock(mutex);
    initialized = true;
  }
  scheduler.start({options.debounce, options.analysis_timeout, options.worker, encoding,
                   Json{{"options", lsp::to_json(analyzer)}}});
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
void Server::State::on_initialized(const Json&, const Json&) {
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

void Server::State::on_cancel(const Json& params, const Json&) {
  scheduler.cancel(member(params, "id").dump());
}

void Server::State::on_did_open(const Json& params, const Json&) {
  const Json& item = member(params, "textDocument");
  const std::string uri = string_member(item, "uri");
  const std::optional<std::string> path = path_of_uri(uri);
  if (!path)
    return log(2, "opscan: not a file: URI, not analysed: " + uri);
  scheduler.open(uri, std::filesystem::path(*path).lexically_normal().string(),
                 integer_member(item, "version"), string_member(item, "text"));
}

void Server::State::on_did_change(const Json& params, const Json&) {
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
  scheduler.change(uri, version, changes);
}

void Server::State::on_did_save(const Json& params, const Json&) {
  scheduler.save(string_member(member(params, "textDocument"), "uri"));
}

void Server::State::on_did_close(const Json& params, const Json&) {
  scheduler.close(string_member(member(params, "textDocument"), "uri"));
}

void Server::State::on_watched_files(const Json& params, const Json&) {
  const Json& changes = member(params, "changes");
  bool database = false;
  if (changes.is_array()) {
    for (const Json& change : changes)
      database = database || string_member(change, "uri").ends_with("/compile_commands.json");
  }
  scheduler.files_changed(database);
}

// Requests about a document are checked here, so that the analysis thread
// only meets well-formed ones, and answered there from its snapshot. Sent
// as notifications, they have no one to answer.
void Server::State::on_hover(const Json& params, const Json& id) {
  std::string uri = string_member(member(params, "textDocument"), "uri");
  const Position at = position_of(member(params, "position"));
  if (id.is_null())
    return;
  scheduler.run(id, "textDocument/hover", std::move(uri),
                [at](const Snapshot& s) { return hover(s, at); });
}

void Server::State::on_code_action(const Json& params, const Json& id) {
  std::string uri = string_member(member(params, "textDocument"), "uri");
  const Range range = range_of(member(params, "range"));
  if (id.is_null())
    return;
  scheduler.run(id, "textDocument/codeAction", uri,
                [uri, range, changes = document_changes](const Snapshot& s) {
                  return code_actions(uri, s, range, changes);
                });
}

Server::Server(Send send, ServerOptions options)
    : state_(std::make_unique<State>(std::move(send), std::move(options))) {}

Server::~Server() = default;

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
