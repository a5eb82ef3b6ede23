// The allow-list of `opscan diff --allow`: read strictly, matched against breaking changes.
#include "audit/allow.h"

#include "schema/schema.h"
#include "support/text.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <fmt/format.h>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace opscan::audit {

namespace {

// Diagnostics shown per code: a list of thousands of stale or broken
// entries is one screen, not megabytes.
constexpr size_t kMaxShown = 20;

using Json = nlohmann::json;

// The fields of an entry; the first three are required with `reason` and
// `expires`.
constexpr std::array<std::string_view, 5> kFields = {"operator", "change", "argument", "reason",
                                                     "expires"};

// Reads the text one byte at a time, as nlohmann's lexer does, and says how
// far it has read: where a value ends, and so where the next one starts.
class TrackedIterator {
public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedIterator(const char* at, const char** head) : at_(at), head_(head) {}
  reference operator*() const { return *at_; }
  TrackedIterator& operator++() {
    *head_ = ++at_;
    return *this;
  }
  TrackedIterator operator++(int) {
    TrackedIterator before = *this;
    ++*this;
    return before;
  }
  friend bool operator==(const TrackedIterator& a, const TrackedIterator& b) {
    return a.at_ == b.at_;
  }

private:
  const char* at_;
  const char** head_;
};

struct Field {
  std::string value;
  size_t offset = 0;
};

struct RawEntry {
  size_t offset = 0;
  std::map<std::string, Field, std::less<>> fields;
};

struct ReadError {
  size_t offset;
  std::string message;
};

// Checks the structure as nlohmann reads the text (so no document is built
// and no nesting is followed): an object with one member "allow", an array
// of objects of string members.
class Reader : public nlohmann::json_sax<Json> {
public:
  Reader(std::string_view text, const char** head) : text_(text), head_(head) {}

  std::vector<RawEntry> entries;
  std::optional<ReadError> error;

  bool null() override { return scalar("null"); }
  bool boolean(bool) override { return scalar("a boolean"); }
  bool number_integer(number_integer_t) override { return scalar("a number"); }
  bool number_unsigned(number_unsigned_t) override { return scalar("a number"); }
  bool number_float(number_float_t, const string_t&) override { return scalar("a number"); }
  bool binary(binary_t&) override { return scalar("binary data"); }
  bool string(string_t& value) override {
    const size_t at = start();
    if (depth_ != 3)
      return scalar("a string");
    entries.back().fields[key_] = {std::move(value), at};
    return done();
  }
  bool start_object(std::size_t) override {
    const size_t at = start();
    if (depth_ == 0) {
      ++depth_;
      return done();
    }
    if (depth_ == 2) {
      ++depth_;
      entries.push_back({at, {}});
      return done();
    }
    return wrong(at, "an object");
  }
  bool start_array(std::size_t) override {
    const size_t at = start();
    if (depth_ == 1) {
      ++depth_;
      return done();
    }
    return wrong(at, "an array");
  }
  bool key(string_t& name) override {
    const size_t at = start();
    if (depth_ == 1) {
      if (name != "allow") {
        return fail(at, fmt::format("{}: unknown field (an allow-list holds one field, \"allow\")",
                                    support::quoted(name)));
      }
      if (seen_allow_)
        return fail(at, "allow: given twice");
      seen_allow_ = true;
      return done();
    }
    RawEntry& entry = entries.back();
    const std::string path = entry_path() + "." + name;
    if (std::find(kFields.begin(), kFields.end(), name) == kFields.end()) {
      std::string message = fmt::format("{}: unknown field (fields: {})", support::quoted(path),
                                        fmt::join(kFields, ", "));
      if (auto close = schema::closest_match(name, kFields))
        message += fmt::format("; did you mean '{}'?", *close);
      return fail(at, message);
    }
    if (entry.fields.contains(name))
      return fail(at, path + ": given twice");
    key_ = name;
    return done();
  }
  bool end_object() override {
    if (depth_ == 3) {
      const RawEntry& entry = entries.back();
      for (std::string_view required : {"operator", "change", "reason", "expires"}) {
        if (!entry.fields.contains(required))
          return fail(entry.offset, fmt::format("{}: missing field '{}'", entry_path(), required));
      }
    } else if (depth_ == 1 && !seen_allow_) {
      return fail(0, "missing field 'allow' (the list of allowed changes)");
    }
    --depth_;
    return done();
  }
  bool end_array() override {
    --depth_;
    return done();
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception&) override {
    const size_t at = position > 0 ? position - 1 : 0;
    error = ReadError{std::min(at, text_.size()),
                      at >= text_.size() ? "not valid JSON: the file ends too early (truncated?)"
                                         : "not valid JSON"};
    return false;
  }

private:
  // Where the value just read starts: after the previous one, past blanks
  // and separators.
  size_t start() const {
    size_t at = mark_;
    while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\t' || text_[at] == '\n' ||
                                 text_[at] == '\r' || text_[at] == ',' || text_[at] == ':'))
      ++at;
    return at;
  }
  bool done() {
    mark_ = static_cast<size_t>(*head_ - text_.data());
    return true;
  }
  bool fail(size_t at, std::string message) {
    error = ReadError{at, std::move(message)};
    return false;
  }
  std::string entry_path() const { return fmt::format("allow[{}]", entries.size() - 1); }
  // A value of the wrong kind where the format wants something else.
  bool wrong(size_t at, std::string_view what) {
    switch (depth_) {
    case 0:
      return fail(
          at, fmt::format("an allow-list is a JSON object ({{\"allow\": [...]}}), not {}", what));
    case 1:
      return fail(at, fmt::format("allow: must be an array of entries, not {}", what));
    case 2:
      return fail(at, fmt::format("allow[{}]: must be an object, not {}", entries.size(), what));
    default:
      return fail(at, fmt::format("{}.{}: must be a string, not {}", entry_path(), key_, what));
    }
  }
  bool scalar(std::string_view what) { return wrong(start(), what); }

  std::string_view text_;
  const char** head_;
  size_t mark_ = 0;
  int depth_ = 0;
  bool seen_allow_ = false;
  std::string key_;
};

