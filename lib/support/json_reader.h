// Reads JSON text into a light tree of nodes that know where they start:
// simdjson's fast parser, and nlohmann's for the error messages.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::support {

// A JSON value as a reader sees it: what it holds, where it starts, and for
// strings, keys and numbers, their value. Lighter than an nlohmann document,
// whose maps and strings, built and destroyed, cost more than the reading
// itself.
struct JsonNode {
  enum class Kind { null, boolean, unsigned_integer, other_number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  uint64_t number = 0;
  std::string_view text;          // a string's value
  std::string_view key;           // an object member's name
  uint32_t offset = 0;            // of the value in the text; 0 when not known
  std::vector<JsonNode> children; // array items, object members in order
};

// Containers nested deeper than this are read as empty, so that no nesting
// depth can exhaust the stack (opscan's files nest 6 levels deep).
inline constexpr int kJsonMaxDepth = 16;

// A parsed text: its root value, and the buffers whose strings the nodes
// view (they live as long as the tree).
struct JsonTree {
  JsonTree();
  JsonTree(JsonTree&&) noexcept;
  JsonTree& operator=(JsonTree&&) noexcept;
  ~JsonTree();

  std::optional<JsonNode> root; // none when the text is not JSON

  struct Buffers; // the parsers' (json_reader.cpp)
  std::unique_ptr<Buffers> buffers;
};

// Why a text is not JSON, as nlohmann tells.
struct JsonError {
  // Where reading stopped: the offending byte, or the text's size when it
  // ends too early; for a number too large, where the number starts (0 when
  // not found).
  size_t offset = 0;
  bool number_too_large = false; // else a syntax error
  std::string_view number;       // the number too large, when found
};

// Gives `text` the spare capacity after its end that parse_json needs.
void pad_for_json(std::string& text);

// Parses `text` (padded by pad_for_json) into `into`. Object members are
// all kept in order, duplicates too; containers deeper than kJsonMaxDepth
// are empty. A byte-order mark is skipped. Returns why the text is not
// JSON, leaving `into.root` empty, when it is not.
std::optional<JsonError> parse_json(const std::string& text, JsonTree& into);

} // namespace opscan::support
