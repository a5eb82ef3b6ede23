#include <gtest/gtest.h>

// ===== LineIndex, Document and file URIs (lib/lsp/document.h) ===============

#include "lsp/document.h"

#include <random>
#include <string>
#include <vector>

namespace {

using namespace opscan::lsp;

Position at(uint32_t line, uint32_t character) {
  return {line, character};
}

// "a", then 2-, 3- and 4-byte characters (é U+00E9, € U+20AC, 𝄞 U+1D11E,
// which UTF-16 writes as a surrogate pair), then "b".
const std::string kMixed = "a\u00e9\u20ac\U0001D11Eb";

TEST(LineIndex, CountsUtf16CodeUnits) {
  const LineIndex index(kMixed);
  // Byte offsets: a 0, é 1, € 3, 𝄞 6, b 10, end 11.
  EXPECT_EQ(index.position(kMixed, 0, Encoding::utf16), at(0, 0));
  EXPECT_EQ(index.position(kMixed, 1, Encoding::utf16), at(0, 1));
  EXPECT_EQ(index.position(kMixed, 3, Encoding::utf16), at(0, 2));
  EXPECT_EQ(index.position(kMixed, 6, Encoding::utf16), at(0, 3));
  EXPECT_EQ(index.position(kMixed, 10, Encoding::utf16), at(0, 5));
  EXPECT_EQ(index.position(kMixed, 11, Encoding::utf16), at(0, 6));
  EXPECT_EQ(index.offset(kMixed, at(0, 1), Encoding::utf16), 1u);
  EXPECT_EQ(index.offset(kMixed, at(0, 2), Encoding::utf16), 3u);
  EXPECT_EQ(index.offset(kMixed, at(0, 3), Encoding::utf16), 6u);
  EXPECT_EQ(index.offset(kMixed, at(0, 5), Encoding::utf16), 10u);
  EXPECT_EQ(index.offset(kMixed, at(0, 6), Encoding::utf16), 11u);
}

TEST(LineIndex, CountsUtf8Bytes) {
  const LineIndex index(kMixed);
  for (size_t offset : {0u, 1u, 3u, 6u, 10u, 11u}) {
    EXPECT_EQ(index.position(kMixed, offset, Encoding::utf8), at(0, offset));
    EXPECT_EQ(index.offset(kMixed, at(0, offset), Encoding::utf8), offset);
  }
}

TEST(LineIndex, APositionInsideACharacterIsItsStart) {
  const LineIndex index(kMixed);
  // Between the two halves of 𝄞's surrogate pair.
  EXPECT_EQ(index.offset(kMixed, at(0, 4), Encoding::utf16), 6u);
  // Inside the bytes of € and of 𝄞.
  EXPECT_EQ(index.offset(kMixed, at(0, 4), Encoding::utf8), 3u);
  EXPECT_EQ(index.offset(kMixed, at(0, 8), Encoding::utf8), 6u);
}

TEST(LineIndex, APositionPastTheLineEndIsTheLineEnd) {
  const std::string text = "ab\ncd\n";
  const LineIndex index(text);
  EXPECT_EQ(index.offset(text, at(0, 99), Encoding::utf16), 2u);
  EXPECT_EQ(index.offset(text, at(1, 99), Encoding::utf8), 5u);
  EXPECT_EQ(index.offset(text, at(2, 99), Encoding::utf16), 6u); // the empty last line
}

TEST(LineIndex, ALinePastTheLastIsTheTextsEnd) {
  const std::string text = "ab\ncd";
  const LineIndex index(text);
  EXPECT_EQ(index.lines(), 2u);
  EXPECT_EQ(index.offset(text, at(2, 0), Encoding::utf16), 5u);
  EXPECT_EQ(index.offset(text, at(1000, 3), Encoding::utf8), 5u);
  // And an offset past the end is the end's position.
  EXPECT_EQ(index.position(text, 999, Encoding::utf16), at(1, 2));
}

TEST(LineIndex, CrLfLinesEndBeforeTheCarriageReturn) {
  const std::string text = "ab\r\n\u00e9x\r\n";
  const LineIndex index(text);
  EXPECT_EQ(index.lines(), 3u);
  EXPECT_EQ(index.offset(text, at(0, 99), Encoding::utf16), 2u);
  EXPECT_EQ(index.offset(text, at(1, 1), Encoding::utf16), 6u);  // after é
  EXPECT_EQ(index.offset(text, at(1, 99), Encoding::utf16), 7u); // before \r
  EXPECT_EQ(index.position(text, 4, Encoding::utf16), at(1, 0));
  EXPECT_EQ(index.position(text, 7, Encoding::utf8), at(1, 3));
  EXPECT_EQ(index.position(text, 9, Encoding::utf8), at(2, 0));
}

TEST(LineIndex, InvalidUtf8CountsOneUnitPerByte) {
  // A lone continuation byte, a lead byte with no continuation, and a
  // 3-byte sequence cut short at the end of the text.
  const std::string text = "\x80"
                           "a\xe2"
                           "b\xe2\x82";
  const LineIndex index(text);
  for (Encoding encoding : {Encoding::utf16, Encoding::utf8}) {
    for (uint32_t i = 0; i <= text.size(); ++i) {
      EXPECT_EQ(index.position(text, i, encoding), at(0, i));
      EXPECT_EQ(index.offset(text, at(0, i), encoding), i);
    }
  }
}

TEST(LineIndex, EveryOffsetOnACharacterBoundaryRoundTrips) {
  const std::string text = "x = \"" + kMixed + "\";\r\n// " + kMixed + "\n\n" + kMixed;
  const LineIndex index(text);
  for (Encoding encoding : {Encoding::utf16, Encoding::utf8}) {
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
        continue; // inside a character
      if (i > 0 && i < text.size() && text[i - 1] == '\r')
        continue; // between \r and \n: no position of its own
      EXPECT_EQ(index.offset(text, index.position(text, i, encoding), encoding), i)
          << "offset " << i;
    }
  }
}

