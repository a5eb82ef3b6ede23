#include <gtest/gtest.h>

// ===== FrameReader, frame() and the message helpers (lib/lsp/protocol.h) ====

#include "lsp/protocol.h"

#include <algorithm>
#include <malloc.h>
#include <string>
#include <vector>

namespace {

using namespace opscan::lsp;

// A byte stream over `input` handing out at most `chunk` bytes per read, as
// a pipe may split a message anywhere.
ReadSome chunks_of(std::string input, size_t chunk) {
  auto pos = std::make_shared<size_t>(0);
  auto data = std::make_shared<std::string>(std::move(input));
  return [=](char* buffer, size_t size) -> size_t {
    const size_t n = std::min({size, chunk, data->size() - *pos});
    std::copy_n(data->data() + *pos, n, buffer);
    *pos += n;
    return n;
  };
}

std::string framed(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// Every frame until the end of input, the last (the end) included.
std::vector<Frame> all_frames(FrameReader& reader) {
  std::vector<Frame> frames;
  for (int guard = 0; guard < 100; ++guard) {
    frames.push_back(reader.next());
    if (frames.back().end)
      return frames;
  }
  ADD_FAILURE() << "the reader never reported the end of input";
  return frames;
}

TEST(FrameReader, ReadsAMessageSplitIntoSingleBytes) {
  const std::string body = R"({"jsonrpc":"2.0","method":"x","params":{"s":"déjà"}})";
  FrameReader reader(chunks_of(framed(body), 1));
  Frame f = reader.next();
  ASSERT_TRUE(f.body) << f.error;
  EXPECT_EQ(*f.body, body);
  EXPECT_TRUE(f.error.empty());
  EXPECT_FALSE(f.end);
  Frame last = reader.next();
  EXPECT_TRUE(last.end);
  EXPECT_FALSE(last.body);
  EXPECT_TRUE(last.error.empty()) << "the input ended cleanly between messages";
}

TEST(FrameReader, ReadsTwoMessagesDeliveredInOneRead) {
  FrameReader reader(chunks_of(framed("{\"a\":1}") + framed("{\"b\":2}"), 1 << 20));
  EXPECT_EQ(reader.next().body, "{\"a\":1}");
  EXPECT_EQ(reader.next().body, "{\"b\":2}");
  EXPECT_TRUE(reader.next().end);
}

TEST(FrameReader, AcceptsExtraHeadersInAnyOrderAndCase) {
  const std::string input = "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
                            "X-Unknown: whatever\r\n"
                            "content-length:  2 \r\n"
                            "\r\n"
                            "{}";
  FrameReader reader(chunks_of(input, 3));
  Frame f = reader.next();
  EXPECT_EQ(f.body, "{}") << f.error;
  EXPECT_TRUE(f.error.empty());
}

TEST(FrameReader, AcceptsBareNewlinesAndBlankLinesBetweenMessages) {
  FrameReader reader(chunks_of("\r\n\nContent-Length: 2\n\n{}", 5));
  EXPECT_EQ(reader.next().body, "{}");
}

TEST(FrameReader, ReportsAHeaderBlockWithoutContentLengthAndReadsTheNextMessage) {
  FrameReader reader(chunks_of("Content-Type: text/plain\r\n\r\n" + framed("{}"), 4));
  Frame bad = reader.next();
  EXPECT_FALSE(bad.body);
  EXPECT_FALSE(bad.end);
  EXPECT_EQ(bad.error, "a message header without Content-Length");
  EXPECT_EQ(reader.next().body, "{}");
}

TEST(FrameReader, ReportsAContentLengthThatIsNoNumber) {
  for (const std::string value : {"abc", "12abc", "-1", "", "1 2", "0x10"}) {
    SCOPED_TRACE("Content-Length: " + value);
    FrameReader reader(chunks_of("Content-Length: " + value + "\r\n\r\n" + framed("{}"), 7));
    Frame bad = reader.next();
    EXPECT_FALSE(bad.body);
    EXPECT_NE(bad.error.find("Content-Length is not a number"), std::string::npos) << bad.error;
    EXPECT_EQ(reader.next().body, "{}") << "the reader resynchronises at the next header";
  }
}

TEST(FrameReader, ReportsAContentLengthThatOverflows) {
  FrameReader reader(
      chunks_of("Content-Length: 99999999999999999999999999\r\n\r\n" + framed("{}"), 1 << 20));
  Frame bad = reader.next();
  EXPECT_FALSE(bad.body);
  EXPECT_NE(bad.error.find("not a number"), std::string::npos) << bad.error;
  EXPECT_EQ(reader.next().body, "{}");
}

TEST(FrameReader, ReportsAHeaderLineTooLongWhicheverWayItArrives) {
  const std::string input = "X-Long: " + std::string(10000, 'x') + "\r\n\r\n" + framed("{}");
  for (size_t chunk : {size_t{1}, size_t{100}, size_t{1} << 20}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    FrameReader reader(chunks_of(input, chunk));
    Frame bad = reader.next();
    EXPECT_FALSE(bad.body);
    EXPECT_FALSE(bad.error.empty());
    Frame next = reader.next();
    EXPECT_EQ(next.body, "{}") << next.error;
  }
}

TEST(FrameReader, ReportsABodyCutShort) {
  FrameReader reader(chunks_of("Content-Length: 10\r\n\r\n{}", 1));
  Frame f = reader.next();
  EXPECT_FALSE(f.body);
  EXPECT_TRUE(f.end);
  EXPECT_EQ(f.error, "the input ended inside a message body");
}

TEST(FrameReader, ReportsInputEndingInsideAHeader) {
  FrameReader reader(chunks_of("Content-Length: 2\r\n", 1));
  Frame f = reader.next();
  EXPECT_TRUE(f.end);
  EXPECT_EQ(f.error, "the input ended inside a message header");
}

TEST(FrameReader, SkipsAnOversizedBodyWithoutKeepingItAndReadsTheNextMessage) {
  // The body is generated as it is read (never held whole by the test), so
  // the reader has to skip it chunk by chunk.
  const size_t size = kMaxMessageBytes + 1;
  const std::string header = "Content-Length: " + std::to_string(size) + "\r\n\r\n";
  const std::string after = framed("{\"next\":true}");
  size_t pos = 0;
  const size_t total = header.size() + size + after.size();
  FrameReader reader([&](char* buffer, size_t want) -> size_t {
    const size_t n = std::min(want, total - pos);
    for (size_t i = 0; i < n; ++i, ++pos) {
      if (pos < header.size())
        buffer[i] = header[pos];
      else if (pos < header.size() + size)
        buffer[i] = 'x';
      else
        buffer[i] = after[pos - header.size() - size];
    }
    return n;
  });
  Frame big = reader.next();
  EXPECT_FALSE(big.body);
  EXPECT_FALSE(big.end);
  EXPECT_NE(big.error.find("larger than the limit"), std::string::npos) << big.error;
  EXPECT_EQ(reader.next().body, "{\"next\":true}");
  EXPECT_TRUE(reader.next().end);
}

TEST(FrameReader, AcceptsABodyOfExactlyTheLimitsSizeAndAnEmptyBody) {
  FrameReader empty(chunks_of("Content-Length: 0\r\n\r\n", 1));
  EXPECT_EQ(empty.next().body, "");
  std::string body(kMaxMessageBytes, ' ');
  FrameReader largest(chunks_of(framed(body), 1 << 16));
  Frame f = largest.next();
  ASSERT_TRUE(f.body) << f.error;
  EXPECT_EQ(f.body->size(), kMaxMessageBytes);
}

TEST(FrameReader, KeepsReadingAfterEveryKindOfBadMessage) {
  const std::string input = "garbage without a colon\r\n\r\n" + framed("{\"n\":1}") +
                            "Content-Length: x\r\n\r\n" + framed("{\"n\":2}") +
                            "Content-Type: a\r\n\r\n" + framed("{\"n\":3}");
  FrameReader reader(chunks_of(input, 2));
  std::vector<std::string> bodies;
  int errors = 0;
  for (const Frame& f : all_frames(reader)) {
    if (f.body)
      bodies.push_back(*f.body);
    errors += !f.error.empty();
  }
  EXPECT_EQ(bodies, (std::vector<std::string>{"{\"n\":1}", "{\"n\":2}", "{\"n\":3}"}));
  EXPECT_EQ(errors, 3);
}

// Issue 23: a bad line in a header block with a valid Content-Length left
// its body unread, to be read as the next header; each later message's
// header was then eaten by the body before it, and no message (not even
// exit) was read again. The body is skipped.
TEST(FrameReader, SkipsTheBodyOfAHeaderBlockWithABadLineAndOneValidLength) {
  for (const std::string& bad : {std::string("Bogus header"), "X-Long: " + std::string(5000, 'x')}) {
    const std::string input = "Content-Length: 2\r\n" + bad + "\r\n\r\n{}" +
                              framed("{\"n\":1}") + framed("{\"n\":2}");
    for (size_t chunk : {size_t{1}, size_t{3}, size_t{1} << 20}) {
      SCOPED_TRACE(bad.substr(0, 12) + ", chunk " + std::to_string(chunk));
      FrameReader reader(chunks_of(input, chunk));
      Frame first = reader.next();
      EXPECT_FALSE(first.body);
      EXPECT_FALSE(first.error.empty());
      EXPECT_EQ(reader.next().body, "{\"n\":1}");
      EXPECT_EQ(reader.next().body, "{\"n\":2}");
      EXPECT_TRUE(reader.next().end);
    }
  }
}

// A header block without one valid Content-Length: its body's end is not
// known, and the reader resynchronises at the next "Content-Length:" (which
// a client writes right after the body).
TEST(FrameReader, ResynchronisesAtTheNextContentLengthAfterABodyOfUnknownLength) {
  const std::string body = R"({"jsonrpc":"2.0","method":"x","params":{"text":"a\r\n\r\nb"}})";
  for (const std::string header :
       {"Content-Length: abc", "Content-Length: -5", "Content-Length: 99999999999999999999999",
        "Content-Length: 2\r\nContent-Length: 3", "Content-Type: text/plain"}) {
    for (const std::string next : {"Content-Length", "content-length"}) {
      const std::string input = header + "\r\n\r\n" + body + next + ": 7\r\n\r\n{\"n\":1}" +
                                framed("{\"n\":2}");
      for (size_t chunk : {size_t{1}, size_t{5}, size_t{1} << 20}) {
        SCOPED_TRACE(header + ", then " + next + ", chunk " + std::to_string(chunk));
        FrameReader reader(chunks_of(input, chunk));
        Frame bad = reader.next();
        EXPECT_FALSE(bad.body);
        EXPECT_FALSE(bad.end);
        EXPECT_FALSE(bad.error.empty());
        Frame first = reader.next();
        EXPECT_EQ(first.body, "{\"n\":1}") << first.error;
        EXPECT_EQ(reader.next().body, "{\"n\":2}");
        EXPECT_TRUE(reader.next().end);
      }
    }
  }
  FrameReader two(chunks_of("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 1));
  EXPECT_EQ(two.next().error, "two different Content-Length headers (2 and 3)");
  Frame end = two.next();
  EXPECT_TRUE(end.end);
  EXPECT_FALSE(end.body);
  FrameReader same(chunks_of("Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}", 1));
  EXPECT_EQ(same.next().body, "{}") << "the same length twice is no contradiction";
}

// Bytes held by the heap, as glibc counts them (small and mmapped blocks).
size_t heap_in_use() {
  const struct mallinfo2 info = ::mallinfo2();
  return info.uordblks + info.hblkhd;
}

TEST(FrameReader, HoldsOnlyTheMessageBeingReadOverALongStream) {
  // 128 MiB of messages arriving in reads that each end inside a message
  // (as a pipe delivers a client that writes faster than the server reads):
  // what was read and handed out is not kept.
  const std::string message = framed("{\"text\":\"" + std::string(64 << 10, 'x') + "\"}");
  const size_t count = (128 << 20) / message.size();
  size_t pos = 0;
  FrameReader reader([&](char* buffer, size_t want) -> size_t {
    // 40,000 bytes a read: a message boundary falls inside most reads.
    const size_t n = std::min({want, size_t{40000}, count * message.size() - pos});
    for (size_t done = 0; done < n;) {
      const size_t at = (pos + done) % message.size();
      const size_t part = std::min(n - done, message.size() - at);
      std::copy_n(message.data() + at, part, buffer + done);
      done += part;
    }
    pos += n;
    return n;
  });
  ASSERT_TRUE(reader.next().body);
  const size_t before = heap_in_use();
  size_t read = 1;
  size_t most = before;
  for (Frame f = reader.next(); f.body; f = reader.next()) {
    ++read;
    most = std::max(most, heap_in_use());
  }
  EXPECT_EQ(read, count);
  // A few messages' worth, not the stream (under sanitizers, which count
  // the heap otherwise, both are 0).
  EXPECT_LT(most - before, 16u << 20) << "bytes held beyond the first message";
}

TEST(ParseMessage, RefusesNestingDeeperThanTheLimitUnparsed) {
  const auto nested = [](size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  const Parsed limit = parse_message(nested(kMaxNesting));
  EXPECT_EQ(limit.error, "");
  EXPECT_TRUE(limit.json.is_array());
  const Parsed deeper = parse_message(nested(kMaxNesting + 1));
  EXPECT_EQ(deeper.code, error_code::invalid_request);
  EXPECT_NE(deeper.error.find("deeper than"), std::string::npos) << deeper.error;
  // Brackets (and escaped quotes) in strings are text.
  const Parsed text = parse_message(R"({"a":"\"[[[[)" + std::string(1000, '{') + R"("})");
  EXPECT_EQ(text.error, "");
  EXPECT_TRUE(text.json.is_object());
  const Parsed bad = parse_message("{bad");
  EXPECT_EQ(bad.code, error_code::parse_error);
  EXPECT_TRUE(bad.json.is_discarded());
}

TEST(Frame, CountsTheBodyInBytes) {
  const Json message = {{"text", "é𝄞"}};
  const std::string out = frame(message);
  const std::string body = message.dump();
  EXPECT_EQ(body.size(), 17u); // {"text":"é𝄞"}: 2 + 4 bytes of text
  EXPECT_EQ(out, "Content-Length: 17\r\n\r\n" + body);
  FrameReader reader(chunks_of(out, 1));
  EXPECT_EQ(reader.next().body, body);
}

TEST(Frame, ReplacesInvalidUtf8InsteadOfThrowing) {
  const std::string out = frame(Json{{"text", std::string("a\xff"
                                                          "b")}});
  EXPECT_NE(out.find("a\xEF\xBF\xBD"
                     "b"),
            std::string::npos)
      << out;
  const size_t body = out.find("\r\n\r\n") + 4;
  EXPECT_TRUE(Json::accept(out.substr(body)));
}

TEST(Messages, AreToldApartByTheirMembers) {
  EXPECT_TRUE(is_request(Json{{"method", "m"}, {"id", 1}}));
  EXPECT_FALSE(is_notification(Json{{"method", "m"}, {"id", 1}}));
  EXPECT_TRUE(is_notification(Json{{"method", "m"}}));
  EXPECT_FALSE(is_request(Json{{"method", "m"}}));
  EXPECT_FALSE(is_request(Json{{"id", 1}, {"result", nullptr}}));
  EXPECT_FALSE(is_notification(Json::array()));
}

TEST(Messages, ResponsesCarryTheIdAndJsonRpcVersion) {
  EXPECT_EQ(response(7, {{"x", 1}}), Json::parse(R"({"jsonrpc":"2.0","id":7,"result":{"x":1}})"));
  EXPECT_EQ(response("a", nullptr), Json::parse(R"({"jsonrpc":"2.0","id":"a","result":null})"));
  EXPECT_EQ(error_response(nullptr, error_code::parse_error, "bad"),
            Json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}})"));
  EXPECT_EQ(notification("m", Json::object()),
            Json::parse(R"({"jsonrpc":"2.0","method":"m","params":{}})"));
}

} // namespace
