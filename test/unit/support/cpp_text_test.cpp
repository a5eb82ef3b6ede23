// support: the one way text reaches generated C++ (cpp_literal.h), and the
// way it reaches messages (text.h). The escaping is checked by a real
// compiler: a program made of the literals and comments must compile with
// warnings as errors, trigraphs on, and print back exactly the bytes given.
#include "files.h"
#include "support/cpp_literal.h"
#include "support/text.h"

#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace opscan::support;
using namespace std::string_literals;
using opscan::testing::TempDir;
using opscan::testing::write_file;

// Text built to break out of a literal or a comment, or to be read
// differently by some reader.
const std::vector<std::string> kHostile = {
    "",
    "plain ns::op(Tensor self) -> Tensor",
    "quote \" backslash \\ end",
    "newline\n#define BROKEN 1\n//",
    "carriage\rreturn",
    "ends with a backslash \\",
    "ends with a trigraph backslash ?\?/",
    "trigraphs ?\?= ?\?( ?\?) ?\?< ?\?> ?\?! ?\?' ?\?- ?\?/ ?\??",
    "block comment end */ and start /*",
    "hex escape then digit \x01"
    "2345",
    "nul \0 inside"s,
    "tab\tbell\a delete\x7f",
    "utf-8 caf\xc3\xa9 \xe2\x80\xae right-to-left override",
    "not utf-8 \xff\xfe \xc3",
    "line separator \xe2\x80\xa8 paragraph \xe2\x80\xa9",
    std::string("every byte: ") +
        [] {
          std::string all;
          for (int c = 1; c < 256; ++c)
            all += static_cast<char>(c);
          return all;
        }(),
};

std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += kHex[static_cast<unsigned char>(c) >> 4];
    out += kHex[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

std::string run(const std::string& command) {
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      out.append(buffer, n);
    if (::pclose(pipe) != 0)
      out = "command failed: " + command + "\n" + out;
  }
  return out;
}

TEST(CppStringLiteral, EscapesWhatCouldEndOrChangeTheLiteral) {
  EXPECT_EQ(cpp_string_literal(""), "\"\"");
  EXPECT_EQ(cpp_string_literal("ns::op(str s=\"a\\b\") -> Tensor"),
            "\"ns::op(str s=\\\"a\\\\b\\\") -> Tensor\"");
  EXPECT_EQ(cpp_string_literal("?\?/"), "\"\\?\\?/\"");
  // Octal escapes have three digits, so a digit after one is its own.
  EXPECT_EQ(cpp_string_literal("\n1"), "\"\\0121\"");
  EXPECT_EQ(cpp_string_literal("\xc3\xa9"), "\"\\303\\251\"");
}

TEST(CppComment, ShowsTextOnOneLineThatCannotEndTheComment) {
  EXPECT_EQ(cpp_comment("ns::op(Tensor self) -> Tensor"), "// ns::op(Tensor self) -> Tensor");
  EXPECT_EQ(cpp_comment("a\n#define X"), "// a\\x0a#define X");
  EXPECT_EQ(cpp_comment("ends \\"), "// ends \\x5c");
  EXPECT_EQ(cpp_comment("?\?/ */"), "// ?\\x3f/ *\\x2f");
  EXPECT_EQ(cpp_comment("caf\xc3\xa9"), "// caf\\xc3\\xa9");
  for (const std::string& text : kHostile) {
    const std::string comment = cpp_comment(text);
    EXPECT_EQ(comment.find('\n'), std::string::npos);
    EXPECT_EQ(comment.find("?\?"), std::string::npos);
    EXPECT_EQ(comment.find("*/"), std::string::npos);
    EXPECT_NE(comment.back(), '\\');
  }
}

// The real check: every literal reads back as its bytes, and no comment
// swallows or adds code, whatever the compiler's trigraph and warning
// settings.
TEST(CppText, ACompilerReadsBackExactlyTheBytes) {
  const TempDir tmp;
  const fs::path& dir = tmp.path();
  std::ostringstream program;
  program << "#include <cstdio>\n#include <cstddef>\n"
             "static void show(const char* s, std::size_t n) {\n"
             "  for (std::size_t i = 0; i < n; ++i) std::printf(\"%02x\", (unsigned char)s[i]);\n"
             "  std::printf(\"\\n\");\n}\n"
             "int main() {\n"
             "  int shown = 0;\n";
  std::string expected;
  for (size_t i = 0; i < kHostile.size(); ++i) {
    program << "  " << cpp_comment(kHostile[i]) << "\n"
            << "  {\n    static const char text[] = " << cpp_string_literal(kHostile[i])
            << ";\n    show(text, sizeof text - 1);\n    ++shown;\n  }\n";
    expected += hex(kHostile[i]) + "\n";
  }
  // A comment that swallowed the next line would lose one of these.
  program << "  std::printf(\"%d\\n\", shown);\n}\n";
  expected += std::to_string(kHostile.size()) + "\n";
  write_file(dir / "text.cpp", program.str());

  for (const char* flags : {"-std=c++14 -trigraphs -Wall -Wextra -Werror -Wtrigraphs -Wcomment",
                            "-std=c++17 -Wall -Wextra -Werror"}) {
    SCOPED_TRACE(flags);
    const std::string exe = (dir / "text").string();
    std::string compiled = run(std::string(OPSCAN_CXX_COMPILER) + " " + flags + " " +
                               (dir / "text.cpp").string() + " -o " + exe + " 2>&1");
    ASSERT_EQ(compiled, "");
    EXPECT_EQ(run(exe), expected);
  }
}

TEST(Quoted, ShowsControlCharactersAndBadBytesAsEscapes) {
  EXPECT_EQ(quoted("abc"), "'abc'");
  EXPECT_EQ(quoted("a'b\\c"), "'a\\'b\\\\c'");
  EXPECT_EQ(quoted("line\nbreak\ttab\x01"), "'line\\nbreak\\ttab\\x01'");
  EXPECT_EQ(quoted("caf\xc3\xa9"), "'caf\xc3\xa9'");
  EXPECT_EQ(quoted("bad \xff\xc3"), "'bad \\xff\\xc3'");
}

TEST(Quoted, CutsLongTextWithoutSplittingACharacter) {
  EXPECT_EQ(quoted(std::string(100, 'x'), 8), "'xxxxxxxx...'");
  // The cut falls inside "é": the partial character is dropped, not shown as bytes.
  EXPECT_EQ(quoted("abcdefg\xc3\xa9xyz", 8), "'abcdefg...'");
  EXPECT_EQ(opscan::support::quoted(std::string(10'000'000, '?')).size(), 64u + 5u);
}

TEST(Utf8, WellFormedOnly) {
  EXPECT_TRUE(is_utf8(""));
  EXPECT_TRUE(is_utf8("ascii and caf\xc3\xa9 and \xf0\x9f\x98\x80"));
  EXPECT_FALSE(is_utf8("\xff"));
  EXPECT_FALSE(is_utf8("\xc0\xaf"));         // overlong '/'
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));     // a surrogate
  EXPECT_FALSE(is_utf8("\xf4\x90\x80\x80")); // past U+10FFFF
  EXPECT_FALSE(is_utf8("\xe2\x80"));         // cut short
}

} // namespace
