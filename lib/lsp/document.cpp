// Open documents' texts, LSP positions in them, and file: URIs.
#include "lsp/document.h"

#include <algorithm>
#include <utility>

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

// The byte offset in `line` (without its '\n') of a column: a column past
// the line's end (its "\r" excluded) is the end; one inside a character
// (half a surrogate pair) is the character's start.
size_t column_offset(std::string_view line, uint32_t character, Encoding encoding) {
  size_t end = line.size();
  if (end > 0 && line[end - 1] == '\r')
    --end;
  size_t i = 0;
  uint32_t counted = 0;
  while (i < end) {
    const size_t n = sequence_length(line, i);
    const uint32_t u = units(n, encoding);
    if (counted + u > character)
      break;
    counted += u;
    i += n;
  }
  return i;
}

// A text being edited, held as chunks of whole lines of about kChunk bytes,
// so that an edit costs the chunks it touches and a walk over the chunks,
// not a copy of the whole text and a new LineIndex: one didChange may carry
// a hundred thousand edits of a large document.
class Chunks {
public:
  explicit Chunks(std::string_view text) : chunks_(cut(text)) {
    if (chunks_.empty())
      chunks_.push_back({});
  }

  // Replaces the text between two positions (in either order).
  void replace(const Range& range, std::string_view text, Encoding encoding) {
    auto [c1, o1] = locate(range.start, encoding);
    auto [c2, o2] = locate(range.end, encoding);
    if (std::pair(c2, o2) < std::pair(c1, o1)) {
      std::swap(c1, c2);
      std::swap(o1, o2);
    }
    std::string joined = chunks_[c1].text.substr(0, o1);
    joined += text;
    joined.append(chunks_[c2].text, o2);
    std::vector<Chunk> pieces = cut(joined);
    chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c1),
                  chunks_.begin() + static_cast<std::ptrdiff_t>(c2) + 1);
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c1),
                   std::make_move_iterator(pieces.begin()), std::make_move_iterator(pieces.end()));
    if (chunks_.empty())
      chunks_.push_back({});
  }

  std::string text() const {
    std::string all;
    for (const Chunk& c : chunks_)
      all += c.text;
    return all;
  }

private:
  struct Chunk {
    std::string text; // whole lines: ends with '\n' unless it is the last
    size_t lines = 0; // its '\n's
  };
  static constexpr size_t kChunk = 4096;

  // `text` cut after a '\n' once a chunk has kChunk bytes; no empty chunk.
  static std::vector<Chunk> cut(std::string_view text) {
    std::vector<Chunk> chunks;
    while (!text.empty()) {
      size_t end = text.size();
      if (text.size() > kChunk) {
        const size_t newline = text.find('\n', kChunk - 1);
        if (newline != std::string_view::npos)
          end = newline + 1;
      }
      Chunk c{std::string(text.substr(0, end)), 0};
      c.lines = static_cast<size_t>(std::count(c.text.begin(), c.text.end(), '\n'));
      chunks.push_back(std::move(c));
      text.remove_prefix(end);
    }
    return chunks;
  }

  // The chunk and byte offset in it of a position, as LineIndex::offset
  // finds it (a line past the last is the text's end).
  std::pair<size_t, size_t> locate(Position position, Encoding encoding) const {
    size_t line = position.line;
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const std::string& text = chunks_[c].text;
      // The last chunk holds the text's last line, after its last '\n'.
      if (line >= chunks_[c].lines && c + 1 < chunks_.size()) {
        line -= chunks_[c].lines;
        continue;
      }
      if (line > chunks_[c].lines)
        return {c, text.size()};
      size_t begin = 0;
      for (; line > 0; --line)
        begin = text.find('\n', begin) + 1;
      const size_t end = std::min(text.find('\n', begin), text.size());
      return {c, begin + column_offset(std::string_view(text).substr(begin, end - begin),
                                       position.character, encoding)};
    }
    return {0, 0};
  }

  std::vector<Chunk> chunks_;
};

} // namespace

Position position_of(const Json& json) {
  return {unsigned_member(json, "line"), unsigned_member(json, "character")};
}

Range range_of(const Json& json) {
  return {position_of(member(json, "start")), position_of(member(json, "end"))};
}

Json to_json(Position p) {
  return {{"line", p.line}, {"character", p.character}};
}

Json to_json(const Range& r) {
  return {{"start", to_json(r.start)}, {"end", to_json(r.end)}};
}

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
  const size_t end =
      position.line + 1 < starts_.size() ? starts_[position.line + 1] - 1 : text.size();
  return begin + column_offset(text.substr(begin, end - begin), position.character, encoding);
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
  std::optional<Chunks> edited;
  for (const Change& change : changes) {
    if (!change.range) {
      edited.reset();
      text_ = change.text;
      continue;
    }
    if (!edited)
      edited.emplace(text_);
    edited->replace(*change.range, change.text, encoding);
  }
  if (edited)
    text_ = edited->text();
  lines_ = LineIndex(text_);
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
