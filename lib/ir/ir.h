// The IR: what opscan knows about a kernel library after scanning. Written
// as JSON ("format": "opscan-ir"), described by ir/opscan-ir.schema.json.
#pragma once

#include "diag/diag.h"
#include "schema/schema.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::ir {

inline constexpr std::string_view kFormat = "opscan-ir";
inline constexpr int kVersion = 1;

struct Argument {
  std::string name;               // schema name (the C++ parameter's name)
  std::string schema_type;        // "Tensor(a!)", "int[]?", ...
  std::string cpp_type;           // as written in the source
  std::string cpp_canonical_type; // fully qualified, typedefs resolved
  bool kwarg_only = false;
  std::optional<std::string> default_value; // declared schemas only
  friend bool operator==(const Argument&, const Argument&) = default;
};

struct Return {
  std::string name; // may be empty
  std::string schema_type;
  friend bool operator==(const Return&, const Return&) = default;
};

enum class SchemaOrigin { inferred, declared };

struct Kernel {
  schema::OperatorName op;
  std::string schema; // canonical schema string
  SchemaOrigin schema_origin = SchemaOrigin::inferred;
  std::string cpp_function;              // fully qualified: "custom::native::add_out"
  std::string cpp_return_type;           // as written
  std::string cpp_canonical_return_type; // fully qualified
  std::string usr;                       // libclang's unified symbol resolution
  bool has_context = false;              // takes KernelRuntimeContext& (or DispatchKeySet) first
  std::vector<Argument> arguments;
  std::vector<Return> returns;
  std::string kernel_key;   // empty: the fallback kernel
  std::string dispatch_key; // empty: the target's default
  diag::Location location;  // the function's name in its annotated declaration
  friend bool operator==(const Kernel&, const Kernel&) = default;
};

struct SourceFile {
  std::string path;
  std::string sha256;
  friend bool operator==(const SourceFile&, const SourceFile&) = default;
};

// Which generated library an IR describes: set in the <lib>/ir.json that
// `opscan generate` writes, absent in scan output (fragments). Lets a later
// run regenerate several libraries at once, each as it was generated.
struct LibraryInfo {
  std::string name;         // the library's name; "all" for the unnamed default library
  std::string registration; // "static", "manual" or "named"
  std::string function;     // fully qualified registration function; "" in static mode
  std::string target;       // "executorch" or "torch"
  // Static mode only (else empty): the symbol that keeps the registration
  // object in a link from a static archive (-Wl,--undefined=<it>).
  std::string link_anchor = {};
  friend bool operator==(const LibraryInfo&, const LibraryInfo&) = default;
};

// One IR document: a fragment (one translation unit) or a library.
struct Module {
  std::string generator;              // "opscan 0.1.0"
  std::string libclang_version;       // clang_getClangVersion()
  std::optional<LibraryInfo> library; // set in a generated library's IR only
  std::vector<SourceFile> sources;
  std::vector<Kernel> kernels;
  friend bool operator==(const Module&, const Module&) = default;
};

// Sorts sources by path and kernels by operator, kernel key and location, so
// equal content always serialises to the same bytes.
void canonicalize(Module& module);

// True when canonicalize would leave `module` as it is because its sources
// and kernels are already in strictly increasing order (false, to be safe,
// when two kernels tie).
bool is_canonical(const Module& module);

// Deterministic JSON (canonicalised, two-space indent, trailing newline).
std::string to_json(const Module& module);

struct ReadResult {
  std::optional<Module> module;
  diag::Diagnostics diagnostics; // located in `path` when the JSON is bad
};
ReadResult from_json(std::string_view text, const std::string& path);

// Merges fragments into one module: the same kernel (same USR) seen in several
// fragments is kept once; two different kernels for one operator and kernel
// key are an error naming both locations. The result describes no library
// (`library` unset), whatever the inputs recorded.
struct MergeResult {
  Module module;
  diag::Diagnostics diagnostics;
};
MergeResult merge(std::vector<Module> fragments);

// Selective generation: keeps only the kernels (every kernel key) of the
// operators named, each "ns::name.overload" or "ns::name" (an operator
// without overload), as Kernel::op.str() spells it; the rest of `module` is
// kept as it is. Errors, once per name:
//   opscan-schema-*           a malformed name (the parser's code)
//   opscan-unknown-operator   no kernel of `module` implements it; suggests
//                             a close name, or another overload of it
struct SelectResult {
  Module module;
  diag::Diagnostics diagnostics;
};
SelectResult select_operators(const Module& module, const std::vector<std::string>& names);

} // namespace opscan::ir
