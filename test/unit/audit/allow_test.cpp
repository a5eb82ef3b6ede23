#include "audit/allow.h"
#include "audit/diff_cases.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using namespace audit_test;
using audit::AllowRead;
using audit::Date;

const std::string kFile = "allow.json";

AllowRead parse(const std::string& text) {
  return audit::parse_allow_list(text, kFile);
}

// The one error of reading `text`: its code, line, column and message.
struct Error {
  std::string code;
  uint32_t line = 0, column = 0;
  std::string message;
  friend bool operator==(const Error&, const Error&) = default;
};
void PrintTo(const Error& e, std::ostream* os) {
  *os << e.line << ":" << e.column << " " << e.code << " " << e.message;
}

Error only_error(const std::string& text) {
  AllowRead read = parse(text);
  EXPECT_FALSE(read.list.has_value());
  EXPECT_EQ(read.diagnostics.size(), 1u);
  if (read.diagnostics.empty())
    return {};
  const opscan::diag::Diagnostic& d = read.diagnostics[0];
  EXPECT_EQ(d.severity, opscan::diag::Severity::error);
  EXPECT_EQ(d.location.file, kFile);
  return {d.code, d.location.line, d.location.column, d.message};
}

// An allow-list of one entry with these members (JSON text).
std::string entry(const std::string& members) {
  return "{\"allow\": [\n  {" + members + "}\n]}\n";
}

const std::string kGood = R"("operator": "aten::add.out", "change": "argument-type-changed", )"
                          R"("reason": "alpha is float now; callers updated in #123", )"
                          R"("expires": "2027-03-01")";

TEST(AllowParse, ReadsEveryField) {
  AllowRead read = parse(R"({"allow": [
  {"operator": "aten::add.out", "change": "argument-type-changed", "argument": "alpha",
   "reason": "callers updated in #123", "expires": "2027-03-01"},
  {"operator": "ops", "change": "library-removed", "reason": "merged into core",
   "expires": "2028-02-29"}
]})");
  ASSERT_TRUE(read.list) << (read.diagnostics.empty() ? "" : read.diagnostics[0].message);
  EXPECT_TRUE(read.diagnostics.empty());
  ASSERT_EQ(read.list->entries.size(), 2u);
  const audit::AllowEntry& e = read.list->entries[0];
  EXPECT_EQ(e.op, "aten::add.out");
  EXPECT_EQ(e.change, "argument-type-changed");
  EXPECT_EQ(e.argument, "alpha");
  EXPECT_EQ(e.reason, "callers updated in #123");
  EXPECT_EQ(e.expires, (Date{2027, 3, 1}));
  EXPECT_EQ(e.path, "allow[0]");
  EXPECT_EQ(e.location.line, 2u);
  EXPECT_EQ(e.location.column, 3u);
  // A library-level change names the library.
  EXPECT_EQ(read.list->entries[1].op, "ops");
  EXPECT_EQ(read.list->entries[1].argument, std::nullopt);
  EXPECT_EQ(read.list->entries[1].expires, (Date{2028, 2, 29}));
}

TEST(AllowParse, AnEmptyListIsValid) {
  AllowRead read = parse(R"({"allow": []})");
  ASSERT_TRUE(read.list);
  EXPECT_TRUE(read.list->entries.empty());
}

TEST(AllowParse, NotJson) {
  EXPECT_EQ(only_error("{\"allow\": [}\n"), (Error{"opscan-allow-file", 1, 12, "not valid JSON"}));
  EXPECT_EQ(
      only_error("{\"allow\": [\n"),
      (Error{"opscan-allow-file", 2, 1, "not valid JSON: the file ends too early (truncated?)"}));
  EXPECT_EQ(only_error(""), (Error{"opscan-allow-file", 1, 1,
                                   "not valid JSON: the file ends too early (truncated?)"}));
  EXPECT_EQ(only_error("{\"allow\": []} x"), (Error{"opscan-allow-file", 1, 15, "not valid JSON"}));
  EXPECT_EQ(only_error("{\"allow\": [], \"allow\": \"\xff\"}").code, "opscan-allow-file");
}

