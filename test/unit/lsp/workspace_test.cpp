// Workspace: where an editor's files get their compile commands, and what
// the build's generated libraries tell the server (overlaps, hovers). Real
// libclang, real compile_commands.json files, library IRs made by the real
// scan and generation.
#include "driver/driver.h"
#include "emit/registry.h"
#include "files.h"
#include "lsp/document.h"
#include "lsp/server.h"
#include "lsp/workspace.h"
#include "scan/scan.h"
#include "server_options.h"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <gtest/gtest.h>
#include <mutex>

namespace opscan::lsp {
namespace {

namespace fs = std::filesystem;
using opscan::testing::TempDir;

// Writes `content` to `path`, making its directories.
void write_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  opscan::testing::write_file(path, content);
}

const std::string kInclude = OPSCAN_SOURCE_DIR "/include";
const std::string kExamples = OPSCAN_SOURCE_DIR "/examples/include";

// A compile_commands.json in `dir` with one entry per source.
void write_database(const fs::path& dir, const std::vector<std::string>& sources) {
  std::string entries;
  for (const std::string& source : sources) {
    Json entry = {{"directory", dir.string()},
                  {"file", source},
                  {"arguments",
                   {"c++", "-std=c++17", "-DFROM_DATABASE", "-I" + kInclude, "-I" + kExamples, "-c",
                    source}}};
    entries += (entries.empty() ? "" : ",") + entry.dump();
  }
  fs::create_directories(dir);
  write_file(dir / "compile_commands.json", "[" + entries + "]");
}

const char* kHeader = R"(#pragma once
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
namespace custom {
#ifndef FROM_DATABASE
#error "parsed without the database's flags"
#endif
OPSCAN_KERNEL("custom::twice")
executorch::aten::Tensor twice(const executorch::aten::Tensor& self);
}
)";

TEST(FindDatabase, LooksUpwardsAndInBuildDirectories) {
  TempDir dir;
  write_file(dir.path() / "a/b/c/k.cpp", "");
  EXPECT_EQ(find_database(dir.file("a/b/c/k.cpp")), "");
  write_database(dir.path() / "a/build", {});
  EXPECT_EQ(find_database(dir.file("a/b/c/k.cpp")), dir.file("a/build/compile_commands.json"));
  // A nearer one wins.
  write_database(dir.path() / "a/b", {});
  EXPECT_EQ(find_database(dir.file("a/b/c/k.cpp")), dir.file("a/b/compile_commands.json"));
}

TEST(WorkspaceCommand, ASourceUsesItsEntryAndAHeaderASourceIncludingIt) {
  TempDir dir;
  write_file(dir.path() / "src/k.cpp", "#include \"../inc/twice.h\"\n");
  write_file(dir.path() / "inc/twice.h", kHeader);
  write_file(dir.path() / "inc/alone.h", "int alone();\n");
  write_database(dir.path() / "build", {dir.file("src/k.cpp")});
  Workspace workspace;

  FileCommand source = workspace.command_for(dir.file("src/k.cpp"));
  EXPECT_EQ(source.main_file, dir.file("src/k.cpp"));
  EXPECT_EQ(source.database, dir.file("build/compile_commands.json"));
  EXPECT_NE(std::find(source.args.begin(), source.args.end(), "-DFROM_DATABASE"),
            source.args.end());

  FileCommand header = workspace.command_for(dir.file("inc/twice.h"));
  EXPECT_EQ(header.main_file, dir.file("src/k.cpp"));
  EXPECT_EQ(header.args, source.args);

  // No source includes it: parsed alone, with default flags.
  FileCommand alone = workspace.command_for(dir.file("inc/alone.h"));
  EXPECT_EQ(alone.main_file, dir.file("inc/alone.h"));
  EXPECT_EQ(std::find(alone.args.begin(), alone.args.end(), "-DFROM_DATABASE"), alone.args.end());

  // What a unit read is remembered: the header is then found without reading.
  workspace.note_includes(dir.file("src/k.cpp"), header.database, {dir.file("inc/alone.h")});
  EXPECT_EQ(workspace.command_for(dir.file("inc/alone.h")).main_file, dir.file("src/k.cpp"));
}

