// Spelling generated C++ so that nothing a user names can collide with
// what opscan names: local variables, helper functions, namespaces and
// include guards. Shared by the targets; private to lib/emit.
#pragma once

#include "emit/code_template.h"
#include "emit/target.h"

#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::emit {

// The local variable names of a generated function for the arguments of
// `kernel`, in order: each argument's name when it is a valid identifier at
// local scope that is none of `taken` (the function's own names: its
// parameters, and the types and functions its body names unqualified) and
// no other argument's; else that name with '_' appended (then '_2', '_3',
// ...) until it is free.
std::vector<std::string> local_names(const ir::Kernel& kernel,
                                     std::initializer_list<std::string_view> taken);

// A helper function name for `kernel`, unique among `taken` (which it joins):
// <prefix><ns>_<name>_<overload> with runs of '_' made one and none first,
// then ..._2, ..._3 for the next kernels whose names fold to the same text.
std::string helper_name(const ir::Kernel& kernel, std::set<std::string>& taken,
                        std::string_view prefix);

// The names `module`'s kernels are declared with in the global namespace:
// helpers in generated files must not take them.
std::set<std::string> global_kernel_names(const ir::Module& module);

// An include guard for one header of a library: "OPSCAN_GENERATED_<TAG>_FOR_<library>".
// Tags are fixed by the targets, and no tag is a prefix of another, so two
// different (library, tag) pairs never give one guard.
std::string include_guard(std::string_view library, std::string_view tag);

// `body` declared in namespace `ns` ("a::b"; "" for the global namespace),
// opening as inline those of `inline_namespaces` (fully qualified names).
std::string in_namespace(const std::string& ns, const std::vector<std::string>& inline_namespaces,
                         const std::string& body);

// The declaration of a kernel's C++ function, without its namespace:
// 'extern "C"' for C linkage, and 'noexcept' when it is.
std::string function_declaration(const ir::Kernel& kernel, const std::string& result_type,
                                 const std::string& name_and_parameters);

// A canonical C++ type spelled so that equal types compare equal ("long
// long" is "long", no inline namespace of libc++ or libstdc++, no spaces); bare_canonical
// also drops the reference and top-level const.
std::string normalized(std::string canonical);
std::string bare_canonical(std::string canonical);

// How a kernel takes a parameter (as its canonical type says: "const T &"
// is const_ref), and a type declared so.
enum class Passing { value, const_ref, ref };
Passing passing_of(std::string_view canonical);
std::string declare(const std::string& type, Passing passing);

// "a::b::f" -> "a::b" and "f".
std::string namespace_of(const std::string& qualified);
std::string unqualified(const std::string& qualified);

// A blank line between the items of a block placeholder (which ignores one
// trailing newline of an item).
void separate_blocks(std::vector<std::string>& items);

// The registration conventions both built-in runtimes follow: in `scope`
// ("" or "ns::"), register_<lib>_kernels() in named mode and
// register_all_kernels() in manual mode; in static mode no function but the
// link anchor opscan_static_registration_<lib>.
Symbols registration_symbols(const LibrarySpec& library, std::string_view scope);

// Why a target cannot generate a kernel, at one of its fields (a JSON path
// below the kernel), reported as "kernel 'f' (op): <message>".
struct Refusal {
  std::string field;
  std::string message;
};
void report(const Refusal& refusal, const ir::Kernel& kernel, std::string code, Problems& problems);

// The declarations of kernels, one block per C++ namespace, in namespace
// order; each namespace opened as its kernels declare it (inline or not).
class Declarations {
public:
  void add(const ir::Kernel& kernel, const std::string& declaration);
  std::vector<std::string> blocks() const; // separated by blank lines
private:
  std::map<std::string, std::string> text_;                      // by namespace
  std::map<std::string, std::vector<std::string>> inline_names_; // by namespace
};

// One of a target's files: its path in the library's directory and the
// values its template has besides the common ones.
struct TemplatedFile {
  std::string path; // "RegisterKernels.h"; the template is templates/<target>/<its file name>
  OutputKind kind = OutputKind::data;
  TemplateEnv values;
  // A header's tag ("FUNCTIONS_H"): its template's ${include_guard} is
  // include_guard(<library>, guard_tag).
  std::string guard_tag = {};
};

// The files both built-in runtimes write first, alike: RegisterKernels.h
// (${declarations}: `register_declaration`), RegisterKernels.cpp (with
// `register_kernels`), KernelSources.cpp (${kernel_sources}: `sources`) and
// NativeFunctions.h (${declarations}: the kernels' `declarations`).
std::vector<TemplatedFile> registration_files(std::string register_declaration,
                                              TemplateEnv register_kernels,
                                              std::vector<std::string> sources,
                                              const Declarations& declarations);

// Writes each of `files`, in order, through `sink` as "<library>/<path>",
// rendered when the sink asks from its template with its values and those
// every file has (`common`); template errors go to `diags`.
void render_files(std::string_view target, const LibrarySpec& library,
                  const std::vector<TemplatedFile>& files, const TemplateEnv& common,
                  const Options& options, diag::Diagnostics& diags, OutputSink& sink);

// Static mode: the definition of the library's link anchor, with the comment
// that says why it is there.
std::string link_anchor_definition(const Symbols& symbols);

// Renders the built-in (or overriding) template `name` with `env`; reports
// template errors into `diags`.
std::optional<std::string> render(const std::string& name, const TemplateEnv& env,
                                  const Options& options, diag::Diagnostics& diags);

} // namespace opscan::emit
