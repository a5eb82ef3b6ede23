// What every target's generator gets and gives; private to lib/emit.
#pragma once

#include "emit/code_template.h"
#include "emit/emit.h"

namespace opscan::emit {

// The library being generated, after its name was checked.
struct Library {
  std::string name;                // as given, or "all" for the unnamed library
  std::string registration_symbol; // empty in static mode
};

// A local variable name for a schema argument in generated code: the name
// itself when it is a valid identifier that does not clash with the
// wrapper's own names, else the name with a trailing underscore.
std::string local_name(const std::string& schema_name);

// Renders the built-in (or overriding) template `name` with `env`; reports
// template errors into `diags`.
std::optional<std::string> render(const std::string& name, const TemplateEnv& env,
                                  const Options& options, diag::Diagnostics& diags);

void generate_executorch(const ir::Module& module, const Library& library, const Options& options,
                         Output& output);
void generate_torch(const ir::Module& module, const Library& library, const Options& options,
                    Output& output);

} // namespace opscan::emit
