#include "diag/text.h"

#include "diag/source_file.h"
#include "support/text.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

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

// Code point index of byte `byte` of `line`; a byte inside a character maps
// to that character, a byte past the end to just after the line.
size_t column_of(std::string_view line, size_t byte) {
  byte = std::min(byte, line.size());
  while (byte > 0 && byte < line.size() && is_continuation(line[byte]))
    --byte;
  return code_points(line.substr(0, byte));
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
    const std::string full = printable(file->line(loc.line));
    // A long line (a minified file, a hostile annotation) is shown as a
    // window around the caret, its cut ends marked.
    const size_t caret = column_of(full, loc.column - 1);
    const size_t length = code_points(full);
    const size_t first = length <= kMaxLineColumns ? 0
                         : caret < kMaxLineColumns / 2
                             ? 0
                             : std::min(caret - kMaxLineColumns / 2, length - kMaxLineColumns);
    const size_t last = std::min(length, first + kMaxLineColumns);
    auto byte_of = [&](size_t column) {
      size_t byte = 0;
      for (size_t seen = 0; byte < full.size(); ++byte) {
        if (!is_continuation(full[byte]) && seen++ == column)
          break;
      }
      return byte;
    };
    const std::string_view ellipsis = "\u2026";
    std::string line = first > 0 ? std::string(ellipsis) : std::string();
    line.append(full, byte_of(first), byte_of(last) - byte_of(first));
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
      const size_t column = column_of(full, fix.offset - start);
      if (column >= first && column <= last)
        here.push_back(&fix);
    }
    if (here.empty())
      return;
    std::stable_sort(here.begin(), here.end(),
                     [](const FixIt* a, const FixIt* b) { return a->offset < b->offset; });
    size_t cursor = 0;
    for (const FixIt* fix : here) {
      size_t column = shown(column_of(full, fix->offset - start));
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

  const TextOptions& options_;
  std::string out_;
  std::map<std::string, std::optional<SourceFile>, std::less<>> files_;
};

} // namespace

std::string render_text(const Diagnostics& diags, const TextOptions& options) {
  Renderer renderer(options);
  for (const Diagnostic& d : diags)
    renderer.diagnostic(d);
  return renderer.take();
}

} // namespace opscan::diag
