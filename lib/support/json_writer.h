// Writes JSON text in the layout of nlohmann's dump(2), without a DOM.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace opscan::support {

// Writes JSON text exactly as nlohmann's dump(2) does (its DOM cost a third
// of `generate`): two-space indent, members in the order written, "[]" and
// "{}" for empty containers. A container's members are written by the
// function passed to object() or array().
class JsonWriter {
public:
  template <typename F>
  void object(F&& members) {
    open('{');
    members();
    close('}');
  }
  template <typename F>
  void array(F&& items) {
    open('[');
    items();
    close(']');
  }
  // The next value written is this member's. `name` is written as it is:
  // it must need no escaping (the caller's own keys).
  JsonWriter& key(std::string_view name) {
    begin_item();
    out_ += '"';
    out_ += name;
    out_ += "\": ";
    after_key_ = true;
    return *this;
  }
  void string(std::string_view s) {
    begin_item();
    quoted(s);
  }
  void boolean(bool b) {
    begin_item();
    out_ += b ? "true" : "false";
  }
  void integer(uint32_t n) {
    begin_item();
    char digits[16];
    out_.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
  }
  std::string take() { return std::move(out_); }

private:
  void begin_item() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (depth_ == 0)
      return;
    if (!empty_)
      out_ += ',';
    newline();
    empty_ = false;
  }
  void open(char bracket) {
    begin_item();
    out_ += bracket;
    ++depth_;
    empty_ = true;
  }
  void close(char bracket) {
    --depth_;
    if (!empty_)
      newline();
    out_ += bracket;
    empty_ = false; // the enclosing container has this one as a member
  }
  void newline() {
    out_ += '\n';
    out_.append(2 * depth_, ' ');
  }
  void quoted(std::string_view s);
  void escape(unsigned char c);

  std::string out_;
  size_t depth_ = 0;
  bool empty_ = true;      // no member written yet in the innermost open container
  bool after_key_ = false; // a key was written; its value comes next
};

} // namespace opscan::support
