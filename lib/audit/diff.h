// `opscan diff`: what a change did to the operators a set of kernel
// libraries registers, as classified records a reviewer reads without the
// C++ (and CI judges: a breaking change fails unless an allow-list entry
// allows it, audit/allow.h).
//
// What is compared:
//  - libraries by name (scan output, with no library record, is one
//    unnamed library); an added or removed library is one record, its
//    operators are not listed one by one;
//  - operators by full name (ns::name.overload) within a library; one that
//    left a library and appeared in another is `library-changed` (and then
//    compared with itself there);
//  - an operator's kernels by (kernel key, dispatch key);
//  - schemas kernel by kernel (kernels with the same key on both sides, or
//    the first of each side when none has), each change reported once per
//    operator however many kernels share it;
//  - the C++ side (function, parameter types, context, schema origin) per
//    kernel.
//
// How arguments are matched (old and new schema of one operator):
//  1. by name: an argument keeps its name wherever it moved; the longest
//     run of these that keeps its order anchors the rest, and any other
//     is `argument-reordered`;
//  2. between two consecutive anchors, the unnamed-matched old and new
//     arguments are paired in order: a pair is a rename (its other
//     attributes compared too); what is left over is removed (old) or
//     added (new);
//  3. an added argument is trailing when no old argument follows it in the
//     new schema: then `argument-added-with-default` (compatible) or
//     `argument-added-without-default`; otherwise `argument-inserted`
//     (breaking: the positions of the arguments after it shift). An out
//     argument (keyword-only, a mutable tensor) added or removed is
//     `out-argument-added` / `out-argument-removed`.
// Returns are matched by position.
#pragma once

#include "audit/inputs.h"
#include "diag/diag.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::audit {

enum class Compatibility { compatible, breaking };
std::string_view to_string(Compatibility compatibility); // "compatible", "breaking"

// A kind of change: a stable id (allow-list entries name it), whether it
// breaks callers or binaries built against the old libraries, and what it
// means (the table in docs/auditing.md).
struct ChangeClass {
  std::string_view id; // "argument-type-changed"
  Compatibility compatibility;
  std::string_view summary;
  bool library_level = false; // about a library as a whole (operator empty)
};

// Every class, in the order reports list them within an operator.
const std::vector<ChangeClass>& change_classes();
// The class `id`, or null.
const ChangeClass* find_change_class(std::string_view id);

// One side of a change: the library, the value before or after, and where
// the kernel concerned is declared (the IR file for library-level changes).
struct Site {
  std::string library;
  std::string value;
  diag::Location location;
};

// Why a breaking change is accepted: the allow-list entry that matched.
struct Allowance {
  std::string reason;
  std::string expires; // YYYY-MM-DD
};

struct Change {
  std::string library; // where it happened: the new side's library, else the old's
  std::string op;      // ns::name.overload; "" for library-level changes
  std::string change;  // the class id
  Compatibility compatibility = Compatibility::breaking;
  std::string argument;           // the argument (or return) concerned; "" for none
  std::optional<size_t> position; // its 0-based position, when it has one
  std::string message;            // names the old and new values
  std::optional<Site> old_site, new_site;
  std::optional<Allowance> allowed; // set by audit::apply (allow.h)
};

struct DiffResult {
  std::vector<Change> changes; // by library, operator, breaking first
  diag::Diagnostics diagnostics;

  size_t count(Compatibility compatibility) const;
  size_t allowed() const;     // breaking changes an allow-list entry allows
  size_t not_allowed() const; // breaking changes none allows: the run fails
};

// Compares the libraries of `old_side` with those of `new_side` (each read
// and validated, their kernels naming `fields`). Diagnostics:
// group_libraries' errors on either side.
DiffResult diff(const std::vector<ir::File>& old_side, const std::vector<ir::File>& new_side,
                const ir::Fields& fields);

} // namespace opscan::audit
