// The allow-list of `opscan diff --allow FILE`: breaking changes a project
// accepts, each with a reason and an expiry date, so that an allowance is
// looked at again instead of rotting.
//
//   {"allow": [{"operator": "aten::add.out", "change": "argument-type-changed",
//               "argument": "alpha", "reason": "callers updated in #123",
//               "expires": "2027-03-01"}]}
//
// operator: the operator's full name (ns::name.overload), or the library's
// name for a library-level change; change: a class id (audit/diff.h);
// argument (optional): only changes of this argument or return; reason: not
// empty; expires: an ISO date, YYYY-MM-DD, the last day it allows. Read
// strictly: no other fields, no duplicate keys, strings only.
#pragma once

#include "audit/diff.h"
#include "diag/diag.h"

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::audit {

// A calendar date.
struct Date {
  int year = 1970;
  unsigned month = 1;
  unsigned day = 1;
  std::string str() const; // YYYY-MM-DD
  friend auto operator<=>(const Date&, const Date&) = default;
};

// "YYYY-MM-DD" (exactly: four, two and two digits) naming a real date
// (2027-02-30 is none); nullopt otherwise.
std::optional<Date> parse_date(std::string_view text);

// The current date in UTC.
Date today_utc();

struct AllowEntry {
  std::string op;
  std::string change;
  std::optional<std::string> argument;
  std::string reason;
  Date expires;
  std::string path;        // "allow[2]", for messages
  diag::Location location; // the entry's '{'
};

struct AllowList {
  std::vector<AllowEntry> entries;
};

// Reads an allow-list. Errors, located at the value and naming its JSON
// path ("allow[2].expires: ..."):
//   opscan-allow-file    not JSON, or not in the format above (wrong type,
//                        missing, unknown or duplicate field, empty reason,
//                        malformed operator name, control characters)
//   opscan-allow-change  a change class that does not exist (with "did you
//                        mean" when one is close)
//   opscan-allow-date    an expiry date that is not YYYY-MM-DD or no real date
// `list` is set only when there is none.
struct AllowRead {
  std::optional<AllowList> list;
  diag::Diagnostics diagnostics;
};
AllowRead parse_allow_list(std::string_view text, const std::string& path);

// Marks each breaking change of `result` the first entry that matches it
// allows (operator, class and, when the entry names one, argument). An
// entry that expired before `today` allows nothing and is an error
// (opscan-allow-expired), matching or not; a live entry that allows no
// change is a warning (opscan-allow-unused).
diag::Diagnostics apply(const AllowList& list, const Date& today, DiffResult& result);

} // namespace opscan::audit
