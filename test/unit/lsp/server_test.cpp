#include <gtest/gtest.h>

// ===== lsp::Server driven in-process (lib/lsp/server.h) =====================
// Messages go in through receive() as a transport would hand them over;
// what the server sends (from its reader or worker thread) is collected.

#include "files.h"
#include "lsp/document.h"
#include "lsp/server.h"
#include "server_options.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace opscan::lsp;
using opscan::testing::TempDir;

class Client {
public:
  explicit Client(ServerOptions options = opscan::lsp::testing::server_options())
      : server_(
            [this](const Json& message) {
              std::lock_guard lock(mutex_);
              sent_.push_back(message);
              arrived_.notify_all();
            },
            std::move(options)) {}

  Server& server() { return server_; }
  void send(const Json& message) { server_.receive(message.dump()); }
  void notify(const std::string& method, Json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  // Sends a request and waits for its answer.
  Json request(const Json& id, const std::string& method, Json params = Json::object()) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return answer(id);
  }
  Json answer(const Json& id) {
    return wait_for("the answer to request " + id.dump(), [&](const Json& m) {
      return m.contains("id") && m["id"] == id && !m.contains("method");
    });
  }
  Json initialize(Json capabilities = Json::object(), Json options = Json::object()) {
    Json answer = request(
        0, "initialize",
        {{"capabilities", std::move(capabilities)}, {"initializationOptions", std::move(options)}});
    notify("initialized", Json::object());
    return answer;
  }

  // The first message sent since the last wait that matches; a test whose
  // server stays silent fails after a minute instead of hanging.
  Json wait_for(const std::string& what, const std::function<bool(const Json&)>& matches) {
    std::unique_lock lock(mutex_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      for (size_t i = seen_; i < sent_.size(); ++i) {
        if (matches(sent_[i])) {
          seen_ = i + 1;
          return sent_[i];
        }
      }
      if (arrived_.wait_until(lock, deadline) == std::cv_status::timeout) {
        ADD_FAILURE() << "no " << what << " within a minute";
        return Json();
      }
    }
  }
  // Everything sent so far.
  std::vector<Json> sent() {
    std::lock_guard lock(mutex_);
    return sent_;
  }

private:
  // Declared before the server: its worker may send while it stops.
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<Json> sent_;
  size_t seen_ = 0;
  Server server_;
};

int error_code_of(const Json& answer) {
  return answer.contains("error") ? answer["error"].value("code", 0) : 0;
}

TEST(Server, NegotiatesUtf16UnlessTheClientOffersUtf8) {
  Client plain;
  const Json result = plain.initialize()["result"];
  EXPECT_EQ(result["capabilities"]["positionEncoding"], "utf-16");
  EXPECT_EQ(result["capabilities"]["textDocumentSync"],
            Json::parse(R"({"openClose":true,"change":2,"save":{"includeText":false}})"));
  EXPECT_EQ(result["capabilities"]["codeActionProvider"]["codeActionKinds"],
            Json::parse(R"(["quickfix","refactor.rewrite"])"));
  EXPECT_EQ(result["capabilities"]["hoverProvider"], true);
  EXPECT_EQ(result["serverInfo"]["name"], "opscan");

  Client utf8;
  EXPECT_EQ(
      utf8.initialize({{"general",
                        {{"positionEncodings",
                          {"utf-16", "utf-8"}}}}})["result"]["capabilities"]["positionEncoding"],
      "utf-8");
  Client utf32;
  EXPECT_EQ(utf32.initialize({{"general",
                               {{"positionEncodings",
                                 {"utf-32"}}}}})["result"]["capabilities"]["positionEncoding"],
            "utf-16");
}

TEST(Server, RefusesASecondInitialize) {
  Client client;
  client.initialize();
  EXPECT_EQ(error_code_of(client.request(1, "initialize", {{"capabilities", Json::object()}})),
            error_code::invalid_request);
}

