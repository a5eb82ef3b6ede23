// The hostile IR corpus (test/data/ir/hostile, listed in cases.txt): every
// file is refused by `opscan generate` and `opscan check` alike, with exit
// code 1 and one error located in the file at the JSON value it names, and
// nothing is written; every other command that reads IR files (report,
// diff on either side, check --model) refuses it the same way, unless only
// its generation can tell. The valid bases the files were made from are
// accepted by all, so each refusal is the damage's doing.
#include "files.h"
#include "pte.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRepo = OPSCAN_SOURCE_DIR;
const std::string kCorpus = "test/data/ir/hostile"; // relative to the repository

using opscan::testing::read_file;
using opscan::testing::snapshot;
using opscan::testing::Snapshot;
using opscan::testing::TempDir;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `opscan <args>` in the repository root, so that diagnostics name the
// files as the manifest does.
RunResult opscan(const std::string& args) {
  TempDir io;
  const std::string command = "cd '" + kRepo.string() + "' && '" OPSCAN_BINARY "' " + args + " >'" +
                              (io.path() / "out").string() + "' 2>'" +
                              (io.path() / "err").string() + "'";
  const int status = std::system(command.c_str());
  RunResult run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file(io.path() / "out");
  run.err = read_file(io.path() / "err");
  return run;
}

// One line of cases.txt.
struct Case {
  std::string file; // in kCorpus
  std::string kind; // "library" or "fragment"
  std::string base; // in kCorpus/base
  std::string code;
  std::string path; // JSON path; "-" for a file that is not JSON
  std::string line_col;
  std::string refused_by; // "all" or "generation"
  int manifest_line = 0;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.file;
}

std::vector<Case> load_cases() {
  std::vector<Case> cases;
  std::ifstream in(kRepo / kCorpus / "cases.txt");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    Case c;
    c.manifest_line = number;
    fields >> c.file >> c.kind >> c.base >> c.code >> c.path >> c.line_col >> c.refused_by;
    cases.push_back(c);
  }
  return cases;
}

// The options each kind of input needs besides the file.
std::string options_of(const std::string& kind) {
  return kind == "fragment" ? " --registration named --lib hostile" : "";
}

// The line of `err` that reports the case's error, or "".
std::string error_line(const std::string& err, const Case& c) {
  const std::string start = kCorpus + "/" + c.file + ":" + c.line_col +
                            ": error: " + (c.path == "-" ? "not valid JSON" : c.path);
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(start) || !line.ends_with(" [" + c.code + "]"))
      continue;
    // The path ends there: "kernels[1]" is not "kernels[1].usr".
    const char next = line.size() > start.size() ? line[start.size()] : '\0';
    if (c.path == "-" || next == ':' || next == ' ')
      return line;
  }
  return "";
}

class HostileIr : public ::testing::TestWithParam<Case> {};

TEST_P(HostileIr, GenerateAndCheckRefuseItAtItsPathAndWriteNothing) {
  const Case& c = GetParam();
  SCOPED_TRACE("cases.txt:" + std::to_string(c.manifest_line));
  const std::string input = "'" + kCorpus + "/" + c.file + "'" + options_of(c.kind);
  TempDir dir;

  // No output directory: none is made.
  const fs::path fresh = dir.path() / "fresh";
  RunResult generate = opscan("generate " + input + " -o '" + fresh.string() + "'");
  EXPECT_EQ(generate.exit_code, 1) << generate.err;
  EXPECT_NE(error_line(generate.err, c), "")
      << "expected " << c.file << ":" << c.line_col << ": error: " << c.path << "... [" << c.code
      << "], got:\n"
      << generate.err;
  EXPECT_EQ(generate.out, "");
  EXPECT_FALSE(fs::exists(fresh));

  // An output directory with files in it (a library of that name among
  // them): left as it was.
  const fs::path used = dir.path() / "used";
  fs::create_directories(used / "hostile");
  std::ofstream(used / "notes.txt") << "keep me\n";
  std::ofstream(used / "hostile" / "RegisterKernels.h") << "// an earlier generation\n";
  const Snapshot before = snapshot(used);
  RunResult again = opscan("generate " + input + " -o '" + used.string() + "'");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, generate.err);
  EXPECT_EQ(snapshot(used), before);

  // check: the same refusal.
  RunResult check = opscan("check " + input);
  EXPECT_EQ(check.exit_code, generate.exit_code);
  EXPECT_NE(error_line(check.err, c), "") << check.err;
  EXPECT_EQ(check.err, generate.err);
  EXPECT_EQ(check.out, "");
}

