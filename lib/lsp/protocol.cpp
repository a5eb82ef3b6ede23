// JSON-RPC 2.0 over LSP's base protocol: framing, message kinds, params.
#include "lsp/protocol.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace opscan::lsp {
namespace {

// A header line may not be longer than this: a peer sending an endless line
// would otherwise fill memory.
constexpr size_t kMaxHeaderLine = 4096;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// Whether `text` nests arrays and objects deeper than `limit` (brackets in
// strings do not count). A scan, so that no depth is ever recursed into.
bool nests_deeper(std::string_view text, size_t limit) {
  size_t depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        i += text[i] == '\\';
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return true;
    } else if (c == ']' || c == '}') {
      depth -= depth > 0;
    }
  }
  return false;
}

} // namespace

bool FrameReader::fill() {
  if (eof_)
    return false;
  // Drop what was handed out: a peer that keeps the pipe full, so that
  // reads end inside messages, would otherwise grow the buffer for ever.
  if (begin_ > 0) {
    buffer_.erase(0, begin_);
    begin_ = 0;
  }
  char chunk[65536];
  const size_t n = read_(chunk, sizeof chunk);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, n);
  return true;
}

std::optional<std::string> FrameReader::line() {
  for (;;) {
    const size_t end = buffer_.find('\n', begin_);
    if (end != std::string::npos) {
      std::string text = buffer_.substr(begin_, end - begin_);
      begin_ = end + 1;
      if (!text.empty() && text.back() == '\r')
        text.pop_back();
      return text;
    }
    if (buffer_.size() - begin_ > kMaxHeaderLine) {
      // Keep the tail: the line goes on, and is reported as too long.
      std::string text = buffer_.substr(begin_, kMaxHeaderLine);
      begin_ = buffer_.size();
      return text;
    }
    if (!fill())
      return std::nullopt;
  }
}

bool FrameReader::skip(size_t bytes) {
  while (bytes > 0) {
    if (begin_ == buffer_.size() && !fill())
      return false;
    const size_t n = std::min(bytes, buffer_.size() - begin_);
    begin_ += n;
    bytes -= n;
  }
  return true;
}

bool FrameReader::resynchronise() {
  static constexpr std::string_view kName = "content-length:";
  for (;;) {
    const auto found =
        std::search(buffer_.begin() + static_cast<std::ptrdiff_t>(begin_), buffer_.end(),
                    kName.begin(), kName.end(), [](char c, char lower) {
                      return std::tolower(static_cast<unsigned char>(c)) == lower;
                    });
    if (found != buffer_.end()) {
      begin_ = static_cast<size_t>(found - buffer_.begin());
      return true;
    }
    // Keep only what may begin the name.
    const size_t keep = kName.size() - 1;
    if (buffer_.size() - begin_ > keep)
      begin_ = buffer_.size() - keep;
    if (!fill())
      return false;
  }
}

Frame FrameReader::next() {
  if (lost_) {
    lost_ = false;
    if (!resynchronise()) {
      begin_ = buffer_.size();
      Frame f;
      f.end = true;
      return f;
    }
  }
  std::optional<size_t> length;
  bool length_bad = false; // a Content-Length that is no number, or two that differ
  std::string error;
  bool any_header = false;
  for (;;) {
    std::optional<std::string> header = line();
    if (!header) {
      Frame f;
      f.end = true;
      if (any_header)
        f.error = "the input ended inside a message header";
      return f;
    }
    if (header->empty()) {
      if (!any_header)
        continue; // stray blank lines between messages
      break;
    }
    any_header = true;
    if (header->size() >= kMaxHeaderLine) {
      error = "a header line is longer than " + std::to_string(kMaxHeaderLine) + " bytes";
      continue;
    }
    const size_t colon = header->find(':');
    if (colon == std::string::npos) {
      error = "malformed header line (no ':')";
      continue;
    }
    std::string_view name = trimmed(std::string_view(*header).substr(0, colon));
    std::string_view value = trimmed(std::string_view(*header).substr(colon + 1));
    if (!iequals(name, "Content-Length"))
      continue; // Content-Type and unknown headers are allowed
    size_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
      error = "Content-Length is not a number: '" + std::string(value.substr(0, 40)) + "'";
      length_bad = true;
      continue;
    }
    if (length && *length != n) {
      error = "two different Content-Length headers (" + std::to_string(*length) + " and " +
              std::to_string(n) + ")";
      length_bad = true;
    }
    length = n;
  }
  Frame f;
  if (!error.empty() || !length) {
    f.error = error.empty() ? "a message header without Content-Length" : error;
    // With one valid length the body is known and skipped; without one the
    // body's end is not known, and the reader resynchronises at the next
    // "Content-Length:" (a client writes the next header right after it).
    if (length && !length_bad)
      f.end = !skip(*length);
    else
      lost_ = true;
    return f;
  }
  if (*length > max_body_) {
    f.error = "a message of " + std::to_string(*length) + " bytes is larger than the limit of " +
              std::to_string(max_body_);
    f.end = !skip(*length);
    return f;
  }
  while (buffer_.size() - begin_ < *length) {
    if (!fill()) {
      f.end = true;
      f.error = "the input ended inside a message body";
      return f;
    }
  }
  f.body = buffer_.substr(begin_, *length);
  begin_ += *length;
  return f;
}

Parsed parse_message(std::string_view body) {
  Parsed parsed;
  if (nests_deeper(body, kMaxNesting)) {
    parsed.code = error_code::invalid_request;
    parsed.error = "the message nests arrays and objects deeper than " +
                   std::to_string(kMaxNesting) + " levels";
    return parsed;
  }
  parsed.json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.json.is_discarded()) {
    parsed.code = error_code::parse_error;
    parsed.error = "the message is not JSON";
  }
  return parsed;
}

std::string frame(const Json& message) {
  // Invalid UTF-8 in a string (from a file's bytes) is replaced, not thrown.
  std::string body = message.dump(-1, ' ', false, Json::error_handler_t::replace);
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool is_request(const Json& message) {
  return message.is_object() && message.contains("method") && message.contains("id");
}

bool is_notification(const Json& message) {
  return message.is_object() && message.contains("method") && !message.contains("id");
}

const Json& member(const Json& object, const char* name) {
  if (!object.is_object() || !object.contains(name))
    throw BadParams("missing '" + std::string(name) + "'");
  return object.at(name);
}

std::string string_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_string())
    throw BadParams("'" + std::string(name) + "' is not a string");
  return value.get<std::string>();
}

int64_t integer_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_number_integer())
    throw BadParams("'" + std::string(name) + "' is not an integer");
  return value.get<int64_t>();
}

uint32_t unsigned_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_number_unsigned() || value.get<uint64_t>() > UINT32_MAX)
    throw BadParams("'" + std::string(name) + "' is not an unsigned integer");
  return value.get<uint32_t>();
}

Json response(const Json& id, Json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json error_response(const Json& id, int code, std::string message) {
  return {
      {"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::move(message)}}}};
}

Json notification(std::string method, Json params) {
  return {{"jsonrpc", "2.0"}, {"method", std::move(method)}, {"params", std::move(params)}};
}

Json log_message(int type, std::string message) {
  return notification("window/logMessage", {{"type", type}, {"message", std::move(message)}});
}

} // namespace opscan::lsp
