// Operator schemas from C++ kernel signatures (REFERENCE.md §B), and the
// check of a declared schema against the signature. Pure: no libclang.
#pragma once

#include "schema/schema.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace opscan::scan {

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
};

// Mutable tensors get alias sets a, b, c, ... in order. The trailing run of
// mutable tensors is the out group (keyword-only, after "*"), except for
// in-place operators (name ending in '_'). Returns that are mutable
// references alias the mutable arguments in order.
std::variant<schema::Schema, InferError> infer_schema(const schema::OperatorName& name,
                                                      const std::vector<CppParam>& params,
                                                      const CppReturn& ret);

// Compares a declared schema with the one inferred from the signature:
// argument count, each argument's type and mutability, returns. Alias set
// names, fixed list sizes and SymInt/int do not matter.
std::vector<InferError> check_declared(const schema::Schema& declared,
                                       const schema::Schema& inferred);

} // namespace opscan::scan
