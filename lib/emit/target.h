// What every target's generator gets and gives; private to lib/emit.
#pragma once

#include "emit/code_template.h"
#include "emit/emit.h"

#include <set>
#include <string_view>

namespace opscan::emit {

// The library being generated, after its name was checked.
struct Library {
  std::string name;                // as given, or "all" for the unnamed library
  std::string registration_symbol; // empty in static mode
  std::string link_anchor;         // static mode only: "opscan_static_registration_<name>"
};

// Static mode: the definition of the library's link anchor in
// RegisterKernels.cpp, with the comment that says why it is there.
std::string link_anchor_definition(const Library& library);

// A local variable name for a schema argument in generated code: the name
// itself when it is a valid identifier that does not clash with the
// wrapper's own names, else the name with a trailing underscore.
std::string local_name(const std::string& schema_name);

// A canonical C++ type spelled so that equal types compare equal ("long
// long" is "long", no libc++ inline namespace, no spaces); bare_canonical
// also drops the reference and top-level const.
std::string normalized(std::string canonical);
std::string bare_canonical(std::string canonical);

// "a::b::f" -> "a::b" and "f".
std::string namespace_of(const std::string& qualified);
std::string unqualified(const std::string& qualified);

// A readable wrapper name, unique in the file: <prefix>ns_name_overload,
// then ..._2 for the next kernel whose name folds to the same text.
std::string wrapper_name(const ir::Kernel& kernel, std::set<std::string>& taken,
                         std::string_view prefix);

// Renders the built-in (or overriding) template `name` with `env`; reports
// template errors into `diags`.
std::optional<std::string> render(const std::string& name, const TemplateEnv& env,
                                  const Options& options, diag::Diagnostics& diags);

void generate_executorch(const ir::Module& module, const Library& library, const Options& options,
                         Output& output);
void generate_torch(const ir::Module& module, const Library& library, const Options& options,
                    Output& output);

} // namespace opscan::emit
