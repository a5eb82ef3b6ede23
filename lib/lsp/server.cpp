#include "lsp/server.h"

#include "diag/codes.h"
#include "driver/driver.h"
#include "emit/registry.h"
#include "lsp/document.h"
#include "lsp/workspace.h"
#include "scan/known_schemas.h"
#include "scan/live.h"
#include "support/files.h"
#include "support/text.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace opscan::lsp {
namespace {

using Clock = std::chrono::steady_clock;

// Parsed translation units kept for re-parsing: each holds a preamble
// (tens of MB), so only the most recently used are kept.
constexpr size_t kMaxUnits = 8;

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

std::string canonical(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The bytes a diagnostic at `offset` covers: the word or string literal
// there, else one character (editors show an empty range badly).
std::pair<size_t, size_t> extent_at(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t end = offset;
  if (end < text.size() && text[end] == '"') {
    const size_t close = text.find_first_of("\"\n", end + 1);
    if (close != std::string_view::npos && text[close] == '"')
      return {offset, close + 1};
  }
  while (end < text.size() && (is_word(text[end]) || text[end] == ':'))
    ++end;
  if (end == offset && end < text.size() && text[end] != '\n')
    ++end;
  return {offset, end};
}

const char* kSource = "opscan";

int severity_of(diag::Severity s) {
  switch (s) {
  case diag::Severity::error:
    return 1;
  case diag::Severity::warning:
    return 2;
  case diag::Severity::note:
    return 3;
  }
  return 1;
}

// What a fix does, for its action's title: the words it changes, without
// what the old and new text share ("Change 'float' to 'int'" for a schema
// rewritten whole).
std::string title_of(const std::vector<diag::FixIt>& fixits, std::string_view text) {
  if (fixits.size() != 1)
    return "Apply opscan's fix";
  const diag::FixIt& f = fixits.front();
  std::string_view old = text.substr(std::min<size_t>(f.offset, text.size()), f.length);
  std::string_view now = f.replacement;
  size_t prefix = 0;
  while (prefix < old.size() && prefix < now.size() && old[prefix] == now[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < old.size() - prefix && suffix < now.size() - prefix &&
         old[old.size() - 1 - suffix] == now[now.size() - 1 - suffix])
    ++suffix;
  // Whole words: back to where the word began and on to where it ends.
  while (prefix > 0 && is_word(old[prefix - 1]))
    --prefix;
  while (suffix > 0 && is_word(old[old.size() - suffix]))
    --suffix;
  auto shown = [](std::string_view s) {
    std::string one_line(s);
    std::replace(one_line.begin(), one_line.end(), '\n', ' ');
    return support::clipped(one_line, 60);
  };
  old = old.substr(prefix, old.size() - prefix - suffix);
  now = now.substr(prefix, now.size() - prefix - suffix);
  if (old.empty())
    return fmt::format("Insert '{}'", shown(now));
  if (now.empty())
    return fmt::format("Remove '{}'", shown(old));
  return fmt::format("Change '{}' to '{}'", shown(old), shown(now));
}

// A document as an analysis sees it, copied out of the shared state.
struct DocumentCopy {
  std::string uri;
  std::string path;
  int64_t version = 0;
  std::string text;
};

// The latest analysis of a document.
struct Snapshot {
  int64_t version = 0;
  std::string text;
  Json diagnostics = Json::array();
  struct Fix {
    Range range; // of its diagnostic
    Json diagnostic;
    std::vector<diag::FixIt> fixits;
  };
  std::vector<Fix> fixes;
  struct KernelInfo {
    Range range; // its name, and the annotation lines above it
    ir::Kernel kernel;
  };
  std::vector<KernelInfo> kernels;
  struct Suggestion {
    Range range; // the declaration's line, to its name's end
    std::string op;
    std::vector<diag::FixIt> fixits;
  };
  std::vector<Suggestion> suggestions;
  std::string target = "executorch"; // for the stack layout
  std::string library;               // "" when no generated library holds the file
  std::string registration;          // its registration function, "" when static
};

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
  std::string default_target = "executorch";
  std::map<std::string, Document> documents; // by URI
  std::map<std::string, Clock::time_point> due;
  std::deque<Json> requests;
  std::set<std::string> cancelled; // request ids, dumped
  std::map<std::string, Snapshot> snapshots;

  // The worker's own.
  std::unique_ptr<Workspace> workspace;
  std::list<std::pair<std::string, std::unique_ptr<scan::LiveUnit>>> units; // most recent first
  std::optional<scan::KnownSchemas> known;
  scan::FieldCheck check_field = driver::field_check(emit::builtin_targets());
  std::set<std::string> told; // messages logged once
  std::thread worker;

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
      if (method == "$/cancelRequest") {
        std::lock_guard lock(mutex);
        // Clients cancel requests already answered too: keep the set small.
        if (cancelled.size() > 1000)
          cancelled.clear();
        cancelled.insert(member(params, "id").dump());
        return;
      }
      if (method == "textDocument/codeAction" || method == "textDocument/hover") {
        // Checked here, so the worker only meets well-formed requests.
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
      if (method == "initialized" || method == "workspace/didChangeConfiguration" ||
          method.starts_with("$/"))
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
    std::optional<std::string> database_dir = this->options.compilation_database_dir;
    if (options.contains("compilationDatabasePath") &&
        options["compilationDatabasePath"].is_string())
      database_dir = options["compilationDatabasePath"].get<std::string>();
    if (options.contains("debounceMs") && options["debounceMs"].is_number_unsigned())
      this->options.debounce = std::chrono::milliseconds(
          std::min<uint64_t>(options["debounceMs"].get<uint64_t>(), 10000));
    if (options.contains("target") && options["target"].is_string() &&
        emit::builtin_targets().find(options["target"].get<std::string>()))
      default_target = options["target"].get<std::string>();
    if (options.contains("schemas") && options["schemas"].is_string()) {
      diag::Diagnostics problems;
      known = scan::load_known_schemas(options["schemas"].get<std::string>(), problems);
      for (const diag::Diagnostic& d : problems)
        log(1, "opscan: " + options["schemas"].get<std::string>() + ": " + d.message);
    }
    {
      std::lock_guard lock(mutex);
      encoding = Encoding::utf16;
      if (encodings.is_array()) {
        for (const Json& e : encodings) {
          if (e == "utf-8")
            encoding = Encoding::utf8;
        }
      }
      document_changes = capabilities.value("workspace", Json::object())
                             .value("workspaceEdit", Json::object())
                             .value("documentChanges", false);
      initialized = true;
    }
    workspace = std::make_unique<Workspace>(database_dir);
    worker = std::thread([this] { work(); });
    return {{"capabilities",
             {{"positionEncoding", encoding == Encoding::utf8 ? "utf-8" : "utf-16"},
              {"textDocumentSync",
               {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
              {"codeActionProvider", {{"codeActionKinds", {"quickfix", "refactor.rewrite"}}}},
              {"hoverProvider", true}}},
            {"serverInfo", {{"name", "opscan"}, {"version", driver::version()}}}};
  }

  void did_open(const Json& params) {
    const Json& item = member(params, "textDocument");
    const std::string uri = string_member(item, "uri");
    const std::optional<std::string> path = path_of_uri(uri);
    if (!path)
      return log(2, "opscan: not a file: URI, not analysed: " + uri);
    std::lock_guard lock(mutex);
    documents.erase(uri);
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
    }
    send(notification("textDocument/publishDiagnostics",
                      {{"uri", uri}, {"diagnostics", Json::array()}}));
  }

  // --- worker thread ---

  void work() {
    std::unique_lock lock(mutex);
    for (;;) {
      if (stop)
        return;
      const Clock::time_point now = Clock::now();
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

  // Analyses `uri` with the lock released; stores (and publishes) the
  // result if the document is still open.
  void analyze_locked(std::unique_lock<std::mutex>& lock, const std::string& uri, bool publish) {
    auto it = documents.find(uri);
    if (it == documents.end())
      return;
    DocumentCopy doc{uri, it->second.path(), it->second.version(), it->second.text()};
    std::vector<scan::Buffer> buffers;
    for (const auto& [other_uri, document] : documents)
      buffers.push_back({document.path(), document.text()});
    const Encoding enc = encoding;
    lock.unlock();
    Snapshot snapshot = analyze(doc, buffers, enc);
    lock.lock();
    it = documents.find(uri);
    if (it == documents.end())
      return;
    Json diagnostics = snapshot.diagnostics;
    const bool current = it->second.version() == doc.version;
    snapshots[uri] = std::move(snapshot);
    if (publish && current) {
      send(notification("textDocument/publishDiagnostics",
                        {{"uri", uri}, {"version", doc.version}, {"diagnostics", diagnostics}}));
    }
  }

  scan::LiveUnit& unit_for(const FileCommand& command, const std::string& path) {
    const bool main_file_only = command.main_file == path;
    std::string key = (main_file_only ? "main\n" : "all\n") + command.main_file;
    for (const std::string& a : command.args)
      key += '\n' + a;
    for (auto it = units.begin(); it != units.end(); ++it) {
      if (it->first == key) {
        units.splice(units.begin(), units, it);
        return *units.front().second;
      }
    }
    units.emplace_front(
        key, std::make_unique<scan::LiveUnit>(command.main_file, command.args, main_file_only));
    if (units.size() > kMaxUnits)
      units.pop_back();
    return *units.front().second;
  }

  void drop_unit(const scan::LiveUnit& unit) {
    units.remove_if([&](const auto& entry) { return entry.second.get() == &unit; });
  }

  scan::LiveAnalysis run_unit(const FileCommand& command, const std::vector<scan::Buffer>& buffers,
                              const std::string& path) {
    scan::LiveUnit& unit = unit_for(command, path);
    try {
      return unit.analyze(buffers, known ? &*known : nullptr, check_field, path);
    } catch (const std::exception& e) {
      // One file's failure is that file's diagnostic; the server goes on.
      drop_unit(unit);
      scan::LiveAnalysis failed;
      failed.diagnostics.push_back(diag::make_error(
          "opscan-internal", {path, 1, 1, 0}, std::string("the analysis failed: ") + e.what()));
      return failed;
    }
  }

  Snapshot analyze(const DocumentCopy& doc, const std::vector<scan::Buffer>& buffers,
                   Encoding enc) {
    FileCommand command = workspace->command_for(doc.path);
    if (command.database.empty()) {
      const std::string dir = std::filesystem::path(doc.path).parent_path().string();
      if (told.insert("no database " + dir).second)
        log(3, "opscan: no compile_commands.json for " + dir +
                   " or its parents (or their build/): files there are scanned as C++17 with "
                   "no include paths");
    }
    const std::string self = canonical(doc.path);
    scan::LiveAnalysis analysis = run_unit(command, buffers, doc.path);
    auto reads_self = [&](const scan::LiveAnalysis& a) {
      return std::any_of(a.files.begin(), a.files.end(),
                         [&](const std::string& f) { return canonical(f) == self; });
    };
    if (command.main_file != doc.path && !reads_self(analysis)) {
      // The guessed includer does not include it after all: parse the
      // header alone, with the includer's flags.
      command.main_file = doc.path;
      analysis = run_unit(command, buffers, doc.path);
    }
    if (!command.database.empty())
      workspace->note_includes(command.main_file, command.database, analysis.files);

    Snapshot s;
    s.version = doc.version;
    s.text = doc.text;
    const LineIndex lines(s.text);
    std::map<std::string, bool> is_self; // path -> whether it is this document
    auto here = [&](const std::string& file) {
      auto [it, fresh] = is_self.try_emplace(file, false);
      if (fresh)
        it->second = !file.empty() && canonical(file) == self;
      return it->second;
    };
    auto range_here = [&](const diag::Location& where) {
      if (!where.valid())
        return Range{};
      auto [begin, end] = extent_at(s.text, where.offset);
      return Range{lines.position(s.text, begin, enc), lines.position(s.text, end, enc)};
    };
    std::map<std::string, std::optional<std::string>> texts; // of other files
    auto location_json = [&](const diag::Location& where) -> Json {
      Range r;
      if (here(where.file)) {
        r = range_here(where);
      } else if (where.valid()) {
        auto [it, fresh] = texts.try_emplace(where.file);
        if (fresh)
          it->second = support::read_file(where.file, nullptr, 16 << 20);
        if (it->second && where.offset <= it->second->size()) {
          LineIndex other(*it->second);
          auto [begin, end] = extent_at(*it->second, where.offset);
          r = {other.position(*it->second, begin, enc), other.position(*it->second, end, enc)};
        } else {
          r.start = r.end = {where.line - 1, where.column > 0 ? where.column - 1 : 0};
        }
      }
      return {{"uri", uri_of_path(where.file)}, {"range", to_json(r)}};
    };

    auto add = [&](const diag::Diagnostic& d, Range range, std::string message) {
      Json out = {{"range", to_json(range)},
                  {"severity", severity_of(d.severity)},
                  {"source", kSource},
                  {"message", std::move(message)}};
      if (!d.code.empty()) {
        out["code"] = d.code;
        if (diag::find_code(d.code))
          out["codeDescription"] = {{"href", diag::help_url(d.code)}};
      }
      Json related = Json::array();
      for (const diag::Note& note : d.notes) {
        if (note.location.file.empty())
          continue;
        related.push_back({{"location", location_json(note.location)}, {"message", note.message}});
      }
      if (!related.empty())
        out["relatedInformation"] = std::move(related);
      std::vector<diag::FixIt> fixits;
      for (const diag::FixIt& f : d.fixits) {
        if (here(f.file) && f.offset + f.length <= s.text.size() &&
            std::find(fixits.begin(), fixits.end(), f) == fixits.end())
          fixits.push_back(f);
      }
      if (!fixits.empty())
        s.fixes.push_back({range, out, std::move(fixits)});
      s.diagnostics.push_back(std::move(out));
    };

    for (const diag::Diagnostic& d : analysis.diagnostics) {
      if (here(d.location.file) || d.location.file.empty()) {
        std::string message = d.message;
        // Notes without a place in a file are part of the message.
        for (const diag::Note& note : d.notes) {
          if (note.location.file.empty())
            message += "\n" + note.message;
        }
        add(d, range_here(d.location), message);
      } else if (command.main_file == doc.path && d.code == "opscan-clang-error") {
        // A compile error in a header this file includes stops this file's
        // analysis too. (Opscan's findings there are that header's own.)
        diag::Diagnostic moved = d;
        moved.notes.insert(moved.notes.begin(), {d.message, d.location});
        moved.fixits.clear();
        add(moved, Range{},
            fmt::format("in included file {}:{}: {}", d.location.file, d.location.line, d.message));
      }
    }

    // The kernels of this document, and what the build's libraries say of them.
    std::vector<const ir::Kernel*> mine;
    for (const ir::Kernel& k : analysis.fragment.kernels) {
      if (here(k.location.file))
        mine.push_back(&k);
    }
    if (!command.database.empty())
      check_libraries(s, mine, command.database, here, range_here, location_json);
    if (s.library.empty())
      s.target = default_target;
    // What generation would refuse (a target's context, types, keys) is
    // found by generating, in memory, for the target the file is built for.
    if (!analysis.fragment.kernels.empty() && !diag::has_errors(analysis.diagnostics)) {
      driver::Request request;
      request.options.target = s.target;
      if (!s.library.empty())
        request.options.library = s.library;
      driver::Plan plan = driver::plan_scanned(analysis.fragment, request, emit::builtin_targets());
      for (const diag::Diagnostic& d : plan.diagnostics) {
        if (here(d.location.file))
          add(d, range_here(d.location), d.message);
      }
    }
    for (const scan::KernelSuggestion& suggestion : analysis.suggestions) {
      if (!here(suggestion.location.file) || !suggestion.location.valid())
        continue;
      Range r = range_here(suggestion.location);
      r.start.character = 0;
      std::vector<diag::FixIt> fixits;
      for (const diag::FixIt& f : suggestion.fixits) {
        if (here(f.file) && f.offset + f.length <= s.text.size())
          fixits.push_back(f);
      }
      if (fixits.size() == suggestion.fixits.size())
        s.suggestions.push_back({r, suggestion.op, std::move(fixits)});
    }
    for (const ir::Kernel* k : mine) {
      Range r = range_here(k->location);
      // The annotation is on the lines just above the name, usually.
      const size_t line_start = s.text.rfind('\n', k->location.offset);
      size_t from = line_start == std::string::npos ? 0 : line_start;
      for (int up = 0; up < 4 && from > 0; ++up) {
        const size_t previous = s.text.rfind('\n', from - 1);
        const size_t begin = previous == std::string::npos ? 0 : previous + 1;
        if (std::string_view(s.text).substr(begin, from - begin).find("OPSCAN_KERNEL") !=
            std::string_view::npos) {
          r.start = lines.position(s.text, begin, enc);
          break;
        }
        from = begin > 0 ? begin - 1 : 0;
      }
      s.kernels.push_back({r, *k});
    }
    return s;
  }

  // Kernels of the build's generated libraries that make the same claim as
  // one of `mine` elsewhere: within the library holding this file, a
  // duplicate; in another, an overlap no program can link.
  template <typename Here, typename RangeHere, typename LocationJson>
  void check_libraries(Snapshot& s, const std::vector<const ir::Kernel*>& mine,
                       const std::string& database, Here& here, RangeHere& range_here,
                       LocationJson& location_json) {
    const std::vector<BuiltLibrary>& libraries = workspace->libraries(database);
    const std::filesystem::path build = std::filesystem::path(database).parent_path();
    auto resolved = [&](diag::Location where) {
      if (!where.file.empty() && std::filesystem::path(where.file).is_relative())
        where.file = (build / where.file).lexically_normal().string();
      return where;
    };
    for (const BuiltLibrary& library : libraries) {
      for (const ir::SourceFile& source : library.module.sources) {
        if (here(resolved({source.path, 1, 1, 0}).file)) {
          s.library = library.module.library->name;
          s.registration = library.module.library->function;
          s.target = library.module.library->target;
        }
      }
    }
    for (const ir::Kernel* k : mine) {
      for (const BuiltLibrary& library : libraries) {
        const emit::Target* target = emit::builtin_targets().find(library.module.library->target);
        if (!target)
          continue;
        std::set<std::string> claims;
        for (const emit::Target::Claim& c : target->claims(*k))
          claims.insert(c.key);
        for (const ir::Kernel& other : library.module.kernels) {
          const diag::Location at = resolved(other.location);
          if (here(at.file) || other.usr == k->usr)
            continue; // this file's own kernels, as last built
          std::string shared;
          for (const emit::Target::Claim& c : target->claims(other)) {
            if (claims.contains(c.key))
              shared = c.description;
          }
          if (shared.empty())
            continue;
          const std::string& name = library.module.library->name;
          const bool same = name == s.library;
          diag::Diagnostic d =
              same ? diag::make_error("opscan-duplicate-kernel", k->location,
                                      fmt::format("library '{}' registers {} here and in {}:{}",
                                                  name, shared, at.file, at.line))
                   : diag::make_warning(
                         "opscan-library-overlap", k->location,
                         fmt::format("library '{}' registers {} too ({}:{}): a program cannot link "
                                     "both libraries",
                                     name, shared, at.file, at.line));
          d.notes.push_back({fmt::format("{} in library '{}'", describe(other), name), at});
          Json out = {
              {"range", to_json(range_here(k->location))},
              {"severity", severity_of(d.severity)},
              {"source", kSource},
              {"code", d.code},
              {"codeDescription", {{"href", diag::help_url(d.code)}}},
              {"message", d.message},
              {"relatedInformation",
               {{{"location", location_json(at)}, {"message", d.notes.front().message}},
                {{"location", location_json(k->location)}, {"message", describe(*k) + " here"}}}}};
          s.diagnostics.push_back(std::move(out));
        }
      }
    }
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
    if (cancelled.erase(id.dump()))
      return fail(id, error_code::request_cancelled, "cancelled");
    auto doc = documents.find(uri);
    auto snap = snapshots.find(uri);
    if (doc == documents.end() || snap == snapshots.end())
      return fail(id, error_code::content_modified, "the document was closed");
    if (snap->second.version != doc->second.version())
      return fail(id, error_code::content_modified, "the document changed; ask again");
    if (method == "textDocument/hover")
      return reply(id, hover(snap->second, position_of(params.at("position"))));
    reply(id, code_actions(uri, snap->second, range_of(params.at("range"))));
  }

  Json edit_of(const std::string& uri, const Snapshot& s, const std::vector<diag::FixIt>& fixits) {
    const LineIndex lines(s.text);
    Json edits = Json::array();
    for (const diag::FixIt& f : fixits) {
      Range r{lines.position(s.text, f.offset, encoding),
              lines.position(s.text, f.offset + f.length, encoding)};
      edits.push_back({{"range", to_json(r)}, {"newText", f.replacement}});
    }
    if (document_changes) {
      return {{"documentChanges",
               {{{"textDocument", {{"uri", uri}, {"version", s.version}}}, {"edits", edits}}}}};
    }
    return {{"changes", {{uri, edits}}}};
  }

  Json code_actions(const std::string& uri, const Snapshot& s, const Range& range) {
    Json actions = Json::array();
    std::vector<std::vector<diag::FixIt>> offered;
    for (const Snapshot::Fix& fix : s.fixes) {
      if (!overlaps(fix.range, range))
        continue;
      // Two diagnostics with one fix (a schema that several mismatches
      // rewrite) are one action.
      auto same = std::find(offered.begin(), offered.end(), fix.fixits);
      if (same != offered.end()) {
        actions[static_cast<size_t>(same - offered.begin())]["diagnostics"].push_back(
            fix.diagnostic);
        continue;
      }
      offered.push_back(fix.fixits);
      actions.push_back({{"title", title_of(fix.fixits, s.text)},
                         {"kind", "quickfix"},
                         {"isPreferred", true},
                         {"diagnostics", {fix.diagnostic}},
                         {"edit", edit_of(uri, s, fix.fixits)}});
    }
    for (const Snapshot::Suggestion& suggestion : s.suggestions) {
      if (!overlaps(suggestion.range, range))
        continue;
      actions.push_back(
          {{"title", fmt::format("Make this an operator: OPSCAN_KERNEL(\"{}\")", suggestion.op)},
           {"kind", "refactor.rewrite"},
           {"edit", edit_of(uri, s, suggestion.fixits)}});
    }
    return actions;
  }

  Json hover(const Snapshot& s, Position at) {
    for (const Snapshot::KernelInfo& info : s.kernels) {
      if (!inside(at, info.range))
        continue;
      const ir::Kernel& k = info.kernel;
      std::string text = fmt::format("**{}** — schema {}\n\n```\n{}\n```\n", k.op.str(),
                                     ir::to_string(k.schema_origin), k.schema().str());
      if (!k.kernel_key.empty())
        text += fmt::format("\nkernel key: `{}`\n", k.kernel_key);
      if (!k.dispatch_key.empty())
        text += fmt::format("\ndispatch key: `{}`\n", k.dispatch_key);
      if (const emit::Target* target = emit::builtin_targets().find(s.target)) {
        std::vector<std::string> slots = target->stack_layout(k);
        if (!slots.empty()) {
          text += fmt::format("\n{} wrapper's stack:\n", target->name());
          for (const std::string& slot : slots)
            text += "- `" + slot + "`\n";
        }
      }
      if (!s.library.empty()) {
        text += fmt::format("\nlibrary `{}`, registered by {}\n", s.library,
                            s.registration.empty() ? "a static initializer"
                                                   : "`" + s.registration + "()`");
      }
      return {{"contents", {{"kind", "markdown"}, {"value", text}}},
              {"range", to_json(info.range)}};
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
  if (state_->worker.joinable())
    state_->worker.join();
}

void Server::receive(std::string_view body) {
  Json message = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded())
    return state_->fail(nullptr, error_code::parse_error, "the message is not JSON");
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
