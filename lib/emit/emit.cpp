#include "emit/emit.h"

#include "emit/target.h"
#include "emit/templates.h"
#include "ident/ident.h"

#include <algorithm>
#include <array>

namespace opscan::emit {

std::optional<Target> parse_target(std::string_view name) {
  if (name == "executorch")
    return Target::executorch;
  return std::nullopt;
}

std::optional<Registration> parse_registration(std::string_view name) {
  if (name == "static")
    return Registration::static_init;
  if (name == "manual")
    return Registration::manual;
  if (name == "named")
    return Registration::named;
  return std::nullopt;
}

std::string local_name(const std::string& schema_name) {
  static constexpr std::array<std::string_view, 4> kTaken = {"context", "stack", "result",
                                                             "kKernels"};
  bool taken =
      std::find(kTaken.begin(), kTaken.end(), std::string_view(schema_name)) != kTaken.end();
  if (taken || !ident::is_valid_identifier(schema_name, ident::Scope::local))
    return schema_name + "_";
  return schema_name;
}

std::optional<std::string> render(const std::string& name, const TemplateEnv& env,
                                  const Options& options, diag::Diagnostics& diags) {
  auto report = [&](const TemplateError& e) {
    diags.push_back(diag::make_error(
        "opscan-template", {e.template_name, uint32_t(e.line), uint32_t(e.column), 0}, e.message));
    return std::nullopt;
  };
  auto loaded = load_template(name, options.templates_dir);
  if (auto* e = std::get_if<TemplateError>(&loaded))
    return report(*e);
  auto rendered = std::get<CodeTemplate>(loaded).render(env);
  if (auto* e = std::get_if<TemplateError>(&rendered))
    return report(*e);
  return std::get<std::string>(std::move(rendered));
}

Output generate(const ir::Module& module, const Options& options) {
  Output output;
  // The name is checked in every mode: it also names the output directory
  // and appears in generated code.
  ident::RegistrationSymbol symbol = ident::registration_symbol(options.library);
  for (const ident::Finding& f : symbol.findings) {
    output.diagnostics.push_back(f.is_error ? diag::make_error(f.code, {}, f.message)
                                            : diag::make_warning(f.code, {}, f.message));
  }
  if (!symbol.ok())
    return output;

  Library library{options.library.value_or("all"), symbol.symbol};
  if (options.registration == Registration::static_init)
    library.registration_symbol.clear();
  if (options.registration == Registration::manual)
    library.registration_symbol = "register_all_kernels";
  output.library_dir = library.name;

  // Generated code follows the canonical order, whatever order the IR came in.
  ir::Module library_ir = module;
  ir::canonicalize(library_ir);
  library_ir.generator = options.generator;
  switch (options.target) {
  case Target::executorch:
    generate_executorch(library_ir, library, options, output);
    break;
  }
  if (diag::has_errors(output.diagnostics)) {
    output.files.clear();
    return output;
  }
  output.files.push_back({library.name + "/ir.json", ir::to_json(library_ir)});
  return output;
}

} // namespace opscan::emit