// Locations of offsets in the text: its lines are found once, so that
// locating every entry of a list (on one line or many) takes linear time.
class Lines {
public:
  Lines(std::string_view text, std::string path) : size_(text.size()), path_(std::move(path)) {
    for (size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1))
      starts_.push_back(i + 1);
  }

  // 1-based line and byte column of `offset`.
  diag::Location at(size_t offset) const {
    offset = std::min(offset, size_);
    const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const size_t line_start = *(after - 1);
    return {path_, static_cast<uint32_t>(after - starts_.begin()),
            static_cast<uint32_t>(offset - line_start + 1), static_cast<uint32_t>(offset)};
  }

private:
  size_t size_;
  std::string path_;
  std::vector<size_t> starts_{0};
};

bool has_control(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t") == std::string_view::npos;
}

} // namespace

std::string Date::str() const {
  return fmt::format("{:04}-{:02}-{:02}", year, month, day);
}

std::optional<Date> parse_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-')
    return std::nullopt;
  int parts[3] = {0, 0, 0};
  for (size_t i = 0, part = 0; i < text.size(); ++i) {
    if (i == 4 || i == 7) {
      ++part;
      continue;
    }
    if (text[i] < '0' || text[i] > '9')
      return std::nullopt;
    parts[part] = parts[part] * 10 + (text[i] - '0');
  }
  const std::chrono::year_month_day ymd{std::chrono::year{parts[0]},
                                        std::chrono::month{static_cast<unsigned>(parts[1])},
                                        std::chrono::day{static_cast<unsigned>(parts[2])}};
  if (!ymd.ok())
    return std::nullopt;
  return Date{parts[0], static_cast<unsigned>(parts[1]), static_cast<unsigned>(parts[2])};
}