TEST(AllowParse, WrongStructure) {
  EXPECT_EQ(only_error("[]"),
            (Error{"opscan-allow-file", 1, 1,
                   R"(an allow-list is a JSON object ({"allow": [...]}), not an array)"}));
  EXPECT_EQ(only_error("\"allow\""),
            (Error{"opscan-allow-file", 1, 1,
                   R"(an allow-list is a JSON object ({"allow": [...]}), not a string)"}));
  EXPECT_EQ(only_error("{}"), (Error{"opscan-allow-file", 1, 1,
                                     "missing field 'allow' (the list of allowed changes)"}));
  EXPECT_EQ(only_error("{\"allowed\": []}"),
            (Error{"opscan-allow-file", 1, 2,
                   "'allowed': unknown field (an allow-list holds one field, \"allow\")"}));
  EXPECT_EQ(only_error("{\"allow\": [], \"allow\": []}"),
            (Error{"opscan-allow-file", 1, 15, "allow: given twice"}));
  EXPECT_EQ(
      only_error("{\"allow\": {}}"),
      (Error{"opscan-allow-file", 1, 11, "allow: must be an array of entries, not an object"}));
  EXPECT_EQ(only_error("{\"allow\": null}"),
            (Error{"opscan-allow-file", 1, 11, "allow: must be an array of entries, not null"}));
  EXPECT_EQ(only_error("{\"allow\": [{" + kGood + "}, 3]}"),
            (Error{"opscan-allow-file", 1, 160, "allow[1]: must be an object, not a number"}));
  EXPECT_EQ(only_error("{\"allow\": [[]]}"),
            (Error{"opscan-allow-file", 1, 12, "allow[0]: must be an object, not an array"}));
}

TEST(AllowParse, FieldsOfTheWrongType) {
  for (const auto& [value, what] :
       std::vector<std::pair<std::string, std::string>>{{"20270301", "a number"},
                                                        {"-1.5", "a number"},
                                                        {"true", "a boolean"},
                                                        {"null", "null"},
                                                        {"{}", "an object"},
                                                        {"[\"2027-03-01\"]", "an array"}}) {
    SCOPED_TRACE(value);
    EXPECT_EQ(
        only_error(entry(R"("operator": "aten::add.out", "change": "default-removed", )"
                         R"("reason": "r", "expires": )" +
                         value)),
        (Error{"opscan-allow-file", 2, 88, "allow[0].expires: must be a string, not " + what}));
  }
}

TEST(AllowParse, UnknownAndDuplicateFields) {
  EXPECT_EQ(only_error(entry(R"("operator": "aten::add.out", "reasn": "x")")),
            (Error{"opscan-allow-file", 2, 33,
                   "'allow[0].reasn': unknown field (fields: operator, change, argument, reason, "
                   "expires); did you mean 'reason'?"}));
  EXPECT_EQ(only_error(entry(R"("operator": "aten::add.out", "operator": "aten::add.out")")),
            (Error{"opscan-allow-file", 2, 33, "allow[0].operator: given twice"}));
}

TEST(AllowParse, MissingFields) {
  for (const std::string field : {"operator", "change", "reason", "expires"}) {
    SCOPED_TRACE(field);
    std::string members = kGood;
    const size_t at = members.find("\"" + field + "\"");
    const size_t end = members.find(", ", at);
    members.erase(at, end == std::string::npos ? std::string::npos : end + 2 - at);
    if (members.ends_with(", "))
      members.resize(members.size() - 2);
    EXPECT_EQ(only_error(entry(members)),
              (Error{"opscan-allow-file", 2, 3, "allow[0]: missing field '" + field + "'"}));
  }
}

