#include <gtest/gtest.h>

// ===== render_text (lib/diag/text.h) ========================================

#include "diag/text.h"
#include "files.h"

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace opscan::diag;
using opscan::testing::TempDir;

const TextOptions kPlain{.color = false, .show_source = true, .source_files = {}};
const TextOptions kNoSource{.color = false, .show_source = false, .source_files = {}};
const TextOptions kColor{.color = true, .show_source = true, .source_files = {}};

// Source files for the caret tests live in a fresh directory per test.
class RenderText : public ::testing::Test {
protected:
  TempDir dir_;
};

Location at(std::string file, uint32_t line, uint32_t column) {
  return Location{std::move(file), line, column, 0};
}

TEST_F(RenderText, EmptyListRendersNothing) {
  EXPECT_EQ(render_text({}), "");
  EXPECT_EQ(render_text({}, kColor), "");
}

TEST_F(RenderText, WithoutLocation) {
  Diagnostics diags{make_error("opscan-cli-no-input", {}, "no input files"),
                    make_warning("", {}, "nothing to do"), make_note("", {}, "see --help")};
  EXPECT_EQ(render_text(diags), "opscan: error: no input files [opscan-cli-no-input]\n"
                                "opscan: warning: nothing to do\n"
                                "opscan: note: see --help\n");
}

TEST_F(RenderText, LocationWithoutSource) {
  Diagnostics diags{make_warning("opscan-scan-unused", at("ops/add.cpp", 12, 7), "unused kernel"),
                    make_error("", at("ops/add.cpp", 3, 0), "bad line")};
  EXPECT_EQ(render_text(diags, kNoSource),
            "ops/add.cpp:12:7: warning: unused kernel [opscan-scan-unused]\n"
            "ops/add.cpp:3: error: bad line\n");
}

TEST_F(RenderText, SourceLineAndCaret) {
  std::string path = dir_.write("a.cpp", "int main() {\n  retrun 0;\n}\n");
  Diagnostics diags{make_error("opscan-x", at(path, 2, 3), "unknown name 'retrun'")};
  EXPECT_EQ(render_text(diags), path + ":2:3: error: unknown name 'retrun' [opscan-x]\n"
                                       "  retrun 0;\n"
                                       "  ^\n");
  EXPECT_EQ(render_text(diags, kNoSource),
            path + ":2:3: error: unknown name 'retrun' [opscan-x]\n");
}

TEST_F(RenderText, CaretAtStartAndPastEndOfLine) {
  std::string path = dir_.write("a.cpp", "abc\nlast");
  Diagnostics diags{make_error("", at(path, 1, 1), "first"), make_error("", at(path, 2, 5), "eol"),
                    make_error("", at(path, 2, 40), "far")};
  EXPECT_EQ(render_text(diags), path + ":1:1: error: first\nabc\n^\n" +        //
                                    path + ":2:5: error: eol\nlast\n    ^\n" + //
                                    path + ":2:40: error: far\nlast\n    ^\n");
}

TEST_F(RenderText, NotesFollowTheirDiagnostic) {
  std::string path = dir_.write("k.cpp", "void add();\nvoid add(int);\n");
  Diagnostic d = make_error("opscan-scan-duplicate", at(path, 2, 6), "duplicate kernel 'add'");
  d.notes.push_back({"previous declaration is here", at(path, 1, 6)});
  d.notes.push_back({"while scanning 'ops.yaml'", {}});
  Diagnostics diags{d, make_warning("w", {}, "after")};
  EXPECT_EQ(render_text(diags), path +
                                    ":2:6: error: duplicate kernel 'add' [opscan-scan-duplicate]\n"
                                    "void add(int);\n"
                                    "     ^\n" +
                                    path +
                                    ":1:6: note: previous declaration is here\n"
                                    "void add();\n"
                                    "     ^\n"
                                    "opscan: note: while scanning 'ops.yaml'\n"
                                    "opscan: warning: after [w]\n");
}

