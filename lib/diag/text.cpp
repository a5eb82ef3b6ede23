// Diagnostics as clang-style text: location, message, code, source line and caret.
#include "diag/text.h"

#include "diag/source_file.h"
#include "support/text.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace opscan::diag {
namespace {

// The widest source line shown, in characters.
constexpr size_t kMaxLineColumns = 160;

// clang's colours (llvm::raw_ostream::changeColor with bold).
constexpr std::string_view kReset = "\033[0m";
constexpr std::string_view kBold = "\033[1m";
constexpr std::string_view kGreen = "\033[0;1;32m"; // caret and fix-it text

std::string_view severity_color(Severity severity) {
  switch (severity) {
  case Severity::note:
    return "\033[0;1;30m";
  case Severity::warning:
    return "\033[0;1;35m";
  case Severity::error:
    return "\033[0;1;31m";
  }
  return kBold;
}

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// A byte of a source line or a message that a terminal would act on (a
// control character; DEL) or could not show (not UTF-8) is shown as '?':
// input may be hostile, and the caret must still line up.
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      auto [length, valid] = support::utf8_sequence(text, i);
      // C1 controls (U+0080..U+009F) act like C0 ones on some terminals.
      const bool c1 = valid && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
      if (valid && !c1)
        out.append(text.substr(i, length));
      else
        out.append(length, '?');
      i += length;
      continue;
    }
    out += (c < 0x20 && c != '\t') || c == 0x7f ? '?' : static_cast<char>(c);
    ++i;
  }
  return out;
}

// A source line as shown (printable() keeps each byte's place), with the
// code points before every kStride-th byte: a column is found from the
// nearest one, so thousands of diagnostics on one long line (a one-line
// JSON file) measure it once, not once each.
class ShownLine {
public:
  explicit ShownLine(std::string_view raw) : text_(printable(raw)) {
    for (size_t at = 0; at < text_.size(); at += kStride) {
      points_before_.push_back(length_);
      length_ += code_points(std::string_view(text_).substr(at, kStride));
    }
  }

  const std::string& text() const { return text_; }
  size_t length() const { return length_; } // in code points

  // column_of(text(), byte), from the nearest sample.
  size_t column_of(size_t byte) const {
    byte = std::min(byte, text_.size());
    while (byte > 0 && byte < text_.size() && is_continuation(text_[byte]))
      --byte;
    const size_t block = byte / kStride;
    if (block >= points_before_.size())
      return length_;
    return points_before_[block] +
           code_points(std::string_view(text_).substr(block * kStride, byte - block * kStride));
  }

  // The byte where code point `column` starts; the line's size past the end.
  size_t byte_of(size_t column) const {
    if (column >= length_)
      return text_.size();
    const auto after = std::upper_bound(points_before_.begin(), points_before_.end(), column);
    size_t byte = static_cast<size_t>(after - points_before_.begin() - 1) * kStride;
    for (size_t seen = points_before_[byte / kStride]; byte < text_.size(); ++byte) {
      if (!is_continuation(text_[byte]) && seen++ == column)
        break;
    }
    return byte;
  }

private:
  static constexpr size_t kStride = 4096;
  std::string text_;
  size_t length_ = 0;
  std::vector<size_t> points_before_; // at bytes 0, kStride, 2 * kStride, ...
};

class Renderer {
public:
  explicit Renderer(const TextOptions& options) : options_(options) {}

  void diagnostic(const Diagnostic& d) {
    header(d.severity, d.location, d.message, d.code);
    source(d.location, d.fixits);
    for (const Note& note : d.notes) {
      header(Severity::note, note.location, note.message, {});
      source(note.location, {});
    }
  }
  std::string take() { return std::move(out_); }

private:
  void styled(std::string_view color, std::string_view text) {
    if (options_.color && !color.empty()) {
      out_ += color;
      out_ += text;
      out_ += kReset;
    } else {
      out_ += text;
    }
  }

  void header(Severity severity, const Location& loc, std::string_view message,
              std::string_view code) {
    std::string where = "opscan:";
    if (loc.valid()) {
      where = loc.file + ":" + std::to_string(loc.line) + ":";
      if (loc.column != 0)
        where += std::to_string(loc.column) + ":";
    }
    styled(kBold, printable(where));
    out_ += ' ';
    styled(severity_color(severity), std::string(to_string(severity)) + ":");
    out_ += ' ';
    std::string text = support::clipped(message, kMaxMessageBytes);
    if (!code.empty())
      text.append(" [").append(code).append("]");
    // As in clang, the message is bold except on notes.
    styled(severity == Severity::note ? "" : kBold, printable(text));
    out_ += '\n';
  }