TEST(AllowParse, BadValues) {
  auto with = [](const std::string& field, const std::string& value) {
    std::string members = kGood;
    const size_t at = members.find("\"" + field + "\": \"") + field.size() + 5;
    members.replace(at, members.find('"', at) - at, value);
    return entry(members);
  };
  EXPECT_EQ(only_error(with("operator", "")).message, "allow[0].operator: is empty");
  EXPECT_EQ(only_error(with("operator", "add.out")).message,
            "allow[0].operator: 'add.out' is not an operator name: expected '::' after namespace "
            "'add', found '.' (write ns::name.overload)");
  EXPECT_EQ(only_error(with("reason", " ")),
            (Error{"opscan-allow-file", 2, 78,
                   "allow[0].reason: is empty: say why the change is accepted"}));
  EXPECT_EQ(only_error(with("reason", "line\\nbreak")).message,
            "allow[0].reason: holds a control character or is not UTF-8");
  EXPECT_EQ(only_error(entry(kGood + R"(, "argument": "")")).message,
            "allow[0].argument: is empty (leave the field out for every argument)");
  EXPECT_EQ(only_error(with("change", "argument-type-change")),
            (Error{"opscan-allow-change", 2, 43,
                   "allow[0].change: unknown change class 'argument-type-change'; did you mean "
                   "'argument-type-changed'?"}));
  EXPECT_EQ(only_error(with("change", "everything")).message,
            "allow[0].change: unknown change class 'everything' (the classes are listed in "
            "docs/auditing.md, \"Change classes\")");
}

TEST(AllowParse, DatesAreRealCalendarDates) {
  for (const std::string bad :
       {"2027-02-30", "2027-02-29", "2027-13-01", "2027-00-10", "2027-04-31", "2027-3-1",
        "20270301", "2027-03-01T00:00", "27-03-01", "2027/03/01", "２０２７-03-01", ""}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(audit::parse_date(bad));
    std::string members = kGood;
    members.replace(members.find("2027-03-01"), 10, bad);
    const Error error = only_error(entry(members));
    EXPECT_EQ(error.code, "opscan-allow-date");
    EXPECT_EQ(error.line, 2u);
    EXPECT_EQ(error.column, 136u);
    EXPECT_TRUE(error.message.starts_with("allow[0].expires: '")) << error.message;
  }
  EXPECT_EQ(audit::parse_date("2028-02-29"), (Date{2028, 2, 29}));
  EXPECT_EQ(audit::parse_date("2000-02-29"), (Date{2000, 2, 29}));
  EXPECT_FALSE(audit::parse_date("1900-02-29"));
  EXPECT_EQ((Date{2027, 3, 1}).str(), "2027-03-01");
  EXPECT_LT((Date{2027, 2, 28}), (Date{2027, 3, 1}));
}

TEST(AllowParse, EveryEntryIsChecked) {
  AllowRead read = parse(R"({"allow": [
  {"operator": "a::b", "change": "nope", "reason": "r", "expires": "2027-01-01"},
  {"operator": "a::b", "change": "default-removed", "reason": "r", "expires": "2027-01-32"}
]})");
  EXPECT_FALSE(read.list);
  ASSERT_EQ(read.diagnostics.size(), 2u);
  EXPECT_EQ(read.diagnostics[0].code, "opscan-allow-change");
  EXPECT_EQ(read.diagnostics[0].location.line, 2u);
  EXPECT_EQ(read.diagnostics[1].code, "opscan-allow-date");
  EXPECT_EQ(read.diagnostics[1].location.line, 3u);
}

TEST(AllowParse, DeepNestingIsRefusedAtOnce) {
  const std::string deep = "{\"allow\": [{\"reason\": " + std::string(100000, '[') + "]}";
  EXPECT_EQ(only_error(deep).message, "allow[0].reason: must be a string, not an array");
}

// ----- Applying an allow-list to a diff ------------------------------------

// ops::f's alpha: Scalar -> float (breaking), and a new trailing argument
// with a default (compatible).
audit::DiffResult changed() {
  return audit::diff(inputs_of(ops("ops::f(Tensor self, Scalar alpha) -> Tensor")),
                     inputs_of(ops("ops::f(Tensor self, float alpha, int dim=0) -> Tensor"), "new"),
                     test_fields());
}

audit::AllowList list_of(const std::string& text) {
  AllowRead read = parse(text);
  EXPECT_TRUE(read.list) << (read.diagnostics.empty() ? "" : read.diagnostics[0].message);
  return read.list.value_or(audit::AllowList{});
}