TEST_F(RenderText, CaretAfterTabsKeepsTheTabs) {
  std::string path = dir_.write("t.cpp", "\tfoo(\tbar);\n");
  // Byte 7 is 'b': tab, "foo(", tab come before it.
  Diagnostics diags{make_error("", at(path, 1, 7), "bar")};
  EXPECT_EQ(render_text(diags), path + ":1:7: error: bar\n"
                                       "\tfoo(\tbar);\n"
                                       "\t    \t^\n");
}

TEST_F(RenderText, CaretAfterMultiByteUtf8) {
  // "é" is 2 bytes, "日本" 3 bytes each: 'y' is byte 25, after 19 code points.
  std::string line = "s = \"h\xc3\xa9\" \"\xe6\x97\xa5\xe6\x9c\xac\"; int y;";
  std::string path = dir_.write("u.cpp", line + "\n");
  auto column = static_cast<uint32_t>(line.find('y') + 1);
  ASSERT_EQ(column, 25u);
  Diagnostics diags{make_error("", at(path, 1, column), "y")};
  EXPECT_EQ(render_text(diags),
            path + ":1:25: error: y\n" + line + "\n" + std::string(19, ' ') + "^\n");

  // A column inside a character points at that character: byte 13 is the
  // middle of "日", which follows 10 code points.
  diags = {make_error("", at(path, 1, 13), "mid")};
  EXPECT_EQ(render_text(diags),
            path + ":1:13: error: mid\n" + line + "\n" + std::string(10, ' ') + "^\n");
}

TEST_F(RenderText, CrlfSourceLineHasNoCarriageReturn) {
  std::string path = dir_.write("w.cpp", "a;\r\nbad;\r\n");
  Diagnostics diags{make_error("", at(path, 2, 1), "bad")};
  EXPECT_EQ(render_text(diags), path + ":2:1: error: bad\nbad;\n^\n");
}

TEST_F(RenderText, FixItLineUnderTheFixedRange) {
  std::string text = "int x;\n  retrun f(a b);\n";
  std::string path = dir_.write("f.cpp", text);
  Diagnostic d = make_error("", at(path, 2, 3), "did you mean 'return'?");
  auto offset = [&](const char* what) { return static_cast<uint32_t>(text.find(what)); };
  d.fixits.push_back({path, offset("retrun"), 6, "return"});
  d.fixits.push_back({path, offset(" b"), 0, ","});
  d.fixits.push_back({path, 0, 3, "long"});                // another line: not shown
  d.fixits.push_back({"other.cpp", offset("f("), 1, "g"}); // another file: not shown
  EXPECT_EQ(render_text({d}), path + ":2:3: error: did you mean 'return'?\n"
                                     "  retrun f(a b);\n"
                                     "  ^\n"
                                     "  return    ,\n");
}

TEST_F(RenderText, FixItAfterTabsAndOverlappingFixIts) {
  std::string text = "\tab\n";
  std::string path = dir_.write("f.cpp", text);
  Diagnostic d = make_error("", at(path, 1, 2), "m");
  d.fixits.push_back({path, 1, 1, "xyz"});
  d.fixits.push_back({path, 2, 1, "q"}); // starts inside "xyz": pushed past it
  EXPECT_EQ(render_text({d}), path + ":1:2: error: m\n\tab\n\t^\n\txyz q\n");
}

