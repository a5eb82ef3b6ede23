// The IR: what opscan knows about a kernel library after scanning, as a
// typed model. Strings exist only at the JSON boundary (ir/json.h); in
// memory, schemas are parsed and every closed set is an enum. Validated at
// every door by ir::validate (ir/validate.h).
#pragma once

#include "diag/diag.h"
#include "schema/schema.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::ir {

// What a kernel takes before its schema arguments.
enum class ContextKind {
  none,
  runtime_context,  // executorch::runtime::KernelRuntimeContext& (ExecuTorch)
  dispatch_key_set, // c10::DispatchKeySet (PyTorch's dispatcher)
};

// Where a kernel's schema came from.
enum class SchemaOrigin {
  inferred, // from the C++ signature (the annotation names the operator only)
  declared, // written in the annotation, and checked against the signature
  known,    // from a known-schemas file (--schemas), checked against the signature
};

// How a generated library registers its kernels.
enum class Registration {
  static_init, // at load time, from a static initializer
  manual,      // register_all_kernels()
  named,       // register_<lib>_kernels()
};

// The language linkage of a kernel: an extern "C" kernel is declared so.
enum class Linkage { cxx, c };

// One schema argument and the C++ parameter that takes it.
struct Argument {
  schema::Argument schema;        // name, parsed type, default, keyword-only
  std::string cpp_type;           // as written in the source
  std::string cpp_canonical_type; // fully qualified, typedefs resolved
  friend bool operator==(const Argument&, const Argument&) = default;
};

struct Kernel {
  schema::OperatorName op;
  std::vector<Argument> arguments;
  std::vector<schema::Return> returns;
  SchemaOrigin schema_origin = SchemaOrigin::inferred;
  // Fully qualified, inline namespaces included: "custom::native::add_out".
  std::string cpp_function;
  // The namespaces of cpp_function that are inline, each fully qualified
  // ("custom::v1"): declarations of the kernel must open them inline.
  std::vector<std::string> cpp_inline_namespaces;
  Linkage cpp_linkage = Linkage::cxx;
  bool cpp_noexcept = false;
  std::string cpp_return_type;           // as written
  std::string cpp_canonical_return_type; // fully qualified
  std::string usr;                       // libclang's unified symbol resolution
  ContextKind context = ContextKind::none;
  // The annotation fields it sets (ir/fields.h), by IR key ("kernel_key"):
  // never an empty value.
  std::map<std::string, std::string, std::less<>> fields;
  diag::Location location; // the function's name in its annotated declaration

  // The kernel's schema: op, arguments and returns.
  schema::Schema schema() const;
  // The value of the annotation field of IR key `key` ("" when not set).
  std::string_view field(std::string_view key) const;
  // Sets the field of IR key `key`; unsets it when `value` is empty.
  void set_field(const std::string& key, std::string value);
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
  std::string name; // the library's name; "all" for the unnamed default library
  Registration registration = Registration::named;
  std::string target; // the name of a registered target ("executorch", "torch")
  // Derived from the three above by the target (a reader checks that they
  // agree): the fully qualified registration function ("" in static mode)
  // and, in static mode, the symbol that keeps the registration object in a
  // link from a static archive (-Wl,--undefined=<it>).
  std::string function;
  std::string link_anchor;
  friend bool operator==(const LibraryInfo&, const LibraryInfo&) = default;
};

// One IR document: a fragment (one translation unit) or a library.
struct Module {
  std::string generator;              // "opscan 0.2.0"
  std::string libclang_version;       // clang_getClangVersion()
  // What the scanned headers make of the runtime names generated code
  // spells whose meaning changed between versions of the runtime: each name
  // the headers declare as an alias, and the canonical type or template it
  // denotes ("c10::optional" -> "std::optional" in libtorch 2). A name not
  // listed denotes itself, or is not declared.
  std::map<std::string, std::string> aliases;
  std::optional<LibraryInfo> library; // set in a generated library's IR only
  std::vector<SourceFile> sources;
  std::vector<Kernel> kernels;
  friend bool operator==(const Module&, const Module&) = default;
};

// The names the JSON uses for the enums above; nullopt for any other text.
std::string_view to_string(ContextKind kind);    // "none", "KernelRuntimeContext", "DispatchKeySet"
std::string_view to_string(SchemaOrigin origin); // "inferred", "declared", "known"
std::string_view to_string(Registration mode);   // "static", "manual", "named"
std::string_view to_string(Linkage linkage);     // "C++", "C"
std::optional<ContextKind> parse_context_kind(std::string_view text);
std::optional<SchemaOrigin> parse_schema_origin(std::string_view text);
std::optional<Registration> parse_registration(std::string_view text);
std::optional<Linkage> parse_linkage(std::string_view text);

// Sorts sources by path and kernels by operator, annotation fields and
// location, so equal content always serialises to the same bytes.
void canonicalize(Module& module);

// True when canonicalize would leave `module` as it is because its sources
// and kernels are already in strictly increasing order (false, to be safe,
// when two kernels tie).
bool is_canonical(const Module& module);

// Merges fragments into one module: the same kernel (same USR) seen in
// several fragments is kept once; one USR annotated differently is an
// error naming both locations. Which kernels may share an operator is the
// target's business (emit::Target::identity), not the merge's. The result
// describes no library (`library` unset), whatever the inputs recorded.
// Messages show the kernels' `fields` (ir/fields.h).
struct MergeResult {
  Module module;
  diag::Diagnostics diagnostics;
};
class Fields;
MergeResult merge(std::vector<Module> fragments, const Fields& fields);

// Selective generation: keeps only the kernels (every kernel key) of the
// operators named, each "ns::name.overload" or "ns::name" (an operator
// without overload), as OperatorName::str() spells it, and the sources but
// those where only kernels left out are annotated; the rest of `module` is
// kept as it is. Errors, once per name:
//   opscan-schema-*           a malformed name (the parser's code)
//   opscan-unknown-operator   no kernel of `module` implements it; suggests
//                             a close name, or another overload of it
struct SelectResult {
  Module module;
  diag::Diagnostics diagnostics;
};
SelectResult select_operators(const Module& module, const std::vector<std::string>& names);

// What a model (or a selective-build file) needs of one operator: the
// kernel keys its calls look up, or every kernel. Plain data: who reads
// models and files turns them into this.
struct OperatorNeed {
  std::string name; // "ns::name.overload" or "ns::name"
  // The kernel keys needed ("" for the fallback kernel, which serves calls
  // without tensors); nullopt: every kernel of the operator.
  std::optional<std::set<std::string>> keys;
  bool all_overloads = false; // every overload of name's "ns::name"
  diag::Location location;    // where it is asked for, for errors
  std::string from;           // for messages: "model.pte", "--operators"
};
struct OperatorSelection {
  bool all_operators = false; // keep every kernel (include_all_operators)
  std::vector<OperatorNeed> operators;
  // The IR key of the annotation field the needs' keys are values of
  // (ExecuTorch's kernel key); a kernel that leaves it unset is the fallback.
  std::string keyed_by;
};

// Selective generation by need: keeps, for each operator named, its
// fallback kernels (no kernel key) and the dtype-specialised kernels whose
// key is needed (all of them when `keys` is nullopt); the sources as
// select_operators keeps them. Several needs of one operator add up.
// Errors: those of select_operators, and
//   opscan-unknown-kernel-key  a needed key (or a needed fallback) that no
//                              kernel of the operator serves: neither a
//                              kernel with that key nor a fallback
SelectResult select_kernels(const Module& module, const OperatorSelection& selection);

} // namespace opscan::ir