  // Source line, caret, and the text of fix-its on that line. The padding
  // copies the source's tabs, one character per code point, so the caret
  // lines up whatever the terminal's tab width.
  void source(const Location& loc, const std::vector<FixIt>& fixits) {
    if (!options_.show_source || !loc.valid() || loc.column == 0)
      return;
    if (options_.source_files && !options_.source_files->contains(loc.file))
      return;
    const SourceFile* file = load(loc.file);
    if (file == nullptr || loc.line > file->line_starts.size())
      return;
    const ShownLine& shown_line = line_of(*file, loc.file, loc.line);
    const std::string& full = shown_line.text();
    // A long line (a minified file, a hostile annotation) is shown as a
    // window around the caret, its cut ends marked.
    const size_t caret = shown_line.column_of(loc.column - 1);
    const size_t length = shown_line.length();
    const size_t first = length <= kMaxLineColumns ? 0
                         : caret < kMaxLineColumns / 2
                             ? 0
                             : std::min(caret - kMaxLineColumns / 2, length - kMaxLineColumns);
    const size_t last = std::min(length, first + kMaxLineColumns);
    const std::string_view ellipsis = "\u2026";
    std::string line = first > 0 ? std::string(ellipsis) : std::string();
    const size_t first_byte = shown_line.byte_of(first);
    line.append(full, first_byte, shown_line.byte_of(last) - first_byte);
    if (last < length)
      line += ellipsis;
    // Columns of the full line, as shown.
    auto shown = [&, shift = first > 0 ? first - 1 : 0](size_t column) { return column - shift; };
    std::string pad;
    for (char c : line)
      if (!is_continuation(c))
        pad += c == '\t' ? '\t' : ' ';
    auto pad_to = [&](std::string& out, size_t from, size_t to) {
      for (size_t i = from; i < to; ++i)
        out += i < pad.size() ? pad[i] : ' ';
    };

    out_ += line;
    out_ += '\n';
    pad_to(out_, 0, shown(caret));
    styled(kGreen, "^");
    out_ += '\n';

    size_t start = file->line_starts[loc.line - 1];
    std::vector<const FixIt*> here;
    for (const FixIt& fix : fixits) {
      if (fix.file != loc.file || fix.offset < start || fix.offset > start + full.size() ||
          fix.replacement.empty() || fix.replacement.find('\n') != std::string::npos)
        continue;
      const size_t column = shown_line.column_of(fix.offset - start);
      if (column >= first && column <= last)
        here.push_back(&fix);
    }
    if (here.empty())
      return;
    std::stable_sort(here.begin(), here.end(),
                     [](const FixIt* a, const FixIt* b) { return a->offset < b->offset; });
    size_t cursor = 0;
    for (const FixIt* fix : here) {
      size_t column = shown(shown_line.column_of(fix->offset - start));
      // Like clang: a hint overlapping the previous one moves after it, past a space.
      if (column < cursor)
        column = cursor + 1;
      pad_to(out_, cursor, column);
      const std::string replacement = support::clipped(fix->replacement, kMaxLineColumns);
      styled(kGreen, replacement);
      cursor = column + code_points(replacement);
    }
    out_ += '\n';
  }

  // Files are read once per render_text call; an unreadable one is remembered as such.
  const SourceFile* load(const std::string& path) {
    auto [it, inserted] = files_.try_emplace(path);
    if (inserted)
      it->second = read_source(path);
    return it->second ? &*it->second : nullptr;
  }

  // Each line shown is made printable and measured once per render_text call.
  const ShownLine& line_of(const SourceFile& file, const std::string& path, uint32_t n) {
    auto it = lines_.find({path, n});
    if (it == lines_.end())
      it = lines_.try_emplace({path, n}, file.line(n)).first;
    return it->second;
  }

  const TextOptions& options_;
  std::string out_;
  std::map<std::string, std::optional<SourceFile>, std::less<>> files_;
  std::map<std::pair<std::string, uint32_t>, ShownLine> lines_;
};

} // namespace

std::string render_text(const Diagnostics& diags, const TextOptions& options) {
  Renderer renderer(options);
  for (const Diagnostic& d : diags)
    renderer.diagnostic(d);
  return renderer.take();
}

} // namespace opscan::diag