Date today_utc() {
  const std::chrono::year_month_day ymd{
      std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
  return Date{static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
              static_cast<unsigned>(ymd.day())};
}

AllowRead parse_allow_list(std::string_view text, const std::string& path) {
  AllowRead result;
  const char* head = text.data();
  Reader reader(text, &head);
  Json::sax_parse(TrackedIterator(text.data(), &head),
                  TrackedIterator(text.data() + text.size(), &head), &reader);
  const Lines lines(text, path);
  if (reader.error) {
    result.diagnostics.push_back(diag::make_error(
        "opscan-allow-file", lines.at(reader.error->offset), reader.error->message));
    return result;
  }
  std::vector<std::string_view> classes;
  for (const ChangeClass& c : change_classes())
    classes.push_back(c.id);
  AllowList list;
  for (size_t i = 0; i < reader.entries.size(); ++i) {
    const RawEntry& raw = reader.entries[i];
    AllowEntry entry;
    entry.path = fmt::format("allow[{}]", i);
    entry.location = lines.at(raw.offset);
    auto error = [&](std::string code, std::string_view field, std::string message) {
      result.diagnostics.push_back(
          diag::make_error(std::move(code), lines.at(raw.fields.find(field)->second.offset),
                           fmt::format("{}.{}: {}", entry.path, field, message)));
    };
    bool good = true;
    for (const auto& [name, field] : raw.fields) {
      if (has_control(field.value) || !support::is_utf8(field.value)) {
        error("opscan-allow-file", name, "holds a control character or is not UTF-8");
        good = false;
      }
    }
    if (!good)
      continue;
    entry.op = raw.fields.at("operator").value;
    entry.change = raw.fields.at("change").value;
    entry.reason = raw.fields.at("reason").value;
    const ChangeClass* change = find_change_class(entry.change);
    if (change == nullptr) {
      std::string message = fmt::format("unknown change class {}", support::quoted(entry.change));
      if (auto close = schema::closest_match(entry.change, classes))
        message += fmt::format("; did you mean '{}'?", *close);
      else
        message += " (the classes are listed in docs/auditing.md, \"Change classes\")";
      error("opscan-allow-change", "change", message);
    }
    if (entry.op.empty() || (change != nullptr && change->library_level)) {
      if (entry.op.empty())
        error("opscan-allow-file", "operator", "is empty");
    } else if (auto name = schema::parse_operator_name(entry.op); !name) {
      error("opscan-allow-file", "operator",
            fmt::format("{} is not an operator name: {} (write ns::name.overload)",
                        support::quoted(entry.op), name.error->message));
    } else if (name.value->str() != entry.op) {
      error("opscan-allow-file", "operator",
            fmt::format("write the operator as the IR does: '{}'", name.value->str()));
    }
    if (auto argument = raw.fields.find("argument"); argument != raw.fields.end()) {
      entry.argument = argument->second.value;
      if (entry.argument->empty())
        error("opscan-allow-file", "argument", "is empty (leave the field out for every argument)");
    }
    if (is_blank(entry.reason))
      error("opscan-allow-file", "reason", "is empty: say why the change is accepted");
    const std::string& expires = raw.fields.at("expires").value;
    if (auto date = parse_date(expires))
      entry.expires = *date;
    else
      error("opscan-allow-date", "expires",
            fmt::format("{} is not a date (YYYY-MM-DD, a day that exists)",
                        support::quoted(expires)));
    list.entries.push_back(std::move(entry));
  }
  if (!diag::has_errors(result.diagnostics))
    result.list = std::move(list);
  result.diagnostics = diag::capped(std::move(result.diagnostics), kMaxShown, "opscan-allow-more");
  return result;
}

diag::Diagnostics apply(const AllowList& list, const Date& today, DiffResult& result) {
  diag::Diagnostics diags;
  std::vector<size_t> used(list.entries.size());
  // The first live entry for each (operator, class, argument or none): a
  // change is allowed by the earlier of its argument's and the any-argument
  // one, found without going through the list for every change.
  using Key = std::tuple<std::string_view, std::string_view, std::optional<std::string_view>>;
  std::map<Key, size_t> first_live;
  for (size_t i = 0; i < list.entries.size(); ++i) {
    const AllowEntry& entry = list.entries[i];
    if (!(entry.expires < today))
      first_live.try_emplace(Key{entry.op, entry.change, entry.argument}, i);
  }
  auto find = [&](const Key& key) {
    auto it = first_live.find(key);
    return it == first_live.end() ? list.entries.size() : it->second;
  };
  for (Change& change : result.changes) {
    if (change.compatibility != Compatibility::breaking)
      continue;
    const std::string& subject = change.op.empty() ? change.library : change.op;
    const size_t i = std::min(find(Key{subject, change.change, change.argument}),
                              find(Key{subject, change.change, std::nullopt}));
    if (i == list.entries.size())
      continue;
    const AllowEntry& entry = list.entries[i];
    change.allowed = Allowance{entry.reason, entry.expires.str()};
    ++used[i];
  }
  for (size_t i = 0; i < list.entries.size(); ++i) {
    const AllowEntry& entry = list.entries[i];
    if (entry.expires < today) {
      diags.push_back(diag::make_error(
          "opscan-allow-expired", entry.location,
          fmt::format("{}: the allowance of {} for {} expired on {} (today is {}): look at the "
                      "change again, then remove the entry or give a new date",
                      entry.path, entry.change, support::quoted(entry.op, 200), entry.expires.str(),
                      today.str())));
    } else if (used[i] == 0) {
      diags.push_back(diag::make_warning(
          "opscan-allow-unused", entry.location,
          fmt::format("{}: allows no breaking change of this diff ({} {}{}): remove it", entry.path,
                      entry.change, support::quoted(entry.op, 200),
                      entry.argument ? ", argument " + support::quoted(*entry.argument) : "")));
    }
  }
  // A list of thousands of stale entries is one screen, not megabytes.
  return diag::capped(std::move(diags), kMaxShown, "opscan-allow-more");
}

} // namespace opscan::audit