// A program for check --model, made once.
const std::string& model_file() {
  static TempDir dir;
  static const std::string path =
      dir.write("two_plans.pte",
                opscan::testing::flatc_binary(read_file(kRepo / "test/data/pte/two_plans.json")));
  return path;
}

// One validation for every reader: what generate refuses in a file, report,
// diff (the file as either side) and check --model refuse alike, before
// reading anything else of it: the same errors, exit code 1, nothing on
// stdout, nothing written.
TEST_P(HostileIr, EveryCommandThatReadsItRefusesItAlike) {
  const Case& c = GetParam();
  SCOPED_TRACE("cases.txt:" + std::to_string(c.manifest_line));
  const std::string file = "'" + kCorpus + "/" + c.file + "'";
  const std::string base = "'" + kCorpus + "/base/" + c.base + "'";
  const RunResult check = opscan("check " + file + options_of(c.kind));
  ASSERT_EQ(check.exit_code, 1);
  TempDir dir;
  const std::string out = (dir.path() / "report.md").string();
  const std::vector<std::pair<std::string, std::string>> readers = {
      {"report", "report " + file},
      {"report -o", "report " + file + " -o '" + out + "'"},
      {"diff, new side", "diff " + base + " " + file},
      {"diff, old side", "diff " + file + " " + base},
      {"check --model", "check --model '" + model_file() + "' " + file},
  };
  for (const auto& [what, args] : readers) {
    SCOPED_TRACE(what);
    const RunResult run = opscan(args);
    if (c.refused_by == "generation") {
      // Scan output whose fault only a generation's target shows: read.
      EXPECT_EQ(error_line(run.err, c), "") << run.err;
      continue;
    }
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(error_line(run.err, c), "") << run.err;
    EXPECT_EQ(run.err, check.err);
    EXPECT_EQ(run.out, "");
    EXPECT_FALSE(fs::exists(out));
  }
}

// However hostile the file, what opscan prints cannot drive the terminal
// (escape sequences) or garble it (bytes that are not UTF-8).
TEST_P(HostileIr, ErrorsArePrintableText) {
  const Case& c = GetParam();
  RunResult check = opscan("check '" + kCorpus + "/" + c.file + "'" + options_of(c.kind));
  ASSERT_EQ(check.exit_code, 1);
  for (size_t i = 0; i < check.err.size(); ++i) {
    const auto byte = static_cast<unsigned char>(check.err[i]);
    EXPECT_FALSE((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f)
        << "control character " << static_cast<int>(byte) << " at byte " << i << " of:\n"
        << check.err;
  }
  // Well-formed UTF-8: each lead byte has its continuation bytes.
  for (size_t i = 0; i < check.err.size();) {
    const auto lead = static_cast<unsigned char>(check.err[i]);
    const size_t length = lead < 0x80                    ? 1
                          : lead >= 0xC2 && lead <= 0xDF ? 2
                          : lead >= 0xE0 && lead <= 0xEF ? 3
                          : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                         : 0;
    bool ok = length != 0 && i + length <= check.err.size();
    for (size_t k = 1; ok && k < length; ++k)
      ok = (static_cast<unsigned char>(check.err[i + k]) & 0xC0) == 0x80;
    ASSERT_TRUE(ok) << "not UTF-8 at byte " << i << " of:\n" << check.err;
    i += length;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileIr, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.file.substr(0, info.param.file.find('.'));
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char ch) {
                                 return !std::isalnum(static_cast<unsigned char>(ch));
                               },
                               '_');
                           return name;
                         });

