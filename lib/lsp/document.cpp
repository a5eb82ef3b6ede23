#include "lsp/document.h"

#include <algorithm>

namespace opscan::lsp {
namespace {

// The length of the UTF-8 sequence starting at text[i], or 1 for a byte that
// starts none (counted alone).
size_t sequence_length(std::string_view text, size_t i) {
  const auto byte = static_cast<unsigned char>(text[i]);
  size_t n = byte < 0x80           ? 1
             : (byte >> 5) == 0x6  ? 2
             : (byte >> 4) == 0xE  ? 3
             : (byte >> 3) == 0x1E ? 4
                                   : 1;
  if (i + n > text.size())
    return 1;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
      return 1;
  }
  return n;
}

// Code units of a sequence of `bytes` bytes: UTF-16 needs a surrogate pair
// above the basic plane (the 4-byte sequences).
uint32_t units(size_t bytes, Encoding encoding) {
  if (encoding == Encoding::utf8)
    return static_cast<uint32_t>(bytes);
  return bytes == 4 ? 2 : 1;
}

} // namespace

LineIndex::LineIndex(std::string_view text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n')
      starts_.push_back(i + 1);
  }
}

size_t LineIndex::offset(std::string_view text, Position position, Encoding encoding) const {
  if (position.line >= starts_.size())
    return text.size();
  const size_t begin = starts_[position.line];
  size_t end = position.line + 1 < starts_.size() ? starts_[position.line + 1] - 1 : text.size();
  if (end > begin && text[end - 1] == '\r')
    --end;
  size_t i = begin;
  uint32_t counted = 0;
  while (i < end) {
    const size_t n = sequence_length(text, i);
    const uint32_t u = units(n, encoding);
    // A position inside a character (half a surrogate pair) is its start.
    if (counted + u > position.character)
      break;
    counted += u;
    i += n;
  }
  return i;
}

Position LineIndex::position(std::string_view text, size_t offset, Encoding encoding) const {
  offset = std::min(offset, text.size());
  const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const size_t line = static_cast<size_t>(after - starts_.begin()) - 1;
  Position p{static_cast<uint32_t>(line), 0};
  for (size_t i = starts_[line]; i < offset;) {
    const size_t n = sequence_length(text, i);
    p.character += units(n, encoding);
    i += n;
  }
  return p;
}

Document::Document(std::string uri, std::string path, int64_t version, std::string text)
    : uri_(std::move(uri)), path_(std::move(path)), version_(version), text_(std::move(text)),
      lines_(text_) {}

void Document::apply(const std::vector<Change>& changes, int64_t version, Encoding encoding) {
  for (const Change& change : changes) {
    if (!change.range) {
      text_ = change.text;
    } else {
      size_t begin = offset(change.range->start, encoding);
      size_t end = offset(change.range->end, encoding);
      if (end < begin)
        std::swap(begin, end);
      text_.replace(begin, end - begin, change.text);
    }
    lines_ = LineIndex(text_);
  }
  version_ = version;
}

std::optional<std::string> path_of_uri(std::string_view uri) {
  constexpr std::string_view scheme = "file://";
  if (!uri.starts_with(scheme))
    return std::nullopt;
  uri.remove_prefix(scheme.size());
  // file://host/path: only the local host is a path here.
  if (uri.starts_with("localhost/"))
    uri.remove_prefix(std::string_view("localhost").size());
  if (!uri.starts_with('/'))
    return std::nullopt;
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%') {
      auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9')
          return c - '0';
        if (c >= 'a' && c <= 'f')
          return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
          return c - 'A' + 10;
        return -1;
      };
      if (i + 2 >= uri.size() || hex(uri[i + 1]) < 0 || hex(uri[i + 2]) < 0)
        return std::nullopt;
      const char c = static_cast<char>(hex(uri[i + 1]) * 16 + hex(uri[i + 2]));
      if (c == '\0')
        return std::nullopt;
      path += c;
      i += 2;
    } else if (uri[i] == '?' || uri[i] == '#') {
      break;
    } else {
      path += uri[i];
    }
  }
  return path;
}

std::string uri_of_path(std::string_view path) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string uri = "file://";
  for (char c : path) {
    const auto b = static_cast<unsigned char>(c);
    const bool plain = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') ||
                       c == '/' || c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      uri += c;
    } else {
      uri += '%';
      uri += hex[b >> 4];
      uri += hex[b & 15];
    }
  }
  return uri;
}

} // namespace opscan::lsp
