// Parsing the text of an OPSCAN_KERNEL annotation: its spec and optional fields.
#include "kernel/annotation.h"

#include <algorithm>
#include <cctype>

namespace opscan::kernel {
namespace {

class Lexer {
public:
  explicit Lexer(std::string_view text) : text_(text) {}

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }
  size_t pos() const { return pos_; }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::string> identifier() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (start == pos_)
      return std::nullopt;
    return std::string(text_.substr(start, pos_ - start));
  }
  // One or more adjacent C string literals, concatenated; simple escapes only
  // (the spec is plain text). `offsets`, when given, receives the offset in
  // the text of each byte of the value, then of the closing quote.
  std::optional<std::string> string_literal(std::string& error,
                                            std::vector<size_t>* offsets = nullptr) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      error = "expected a string literal";
      return std::nullopt;
    }
    std::string value;
    size_t close = pos_;
    do {
      ++pos_; // the opening quote
      while (pos_ < text_.size() && text_[pos_] != '"') {
        const size_t at = pos_;
        char c = text_[pos_++];
        if (c == '\\') {
          if (pos_ == text_.size())
            break;
          char e = text_[pos_++];
          switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case '\\':
          case '"':
          case '\'':
          case '?': // "?\?/" spells "??/" without forming a trigraph
            c = e;
            break;
          default:
            --pos_;
            error = std::string("unsupported escape '\\") + e + "' in string";
            return std::nullopt;
          }
        }
        value += c;
        if (offsets)
          offsets->push_back(at);
      }
      if (pos_ == text_.size()) {
        error = "unterminated string literal";
        return std::nullopt;
      }
      close = pos_++;
      skip_space();
    } while (pos_ < text_.size() && text_[pos_] == '"');
    if (offsets)
      offsets->push_back(close); // the value's end
    return value;
  }

private:
  std::string_view text_;
  size_t pos_ = 0;
};

} // namespace

const Annotation::Field* Annotation::field(std::string_view name) const {
  for (const Field& f : fields) {
    if (f.name == name)
      return &f;
  }
  return nullptr;
}

std::string_view Annotation::value(std::string_view name) const {
  const Field* f = field(name);
  return f != nullptr ? std::string_view(f->value) : std::string_view();
}

std::vector<std::pair<std::string, std::string>> Annotation::values() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Field& f : fields)
    out.emplace_back(f.name, f.value);
  std::sort(out.begin(), out.end());
  return out;
}

ParsedAnnotation parse_annotation(std::string_view text, const ir::Fields& known) {
  Lexer lex(text);
  auto fail_at = [](size_t offset, std::string message) {
    return ParsedAnnotation{std::nullopt, AnnotationError{offset, std::move(message)}};
  };
  auto fail = [&](std::string message) { return fail_at(lex.pos(), std::move(message)); };
  Annotation result;
  if (lex.at_end())
    return fail("OPSCAN_KERNEL needs an operator name or schema, e.g. "
                "OPSCAN_KERNEL(\"my_ops::add.out\")");
  std::string error;
  result.spec_offset = lex.pos() + 1;
  auto spec = lex.string_literal(error, &result.spec_offsets);
  if (!spec)
    return fail("OPSCAN_KERNEL's first argument must be a string literal: " + error);
  result.spec = std::move(*spec);
  while (!lex.at_end()) {
    if (!lex.consume(','))
      return fail("expected ',' before the next field of OPSCAN_KERNEL");
    lex.skip_space();
    const size_t field_at = lex.pos();
    auto name = lex.identifier();
    if (!name) {
      return fail(known.empty() ? "expected a field name"
                                : "expected a field name (" + known.annotation_names(" or ") + ")");
    }
    if (known.by_annotation(*name) == nullptr) {
      return fail_at(field_at, "unknown OPSCAN_KERNEL field '" + *name + "' (known fields: " +
                                   (known.empty() ? "none" : known.annotation_names()) + ")");
    }
    if (result.field(*name) != nullptr)
      return fail_at(field_at, "field '" + *name + "' given twice");
    if (!lex.consume('='))
      return fail("expected '=' after '" + *name + "'");
    lex.skip_space();
    Annotation::Field& field = result.fields.emplace_back();
    field.name = *name;
    field.offset = lex.pos() + 1;
    auto value = lex.string_literal(error, &field.offsets);
    if (!value)
      return fail("value of '" + *name + "': " + error);
    if (value->empty())
      return fail("'" + *name + "' is empty");
    field.value = std::move(*value);
  }
  return {std::move(result), std::nullopt};
}

} // namespace opscan::kernel
