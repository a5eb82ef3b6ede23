#include "scan/annotation.h"

#include <cctype>

namespace opscan::scan {
namespace {

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
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
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (start == pos_) return std::nullopt;
    return std::string(text_.substr(start, pos_ - start));
  }
  // A C string literal; simple escapes only (the spec is plain text).
  std::optional<std::string> string_literal(std::string& error) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      error = "expected a string literal";
      return std::nullopt;
    }
    ++pos_;
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ == text_.size()) break;
        char e = text_[pos_++];
        switch (e) {
          case 'n': value += '\n'; break;
          case 't': value += '\t'; break;
          case '\\': case '"': case '\'': value += e; break;
          default:
            --pos_;
            error = std::string("unsupported escape '\\") + e + "' in string";
            return std::nullopt;
        }
      } else {
        value += c;
      }
    }
    if (pos_ == text_.size()) {
      error = "unterminated string literal";
      return std::nullopt;
    }
    ++pos_;
    return value;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

ParsedAnnotation parse_annotation(std::string_view text) {
  Lexer lex(text);
  auto fail = [&](std::string message) {
    return ParsedAnnotation{std::nullopt, AnnotationError{lex.pos(), std::move(message)}};
  };
  Annotation result;
  if (lex.at_end()) return fail("OPSCAN_KERNEL needs an operator name or schema, e.g. OPSCAN_KERNEL(\"my_ops::add.out\")");
  std::string error;
  result.spec_offset = lex.pos() + 1;
  auto spec = lex.string_literal(error);
  if (!spec) return fail("OPSCAN_KERNEL's first argument must be a string literal: " + error);
  result.spec = std::move(*spec);
  while (!lex.at_end()) {
    if (!lex.consume(',')) return fail("expected ',' before the next field of OPSCAN_KERNEL");
    size_t field_at = lex.pos();
    auto name = lex.identifier();
    if (!name) return fail("expected a field name (key or dispatch)");
    std::string* target = *name == "key" ? &result.kernel_key : *name == "dispatch" ? &result.dispatch_key : nullptr;
    if (!target) {
      return ParsedAnnotation{std::nullopt, AnnotationError{field_at + 1, "unknown OPSCAN_KERNEL field '" + *name + "' (known fields: key, dispatch)"}};
    }
    if (!lex.consume('=')) return fail("expected '=' after '" + *name + "'");
    auto value = lex.string_literal(error);
    if (!value) return fail("value of '" + *name + "': " + error);
    if (value->empty()) return fail("'" + *name + "' is empty");
    *target = std::move(*value);
  }
  return {std::move(result), std::nullopt};
}

}  // namespace opscan::scan