Change edit(Position start, Position end, std::string text) {
  return {Range{start, end}, std::move(text)};
}

TEST(Document, AppliesIncrementalEditsInOrder) {
  Document doc("file:///w/k.cpp", "/w/k.cpp", 1, "line one\nline two\nline three\n");
  doc.apply({edit(at(1, 5), at(1, 8), "2"),                     // line 2
             edit(at(0, 0), at(0, 0), "// \u00e9\U0001D11E\n"), // a new first line
             edit(at(1, 5), at(2, 5), "")},                     // "line one\nline 2" -> "line 2"
            2, Encoding::utf16);
  EXPECT_EQ(doc.text(), "// \u00e9\U0001D11E\nline 2\nline three\n");
  EXPECT_EQ(doc.version(), 2);
  // Positions in the edited text use its new lines.
  EXPECT_EQ(doc.position(doc.text().find("three"), Encoding::utf16), at(2, 5));
  EXPECT_EQ(doc.offset(at(0, 6), Encoding::utf16), doc.text().find('\n'));
}

TEST(Document, EditsCountColumnsInTheNegotiatedEncoding) {
  const std::string line = "// d\u00e9j\u00e0 vu \U0001D11E;\n";
  // Insert "X" before ';': column 13 in UTF-16, 17 in UTF-8.
  Document utf16("file:///w/k.cpp", "/w/k.cpp", 1, line);
  utf16.apply({edit(at(0, 13), at(0, 13), "X")}, 2, Encoding::utf16);
  EXPECT_EQ(utf16.text(), "// d\u00e9j\u00e0 vu \U0001D11EX;\n");
  Document utf8("file:///w/k.cpp", "/w/k.cpp", 1, line);
  utf8.apply({edit(at(0, 17), at(0, 17), "X")}, 2, Encoding::utf8);
  EXPECT_EQ(utf8.text(), utf16.text());
}

TEST(Document, AWholeTextChangeReplacesEverything) {
  Document doc("file:///w/k.cpp", "/w/k.cpp", 1, "old\ntext\n");
  doc.apply({Change{std::nullopt, "new"}, edit(at(0, 3), at(0, 3), "er")}, 5, Encoding::utf16);
  EXPECT_EQ(doc.text(), "newer");
  EXPECT_EQ(doc.version(), 5);
}

TEST(Document, AReversedOrOutOfRangeEditIsClamped) {
  Document doc("file:///w/k.cpp", "/w/k.cpp", 1, "abc\ndef");
  doc.apply({edit(at(0, 2), at(0, 1), "X")}, 2, Encoding::utf16); // end before start
  EXPECT_EQ(doc.text(), "aXc\ndef");
  doc.apply({edit(at(1, 1), at(50, 0), "!")}, 3, Encoding::utf16); // past the last line
  EXPECT_EQ(doc.text(), "aXc\nd!");
}

// The text `changes` leave as LSP defines it: each edit against the text
// the previous left, positions looked up in a LineIndex of that text.
std::string edited_by_definition(std::string text, const std::vector<Change>& changes,
                                 Encoding encoding) {
  for (const Change& change : changes) {
    const LineIndex lines(text);
    size_t begin = lines.offset(text, change.range->start, encoding);
    size_t end = lines.offset(text, change.range->end, encoding);
    if (end < begin)
      std::swap(begin, end);
    text.replace(begin, end - begin, change.text);
  }
  return text;
}

