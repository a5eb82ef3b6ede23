// `opscan import-yaml`: the annotations a functions.yaml implies, and what cannot be placed.
#include "migrate/import_yaml.h"

#include "executorch/kernel_key.h"
#include "kernel/annotation.h"
#include "migrate/kernel_keys.h"
#include "support/cpp_literal.h"
#include "support/files.h"
#include "support/text.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>

namespace opscan::migrate {
namespace {

// The C++ function ExecuTorch's generator calls for a kernel_name.
std::string function_of(const std::string& kernel_name) {
  const size_t last = kernel_name.rfind("::");
  if (last == std::string::npos)
    return "at::native::" + kernel_name;
  return kernel_name.substr(0, last) + "::native::" + kernel_name.substr(last + 2);
}

// The operator an entry is about, or nullopt with an error.
std::optional<schema::OperatorName> operator_of(const yaml::Entry& entry,
                                                diag::Diagnostics& diags) {
  const yaml::Scalar& text = entry.func ? *entry.func : *entry.op;
  auto parsed = entry.func ? [&] {
    auto s = yaml::parse_func(*entry.func);
    return schema::Parsed<schema::OperatorName>{
        s.value ? std::optional(s.value->name) : std::nullopt, s.error};
  }()
                           : yaml::parse_operator(*entry.op, "aten");
  if (!parsed.value) {
    diags.push_back(diag::make_error("opscan-import-operator", text.at(parsed.error->offset),
                                     "'" + text.text +
                                         "' does not name an operator: " + parsed.error->message));
    return std::nullopt;
  }
  return parsed.value;
}

// Why the scan would refuse an entry's operator whatever the annotation
// says: its name breaks opscan's naming rules, or (a func) its schema
// breaks the schema rules a scan with --schemas applies. Nullopt when
// neither. The scan's own checks, so an import never writes what it refuses.
std::optional<diag::Diagnostic> refused_operator(const yaml::Entry& entry,
                                                 const schema::OperatorName& op) {
  std::vector<schema::Error> errors;
  if (entry.func) {
    if (auto parsed = yaml::parse_func(*entry.func); parsed.value)
      errors = schema::check_schema(*parsed.value, schema::layout_of(*parsed.value));
  } else {
    errors = schema::check_operator_name(op);
  }
  if (errors.empty())
    return std::nullopt;
  const yaml::Scalar& text = entry.func ? *entry.func : *entry.op;
  // An op's offsets index the printed name, which may add "aten::".
  const std::string printed = op.str();
  const size_t shift = printed.ends_with(text.text) ? printed.size() - text.text.size() : 0;
  const size_t offset = entry.func ? 0 : errors[0].offset >= shift ? errors[0].offset - shift : 0;
  return diag::make_warning("opscan-import-refused", text.at(offset),
                            fmt::format("{} is not annotated: the scan would refuse it ({} [{}])",
                                        support::quoted(printed, 200), errors[0].message,
                                        errors[0].code));
}

// Why the scan would refuse the annotation `args` (what goes between
// OPSCAN_KERNEL's parentheses) on `fn`: the text as the scan parses it, and
// its kernel key against the tensors of the function (one entry each, and
// one for its returned tensor).
std::optional<std::string> refused_annotation(std::string_view args, const scan::FunctionSite& fn) {
  // What this import writes: the operator, and a kernel key.
  static const ir::Fields fields({executorch::kernel_key_field()});
  const kernel::ParsedAnnotation parsed = kernel::parse_annotation(args, fields);
  if (!parsed.annotation)
    return parsed.error->message;
  auto name = schema::parse_operator_name(parsed.annotation->spec);
  if (!name)
    return name.error->message;
  const std::string key(parsed.annotation->value(executorch::kernel_key_field().annotation));
  if (key.empty())
    return std::nullopt;
  const auto [required, all, returned] =
      fn.key_tensors.value_or(scan::KeyTensors{0, std::numeric_limits<size_t>::max(), 0});
  if (auto error = executorch::check_kernel_key(key, required, all, returned))
    return fmt::format("kernel key {}: {} [opscan-kernel-key]", support::quoted(key),
                       error->message);
  return std::nullopt;
}

// Diagnostics shown per code: thousands of entries that fail alike (a YAML
// of another library's kernels) are one screen, not 80 MB.
constexpr size_t kMaxShown = 20;

struct Site {
  const scan::FunctionSite* function;
  size_t file; // index into the sites given
};

} // namespace

namespace {

// The import's work: which function each kernel's annotation goes on, and
// the text inserted in each file.
class Importer {
public:
  explicit Importer(const std::vector<scan::SourceSites>& sites)
      : sites_(sites), insertions_(sites.size()) {
    // Each function's declaration to annotate: its first in the files (any
    // declaration of a kernel may carry its annotation). Of overloads, the
    // first that takes a KernelRuntimeContext&, which ExecuTorch's generator
    // calls (kernels/quantized defines each kernel with and without one).
    for (size_t f = 0; f < sites.size(); ++f) {
      for (const scan::FunctionSite& fn : sites[f].functions) {
        auto [at, first] = by_name_.try_emplace(fn.qualified_name, Site{&fn, f});
        if (!first && fn.takes_context && !at->second.function->takes_context)
          at->second = Site{&fn, f};
      }
    }
  }

