// Parses JSON into JsonNodes: simdjson's On-Demand parser first, nlohmann's
// when simdjson gives up (its error messages are the ones reported).
#include "support/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <utility>

namespace opscan::support {

struct JsonTree::Buffers {
  // simdjson's parser, whose buffer holds the strings the nodes view.
  simdjson::ondemand::parser simdjson;
  nlohmann::json json; // the document, when nlohmann parsed it
};

JsonTree::JsonTree() = default;
JsonTree::JsonTree(JsonTree&&) noexcept = default;
JsonTree& JsonTree::operator=(JsonTree&&) noexcept = default;
JsonTree::~JsonTree() = default;

namespace {

using Json = nlohmann::json;

// An nlohmann document as a JsonNode tree, viewing its strings and keys, without
// offsets; containers deeper than kJsonMaxDepth are left empty.
JsonNode node_of(const Json& json, int depth = 0) {
  JsonNode node;
  if (json.is_boolean()) {
    node.kind = JsonNode::Kind::boolean;
    node.boolean = json.get<bool>();
  } else if (json.is_number_unsigned()) {
    node.kind = JsonNode::Kind::unsigned_integer;
    node.number = json.get<uint64_t>();
  } else if (json.is_number()) {
    node.kind = JsonNode::Kind::other_number;
  } else if (json.is_string()) {
    node.kind = JsonNode::Kind::string;
    node.text = json.get_ref<const std::string&>();
  } else if (json.is_array() || json.is_object()) {
    node.kind = json.is_array() ? JsonNode::Kind::array : JsonNode::Kind::object;
    for (auto it = json.begin(); depth < kJsonMaxDepth && it != json.end(); ++it) {
      JsonNode& child = node.children.emplace_back(node_of(*it, depth + 1));
      if (json.is_object())
        child.key = it.key();
    }
  }
  return node;
}

// Whether a JSON number is too large for a double: nlohmann refuses it
// (and nothing else in the grammar) with an out_of_range error.
bool overflows(std::string_view number) {
  double d = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), d);
  if (ec != std::errc::result_out_of_range)
    return false;
  return std::isinf(std::strtod(std::string(number).c_str(), nullptr));
}

// The offset and text of the first number in JSON `text` too large for a
// double, nlohmann's out_of_range error reports without a position. Only
// strings are stepped over: the text is valid JSON up to that number, or
// nlohmann would have stopped earlier.
std::optional<std::pair<size_t, std::string_view>> overflowing_number(std::string_view text) {
  auto number_char = [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  };
  for (size_t at = 0; at < text.size();) {
    if (text[at] == '"') {
      for (++at; at < text.size() && text[at] != '"'; ++at)
        at += text[at] == '\\' ? 1 : 0;
      ++at;
    } else if (text[at] == '-' || (text[at] >= '0' && text[at] <= '9')) {
      const size_t start = at;
      while (at < text.size() && number_char(text[at]))
        ++at;
      if (std::string_view number = text.substr(start, at - start); overflows(number))
        return std::pair{start, number};
    } else {
      ++at;
    }
  }
  return std::nullopt;
}

// Reads JSON into JsonNodes with their offsets with simdjson's On-Demand
// parser, which validates as it goes (UTF-8, strings, numbers, structure);
// its first pass over the text uses the vector instructions of the CPU it
// runs on.
// It gives up on anything it would have to report (any error); nlohmann then
// parses the text instead, so error messages are nlohmann's. Containers
// nested deeper than kJsonMaxDepth are kept empty and not read: then skipped()
// is true and the caller has nlohmann check the text. Object members are
// all kept, duplicates too. Strings view the parser's buffer, which the
// JsonTree keeps. `text` must have
// simdjson::SIMDJSON_PADDING bytes of capacity after its end.
class FastParser {
public:
  FastParser(const std::string& text, simdjson::ondemand::parser& parser)
      : text_(text), parser_(parser) {}

  bool skipped() const { return skipped_; }

  std::optional<JsonNode> parse() {
    // A byte-order mark, as nlohmann skips it.
    const size_t bom = std::string_view(text_).starts_with("\xEF\xBB\xBF") ? 3 : 0;
    simdjson::ondemand::document doc;
    if (parser_
            .iterate(simdjson::padded_string_view(text_.data() + bom, text_.size() - bom,
                                                  text_.capacity() - bom))
            .get(doc)) {
      return std::nullopt;
    }
    JsonNode root;
    simdjson::ondemand::json_type type;
    if (doc.type().get(type))
      return std::nullopt;
    if (type == simdjson::ondemand::json_type::object ||
        type == simdjson::ondemand::json_type::array) {
      simdjson::ondemand::value value;
      if (doc.get_value().get(value) || !read(value, root, 0))
        return std::nullopt;
    } else if (!read(doc, root, 0)) {
      return std::nullopt;
    }
    // Nothing after the value: the end is out of bounds.
    if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS)
      return std::nullopt;
    return root;
  }