TEST(HostileIrCorpus, ManifestListsEveryFileOfTheCorpus) {
  const std::vector<Case> cases = load_cases();
  EXPECT_GE(cases.size(), 40u);
  std::set<std::string> listed;
  const std::set<std::string> kinds = {"library", "fragment"};
  for (const Case& c : cases) {
    SCOPED_TRACE("cases.txt:" + std::to_string(c.manifest_line) + ": " + c.file);
    EXPECT_TRUE(listed.insert(c.file).second) << "listed twice";
    EXPECT_TRUE(fs::is_regular_file(kRepo / kCorpus / c.file));
    EXPECT_TRUE(fs::is_regular_file(kRepo / kCorpus / "base" / c.base));
    EXPECT_TRUE(kinds.contains(c.kind)) << c.kind;
    EXPECT_TRUE(c.refused_by == "all" || (c.refused_by == "generation" && c.kind == "fragment"))
        << c.refused_by;
    EXPECT_TRUE(c.code.starts_with("opscan-")) << c.code;
    EXPECT_FALSE(c.path.empty());
    const size_t colon = c.line_col.find(':');
    EXPECT_TRUE(colon != std::string::npos && colon > 0 && colon + 1 < c.line_col.size() &&
                c.line_col.find_first_not_of("0123456789:") == std::string::npos)
        << c.line_col;
    // A fragment has no library record; a library IR has one.
    const bool has_library =
        read_file(kRepo / kCorpus / c.file).find("\n  \"library\": {") != std::string::npos;
    if (c.path != "-" && c.code != "opscan-ir-invalid") {
      EXPECT_EQ(has_library, c.kind == "library");
    }
  }
  // No file of the corpus is left out of the manifest.
  for (const auto& entry : fs::directory_iterator(kRepo / kCorpus)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      EXPECT_TRUE(listed.contains(entry.path().filename().string()))
          << entry.path().filename() << " is not in cases.txt";
    }
  }
}

// The bases the cases were made from: generate writes a library from each
// and check accepts it, with the options their cases are given.
TEST(HostileIrCorpus, TheBasesAreValid) {
  std::map<std::string, std::string> kind_of_base;
  for (const Case& c : load_cases()) {
    auto [it, fresh] = kind_of_base.emplace(c.base, c.kind);
    EXPECT_EQ(it->second, c.kind) << c.base << " is given two ways";
  }
  EXPECT_EQ(kind_of_base.size(), 3u);
  for (const auto& [base, kind] : kind_of_base) {
    SCOPED_TRACE(base);
    const std::string input = "'" + kCorpus + "/base/" + base + "'" + options_of(kind);
    TempDir dir;
    RunResult generate = opscan("generate " + input + " -o '" + dir.path().string() + "'");
    EXPECT_EQ(generate.exit_code, 0) << generate.err;
    EXPECT_EQ(generate.err, "");
    bool wrote_ir = false;
    for (const auto& entry : fs::directory_iterator(dir.path()))
      wrote_ir = wrote_ir || fs::is_regular_file(entry.path() / "ir.json");
    EXPECT_TRUE(wrote_ir);
    RunResult check = opscan("check " + input);
    EXPECT_EQ(check.exit_code, 0) << check.err;
    EXPECT_NE(check.out.find("can live in one program"), std::string::npos) << check.out;
    // And every other reader reads it.
    const std::string file = "'" + kCorpus + "/base/" + base + "'";
    for (const std::string& args : {"report " + file, "diff " + file + " " + file}) {
      RunResult run = opscan(args);
      EXPECT_EQ(run.exit_code, 0) << args << "\n" << run.err;
      EXPECT_EQ(run.err, "") << args;
    }
    RunResult model = opscan("check --model '" + model_file() + "' " + file);
    EXPECT_EQ(model.err.find("error: " + kCorpus), std::string::npos) << model.err;
  }
}

} // namespace
