// A C++ function annotated as a kernel, as the libclang walk saw it (a
// neutral signature: nothing decided yet), and the pure stage that turns it
// into an IR kernel: reading the annotation, inferring the schema, checking
// a declared or known schema against the signature, and repairing it.
// Nothing here calls libclang.
#pragma once

#include "diag/diag.h"
#include "ir/fields.h"
#include "ir/ir.h"
#include "kernel/known_schemas.h"
#include "schema/schema.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opscan::kernel {

// Where the bytes of an annotation's text are in the source. The text is
// the macro's arguments as the preprocessor stringized them; each piece is
// one token of it. Without pieces (an annotation made by another macro)
// every offset maps to the macro use.
class AnnotationMap {
public:
  struct Piece {
    size_t offset = 0; // in the text
    size_t length = 0;
    diag::Location where;
  };
  AnnotationMap() = default;
  AnnotationMap(diag::Location fallback, std::vector<Piece> pieces)
      : fallback_(std::move(fallback)), pieces_(std::move(pieces)) {}

  // Whether offsets map to the source exactly.
  bool exact() const { return !pieces_.empty(); }
  diag::Location at(size_t offset) const;

private:
  diag::Location fallback_;
  std::vector<Piece> pieces_;
};

// A C++ type mapped to a schema type, or why it cannot be one.
struct MappedType {
  std::optional<schema::Type> type; // unset: not a kernel type; see error
  bool is_mutable = false;          // non-const reference to a tensor
  std::string error;                // names the type and what to use instead

  // A refusal's one obvious repair, which part of the written type it
  // rewrites: a builtin type (`int`, `unsigned long`; also a template's
  // element) becomes `replacement`; a char pointer (`const char*`) becomes
  // `replacement`; an rvalue reference (`T&&`) becomes a const reference.
  enum class Repair { none, builtin, char_pointer, rvalue_reference };
  Repair repair = Repair::none;
  std::string replacement;
  // That repair as an edit of the source, where the source spells the type
  // (none when a macro or an alias declared elsewhere wrote it: the repair
  // belongs there).
  std::vector<diag::FixIt> fix;
};

struct Parameter {
  std::string name;           // "" when unnamed
  std::string type;           // as written
  std::string canonical_type; // fully qualified, typedefs resolved
  MappedType mapped;
  bool invalid = false;    // libclang could not resolve its type
  diag::Location location; // its name (or its type when unnamed)
  diag::Location end;      // the end of its declaration, where a name would go
  // Deletes the `const` of a const reference as written ("const Tensor&"
  // -> "Tensor&"), when the source spells it; for a tensor the kernel
  // should write.
  std::optional<diag::FixIt> const_removal;
};

struct Signature {
  std::string qualified_name; // "ns::v1::f", inline namespaces included
  std::vector<std::string> inline_namespaces;
  ir::Linkage linkage = ir::Linkage::cxx;
  bool is_noexcept = false;
  std::string usr;
  diag::Location location; // the function's name
  bool invalid = false;    // libclang marked the declaration invalid
  ir::ContextKind context = ir::ContextKind::none;
  std::vector<Parameter> parameters; // after the context, if any
  std::string return_type;           // as written
  std::string canonical_return_type;
  std::vector<MappedType> returns; // the values returned (a tuple's elements); none for void

  std::string annotation; // the text after "opscan:kernel:"
  AnnotationMap annotation_map;
};

struct Built {
  std::optional<ir::Kernel> kernel; // unset when there are errors
  diag::Diagnostics diagnostics;
};

// The kernel `signature` declares, with its schema: declared in the
// annotation, else the operator's in `known` (may be null), else inferred;
// a declared or known schema is checked against the signature (with a
// fix-it that rewrites a declared one to fit). Inferred though `known` is
// given: a warning (opscan-schema-unknown). The annotation may set the
// `fields` given, each checked as it defines, an error at its value.
Built build_kernel(const Signature& signature, const KnownSchemas* known, const ir::Fields& fields);

} // namespace opscan::kernel