// A database with one entry, `flag` among its arguments.
void write_database_with(const fs::path& dir, const std::string& source, const std::string& flag) {
  const Json entry = {{"directory", dir.string()},
                      {"file", source},
                      {"arguments", {"c++", "-std=c++17", flag, "-c", source}}};
  write_file(dir / "compile_commands.json", Json::array({entry}).dump());
}

bool has(const std::vector<std::string>& args, const std::string& arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

TEST(WorkspaceCommand, AChangedDatabaseIsReadAgain) {
  TempDir dir;
  write_file(dir.path() / "src/k.cpp", "");
  const std::string source = dir.file("src/k.cpp");
  Workspace workspace;
  // None yet: default flags.
  EXPECT_EQ(workspace.command_for(source).database, "");
  // One made after the file was first looked at is found.
  write_database_with(dir.path() / "build", source, "-DFIRST");
  FileCommand first = workspace.command_for(source);
  EXPECT_EQ(first.database, dir.file("build/compile_commands.json"));
  EXPECT_TRUE(has(first.args, "-DFIRST"));
  // Rewritten in place (same size: only its times tell), then replaced by a
  // rename: each change is read.
  write_database_with(dir.path() / "build", source, "-DOTHER");
  EXPECT_TRUE(has(workspace.command_for(source).args, "-DOTHER"));
  write_database_with(dir.path() / "new", source, "-DTHIRD");
  fs::rename(dir.path() / "new/compile_commands.json", dir.path() / "build/compile_commands.json");
  EXPECT_TRUE(has(workspace.command_for(source).args, "-DTHIRD"));
  // Removed: default flags again.
  fs::remove(dir.path() / "build/compile_commands.json");
  EXPECT_EQ(workspace.command_for(source).database, "");
}

TEST(WorkspaceCommand, ASettingNamesTheDatabaseForEveryFile) {
  TempDir dir;
  write_file(dir.path() / "elsewhere/k.cpp", "");
  write_database(dir.path() / "db", {dir.file("elsewhere/k.cpp")});
  Workspace workspace(dir.file("db"));
  EXPECT_EQ(workspace.command_for(dir.file("elsewhere/k.cpp")).database,
            dir.file("db/compile_commands.json"));
}

// A library the build generated from `sources`, written where
// opscan_add_kernel_library puts its IR.
void generate_library(const fs::path& build, const std::string& name,
                      const std::vector<std::string>& sources) {
  scan::Options options;
  options.fields = emit::builtin_targets().fields();
  options.files = sources;
  options.extra_args = {"-std=c++17", "-I" + kInclude, "-I" + kExamples};
  scan::Result scanned = scan::scan(options);
  ASSERT_TRUE(scanned.diagnostics.empty()) << scanned.diagnostics.front().message;
  driver::Request request;
  request.options.library = name;
  driver::Plan plan = driver::plan_scanned(scanned.module, request, emit::builtin_targets());
  ASSERT_EQ(plan.status, driver::Status::ok) << plan.diagnostics.at(0).message;
  for (const emit::OutputFile& file : plan.libraries.at(0).files) {
    if (file.path == name + "/ir.json")
      write_file(build / (name + ".opscan") / "include" / file.path, file.content);
  }
  ASSERT_TRUE(fs::exists(build / (name + ".opscan/include") / name / "ir.json"));
}

const char* kScale = R"(#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>
namespace custom {
using executorch::aten::Tensor;
OPSCAN_KERNEL("custom::scale")
Tensor scale(executorch::runtime::KernelRuntimeContext& context, const Tensor& self, double factor);
}
)";

