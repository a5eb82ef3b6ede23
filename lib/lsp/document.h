// An open document's text, and LSP positions in it. LSP counts a line's
// characters in code units of the negotiated encoding (UTF-16 unless both
// sides chose UTF-8); opscan counts bytes. Invalid UTF-8 counts one unit per
// byte either way, so every offset has a position and back.
#pragma once

#include "lsp/protocol.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::lsp {

enum class Encoding { utf16, utf8 };

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
  friend bool operator==(const Position&, const Position&) = default;
};

struct Range {
  Position start;
  Position end;
};

// Positions and ranges as LSP's JSON; reading a malformed one throws
// BadParams.
Position position_of(const Json& json);
Range range_of(const Json& json);
Json to_json(Position position);
Json to_json(const Range& range);

// Line starts of a text, for converting between byte offsets and positions.
class LineIndex {
public:
  explicit LineIndex(std::string_view text);
  // The byte offset of a position; a character past the line's end is its
  // end, a line past the last is the text's end (as LSP asks).
  size_t offset(std::string_view text, Position position, Encoding encoding) const;
  Position position(std::string_view text, size_t offset, Encoding encoding) const;
  size_t lines() const { return starts_.size(); }

private:
  std::vector<size_t> starts_;
};

// One edit of a didChange: the whole text when `range` is unset.
struct Change {
  std::optional<Range> range;
  std::string text;
};

class Document {
public:
  Document(std::string uri, std::string path, int64_t version, std::string text);

  const std::string& uri() const { return uri_; }
  const std::string& path() const { return path_; } // the file it stands for
  int64_t version() const { return version_; }
  const std::string& text() const { return text_; }

  // Applies edits in order (each against the text the previous left), then
  // takes the version.
  void apply(const std::vector<Change>& changes, int64_t version, Encoding encoding);

  size_t offset(Position position, Encoding encoding) const {
    return lines_.offset(text_, position, encoding);
  }
  Position position(size_t offset, Encoding encoding) const {
    return lines_.position(text_, offset, encoding);
  }

private:
  std::string uri_;
  std::string path_;
  int64_t version_;
  std::string text_;
  LineIndex lines_;
};

// file:// URIs and paths. Percent-escapes are decoded; a URI of another
// scheme (or a malformed one) has no path.
std::optional<std::string> path_of_uri(std::string_view uri);
std::string uri_of_path(std::string_view path);

} // namespace opscan::lsp