TEST_F(RenderText, ColorOn) {
  std::string path = dir_.write("c.cpp", "x = 1;\n");
  Diagnostic d = make_error("code", at(path, 1, 3), "bad");
  d.notes.push_back({"here", {}});
  d.fixits.push_back({path, 2, 1, "=="});
  Diagnostics diags{d, make_warning("", {}, "w")};
  EXPECT_EQ(render_text(diags, kColor),
            "\033[1m" + path +
                ":1:3:\033[0m \033[0;1;31merror:\033[0m \033[1mbad [code]\033[0m\n"
                "x = 1;\n"
                "  \033[0;1;32m^\033[0m\n"
                "  \033[0;1;32m==\033[0m\n"
                "\033[1mopscan:\033[0m \033[0;1;30mnote:\033[0m here\n"
                "\033[1mopscan:\033[0m \033[0;1;35mwarning:\033[0m \033[1mw\033[0m\n");
}

TEST_F(RenderText, ColorOffHasNoEscapes) {
  std::string path = dir_.write("c.cpp", "x = 1;\n");
  Diagnostic d = make_error("code", at(path, 1, 3), "bad");
  d.notes.push_back({"here", at(path, 1, 1)});
  d.fixits.push_back({path, 2, 1, "=="});
  std::string out = render_text({d, make_warning("", {}, "w")}, kPlain);
  EXPECT_EQ(out.find('\033'), std::string::npos);
  EXPECT_EQ(out, path + ":1:3: error: bad [code]\nx = 1;\n  ^\n  ==\n" + path +
                     ":1:1: note: here\nx = 1;\n^\nopscan: warning: w\n");
}

TEST_F(RenderText, UnreadableFileOrMissingLineSkipsTheSource) {
  std::string path = dir_.write("short.cpp", "one\ntwo\n");
  std::string missing = (dir_.path() / "missing.cpp").string();
  Diagnostics diags{make_error("", at(missing, 1, 1), "gone"),
                    make_error("", at(path, 9, 1), "too far"),
                    make_error("", at(dir_.path().string(), 1, 1), "a directory"),
                    make_error("", at(path, 2, 2), "fine")};
  EXPECT_EQ(render_text(diags), missing + ":1:1: error: gone\n" +                         //
                                    path + ":9:1: error: too far\n" +                     //
                                    dir_.path().string() + ":1:1: error: a directory\n" + //
                                    path + ":2:2: error: fine\ntwo\n ^\n");
}

// Input files may name any path: only the files allowed have lines shown.
TEST_F(RenderText, SourceLinesOnlyFromTheFilesAllowed) {
  std::string allowed = dir_.write("in.json", "{\n  \"x\": 1\n}\n");
  std::string other = dir_.write("secret.txt", "do not print me\n");
  Diagnostics diags{make_error("", at(allowed, 2, 3), "bad"),
                    make_error("", at(other, 1, 1), "named by the input")};
  TextOptions options = kPlain;
  options.source_files = std::set<std::string>{allowed};
  EXPECT_EQ(render_text(diags, options), allowed + ":2:3: error: bad\n  \"x\": 1\n  ^\n" + other +
                                             ":1:1: error: named by the input\n");
}

// What a terminal would act on is never printed: control characters and
// bytes that are not UTF-8 become '?', in the source line and the message.
TEST_F(RenderText, ControlCharactersAndBadBytesArePrintedAsQuestionMarks) {
  std::string path = dir_.write("raw.json", "\"\x1b[2J\x1b]0;pwned\x07\xff\",\n");
  Diagnostics diags{make_error("", at(path, 1, 2), "bad \x1b[31m\xc2\x9b text")};
  EXPECT_EQ(render_text(diags), path + ":1:2: error: bad ?[31m?? text\n\"?[2J?]0;pwned??\",\n ^\n");
}

TEST_F(RenderText, FileIsReadOncePerCall) {
  // The cache is per call: a file changed between calls is read again.
  std::string path = dir_.write("r.cpp", "first\n");
  Diagnostics diags{make_error("", at(path, 1, 1), "a"), make_error("", at(path, 1, 2), "b")};
  EXPECT_EQ(render_text(diags),
            path + ":1:1: error: a\nfirst\n^\n" + path + ":1:2: error: b\nfirst\n ^\n");
  dir_.write("r.cpp", "second\n");
  EXPECT_EQ(render_text({diags[0]}), path + ":1:1: error: a\nsecond\n^\n");
}