// Random edits (joining and splitting lines, across the document's chunks,
// past its end, reversed, inside characters) leave exactly the text the
// definition gives.
TEST(Document, ManyEditsLeaveTheTextTheDefinitionGives) {
  std::mt19937 random(23);
  const std::vector<std::string> words = {"a", "\n", "\r\n", "\u00e9", "\U0001D11E", "",
                                          std::string(300, 'x') + "\n", "\n\n", "zz"};
  for (Encoding encoding : {Encoding::utf16, Encoding::utf8}) {
    for (int round = 0; round < 20; ++round) {
      std::string text;
      for (int i = 0; i < 600; ++i) // about 20 KB: several chunks
        text += words[random() % words.size()];
      std::vector<Change> changes;
      for (int i = 0; i < 300; ++i) {
        const auto position = [&] {
          return at(static_cast<uint32_t>(random() % 250), static_cast<uint32_t>(random() % 40));
        };
        changes.push_back(edit(position(), position(), words[random() % words.size()]));
      }
      Document doc("file:///w/k.cpp", "/w/k.cpp", 1, text);
      doc.apply(changes, 2, encoding);
      ASSERT_EQ(doc.text(), edited_by_definition(text, changes, encoding)) << "round " << round;
      EXPECT_EQ(doc.offset(at(1000, 0), encoding), doc.text().size());
    }
  }
}

// Issue 23: each edit made a LineIndex of the whole text, so one didChange
// of 100,000 edits to a 1 MB document took the reader two minutes (shutdown
// and exit waited behind it).
TEST(Document, AHundredThousandEditsOfAMegabyteDocument) {
  std::string text;
  for (int i = 0; i < 13000; ++i)
    text += "// line " + std::to_string(i) + ": out[i] = self[i] * other[i] + alpha * bias[i];\n";
  std::vector<Change> changes;
  for (uint32_t i = 0; i < 100000; ++i)
    changes.push_back(edit(at(i % 13000, 0), at(i % 13000, 0), "a"));
  Document doc("file:///w/k.cpp", "/w/k.cpp", 1, text);
  doc.apply(changes, 2, Encoding::utf16);
  std::string expected;
  size_t line = 0;
  for (size_t begin = 0; begin < text.size(); ++line) {
    const size_t end = text.find('\n', begin) + 1;
    expected += std::string(100000 / 13000 + (line < 100000 % 13000), 'a');
    expected += text.substr(begin, end - begin);
    begin = end;
  }
  EXPECT_EQ(doc.text(), expected);
  EXPECT_EQ(doc.position(doc.text().size(), Encoding::utf16), at(13000, 0));
}

TEST(Uri, FileUrisArePathsWithPercentEscapesDecoded) {
  EXPECT_EQ(path_of_uri("file:///tmp/k.cpp"), "/tmp/k.cpp");
  EXPECT_EQ(path_of_uri("file:///tmp/a%20b/d%C3%A9j%C3%A0.cpp"), "/tmp/a b/d\u00e9j\u00e0.cpp");
  EXPECT_EQ(path_of_uri("file:///tmp/%2b%2B"), "/tmp/++");
  EXPECT_EQ(path_of_uri("file://localhost/tmp/k.cpp"), "/tmp/k.cpp");
  EXPECT_EQ(path_of_uri("file:///tmp/k.cpp?query#fragment"), "/tmp/k.cpp");
}

TEST(Uri, OtherSchemesHostsAndBadEscapesHaveNoPath) {
  EXPECT_EQ(path_of_uri("untitled:Untitled-1"), std::nullopt);
  EXPECT_EQ(path_of_uri("https://example.com/k.cpp"), std::nullopt);
  EXPECT_EQ(path_of_uri("file://server/share/k.cpp"), std::nullopt);
  EXPECT_EQ(path_of_uri("file:relative.cpp"), std::nullopt);
  EXPECT_EQ(path_of_uri("file:///tmp/%zz"), std::nullopt);
  EXPECT_EQ(path_of_uri("file:///tmp/%4"), std::nullopt);
  EXPECT_EQ(path_of_uri("file:///tmp/%00x"), std::nullopt);
  EXPECT_EQ(path_of_uri(""), std::nullopt);
}

TEST(Uri, PathsBecomeUrisThatReadBack) {
  EXPECT_EQ(uri_of_path("/tmp/k.cpp"), "file:///tmp/k.cpp");
  EXPECT_EQ(uri_of_path("/tmp/a b/d\u00e9j\u00e0#1.cpp"),
            "file:///tmp/a%20b/d%C3%A9j%C3%A0%231.cpp");
  for (const std::string path : {"/tmp/k.cpp", "/a b/%41?#/\u00e9\U0001D11E", "/x+y=z~_-."})
    EXPECT_EQ(path_of_uri(uri_of_path(path)), path);
}

} // namespace
