// driver: a command run's session (lib/driver/session.h): where diagnostics
// and messages go in each --format, the fixes file, and the file ledger.
#include "driver/session.h"
#include "files.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using namespace opscan;
using driver::Format;
using driver::Session;
using driver::Status;
using opscan::testing::read_file;
using opscan::testing::TempDir;

// What a command printed, by stream.
struct Recorded : driver::Console {
  std::string err, printed;
  void error(std::string_view text) override { err += text; }
  void out(std::string_view text) override { printed += text; }
};

diag::Diagnostic warning() {
  return diag::make_warning("opscan-usage", {"k.cpp", 3, 1, 0}, "a warning");
}

TEST(Session, TextDiagnosticsGoToTheErrorStreamAsTheyComeAndMessagesToStdout) {
  Recorded console;
  Session session(console, {});
  EXPECT_EQ(session.report({warning()}), Status::ok);
  EXPECT_NE(console.err.find("k.cpp:3:1: warning: a warning [opscan-usage]"), std::string::npos)
      << console.err;
  session.say("opscan: done\n");
  EXPECT_EQ(console.printed, "opscan: done\n");
  EXPECT_EQ(session.finish(Status::ok), Status::ok);
  EXPECT_EQ(console.printed, "opscan: done\n"); // no document in the text format
}

TEST(Session, AJsonDocumentHoldsStdoutAlone) {
  Recorded console;
  Session session(console, {Format::json, "", ""});
  EXPECT_EQ(session.usage("bad"), Status::usage);
  session.say("opscan: a message\n");
  EXPECT_EQ(console.err, "opscan: a message\n"); // messages move to stderr
  EXPECT_TRUE(console.printed.empty());              // until the end
  EXPECT_EQ(session.finish(Status::usage), Status::usage);
  const nlohmann::json document = nlohmann::json::parse(console.printed);
  ASSERT_EQ(document["diagnostics"].size(), 1u) << console.printed;
  EXPECT_EQ(document["diagnostics"][0]["code"], "opscan-usage");
}

TEST(Session, TheStatusIsTheWorstOfTheGivenOneAndTheDiagnostics) {
  Recorded console;
  Session session(console, {});
  EXPECT_EQ(session.report({diag::make_error("opscan-x", {}, "e")}), Status::errors);
  EXPECT_EQ(session.report({}, Status::failure), Status::failure);
  EXPECT_EQ(session.report({diag::make_error("opscan-io", {}, "e")}), Status::failure);
}

TEST(Session, LinesAreShownOnlyOfTheFilesNamed) {
  TempDir dir;
  const std::string source = (dir.path() / "k.cpp").string();
  std::ofstream(source) << "int line_one;\n";
  const diag::Diagnostics diags = {diag::make_warning("opscan-x", {source, 1, 5, 3}, "w")};
  Recorded shown, hidden;
  Session any(shown, {}), ir_inputs(hidden, {});
  ir_inputs.show_lines_of({"other.json"});
  any.report(diags);
  ir_inputs.report(diags);
  EXPECT_NE(shown.err.find("int line_one;"), std::string::npos) << shown.err;
  EXPECT_EQ(hidden.err.find("int line_one;"), std::string::npos) << hidden.err;
}

TEST(Session, AnOutputThatIsAnInputIsRefusedBeforeAnythingIsRead) {
  TempDir dir;
  const std::string file = (dir.path() / "k.ir.json").string();
  std::ofstream(file) << "{}";
  Recorded console;
  Session session(console, {});
  session.add_input("an IR input", file);
  session.add_output("-o", (dir.path() / "out.json").string());
  EXPECT_EQ(session.check_outputs(), Status::ok);
  session.add_output("--stamp", file);
  EXPECT_EQ(session.check_outputs(), Status::usage);
  EXPECT_NE(console.err.find("opscan-output-is-input"), std::string::npos) << console.err;
}

TEST(Session, TheFixesFileIsWrittenAtTheEndUnlessWrittenWithTheOutputs) {
  TempDir dir;
  const std::string fixes = (dir.path() / "fixes.yaml").string();
  {
    Recorded console;
    Session session(console, {Format::text, "", fixes});
    session.set_main_source("k.cpp");
    session.report({warning()});
    EXPECT_EQ(session.finish(Status::ok), Status::ok);
    EXPECT_NE(read_file(fixes).find("MainSourceFile"), std::string::npos) << read_file(fixes);
  }
  fs::remove(fixes);
  {
    Recorded console;
    Session session(console, {Format::text, "", fixes});
    ASSERT_TRUE(session.fixes_with_outputs().has_value());
    EXPECT_EQ(session.finish(Status::ok), Status::ok);
    EXPECT_FALSE(fs::exists(fixes)); // the command's write held it
  }
  {
    // A usage error judged nothing: no fixes file.
    Recorded console;
    Session session(console, {Format::text, "", fixes});
    EXPECT_EQ(session.finish(session.usage("bad")), Status::usage);
    EXPECT_FALSE(fs::exists(fixes));
  }
}

TEST(Session, TheFixesFileMayNotBeAnInput) {
  TempDir dir;
  const std::string source = (dir.path() / "k.cpp").string();
  std::ofstream(source) << "int x;\n";
  Recorded console;
  Session session(console, {Format::text, "", source});
  session.add_input("a source", source);
  EXPECT_EQ(session.check_fixes_file(), Status::usage);
  EXPECT_EQ(read_file(source), "int x;\n");
}

TEST(Session, ResponseFilesAreInputs) {
  TempDir dir;
  const std::string response = (dir.path() / "args.rsp").string();
  std::ofstream(response) << "-DX=1\n";
  Recorded console;
  Session session(console, {});
  diag::Diagnostics diags;
  auto args = session.compiler_args("", {"@" + response}, diags);
  ASSERT_TRUE(args.has_value()) << diags.size();
  EXPECT_EQ(*args, std::vector<std::string>{"-DX=1"});
  ASSERT_EQ(session.response_files().size(), 1u);
  EXPECT_EQ(session.response_files()[0].path, response);
  ASSERT_EQ(session.inputs().size(), 1u);
  EXPECT_EQ(session.inputs()[0].role, "a response file");
}

} // namespace
