// ===== render_fixes (lib/diag/fixes.h) ======================================
// The format is the one clang-tidy 14 writes; the cli tests apply such a
// file with the real clang-apply-replacements.

#include "diag/fixes.h"

#include <gtest/gtest.h>

namespace {

using namespace opscan::diag;

const FixesOptions kInBuild{.main_source_file = "src/k.cpp", .working_dir = "/w"};

Diagnostic with_fix(std::string file, uint32_t offset, std::string text,
                    std::string code = "opscan-scan-unnamed-parameter") {
  Diagnostic d = make_error(std::move(code), {file, 2, 5, offset - 2}, "parameter 1 has no name");
  d.fixits.push_back({std::move(file), offset, 0, std::move(text)});
  return d;
}

TEST(RenderFixes, WritesClangTidysLayoutWithAbsolutePaths) {
  EXPECT_EQ(render_fixes({with_fix("src/k.cpp", 30, " self")}, kInBuild),
            "---\n"
            "MainSourceFile:  '/w/src/k.cpp'\n"
            "Diagnostics:\n"
            "  - DiagnosticName:  opscan-scan-unnamed-parameter\n"
            "    DiagnosticMessage:\n"
            "      Message:         parameter 1 has no name\n"
            "      FilePath:        '/w/src/k.cpp'\n"
            "      FileOffset:      28\n"
            "      Replacements:\n"
            "        - FilePath:        '/w/src/k.cpp'\n"
            "          Offset:          30\n"
            "          Length:          0\n"
            "          ReplacementText: ' self'\n"
            "    Level:           Error\n"
            "    BuildDirectory:  '/w'\n"
            "...\n");
}

TEST(RenderFixes, WithoutFixesTheListIsEmpty) {
  EXPECT_EQ(render_fixes({make_error("opscan-usage", {}, "no")}, kInBuild),
            "---\nMainSourceFile:  '/w/src/k.cpp'\nDiagnostics:     []\n...\n");
}

TEST(RenderFixes, AFixReachedTwiceIsListedOnce) {
  // The same header kernel, seen from two scanned files; and a second
  // diagnostic offering the same fix.
  const Diagnostic from_a = with_fix("/w/include/k.h", 40, " other");
  const std::string once = render_fixes({from_a}, kInBuild);
  EXPECT_EQ(render_fixes(
                {from_a, from_a, with_fix("/w/include/k.h", 40, " other", "opscan-mismatch-type")},
                kInBuild),
            once);
  // A different fix at the same place is kept.
  const std::string both =
      render_fixes({from_a, with_fix("/w/include/k.h", 40, " again")}, kInBuild);
  EXPECT_NE(both.find("' other'"), std::string::npos);
  EXPECT_NE(both.find("' again'"), std::string::npos);
}

TEST(RenderFixes, NotesAreListedWithoutReplacements) {
  Diagnostic d = with_fix("src/k.cpp", 30, "x");
  d.notes.push_back({"schema declared here", {"src/k.cpp", 1, 15, 14}});
  const std::string yaml = render_fixes({d}, kInBuild);
  EXPECT_NE(yaml.find("    Notes:\n"
                      "      - Message:         schema declared here\n"
                      "        FilePath:        '/w/src/k.cpp'\n"
                      "        FileOffset:      14\n"
                      "        Replacements:    []\n"
                      "    Level:"),
            std::string::npos)
      << yaml;
}

TEST(RenderFixes, WarningsAndNotesKeepTheirLevel) {
  Diagnostic warning = with_fix("a.cpp", 10, "x");
  warning.severity = Severity::warning;
  Diagnostic note = with_fix("b.cpp", 10, "y");
  note.severity = Severity::note;
  const std::string yaml = render_fixes({warning, note}, kInBuild);
  EXPECT_NE(yaml.find("Level:           Warning\n"), std::string::npos);
  EXPECT_NE(yaml.find("Level:           Remark\n"), std::string::npos);
}

// LLVM's YAML writer: plain when safe, else single quotes ('' for a quote),
// else double quotes with escapes.
TEST(YamlScalar, QuotesAsLlvmDoes) {
  EXPECT_EQ(yaml_scalar("opscan-io"), "opscan-io");
  EXPECT_EQ(yaml_scalar("two words, plain"), "two words, plain");
  EXPECT_EQ(yaml_scalar(""), "''");
  EXPECT_EQ(yaml_scalar(" lead"), "' lead'");
  EXPECT_EQ(yaml_scalar("/abs/path"), "'/abs/path'");
  EXPECT_EQ(yaml_scalar("it's"), "'it''s'");
  EXPECT_EQ(yaml_scalar("\"aten::add.out(Tensor self) -> Tensor\""),
            "'\"aten::add.out(Tensor self) -> Tensor\"'");
  EXPECT_EQ(yaml_scalar("-x"), "'-x'");
  EXPECT_EQ(yaml_scalar("true"), "'true'");
  EXPECT_EQ(yaml_scalar("null"), "'null'");
  EXPECT_EQ(yaml_scalar("42"), "'42'");
  EXPECT_EQ(yaml_scalar("-1.5e3"), "'-1.5e3'");
  EXPECT_EQ(yaml_scalar("0x1F"), "'0x1F'");
  EXPECT_EQ(yaml_scalar("1.2.3"), "1.2.3");
}

TEST(YamlScalar, LineBreaksControlsAndNonAsciiAreEscapedInDoubleQuotes) {
  EXPECT_EQ(yaml_scalar("a\nb"), "\"a\\nb\"");
  EXPECT_EQ(yaml_scalar("say \"hi\"\n\\"), "\"say \\\"hi\\\"\\n\\\\\"");
  EXPECT_EQ(yaml_scalar("tab\there\x01"), "\"tab\\there\\x01\"");
  EXPECT_EQ(yaml_scalar("caf\xC3\xA9"), "\"caf\xC3\xA9\"");
  EXPECT_EQ(yaml_scalar("bad\xFF"), "\"bad\xEF\xBF\xBD\"");
}

} // namespace
