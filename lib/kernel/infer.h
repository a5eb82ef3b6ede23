// Operator schemas from C++ kernel signatures (the type table in
// docs/annotating.md, "Inference rules and the type table"), and the check of a declared schema against the
// signature. Pure: no libclang.
#pragma once

#include "schema/schema.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace opscan::kernel {

// A kernel parameter (after the runtime context), already mapped to its
// schema type without alias annotations.
struct CppParam {
  std::string name;
  schema::Type type;
  bool is_mutable = false; // a non-const reference to a tensor
};

// The kernel's return: one value, or the elements of a std::tuple.
struct CppReturn {
  std::vector<CppParam> values; // empty for void; names unused
};

struct InferError {
  int param = -1; // index into the parameters, -1 for the return
  std::string code;
  std::string message;
  bool is_warning = false; // a doubt, not a mismatch: the kernel stands
};

// Mutable tensors get alias sets a, b, c, ... in order. The trailing run of
// mutable tensors is the out group (keyword-only, after "*"), except for
// in-place operators (name ending in '_'), whose first argument is 'self'
// (a list of tensors there is written). An out variant (overload "out" or
// "..._out") returning nothing and taking no mutable tensor writes its last
// parameter when that is a list of tensors. Returned references alias the
// out group in order, or else every mutable tensor.
std::variant<schema::Schema, InferError> infer_schema(const schema::OperatorName& name,
                                                      const std::vector<CppParam>& params,
                                                      const CppReturn& ret);

// The schema of infer_schema, also where it reports an error (a returned
// reference it cannot place aliases the last mutable tensors): what the
// signature is checked against a declared or known schema with, since the
// rules of inference do not apply when a schema is given.
schema::Schema read_signature(const schema::OperatorName& name, const std::vector<CppParam>& params,
                              const CppReturn& ret);

// What a signature is checked against: a schema declared in the annotation,
// or the schema a known-schemas file gives for the operator.
enum class Reference { declared, known };

// The C++ side, as written, for messages.
struct CppSpelling {
  std::vector<std::string> params; // each parameter's type, after the context
  std::string ret;                 // the return type
  bool has_context = true;         // a runtime context comes first (not an argument)
};

// Compares a reference schema with the one inferred from the signature:
// argument count, each argument's type, mutability (Tensor(a!) is a
// non-const Tensor&) and order, and the returns. Alias set names, fixed list
// sizes, SymInt/int and the mutability of tensor lists (C++ cannot express
// it) do not matter. One error per mismatch; `param` says which argument.
// Arguments of one type whose C++ names are the reference's in another
// order are an error against a declared schema, and only a warning against
// a known one, whose names C++ names never overrule.
std::vector<InferError> cross_check(const schema::Schema& reference, const schema::Schema& inferred,
                                    const CppSpelling& cpp, Reference kind);

// The declared schema made to fit the signature: the inferred schema, in the
// C++ order, where each C++ parameter takes its declared counterpart (the
// declared argument of its name; else, when the counts agree, the one at its
// position; else the next one left of its type). A counterpart of the same
// type is kept whole (name, default, alias names, keyword-only marker); one of
// another type lends its name and '*'. Written tensors never share an alias
// set. Returns keep the declared names, the view alias sets that still have
// their argument, and the alias sets of the arguments they return. No two
// arguments of the result share a name or a written alias set, and its '*'
// and defaults are in order.
schema::Schema repair(const schema::Schema& declared, const schema::Schema& inferred);

} // namespace opscan::kernel