  void add(const yaml::Entry& entry) {
    diag::Diagnostics& diags = plan_.diagnostics;
    std::optional<schema::OperatorName> op = operator_of(entry, diags);
    if (!op)
      return;
    const std::string name = op->str();
    if (entry.kernels.empty()) {
      diags.push_back(diag::make_warning("opscan-import-no-kernels", entry.where,
                                         name + " names no kernel: nothing to annotate"));
      return;
    }
    if (auto refused = refused_operator(entry, *op)) {
      diags.push_back(std::move(*refused));
      plan_.not_placed += entry.kernels.size();
      return;
    }
    for (const yaml::Kernel& kernel : entry.kernels)
      add(entry, name, kernel);
  }

  // The plan: its diagnostics capped; with no error, the edits of the files.
  ImportPlan finish() && {
    plan_.diagnostics = diag::capped(std::move(plan_.diagnostics), kMaxShown,
                                     "opscan-import-more");
    if (diag::has_errors(plan_.diagnostics))
      return std::move(plan_);
    for (size_t f = 0; f < sites_.size(); ++f) {
      if (auto edit = edited(sites_[f], insertions_[f]))
        plan_.edits.push_back(std::move(*edit));
    }
    return std::move(plan_);
  }

private:
  void not_placed(std::string code, diag::Location where, std::string message) {
    plan_.diagnostics.push_back(
        diag::make_warning(std::move(code), std::move(where), std::move(message)));
    ++plan_.not_placed;
  }

