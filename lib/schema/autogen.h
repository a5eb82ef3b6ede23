// The schemas PyTorch's code generator (torchgen) derives for the operators a
// native_functions.yaml entry lists under `autogen:`, which the file never
// spells out. Pure functions on parsed schemas; no I/O.
//
// torchgen reads a schema as: positional arguments (one of them may be
// `self`), keyword-only arguments, and out arguments (the keyword-only ones
// from the first mutable one on). Its kind is in-place (name ending in "_"),
// out= (it has out arguments), mutable (a positional argument after `self`,
// or any if there is no `self`, is written) or functional. From F it derives:
//
// - the out= variant, named <name without "_">.<overload>_out (".out" without
//   an overload; "__iand__" in place names "__and__"):
//   - F in-place: F's arguments with `self` no longer annotated, then
//     `*, <self's type and annotation> out`; F's returns.
//   - F functional: F's arguments without alias annotations and without the
//     tensor options (`dtype`, `layout`, `device`, `pin_memory`, in that
//     order, keyword-only); then one out argument per tensor-like return i
//     (`Tensor`, `Tensor?`, `Tensor[]`), of that type, annotated with the
//     i-th letter of those a..z no argument of F uses, named `out` when F has
//     one return and `out<i>` otherwise, even when the returns are named.
//     When every return is a plain `Tensor`, the returns become the out
//     arguments' types; otherwise only F's non-tensor returns remain.
//   - F mutable: as functional, but F's arguments stay as they are.
// - the functional variant of an in-place or mutable F, named
//   <name without "_">.<overload> (a mutable F's gets "_functional" after the
//   name): F's arguments without annotations or tensor options; F's returns
//   without annotations, then `<type> <name>_out` for each written argument
//   (`self`, then those after it) that no return aliases.
//
// Nothing is derived from out= (or scratch) variants, from views (a return
// aliasing an argument without writing it, or an argument aliasing into
// "*"), or from a functional or mutable F without a tensor return; nor when
// the result would be outside what torchgen can write (alias annotations on list suffixes or on
// types other than Tensor, a return that is itself written, more returns than free alias letters, a
// derived argument whose name F already uses).
#pragma once

#include "schema/schema.h"

#include <optional>
#include <string>

namespace opscan::schema {

// A derived schema, or why there is none.
struct Derived {
  std::optional<Schema> schema;
  std::string error; // set exactly when schema is not
  explicit operator bool() const { return schema.has_value(); }
};

// The out= variant of `from`; `name` must be the one torchgen gives it.
Derived out_variant(const Schema& from, const OperatorName& name);

// The functional variant of an in-place or mutable `from`; `name` must be the
// one torchgen gives it.
Derived functional_variant(const Schema& from, const OperatorName& name);

// What `autogen: <name>` on the entry of `from` stands for: its out= variant
// or its functional variant, whichever torchgen names `name`.
Derived autogen_variant(const Schema& from, const OperatorName& name);

} // namespace opscan::schema