const Date kToday{2026, 6, 1};

TEST(AllowApply, AMatchingEntryAllowsTheChange) {
  audit::DiffResult result = changed();
  ASSERT_EQ(result.not_allowed(), 1u);
  const opscan::diag::Diagnostics diags =
      audit::apply(list_of(R"({"allow": [{"operator": "ops::f", "change": "argument-type-changed",
                 "argument": "alpha", "reason": "callers updated", "expires": "2026-06-01"}]})"),
                   kToday, result);
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(result.not_allowed(), 0u);
  EXPECT_EQ(result.allowed(), 1u);
  ASSERT_TRUE(result.changes[0].allowed);
  EXPECT_EQ(result.changes[0].allowed->reason, "callers updated");
  EXPECT_EQ(result.changes[0].allowed->expires, "2026-06-01");
  EXPECT_FALSE(result.changes[1].allowed); // compatible: nothing to allow
}

TEST(AllowApply, AnEntryForAnotherArgumentOperatorOrClassAllowsNothing) {
  for (const std::string members :
       {R"("operator": "ops::f", "change": "argument-type-changed", "argument": "beta")",
        R"("operator": "ops::g", "change": "argument-type-changed")",
        R"("operator": "ops::f", "change": "default-changed")",
        R"("operator": "ops::f", "change": "argument-added-with-default")"}) {
    SCOPED_TRACE(members);
    audit::DiffResult result = changed();
    const opscan::diag::Diagnostics diags = audit::apply(
        list_of(entry(members + R"(, "reason": "r", "expires": "2030-01-01")")), kToday, result);
    EXPECT_EQ(result.not_allowed(), 1u);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, "opscan-allow-unused");
    EXPECT_EQ(diags[0].severity, opscan::diag::Severity::warning);
    EXPECT_EQ(diags[0].location.line, 2u);
    EXPECT_TRUE(diags[0].message.starts_with("allow[0]: allows no breaking change of this diff"))
        << diags[0].message;
  }
}

TEST(AllowApply, AnExpiredEntryIsAnErrorAndAllowsNothingEvenWhenItMatches) {
  audit::DiffResult result = changed();
  const opscan::diag::Diagnostics diags = audit::apply(
      list_of(entry(R"("operator": "ops::f", "change": "argument-type-changed", "reason": "r", )"
                    R"("expires": "2026-05-31")")),
      kToday, result);
  EXPECT_EQ(result.not_allowed(), 1u);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "opscan-allow-expired");
  EXPECT_EQ(diags[0].severity, opscan::diag::Severity::error);
  EXPECT_EQ(diags[0].location, (opscan::diag::Location{kFile, 2, 3, 14}));
  EXPECT_EQ(diags[0].message,
            "allow[0]: the allowance of argument-type-changed for 'ops::f' expired on 2026-05-31 "
            "(today is 2026-06-01): look at the change again, then remove the entry or give a new "
            "date");
}

TEST(AllowApply, AnExpiredEntryThatMatchesNothingIsAnErrorToo) {
  audit::DiffResult result = audit::diff({}, {}, test_fields());
  const opscan::diag::Diagnostics diags = audit::apply(
      list_of(entry(R"("operator": "ops::g", "change": "operator-removed", "reason": "r", )"
                    R"("expires": "2020-01-01")")),
      kToday, result);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "opscan-allow-expired");
}

TEST(AllowApply, LibraryLevelChangesAreAllowedByLibraryName) {
  audit::DiffResult result = audit::diff(inputs_of({library("a", {}), library("b", {})}),
                                         inputs_of({library("a", {})}), test_fields());
  ASSERT_EQ(result.not_allowed(), 1u);
  const opscan::diag::Diagnostics diags = audit::apply(
      list_of(entry(R"("operator": "b", "change": "library-removed", "reason": "merged", )"
                    R"("expires": "2026-07-01")")),
      kToday, result);
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(result.not_allowed(), 0u);
}

// A breaking change of operator `op`, class `change`, argument `argument`.
audit::Change breaking(std::string op, std::string change, std::string argument = "") {
  audit::Change c;
  c.library = "lib";
  c.op = std::move(op);
  c.change = std::move(change);
  c.argument = std::move(argument);
  return c;
}