TEST(Server, AnswersRequestsBeforeInitializeWithAnErrorAndIgnoresNotifications) {
  Client client;
  client.notify(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", "file:///nowhere/k.cpp"}, {"languageId", "cpp"}, {"version", 1}, {"text", ""}}}});
  const Json answer = client.request("early", "textDocument/hover",
                                     {{"textDocument", {{"uri", "file:///nowhere/k.cpp"}}},
                                      {"position", {{"line", 0}, {"character", 0}}}});
  EXPECT_EQ(error_code_of(answer), error_code::server_not_initialized);
  EXPECT_EQ(client.sent().size(), 1u) << "nothing for the notification";
}

TEST(Server, AnswersAnUnknownMethodAndIgnoresUnknownNotifications) {
  Client client;
  client.initialize();
  client.notify("custom/whatever", Json::object());
  client.notify("$/setTrace", {{"value", "off"}});
  EXPECT_EQ(error_code_of(client.request(1, "textDocument/definition")),
            error_code::method_not_found);
  EXPECT_EQ(client.sent().size(), 2u) << "initialize's and definition's answers only";
}

TEST(Server, AnswersInvalidParamsAndKeepsServing) {
  Client client;
  client.initialize();
  EXPECT_EQ(error_code_of(client.request(1, "textDocument/codeAction", Json::object())),
            error_code::invalid_params);
  EXPECT_EQ(error_code_of(client.request(2, "textDocument/hover",
                                         {{"textDocument", {{"uri", "file:///k.cpp"}}},
                                          {"position", {{"line", -1}, {"character", 0}}}})),
            error_code::invalid_params);
  EXPECT_EQ(error_code_of(client.request(
                3, "textDocument/hover",
                {{"textDocument", {{"uri", 7}}}, {"position", {{"line", 0}, {"character", 0}}}})),
            error_code::invalid_params);
  // A request for a document that is not open.
  EXPECT_EQ(error_code_of(client.request(4, "textDocument/hover",
                                         {{"textDocument", {{"uri", "file:///not/open.cpp"}}},
                                          {"position", {{"line", 0}, {"character", 0}}}})),
            error_code::invalid_params);
  // A bad notification has no answer: it is logged.
  client.notify("textDocument/didChange",
                {{"textDocument", {{"uri", "file:///not/open.cpp"}, {"version", 2}}},
                 {"contentChanges", Json::array()}});
  const Json logged = client.wait_for(
      "a log message", [](const Json& m) { return m.value("method", "") == "window/logMessage"; });
  EXPECT_NE(logged["params"]["message"].get<std::string>().find("not open"), std::string::npos)
      << logged;
  EXPECT_EQ(client.request(5, "shutdown")["result"], nullptr);
}

TEST(Server, AnswersMalformedMessagesAndIgnoresResponses) {
  Client client;
  client.initialize();
  client.server().receive("{bad");
  EXPECT_EQ(error_code_of(client.answer(nullptr)), error_code::parse_error);
  client.server().receive("[1,2]");
  EXPECT_EQ(error_code_of(client.answer(nullptr)), error_code::invalid_request);
  client.server().receive(R"({"id":3,"method":"shutdown"})"); // no "jsonrpc": "2.0"
  EXPECT_EQ(error_code_of(client.answer(3)), error_code::invalid_request);
  client.server().receive(R"({"jsonrpc":"2.0","id":4})");
  EXPECT_EQ(error_code_of(client.answer(4)), error_code::invalid_request);
  client.server().receive(R"({"jsonrpc":"2.0","id":5,"method":7})");
  EXPECT_EQ(error_code_of(client.answer(5)), error_code::invalid_request);
  client.server().receive(R"({"jsonrpc":"2.0","id":{"an":"object"},"method":"shutdown"})");
  EXPECT_EQ(error_code_of(client.answer(nullptr)), error_code::invalid_request);
  client.server().receive_error("a header line is too long");
  EXPECT_EQ(error_code_of(client.answer(nullptr)), error_code::parse_error);
  // A response to a request the server never sent: nothing to say.
  const size_t before = client.sent().size();
  client.server().receive(R"({"jsonrpc":"2.0","id":99,"result":{}})");
  client.server().receive(R"({"jsonrpc":"2.0","id":98,"error":{"code":1,"message":"x"}})");
  EXPECT_EQ(client.request(6, "shutdown")["result"], nullptr);
  EXPECT_EQ(client.sent().size(), before + 1) << "only shutdown's answer";
}

// nlohmann copies, compares and prints values by recursion: a message
// nested 200,000 deep (in its params, its id, its "jsonrpc", a cancelled
// id, a second initialize's capabilities) crashed the server on the stack.
// It is refused unparsed, before initialize and after, and serving goes on.
TEST(Server, RefusesAMessageNestedDeeperThanTheLimitAndKeepsServing) {
  const size_t n = 200000;
  const std::string deep = std::string(n, '[') + std::string(n, ']');
  const std::vector<std::string> messages = {
      R"({"jsonrpc":"2.0","method":"foo","params":)" + deep + "}",
      R"({"jsonrpc":"2.0","id":)" + deep + R"(,"method":"shutdown"})",
      R"({"jsonrpc":)" + deep + R"(,"id":1,"method":"shutdown"})",
      R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":)" + deep + "}}",
      R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":)" + deep + "}}",
  };
  Client client;
  for (const std::string& message : messages) {
    client.server().receive(message);
    const Json answer = client.answer(nullptr);
    EXPECT_EQ(error_code_of(answer), error_code::invalid_request) << answer;
  }
  client.initialize();
  for (const std::string& message : messages) {
    client.server().receive(message);
    EXPECT_EQ(error_code_of(client.answer(nullptr)), error_code::invalid_request);
  }
  // As deep as the limit is still a message; brackets in strings do not count.
  const std::string limit = std::string(kMaxNesting - 1, '[') + std::string(kMaxNesting - 1, ']');
  client.server().receive(R"({"jsonrpc":"2.0","method":"custom/x","params":)" + limit + "}");
  client.notify("custom/y", {{"text", std::string(n, '[')}});
  EXPECT_EQ(client.request(3, "shutdown")["result"], nullptr);
  EXPECT_EQ(client.sent().size(), 2 * messages.size() + 2) << "initialize's and shutdown's answers";
}

TEST(Server, ShutdownThenExitIsExitCodeZero) {
  Client client;
  client.initialize();
  EXPECT_FALSE(client.server().exited());
  EXPECT_EQ(client.request(1, "shutdown")["result"], nullptr);
  // After shutdown, requests are refused.
  EXPECT_EQ(error_code_of(client.request(2, "textDocument/codeAction", Json::object())),
            error_code::invalid_request);
  client.notify("exit", Json::object());
  EXPECT_TRUE(client.server().exited());
  EXPECT_EQ(client.server().exit_code(), 0);
}

TEST(Server, ExitWithoutShutdownIsExitCodeOne) {
  Client client;
  client.initialize();
  client.notify("exit", Json::object());
  EXPECT_TRUE(client.server().exited());
  EXPECT_EQ(client.server().exit_code(), 1);
  Client uninitialized;
  uninitialized.notify("exit", Json::object());
  EXPECT_TRUE(uninitialized.server().exited());
  EXPECT_EQ(uninitialized.server().exit_code(), 1);
}

// A compilation database in `dir` for the kernel file `path`, with opscan's
// and its examples' headers.
void write_database(const TempDir& dir, const std::string& path) {
  const Json command = {{"directory", dir.path().string()},
                        {"file", path},
                        {"arguments",
                         {"c++", "-std=c++17", "-I" OPSCAN_SOURCE_DIR "/include",
                          "-I" OPSCAN_SOURCE_DIR "/examples/include", "-c", path}}};
  dir.write("compile_commands.json", Json::array({command}).dump());
}

// A workspace with the language-server scenario's kernel file
// (test/lsp/scenario) and a compilation database for it.
struct KernelWorkspace {
  TempDir dir;
  std::string path = dir.file("kernels.cpp");
  std::string uri = uri_of_path(path);
  std::string text =
      opscan::testing::read_file(std::string(OPSCAN_SOURCE_DIR) + "/test/lsp/scenario/kernels.cpp");
  KernelWorkspace() {
    dir.write("kernels.cpp", text);
    write_database(dir, path);
  }
  Json open_params() const {
    return {
        {"textDocument", {{"uri", uri}, {"languageId", "cpp"}, {"version", 1}, {"text", text}}}};
  }
};

Json publication(Client& client, const std::string& uri) {
  return client.wait_for("diagnostics of " + uri, [&](const Json& m) {
    return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
  })["params"];
}

TEST(Server, PublishesDiagnosticsOfAnOpenedFileAndOffersItsFixes) {
  ASSERT_FALSE(KernelWorkspace().text.empty()) << "the scenario's kernel file is missing";
  KernelWorkspace workspace;
  Client client;
  client.initialize();
  client.notify("textDocument/didOpen", workspace.open_params());
  const Json published = publication(client, workspace.uri);
  EXPECT_EQ(published["version"], 1);
  std::vector<std::string> codes;
  Json unnamed;
  for (const Json& d : published["diagnostics"]) {
    codes.push_back(d.value("code", ""));
    EXPECT_EQ(d["source"], "opscan");
    if (d["code"] == "opscan-scan-unnamed-parameter")
      unnamed = d;
  }
  std::sort(codes.begin(), codes.end());
  EXPECT_EQ(codes,
            (std::vector<std::string>{"opscan-mismatch-count", "opscan-mismatch-mutability",
                                      "opscan-mismatch-type", "opscan-scan-unnamed-parameter",
                                      "opscan-scan-unsupported-type", "opscan-schema-out-suffix"}));
  ASSERT_TRUE(unnamed.is_object()) << published;

  // Without documentChanges, the fix is a plain edit that names the parameter.
  const Json actions = client.request(1, "textDocument/codeAction",
                                      {{"textDocument", {{"uri", workspace.uri}}},
                                       {"range", unnamed["range"]},
                                       {"context", {{"diagnostics", {unnamed}}}}})["result"];
  ASSERT_EQ(actions.size(), 1u) << actions;
  EXPECT_EQ(actions[0]["kind"], "quickfix");
  const Json edits = actions[0]["edit"]["changes"][workspace.uri];
  ASSERT_EQ(edits.size(), 1u) << actions;
  EXPECT_EQ(edits[0]["newText"], " arg2");
  EXPECT_EQ(edits[0]["range"]["start"], unnamed["range"]["start"]);

  // Closing it clears its diagnostics.
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", workspace.uri}}}});
  EXPECT_EQ(publication(client, workspace.uri)["diagnostics"], Json::array());
}

TEST(Server, AnswersARequestCancelledBeforeItRunsWithRequestCancelled) {
  KernelWorkspace workspace;
  Client client;
  client.initialize();
  client.notify("textDocument/didOpen", workspace.open_params());
  client.notify("$/cancelRequest", {{"id", "hover-1"}});
  const Json answer = client.request(
      "hover-1", "textDocument/hover",
      {{"textDocument", {{"uri", workspace.uri}}}, {"position", {{"line", 0}, {"character", 0}}}});
  EXPECT_EQ(error_code_of(answer), error_code::request_cancelled) << answer;
  // The next request is answered.
  EXPECT_EQ(client.request("hover-2", "textDocument/hover",
                           {{"textDocument", {{"uri", workspace.uri}}},
                            {"position", {{"line", 0}, {"character", 0}}}})["result"],
            nullptr);
}

// Issue 23: a compile_commands.json that cannot be used was passed over in
// silence, and the log said there was none. The document gets a diagnostic
// saying why (as `scan -p` does, located in the database when it is bad
// JSON or a bad entry), and the log says so once; the analysis goes on with
// the default flags.
TEST(Server, ADatabaseThatCannotBeUsedIsADiagnosticOnTheDocumentLocatedInTheDatabase) {
  const size_t deep = 300000;
  struct Case {
    std::string name;
    std::function<void(TempDir&)> make;
    std::string code;
    std::string at; // ":line:column" in compile_commands.json, "" when unlocated
  };
  const std::vector<Case> cases = {
      {"truncated", [](TempDir& d) { d.write("compile_commands.json", R"([{"directory": )"); },
       "opscan-compile-commands-invalid", ":1:16"},
      {"arguments not a list",
       [](TempDir& d) {
         d.write("compile_commands.json",
                 "[\n {\"directory\": \"/\", \"file\": \"k.cpp\", \"arguments\": \"notalist\"}]");
       },
       "opscan-compile-commands-invalid", ":2:"},
      {"nested 300,000 deep",
       [&](TempDir& d) {
         d.write("compile_commands.json", std::string(deep, '[') + std::string(deep, ']'));
       },
       "opscan-compile-commands-invalid", ":1:2"},
      {"a directory",
       [](TempDir& d) { std::filesystem::create_directory(d.path() / "compile_commands.json"); },
       "opscan-no-compile-commands", ""},
      {"a FIFO",
       [](TempDir& d) {
         ASSERT_EQ(::mkfifo((d.path() / "compile_commands.json").c_str(), 0600), 0);
       },
       "opscan-no-compile-commands", ""},
      {"a link to /dev/zero",
       [](TempDir& d) {
         std::filesystem::create_symlink("/dev/zero", d.path() / "compile_commands.json");
       },
       "opscan-no-compile-commands", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    c.make(dir);
    const std::string path = dir.file("k.cpp");
    dir.write("k.cpp", "int f();\n");
    const std::string database = dir.file("compile_commands.json");
    Client client;
    client.initialize();
    client.notify("textDocument/didOpen",
                  {{"textDocument",
                    {{"uri", uri_of_path(path)},
                     {"languageId", "cpp"},
                     {"version", 1},
                     {"text", "int f();\n"}}}});
    const Json diagnostics = publication(client, uri_of_path(path))["diagnostics"];
    ASSERT_EQ(diagnostics.size(), 1u) << diagnostics;
    const Json& d = diagnostics[0];
    EXPECT_EQ(d["code"], c.code) << d;
    EXPECT_EQ(d["severity"], 1) << d;
    const std::string message = d["message"];
    EXPECT_NE(message.find(database + c.at), std::string::npos) << message;
    if (!c.at.empty()) {
      ASSERT_TRUE(d.contains("relatedInformation")) << d;
      EXPECT_EQ(d["relatedInformation"][0]["location"]["uri"], uri_of_path(database)) << d;
    }
    bool told = false;
    for (const Json& m : client.sent()) {
      if (m.value("method", "") != "window/logMessage")
        continue;
      const std::string logged = m["params"]["message"];
      EXPECT_EQ(logged.find("no compile_commands.json"), std::string::npos) << logged;
      told = told || (logged.find(database) != std::string::npos &&
                      logged.find(c.code) != std::string::npos);
    }
    EXPECT_TRUE(told) << "a log message naming the database and the problem";
  }
}

// The schemas setting: a file, or a list of them (as --schemas, repeated).
TEST(Server, TakesKnownSchemasFromEveryFileOfTheSetting) {
  TempDir dir;
  const std::string path = dir.file("k.cpp");
  const std::string text =
      "#include <opscan/annotations.h>\n"
      "#include <opscan_examples/executorch_types.h>\n"
      "using executorch::aten::Tensor;\n"
      "using executorch::runtime::KernelRuntimeContext;\n"
      "OPSCAN_KERNEL(\"demo::a.out\")\n"
      "Tensor& a_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n"
      "OPSCAN_KERNEL(\"demo::b.out\")\n"
      "Tensor& b_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n";
  dir.write("k.cpp", text);
  write_database(dir, path);
  const std::string a =
      dir.write("a.txt", "demo::a.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n");
  const std::string b =
      dir.write("b.yaml", "- func: demo::b.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n");
  for (const auto& [setting, unknown] : std::vector<std::pair<Json, size_t>>{
           {a, 1}, {Json::array({a}), 1}, {Json::array({a, b}), 0}}) {
    SCOPED_TRACE(setting.dump());
    Client client;
    client.initialize(Json::object(), {{"schemas", setting}});
    client.notify(
        "textDocument/didOpen",
        {{"textDocument",
          {{"uri", uri_of_path(path)}, {"languageId", "cpp"}, {"version", 1}, {"text", text}}}});
    const Json diagnostics = publication(client, uri_of_path(path))["diagnostics"];
    ASSERT_EQ(diagnostics.size(), unknown) << diagnostics;
    if (unknown == 1) {
      EXPECT_EQ(diagnostics[0]["code"], "opscan-schema-unknown");
      EXPECT_EQ(diagnostics[0]["severity"], 2);
      EXPECT_EQ(diagnostics[0]["range"]["start"]["line"], 7);
    }
  }
}

// A hover or code action sent as a notification (no id) was queued for the
// analysis thread, which then looked for its id and ended the server
// (std::terminate). It has no one to answer: it is ignored.
TEST(Server, IgnoresARequestMethodSentAsANotification) {
  KernelWorkspace workspace;
  Client client;
  client.initialize();
  client.notify("textDocument/didOpen", workspace.open_params());
  client.notify("textDocument/hover", {{"textDocument", {{"uri", workspace.uri}}},
                                       {"position", {{"line", 0}, {"character", 0}}}});
  client.notify("textDocument/codeAction", {{"textDocument", {{"uri", workspace.uri}}},
                                            {"range",
                                             {{"start", {{"line", 0}, {"character", 0}}},
                                              {"end", {{"line", 1}, {"character", 0}}}}},
                                            {"context", {{"diagnostics", Json::array()}}}});
  EXPECT_EQ(publication(client, workspace.uri)["version"], 1);
  EXPECT_EQ(client.request("hover", "textDocument/hover",
                           {{"textDocument", {{"uri", workspace.uri}}},
                            {"position", {{"line", 0}, {"character", 0}}}})["result"],
            nullptr);
  EXPECT_EQ(client.request(1, "shutdown")["result"], nullptr);
  for (const Json& m : client.sent())
    EXPECT_FALSE(m.contains("id") && m["id"].is_null()) << "an answer to a notification: " << m;
}

TEST(Server, LogsAndSkipsADocumentThatIsNoFile) {
  Client client;
  client.initialize();
  client.notify(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", "untitled:Untitled-1"}, {"languageId", "cpp"}, {"version", 1}, {"text", ""}}}});
  const Json logged = client.wait_for(
      "a log message", [](const Json& m) { return m.value("method", "") == "window/logMessage"; });
  EXPECT_NE(logged["params"]["message"].get<std::string>().find("untitled:Untitled-1"),
            std::string::npos);
}

} // namespace

// ===== analyses that crash or hang ==========================================
// Real inputs, real libclang in the real worker: a chain of 100,000 `!`
// overflows libclang's parser stack (no compiler option prevents it), and an
// #include of a named pipe nobody writes never ends.

namespace opscan::lsp {
namespace {

using opscan::testing::TempDir;
using namespace std::chrono_literals;

Json open_params(const std::string& path, const std::string& text) {
  return {{"textDocument",
           {{"uri", uri_of_path(path)}, {"languageId", "cpp"}, {"version", 1}, {"text", text}}}};
}

Json published(Client& client, const std::string& path) {
  return publication(client, uri_of_path(path));
}

std::vector<std::string> codes_of(const Json& publication) {
  std::vector<std::string> codes;
  for (const Json& d : publication["diagnostics"])
    codes.push_back(d.value("code", ""));
  return codes;
}

size_t logs_containing(Client& client, const std::string& text) {
  size_t n = 0;
  for (const Json& m : client.sent()) {
    if (m.value("method", "") == "window/logMessage" &&
        m["params"]["message"].get<std::string>().find(text) != std::string::npos)
      ++n;
  }
  return n;
}

TEST(ServerIsolation,
     ACrashingDocumentGetsADiagnosticOthersAreServedAndItIsNotRetriedUntilItChanges) {
  TempDir dir;
  const std::string bad = dir.file("bad.cpp");
  const std::string good = dir.file("good.cpp");
  Client client;
  client.initialize();
  client.notify("textDocument/didOpen",
                open_params(bad, "int v = " + std::string(100000, '!') + "1;\n"));
  client.notify("textDocument/didOpen", open_params(good, "int x = y;\n"));
  const Json crashed = published(client, bad);
  ASSERT_EQ(codes_of(crashed), std::vector<std::string>{"opscan-analysis-crashed"}) << crashed;
  const Json& d = crashed["diagnostics"][0];
  EXPECT_EQ(d["severity"], 1);
  EXPECT_EQ(d["range"]["start"], Json({{"line", 0}, {"character", 0}}));
  EXPECT_NE(d["message"].get<std::string>().find("crashed"), std::string::npos) << d;
  EXPECT_EQ(codes_of(published(client, good)), std::vector<std::string>{"opscan-clang-error"});
  EXPECT_EQ(logs_containing(client, "bad.cpp crashed"), 1u);

  // Saved unchanged: not analysed again (no second crash); the diagnostic stays.
  client.notify("textDocument/didSave", {{"textDocument", {{"uri", uri_of_path(bad)}}}});
  EXPECT_EQ(codes_of(published(client, bad)), std::vector<std::string>{"opscan-analysis-crashed"});
  EXPECT_EQ(logs_containing(client, "bad.cpp crashed"), 1u);
  // Requests about it are answered.
  EXPECT_EQ(client.request(1, "textDocument/hover",
                           {{"textDocument", {{"uri", uri_of_path(bad)}}},
                            {"position", {{"line", 0}, {"character", 0}}}})["result"],
            nullptr);
  // Changed: analysed again.
  client.notify("textDocument/didChange",
                {{"textDocument", {{"uri", uri_of_path(bad)}, {"version", 2}}},
                 {"contentChanges", {{{"text", "int v = !1;\nint w = z;\n"}}}}});
  const Json fixed = published(client, bad);
  EXPECT_EQ(fixed["version"], 2);
  EXPECT_EQ(codes_of(fixed), std::vector<std::string>{"opscan-clang-error"}) << fixed;
  EXPECT_EQ(client.request(2, "shutdown")["result"], nullptr);
}

TEST(ServerIsolation, AnAnalysisPastTheTimeLimitIsStoppedAndOthersAreServed) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("never.fifo").c_str(), 0600), 0);
  const std::string hung = dir.file("hung.cpp");
  const std::string good = dir.file("good.cpp");
  Client client;
  client.initialize(Json::object(), {{"analysisTimeout", 1}});
  client.notify("textDocument/didOpen", open_params(hung, "#include \"never.fifo\"\nint x;\n"));
  client.notify("textDocument/didOpen", open_params(good, "int x = y;\n"));
  const Json timed_out = published(client, hung);
  ASSERT_EQ(codes_of(timed_out), std::vector<std::string>{"opscan-analysis-timeout"}) << timed_out;
  EXPECT_EQ(timed_out["diagnostics"][0]["severity"], 2);
  EXPECT_NE(timed_out["diagnostics"][0]["message"].get<std::string>().find("after 1 s"),
            std::string::npos);
  EXPECT_EQ(codes_of(published(client, good)), std::vector<std::string>{"opscan-clang-error"});
  EXPECT_EQ(client.request(1, "shutdown")["result"], nullptr);
  client.notify("exit", Json::object());
  EXPECT_TRUE(client.server().exited());
}

TEST(ServerIsolation, ExitDoesNotWaitForAnAnalysisUnderWay) {
  TempDir dir;
  const std::string fifo = dir.file("never.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string hung = dir.file("hung.cpp");
  int writer = -1;
  {
    ServerOptions options = testing::server_options();
    options.analysis_timeout = 3600s; // only exit can end it
    Client client(options);
    client.initialize();
    client.notify("textDocument/didOpen", open_params(hung, "#include \"never.fifo\"\n"));
    // The analysis is under way once libclang has the pipe open (opening
    // it for writing succeeds only then); held open, the read never ends.
    while ((writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
      std::this_thread::sleep_for(10ms);
    EXPECT_EQ(client.request(1, "shutdown")["result"], nullptr);
    client.notify("exit", Json::object());
    EXPECT_TRUE(client.server().exited());
    EXPECT_EQ(client.server().exit_code(), 0);
  } // the server ends here: it must not wait for the analysis
  ::close(writer);
}

} // namespace
} // namespace opscan::lsp