  // One kernel of `entry` (operator `name`): its annotation placed, or why not.
  void add(const yaml::Entry& entry, const std::string& name, const yaml::Kernel& kernel) {
    const std::string function = function_of(kernel.kernel_name.text);
    // A dtype-specialised kernel (arg_meta) is annotated with its one key.
    std::string args = support::cpp_string_literal(name);
    if (kernel.arg_meta) {
      const std::string desc = fmt::format("'{}' ({})", function, name);
      std::optional<KernelKeys> keys = derive_kernel_keys(entry, kernel, desc, plan_.diagnostics);
      if (!keys) {
        ++plan_.not_placed;
        return;
      }
      if (keys->count > 1) {
        std::string listed;
        for (const std::string& key : keys->keys)
          listed += (listed.empty() ? "" : ", ") + key;
        if (keys->count > keys->keys.size())
          listed += fmt::format(", ... ({} in all)", keys->count);
        not_placed("opscan-import-keyed", kernel.where,
                   fmt::format("{} has {} kernel keys ({}): an opscan kernel is one function "
                               "with one key; write one function per key, each annotated "
                               "OPSCAN_KERNEL(\"{}\", key = \"...\")",
                               desc, keys->count, listed, name));
        return;
      }
      args += ", key = " + support::cpp_string_literal(keys->keys[0]);
    }
    const std::string annotation = "OPSCAN_KERNEL(" + args + ")";
    auto found = by_name_.find(function);
    if (found == by_name_.end()) {
      not_placed("opscan-import-not-found", kernel.kernel_name.where,
                 fmt::format("kernel '{}' of {} is '{}', which the files given do not declare",
                             kernel.kernel_name.text, name, function));
      return;
    }
    const scan::FunctionSite& fn = *found->second.function;
    if (fn.annotated) {
      plan_.diagnostics.push_back(diag::make_note(
          "opscan-import-annotated", fn.begin, "'" + function + "' is annotated already: left as it is"));
      ++plan_.annotated;
      return;
    }
    // A macro call that declares something before the function: an
    // annotation above the call would be that declaration's.
    if (!fn.macro_first.empty()) {
      not_placed("opscan-import-macro", fn.begin,
                 fmt::format("'{}' ({}) is declared by a macro call whose first declaration is "
                             "'{}': an annotation above the call would be that one's; annotate "
                             "a declaration of '{}' after the call by hand with {}",
                             function, name, fn.macro_first, function,
                             support::clipped(annotation, 400)));
      return;
    }
    if (auto why = refused_annotation(args, fn)) {
      not_placed("opscan-import-refused", kernel.where,
                 fmt::format("'{}' ({}) is not annotated: the scan would refuse its annotation "
                             "({})",
                             function, name, *why));
      return;
    }
    auto [previous, first] = annotated_for_.try_emplace(function, name);
    if (!first) {
      not_placed("opscan-import-shared", kernel.kernel_name.where,
                 fmt::format("'{}' is named for {} and for {}: annotated for {} only", function,
                             previous->second, name, previous->second));
      return;
    }
    insertions_[found->second.file].emplace(fn.begin.offset, annotation);
    ++plan_.placed;
  }

  // The file of `site` with `insertions` made (and the annotations header
  // included); nullopt when there are none, or after reporting why it
  // cannot be read.
  std::optional<FileEdit> edited(const scan::SourceSites& site,
                                 const std::multimap<uint32_t, std::string>& insertions) {
    if (insertions.empty())
      return std::nullopt;
    std::string error;
    std::optional<std::string> text = support::read_file(site.file, &error);
    if (!text) {
      plan_.diagnostics.push_back(
          diag::make_error("opscan-io", {site.file, 0, 0, 0},
                           "cannot read the file to annotate " + site.file + ": " + error));
      return std::nullopt;
    }
    FileEdit edit{site.file, "", insertions.size()};
    std::string& out = edit.content;
    size_t copied = 0;
    auto copy_to = [&](size_t offset) {
      out.append(*text, copied, offset - copied);
      copied = offset;
    };
    if (!site.includes_annotations) {
      copy_to(std::min<size_t>(site.after_includes, text->size()));
      if (!out.empty() && out.back() != '\n')
        out += '\n';
      out += "#include <opscan/annotations.h>\n";
    }
    for (const auto& [offset, annotation] : insertions) {
      copy_to(std::max<size_t>(copied, std::min<size_t>(offset, text->size())));
      // On a line of its own, indented like the declaration, when the
      // declaration starts its line; else just before it.
      const size_t line_start = text->rfind('\n', offset == 0 ? 0 : offset - 1);
      const size_t from = line_start == std::string::npos || offset == 0 ? 0 : line_start + 1;
      const std::string indent = text->substr(from, offset - from);
      if (indent.find_first_not_of(" \t") == std::string::npos)
        out += annotation + "\n" + indent;
      else
        out += annotation + " ";
    }
    copy_to(text->size());
    return edit;
  }

  const std::vector<scan::SourceSites>& sites_;
  ImportPlan plan_;
  std::map<std::string, Site> by_name_;
  // Per file: offset -> the text inserted there.
  std::vector<std::multimap<uint32_t, std::string>> insertions_;
  std::map<std::string, std::string> annotated_for_; // function -> operator
};

} // namespace

ImportPlan plan_import(const std::vector<yaml::Entry>& entries,
                       const std::vector<scan::SourceSites>& sites) {
  Importer importer(sites);
  for (const yaml::Entry& entry : entries)
    importer.add(entry);
  return std::move(importer).finish();
}

} // namespace opscan::migrate
