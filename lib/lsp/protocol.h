// JSON-RPC 2.0 over LSP's base protocol: messages framed by a
// Content-Length header. Reading is bounded and never trusts the peer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace opscan::lsp {

using Json = nlohmann::json;

// JSON-RPC and LSP error codes.
namespace error_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
inline constexpr int server_not_initialized = -32002;
inline constexpr int request_cancelled = -32800;
inline constexpr int content_modified = -32801;
} // namespace error_code

// The largest message body accepted; a larger Content-Length is refused
// without reading it into memory.
inline constexpr size_t kMaxMessageBytes = 64 << 20;

// The deepest a message may nest arrays and objects. LSP's messages nest
// about ten levels; nlohmann copies, compares and prints values by
// recursion, so a message nested deep enough would exhaust the stack.
inline constexpr size_t kMaxNesting = 64;

// Reads bytes: at most `size` into `buffer`; the count read, 0 at the end of
// input.
using ReadSome = std::function<size_t(char* buffer, size_t size)>;

// One framed message, or why there is none.
struct Frame {
  std::optional<std::string> body; // set when a whole message was read
  bool end = false;                // the input ended (cleanly between messages, or not)
  std::string error;               // a bad header or an oversized body; reading goes on
};

// Reads framed messages from a byte stream. A malformed header block is
// reported and skipped up to its blank line, so one bad message does not
// stop the reader: its body too when it has one valid Content-Length, else
// the input up to the next "Content-Length:" (in any case), where the next
// message's header begins. `max_body` bounds a message's size (the server
// and its analysis worker, who trust each other, allow more than a client
// may send).
class FrameReader {
public:
  explicit FrameReader(ReadSome read, size_t max_body = kMaxMessageBytes)
      : read_(std::move(read)), max_body_(max_body) {}
  Frame next();

private:
  bool fill();                       // reads more; false at the end
  std::optional<std::string> line(); // a header line without its CRLF
  bool skip(size_t bytes);           // discards a body it will not keep
  bool resynchronise();              // discards up to the next Content-Length
  ReadSome read_;
  size_t max_body_;
  std::string buffer_;
  size_t begin_ = 0; // consumed bytes of buffer_
  bool eof_ = false;
  bool lost_ = false; // a bad header left the body's length unknown
};

// A message body as JSON, or why not (then `error` is set): text that is
// not JSON, or that nests deeper than kMaxNesting (refused before any of it
// is parsed).
struct Parsed {
  Json json;
  int code = 0; // error_code::parse_error or invalid_request when refused
  std::string error;
};
Parsed parse_message(std::string_view body);

// A message with its Content-Length header.
std::string frame(const Json& message);

// Kinds of JSON-RPC messages, by their members.
bool is_request(const Json& message);      // has "method" and "id"
bool is_notification(const Json& message); // has "method" and no "id"

// A malformed message's params: answered with invalid_params (a request)
// or logged (a notification), never a crash.
struct BadParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A member of a message's params, of the type LSP gives it; BadParams when
// it is missing or of another type.
const Json& member(const Json& object, const char* name);
std::string string_member(const Json& object, const char* name);
int64_t integer_member(const Json& object, const char* name);
uint32_t unsigned_member(const Json& object, const char* name);

Json response(const Json& id, Json result);
Json error_response(const Json& id, int code, std::string message);
Json notification(std::string method, Json params);
// LSP's window/logMessage: `type` 1 error, 2 warning, 3 info, 4 log.
Json log_message(int type, std::string message);

} // namespace opscan::lsp