TEST(WorkspaceLibraries, TheBuildsGeneratedLibrariesAreFoundAndReadAgainWhenRebuilt) {
  TempDir dir;
  write_file(dir.path() / "a.cpp", kScale);
  write_database(dir.path() / "build", {dir.file("a.cpp")});
  generate_library(dir.path() / "build/sub", "first", {dir.file("a.cpp")});
  Workspace workspace;
  const std::string database = dir.file("build/compile_commands.json");
  ASSERT_EQ(workspace.libraries(database).size(), 1u);
  EXPECT_EQ(workspace.libraries(database)[0].module.library->name, "first");
  EXPECT_EQ(workspace.libraries(database)[0].module.kernels.at(0).op.str(), "custom::scale");
  // A damaged IR is left out, not a crash.
  write_file(dir.path() / "build/sub/first.opscan/include/first/ir.json", "{ not json");
  EXPECT_TRUE(workspace.libraries(database).empty());
}

// Drives a Server in-process, collecting what it sends.
class Client {
public:
  Client()
      : server_(
            [this](const Json& m) {
              std::lock_guard lock(mutex_);
              messages_.push_back(m);
              arrived_.notify_all();
            },
            testing::server_options()) {}

  void send(const Json& m) { server_.receive(m.dump()); }

  // The first message `match` accepts, waiting up to 60 s for it.
  Json wait_for(const std::function<bool(const Json&)>& match) {
    std::unique_lock lock(mutex_);
    Json found;
    arrived_.wait_for(lock, std::chrono::seconds(60), [&] {
      for (const Json& m : messages_) {
        if (match(m)) {
          found = m;
          return true;
        }
      }
      return false;
    });
    return found;
  }

  Json diagnostics_of(const std::string& uri) {
    Json m = wait_for([&](const Json& m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" &&
             m["params"]["uri"] == uri;
    });
    return m.is_null() ? m : m["params"]["diagnostics"];
  }

  Json request(int id, const std::string& method, Json params) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return wait_for([&](const Json& m) { return m.contains("id") && m["id"] == id; });
  }

  void open(const std::string& path) {
    send({{"jsonrpc", "2.0"},
          {"method", "textDocument/didOpen"},
          {"params",
           {{"textDocument",
             {{"uri", uri_of_path(path)},
              {"languageId", "cpp"},
              {"version", 1},
              {"text", opscan::testing::read_file(path)}}}}}});
  }

private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<Json> messages_;
  Server server_;
};

TEST(WorkspaceLibraries, AKernelAnotherLibraryRegistersIsFlaggedAndHoversNameTheLibrary) {
  TempDir dir;
  write_file(dir.path() / "a.cpp", kScale);
  // The same operator, by another function, in a file of another library.
  std::string other = kScale;
  other.replace(other.find("namespace custom"), 16, "namespace mine");
  write_file(dir.path() / "b.cpp", other);
  write_database(dir.path() / "build", {dir.file("a.cpp"), dir.file("b.cpp")});
  generate_library(dir.path() / "build", "first", {dir.file("a.cpp")});

  Client client;
  ASSERT_FALSE(client.request(1, "initialize", {{"capabilities", Json::object()}}).is_null());
  client.open(dir.file("b.cpp"));
  Json diagnostics = client.diagnostics_of(uri_of_path(dir.file("b.cpp")));
  ASSERT_EQ(diagnostics.size(), 1u) << diagnostics.dump(1);
  EXPECT_EQ(diagnostics[0]["code"], "opscan-library-overlap");
  EXPECT_EQ(diagnostics[0]["severity"], 2);
  EXPECT_EQ(diagnostics[0]["range"]["start"], Json({{"line", 5}, {"character", 7}}));
  const Json& related = diagnostics[0]["relatedInformation"];
  ASSERT_EQ(related.size(), 2u);
  EXPECT_EQ(related[0]["location"]["uri"], uri_of_path(dir.file("a.cpp")));
  EXPECT_EQ(related[0]["location"]["range"]["start"], Json({{"line", 5}, {"character", 7}}));
  EXPECT_NE(related[0]["message"].get<std::string>().find("library 'first'"), std::string::npos);

  // The library's own file: no overlap with itself; its hover names it.
  client.open(dir.file("a.cpp"));
  EXPECT_EQ(client.diagnostics_of(uri_of_path(dir.file("a.cpp"))), Json::array());
  Json hover = client.request(2, "textDocument/hover",
                              {{"textDocument", {{"uri", uri_of_path(dir.file("a.cpp"))}}},
                               {"position", {{"line", 5}, {"character", 9}}}});
  const std::string text = hover["result"]["contents"]["value"];
  EXPECT_NE(text.find("custom::scale(Tensor self, float factor) -> Tensor"), std::string::npos)
      << text;
  EXPECT_NE(text.find("schema inferred"), std::string::npos) << text;
  EXPECT_NE(text.find("stack[0]: Tensor self"), std::string::npos) << text;
  EXPECT_NE(text.find("library `first`, registered by `"), std::string::npos) << text;
  EXPECT_NE(text.find("register_first_kernels()"), std::string::npos) << text;
}