// The window of a long line render_text shows for a caret at byte `byte`
// (the line is valid UTF-8 without control characters, so printable as it
// is), worked out character by character.
std::string window(const std::string& line, size_t byte) {
  std::vector<std::string> chars;
  size_t caret = 0;
  for (size_t i = 0; i < line.size();) {
    size_t n = 1;
    while (i + n < line.size() && (static_cast<unsigned char>(line[i + n]) & 0xC0) == 0x80)
      ++n;
    if (i <= byte)
      caret = chars.size();
    chars.push_back(line.substr(i, n));
    i += n;
  }
  const size_t length = chars.size();
  if (byte >= line.size())
    caret = length; // just after the line
  const size_t first = length <= 160 ? 0 : caret < 80 ? 0 : std::min(caret - 80, length - 160);
  const size_t last = std::min(length, first + 160);
  std::string shown = first > 0 ? "\u2026" : "";
  std::string pad = first > 0 ? " " : "";
  for (size_t i = first; i < last; ++i) {
    shown += chars[i];
    if (i < caret)
      pad += chars[i] == "\t" ? "\t" : " ";
  }
  if (last < length)
    shown += "\u2026";
  return shown + "\n" + pad + "^\n";
}

TEST_F(RenderText, ALongLineIsShownAsAWindowAroundTheCaret) {
  // Characters of one to four bytes and tabs, over several thousand bytes:
  // carets all along it, at the ends and inside characters, in one call.
  std::string line;
  const std::string pieces[] = {"a", "\t", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "bc"};
  for (size_t i = 0; line.size() < 13'000; ++i)
    line += pieces[(i * 7 + i / 5) % 6];
  const std::string path = dir_.write("long.json", line + "\nshort\n");
  Diagnostics diags;
  std::string expected;
  std::vector<size_t> bytes = {0, 1, 2, 79, 80, 81, 4095, 4096, 4097, 8191, 8192, 8193};
  for (size_t byte = 3; byte < line.size(); byte += 37)
    bytes.push_back(byte);
  for (size_t byte : {line.size() - 1, line.size(), line.size() + 5})
    bytes.push_back(byte);
  for (size_t byte : bytes) {
    const auto column = static_cast<uint32_t>(byte + 1);
    diags.push_back(make_error("", at(path, 1, column), "m"));
    const std::string one =
        path + ":1:" + std::to_string(column) + ": error: m\n" + window(line, byte);
    // (Lines this long are not printed when they differ.)
    EXPECT_TRUE(render_text({diags.back()}) == one) << "caret at byte " << byte;
    expected += one;
  }
  // Measured once for all of them.
  EXPECT_TRUE(render_text(diags) == expected);
}

TEST_F(RenderText, ManyDiagnosticsOnOneLongLineAreRenderedInLinearTime) {
  // A one-line file of 8 MB with 10,000 diagnostics: each used to measure
  // the whole line (an hour of work here); the line is measured once, and
  // each is shown as it is alone.
  std::string line;
  line.reserve(8'000'000);
  while (line.size() < 8'000'000)
    line += "{\"k\": \"\xc3\xa9t\xc3\xa9\"}, ";
  const std::string path = dir_.write("one_line.json", line);
  Diagnostics diags;
  for (size_t i = 0; i < 10'000; ++i)
    diags.push_back(make_error("", at(path, 1, static_cast<uint32_t>(i * 797 + 1)), "m"));
  const std::string out = render_text(diags);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 30'000);
  for (size_t i : {size_t{0}, size_t{1}, size_t{5'139}, size_t{9'999}}) {
    const std::string alone = render_text({diags[i]});
    EXPECT_NE(out.find(alone), std::string::npos) << i;
  }
}

} // namespace

// ===== end of render_text tests =============================================