private:
  static bool token_of(simdjson::ondemand::value& value, std::string_view& token) {
    token = value.raw_json_token();
    return true;
  }
  static bool token_of(simdjson::ondemand::document& doc, std::string_view& token) {
    return !doc.raw_json_token().get(token);
  }
  // A value or a scalar document (simdjson has a type for each).
  template <typename Value>
  bool read(Value& value, JsonNode& out, int depth) {
    using simdjson::ondemand::json_type;
    std::string_view token;
    json_type type;
    if (!token_of(value, token) || value.type().get(type))
      return false;
    out.offset = static_cast<uint32_t>(token.data() - text_.data());
    switch (type) {
    case json_type::object: {
      out.kind = JsonNode::Kind::object;
      if (depth >= kJsonMaxDepth)
        return skipped_ = true; // the enclosing iteration steps over it
      simdjson::ondemand::object object;
      if (value.get_object().get(object))
        return false;
      for (auto member : object) {
        simdjson::ondemand::field field;
        if (std::move(member).get(field))
          return false;
        JsonNode& child = out.children.emplace_back();
        if (field.unescaped_key().get(child.key) || !read(field.value(), child, depth + 1))
          return false;
      }
      return true;
    }
    case json_type::array: {
      out.kind = JsonNode::Kind::array;
      if (depth >= kJsonMaxDepth)
        return skipped_ = true;
      simdjson::ondemand::array array;
      if (value.get_array().get(array))
        return false;
      for (auto item : array) {
        simdjson::ondemand::value item_value;
        if (std::move(item).get(item_value) ||
            !read(item_value, out.children.emplace_back(), depth + 1))
          return false;
      }
      return true;
    }
    case json_type::string:
      out.kind = JsonNode::Kind::string;
      return !value.get_string().get(out.text);
    case json_type::number: {
      // simdjson checks the grammar and that a double holds it (a number
      // too large for one is nlohmann's error to report). Unsigned integers
      // that fit 64 bits keep their value; every other number is only known
      // to be one.
      double ignored = 0;
      if (value.get_double().get(ignored))
        return false;
      const size_t digits = std::min(token.find_first_not_of("0123456789"), token.size());
      out.kind = JsonNode::Kind::other_number;
      if (digits > 0 && (digits == token.size() ||
                         std::string_view(".eE").find(token[digits]) == std::string_view::npos)) {
        auto [end, ec] = std::from_chars(token.data(), token.data() + digits, out.number);
        if (ec == std::errc())
          out.kind = JsonNode::Kind::unsigned_integer;
      }
      return true;
    }
    case json_type::boolean:
      out.kind = JsonNode::Kind::boolean;
      return !value.get_bool().get(out.boolean);
    case json_type::null: {
      bool null = false;
      return !value.is_null().get(null) && null;
    }
    }
    return false;
  }
  const std::string& text_;
  simdjson::ondemand::parser& parser_;
  bool skipped_ = false;
};

} // namespace

void pad_for_json(std::string& text) {
  text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
}

std::optional<JsonError> parse_json(const std::string& text, JsonTree& into) {
  into.root.reset();
  into.buffers = std::make_unique<JsonTree::Buffers>();
  try {
    FastParser fast(text, into.buffers->simdjson);
    into.root = fast.parse();
    // What the fast parser skipped is checked by nlohmann (which does not
    // recurse either).
    if (into.root && fast.skipped() && !Json::accept(text))
      into.root.reset();
    if (!into.root) {
      into.buffers->json = Json::parse(text);
      into.root = node_of(into.buffers->json);
    }
    return std::nullopt;
  } catch (const Json::parse_error& e) {
    // e.byte counts the characters read, including the offending one (the
    // end of input counts as one past the last byte).
    into.root.reset();
    return JsonError{e.byte > 0 ? e.byte - 1 : 0, false, {}};
  } catch (const Json::exception&) { // a number too large for a double
    into.root.reset();
    auto number = overflowing_number(text);
    return JsonError{number ? number->first : 0, true,
                     number ? number->second : std::string_view()};
  }
}

} // namespace opscan::support