TEST(AllowApply, TheFirstLiveEntryInListOrderAllowsAChange) {
  // An entry for the change's argument and one for any argument: whichever
  // comes first; an expired one is passed over.
  const std::string alpha = R"("operator": "ops::f", "change": "argument-type-changed", )"
                            R"("argument": "alpha", "reason": "alpha", "expires": "2030-01-01")";
  const std::string any = R"("operator": "ops::f", "change": "argument-type-changed", )"
                          R"("reason": "any", "expires": "2030-01-01")";
  const std::string expired =
      R"("operator": "ops::f", "change": "argument-type-changed", )"
      R"("argument": "alpha", "reason": "expired", "expires": "2020-01-01")";
  struct Case {
    std::vector<std::string> entries;
    std::string argument;
    std::string reason; // of the entry that allows it
  };
  const Case cases[] = {
      {{alpha, any}, "alpha", "alpha"},     {{any, alpha}, "alpha", "any"},
      {{alpha, any}, "beta", "any"},        {{expired, any}, "alpha", "any"},
      {{expired, alpha}, "alpha", "alpha"},
  };
  for (const Case& c : cases) {
    std::string text = R"({"allow": [)";
    for (size_t i = 0; i < c.entries.size(); ++i)
      text += (i ? ", {" : "{") + c.entries[i] + "}";
    text += "]}";
    SCOPED_TRACE(text + " " + c.argument);
    audit::DiffResult result;
    result.changes.push_back(breaking("ops::f", "argument-type-changed", c.argument));
    audit::apply(list_of(text), kToday, result);
    ASSERT_TRUE(result.changes[0].allowed);
    EXPECT_EQ(result.changes[0].allowed->reason, c.reason);
  }
}

TEST(AllowApply, AOneLineListOfAQuarterMillionEntriesIsReadAndMatchedEntryByEntry) {
  // Entries are located and matched in linear time: before, each entry's
  // location counted the text before it, and each change went through the
  // whole list (16,000 entries on one line took 85 s; this many, hours).
  constexpr size_t kEntries = 250'000;
  std::string text = R"({"allow": [)";
  for (size_t i = 0; i < kEntries; ++i) {
    text += fmt::format(R"({}{{"operator": "ns::op{}.out", "change": "operator-removed", )"
                        R"("reason": "r{}", "expires": "2030-01-01"}})",
                        i ? ", " : "", i, i);
  }
  text += "]}";
  const AllowRead read = parse(text);
  ASSERT_TRUE(read.list);
  ASSERT_EQ(read.list->entries.size(), kEntries);
  size_t previous = 0;
  for (size_t i = 0; i < kEntries; ++i) {
    const opscan::diag::Location& at = read.list->entries[i].location;
    ASSERT_EQ(at.line, 1u);
    ASSERT_EQ(at.column, at.offset + 1);
    ASSERT_TRUE(i == 0 || at.offset > previous);
    ASSERT_EQ(text.compare(at.offset, 2, "{\""), 0) << i;
    previous = at.offset;
  }
  // One breaking change per entry, in the other order, and one none allows.
  audit::DiffResult result;
  for (size_t i = kEntries; i-- > 0;)
    result.changes.push_back(breaking(fmt::format("ns::op{}.out", i), "operator-removed"));
  result.changes.push_back(breaking("ns::other.out", "operator-removed"));
  const opscan::diag::Diagnostics diags = audit::apply(*read.list, kToday, result);
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(result.not_allowed(), 1u);
  for (size_t i = 0; i < kEntries; ++i) {
    const audit::Change& change = result.changes[kEntries - 1 - i];
    ASSERT_TRUE(change.allowed) << change.op;
    ASSERT_EQ(change.allowed->reason, fmt::format("r{}", i));
  }
}

TEST(AllowApply, TodayIsARealDate) {
  const Date today = audit::today_utc();
  EXPECT_GE(today.year, 2024);
  EXPECT_TRUE(audit::parse_date(today.str()));
}

} // namespace
