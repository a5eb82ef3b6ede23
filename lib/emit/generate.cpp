// One kernel library for a target: the shared checks, the target's files, the library IR.
#include "emit/generate.h"

#include "ident/ident.h"
#include "ir/json.h"
#include "support/text.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <tuple>

namespace opscan::emit {
namespace {

// What every generation of `options` shares: the target, and the library
// with its symbols; nullopt (with errors in `diags`) when any is refused.
struct ResolvedOptions {
  const Target* target;
  LibrarySpec library;
  Symbols symbols;
};

std::optional<ResolvedOptions> resolve_options(const Options& options, const TargetRegistry& targets,
                                diag::Diagnostics& diags) {
  const Target* target = targets.find(options.target);
  if (target == nullptr) {
    diags.push_back(diag::make_error("opscan-unknown-target", {},
                                     "unknown target " + support::quoted(options.target) +
                                         " (targets: " + targets.listed() + ")"));
    return std::nullopt;
  }
  bool ok = true;
  if (!target->accepts(options.registration)) {
    diags.push_back(
        diag::make_error("opscan-unsupported-registration", {},
                         fmt::format("the {} target has no {} registration", target->name(),
                                     ir::to_string(options.registration))));
    ok = false;
  }
  struct GivenOption {
    TargetOption option;
    bool given;
    const char* flag;
  };
  const GivenOption target_options[] = {
      {TargetOption::exception_boundary, options.exception_boundary, "--exception-boundary"},
      {TargetOption::torch_target_version, options.torch_target_version.has_value(),
       "--torch-target-version"},
      {TargetOption::aten_mode, options.aten_mode, "--use-aten-lib"}};
  for (const auto& [option, given, flag] : target_options) {
    if (!given || target->reads(option))
      continue;
    std::vector<std::string> readers;
    for (const std::string& name : targets.names()) {
      if (targets.find(name)->reads(option))
        readers.push_back(name);
    }
    diags.push_back(diag::make_error(
        "opscan-unsupported-option", {},
        fmt::format("{} is given, but the {} target has no such option (it is for: {})", flag,
                    target->name(), fmt::join(readers, ", "))));
    ok = false;
  }
  for (const auto& [key, value] : options.field_defaults) {
    const ir::Field* read = target->fields().by_key(key);
    if (value.empty()) {
      diags.push_back(diag::make_error(read != nullptr ? read->code : "opscan-unsupported-field",
                                       {}, fmt::format("the default {} is empty", key)));
      ok = false;
    } else if (read == nullptr) {
      diags.push_back(
          diag::make_error("opscan-unsupported-field", {},
                           fmt::format("a default {} ({}) is given, but the {} target reads no {}",
                                       key, support::quoted(value), target->name(), key)));
      ok = false;
    }
  }
  // The name is checked in every mode: it also names the output directory
  // and appears in generated code.
  ident::RegistrationSymbol symbol = ident::registration_symbol(options.library);
  for (const ident::Finding& f : symbol.findings) {
    diags.push_back(f.is_error ? diag::make_error(f.code, {}, f.message)
                               : diag::make_warning(f.code, {}, f.message));
  }
  if (!symbol.ok() || !ok)
    return std::nullopt;
  LibrarySpec library{options.library.value_or("all"), options.registration};
  return ResolvedOptions{target, library, target->symbols(library)};
}

// Gives every field the target reads its value (the kernel's, else the
// default), and reports fields the target does not read (named as
// annotated, when a target of `known` defines them) and values it does not
// understand. A default's problem is reported once, not per kernel.
void resolve_fields(std::vector<ir::Kernel>& kernels, const Target& target, const Options& options,
                    const ir::Fields& known, Problems& problems) {
  for (const ir::Kernel& k : kernels) {
    for (const auto& [key, value] : k.fields) {
      if (target.fields().by_key(key) != nullptr)
        continue;
      const ir::Field* field = known.by_key(key);
      problems.kernel(k, key, "opscan-unsupported-field",
                      fmt::format("the annotation sets {} = {}, which the {} target does "
                                  "not read: remove it, or generate for a target that does",
                                  field != nullptr ? field->annotation : key,
                                  support::quoted(value), target.name()));
    }
  }
  for (const ir::Field& field : target.fields()) {
    auto given = options.field_defaults.find(field.key);
    const std::string& fallback =
        given != options.field_defaults.end() ? given->second : field.default_value;
    bool default_reported = false;
    for (ir::Kernel& k : kernels) {
      const bool defaulted = k.field(field.key).empty();
      if (defaulted && fallback.empty())
        continue;
      if (defaulted)
        k.fields[field.key] = fallback;
      const std::string& value = k.fields.at(field.key);
      auto problem = field.check ? field.check(value, k) : std::nullopt;
      if (!problem || (defaulted && default_reported))
        continue;
      if (defaulted) {
        default_reported = true;
        problems.error(field.code, fmt::format("the default {} {}: {}", field.key,
                                               support::quoted(value), problem->message));
      } else {
        problems.kernel(k, field.key, field.code, problem->message);
      }
    }
  }
}

// Two kernels of one identity: an error at the later one in the sources.
void check_identities(const std::vector<ir::Kernel>& kernels, const Target& target,
                      Problems& problems) {
  std::vector<const ir::Kernel*> in_source_order;
  for (const ir::Kernel& k : kernels)
    in_source_order.push_back(&k);
  std::stable_sort(in_source_order.begin(), in_source_order.end(),
                   [](const ir::Kernel* a, const ir::Kernel* b) {
                     return std::tie(a->location.file, a->location.offset) <
                            std::tie(b->location.file, b->location.offset);
                   });
  std::map<std::string, const ir::Kernel*> first;
  for (const ir::Kernel* kernel : in_source_order) {
    const ir::Kernel& k = *kernel;
    auto [it, fresh] = first.emplace(target.identity(k), &k);
    if (fresh)
      continue;
    const ir::Kernel& other = *it->second;
    problems.kernel(k, "", "opscan-duplicate-kernel",
                    fmt::format("two kernels for {}: '{}' and '{}'; the {} target registers "
                                "one kernel there",
                                describe(target, k), other.cpp_function, k.cpp_function,
                                target.name()),
                    {{"'" + other.cpp_function + "' is annotated here", other.location}});
  }
}

// The files a target writes, rendered or (listing) with no content.
class Files final : public OutputSink {
public:
  explicit Files(bool render) : render_(render) {}
  void file(std::string path, OutputKind kind,
            const std::function<std::string()>& render) override {
    files_.push_back({std::move(path), kind, render_ ? render() : ""});
  }
  std::vector<OutputFile> take() { return std::move(files_); }

private:
  bool render_;
  std::vector<OutputFile> files_;
};

} // namespace

std::string_view to_string(OutputKind kind) {
  switch (kind) {
  case OutputKind::header:
    return "header";
  case OutputKind::source:
    return "source";
  case OutputKind::data:
    return "data";
  }
  return "data";
}

std::vector<Target::Claim> Target::claims(const ir::Kernel& kernel) const {
  return {{identity(kernel), describe(*this, kernel)}};
}

std::string describe(const Target& target, const ir::Kernel& kernel) {
  return ir::describe(kernel, target.fields());
}

void Problems::kernel(const ir::Kernel& kernel, std::string_view field, std::string code,
                      std::string message, std::vector<diag::Note> notes) {
  kernels_.insert(kernel.usr);
  diag::Diagnostic d = locator_.kernel_error(kernel, field, std::move(code), std::move(message));
  d.notes.insert(d.notes.begin(), notes.begin(), notes.end());
  out_.push_back(std::move(d));
}

void Problems::kernel_warning(const ir::Kernel& kernel, std::string_view field, std::string code,
                              std::string message) {
  diag::Diagnostic d = locator_.kernel_error(kernel, field, std::move(code), std::move(message));
  d.severity = diag::Severity::warning;
  out_.push_back(std::move(d));
}

void Problems::error(std::string code, std::string message) {
  out_.push_back(diag::make_error(std::move(code), {}, std::move(message)));
}

OutputList list_outputs(const Options& options, const TargetRegistry& targets) {
  OutputList list;
  auto prepared = resolve_options(options, targets, list.diagnostics);
  if (!prepared)
    return list;
  list.library = prepared->library;
  list.symbols = prepared->symbols;
  // A generation of no kernels writes every file, so listing is one: its
  // sink never renders, so no template is read.
  ir::Locator locator;
  Problems problems(locator, list.diagnostics);
  Files files(false);
  prepared->target->generate(ir::Module{}, list.library, options, problems, files);
  list.files = files.take();
  list.files.push_back({list.library.name + "/ir.json", OutputKind::data, ""});
  return list;
}

Output generate(ir::Module module, const Options& options, const TargetRegistry& targets,
                const ir::Locator& locator) {
  Output output;
  auto prepared = resolve_options(options, targets, output.diagnostics);
  if (!prepared)
    return output;
  const Target& target = *prepared->target;
  output.library = prepared->library;
  output.symbols = prepared->symbols;

  ir::Module& library = output.module;
  library = std::move(module);
  Problems problems(locator, output.diagnostics);
  resolve_fields(library.kernels, target, options, targets.fields(), problems);
  check_identities(library.kernels, target, problems);
  if (library.kernels.empty()) {
    problems.error("opscan-no-kernels", "no annotated kernels found: nothing to register "
                                        "(annotate kernels with OPSCAN_KERNEL)");
  }

  // Generated code follows the canonical order, whatever order the IR came
  // in. Generating also finds what the target refuses: every problem at once.
  ir::canonicalize(library);
  library.generator = options.generator;
  library.library =
      ir::LibraryInfo{output.library.name, output.library.registration, std::string(target.name()),
                      output.symbols.registration_function, output.symbols.link_anchor};
  Files files(true);
  if (diag::has_errors(output.diagnostics)) {
    // Still generated, for what else the target refuses; without the
    // kernels already refused, whose problems would only echo.
    ir::Module rest = library;
    std::erase_if(rest.kernels, [&](const ir::Kernel& k) { return problems.has_problems(k); });
    target.generate(rest, output.library, options, problems, files);
  } else {
    target.generate(library, output.library, options, problems, files);
  }
  diag::sort(output.diagnostics); // in source order, whatever the kernels' order
  if (diag::has_errors(output.diagnostics))
    return output;
  output.files = files.take();
  // The IR records the library, so a later run can regenerate it as it is.
  output.files.push_back(
      {output.library.name + "/ir.json", OutputKind::data, ir::to_json(library, targets.fields())});
  return output;
}

} // namespace opscan::emit