// Issue 25: the server read the build's library IRs with from_json alone,
// never ir::validate, and an IR it could not read was left out in silence.
// Now each is read as the command line reads IR files (driver::read_irs),
// and one that cannot be used is a warning on the documents of the build,
// located in the IR, and a log message; its kernels are not used.
TEST(WorkspaceLibraries, AnInvalidLibraryIrIsAWarningLocatedInTheIrAndIsNotUsed) {
  struct Case {
    std::string name;
    std::function<std::string(std::string)> damage; // the IR's text -> the damaged text
    std::string code;
  };
  const std::vector<Case> cases = {
      {"a kernel's C++ name is no name",
       [](std::string ir) {
         const std::string name = "\"cpp_function\": \"custom::scale\"";
         const size_t at = ir.find(name);
         return at == std::string::npos
                    ? ir
                    : ir.replace(at, name.size(), "\"cpp_function\": \"custom::sc ale\"");
       },
       "opscan-ir-cpp-name"},
      {"not JSON", [](std::string ir) { return "{\n  \"format\": " + ir.substr(0, 40); }, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    write_file(dir.path() / "a.cpp", kScale);
    write_database(dir.path() / "build", {dir.file("a.cpp")});
    generate_library(dir.path() / "build", "first", {dir.file("a.cpp")});
    const std::string ir = dir.file("build/first.opscan/include/first/ir.json");
    const std::string damaged = c.damage(opscan::testing::read_file(ir));
    ASSERT_NE(damaged, opscan::testing::read_file(ir));
    write_file(ir, damaged);

    Client client;
    ASSERT_FALSE(client.request(1, "initialize", {{"capabilities", Json::object()}}).is_null());
    client.open(dir.file("a.cpp"));
    const Json diagnostics = client.diagnostics_of(uri_of_path(dir.file("a.cpp")));
    ASSERT_EQ(diagnostics.size(), 1u) << diagnostics.dump(1);
    const Json& d = diagnostics[0];
    EXPECT_EQ(d["severity"], 2) << d;
    if (!c.code.empty()) {
      EXPECT_EQ(d["code"], c.code) << d;
    }
    const std::string message = d["message"];
    EXPECT_NE(message.find(ir + ":"), std::string::npos) << message;
    ASSERT_TRUE(d.contains("relatedInformation")) << d;
    const Json& where = d["relatedInformation"][0]["location"];
    EXPECT_EQ(where["uri"], uri_of_path(ir)) << d;
    EXPECT_GT(where["range"]["start"]["line"].get<int>(), 0) << d;
    const Json logged = client.wait_for([&](const Json& m) {
      return m.value("method", "") == "window/logMessage" &&
             m["params"]["message"].get<std::string>().find(ir) != std::string::npos;
    });
    EXPECT_FALSE(logged.is_null()) << "a log message naming the IR";
    // Its kernels are not used: the hover names no library.
    const Json hover = client.request(2, "textDocument/hover",
                                      {{"textDocument", {{"uri", uri_of_path(dir.file("a.cpp"))}}},
                                       {"position", {{"line", 5}, {"character", 9}}}});
    const std::string text = hover["result"]["contents"]["value"];
    EXPECT_EQ(text.find("library `first`"), std::string::npos) << text;
  }
}

} // namespace
} // namespace opscan::lsp
