// The rules every IR obeys, checked wherever an IR comes from.
#include "ir/validate.h"

#include "ident/ident.h"
#include "support/text.h"

#include <algorithm>
#include <set>

namespace opscan::ir {

void Locator::add(const Module& module, Positions positions) {
  File file{std::move(positions), {}};
  for (size_t i = 0; i < module.kernels.size(); ++i) {
    file.kernel_by_usr.emplace(module.kernels[i].usr, i); // the first of a USR given twice
    file_by_usr_.emplace(module.kernels[i].usr, files_.size());
  }
  files_.push_back(std::move(file));
}

diag::Diagnostic Locator::located(const File* file, std::optional<size_t> index,
                                  const Kernel& kernel, std::string_view field, std::string code,
                                  std::string message) const {
  if (file == nullptr || !index)
    return diag::make_error(std::move(code), kernel.location, std::move(message));
  std::string path = "kernels[" + std::to_string(*index) + "]";
  if (!field.empty())
    path += (field.front() == '[' ? "" : ".") + std::string(field);
  return diag::make_error(std::move(code), file->positions.at(path), path + ": " + message);
}

diag::Diagnostic Locator::kernel_error(const Kernel& kernel, std::string_view field,
                                       std::string code, std::string message) const {
  auto it = file_by_usr_.find(kernel.usr);
  if (it == file_by_usr_.end())
    return located(nullptr, std::nullopt, kernel, field, std::move(code), std::move(message));
  const File& file = files_[it->second];
  diag::Diagnostic d = located(&file, file.kernel_by_usr.at(kernel.usr), kernel, field,
                               std::move(code), std::move(message));
  // The IR names the kernel's source: the place to change it.
  if (kernel.location.valid())
    d.notes.push_back({"'" + kernel.cpp_function + "' is declared here", kernel.location});
  return d;
}

diag::Diagnostic Locator::kernel_error(size_t index, const Kernel& kernel, std::string_view field,
                                       std::string code, std::string message) const {
  const File* file = files_.empty() ? nullptr : &files_.back();
  return located(file, index, kernel, field, std::move(code), std::move(message));
}

diag::Diagnostic Locator::module_error(std::string_view path, std::string code,
                                       std::string message) const {
  if (files_.empty())
    return diag::make_error(std::move(code), {}, std::move(message));
  return diag::make_error(std::move(code), files_.back().positions.at(path),
                          std::string(path) + ": " + message);
}

namespace {

constexpr const char* kInvalid = "opscan-ir-invalid";

// Why text that messages show cannot be shown as it is, or nullopt.
std::optional<std::string> unprintable(std::string_view text) {
  if (!support::is_utf8(text))
    return "is not valid UTF-8";
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return "holds a control character";
  }
  return std::nullopt;
}

// Whether text is a schema identifier: ASCII letters, digits and '_', not
// starting with a digit.
bool is_schema_identifier(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9'))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// A target's name: a schema identifier, or words of one joined by '-'
// ("executorch-aot"), as the targets are named on the command line.
bool is_target_name(std::string_view text) {
  if (text.empty() || text.front() == '-' || text.back() == '-' ||
      text.find("--") != std::string_view::npos)
    return false;
  std::string words(text);
  std::replace(words.begin(), words.end(), '-', '_');
  return is_schema_identifier(words);
}

// The problems of a C++ qualified name ("a::b::f"), one message per bad
// component. The first component is at global scope, where a leading '_'
// is reserved; the others are in a namespace, where it is not.
std::vector<std::string> qualified_name_problems(std::string_view name) {
  std::vector<std::string> problems;
  if (name.empty())
    return {"is empty"};
  size_t start = 0;
  for (size_t part = 0;; ++part) {
    size_t end = name.find("::", start);
    std::string_view component =
        name.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (component.empty()) {
      problems.push_back(support::quoted(name) + " has an empty component");
      break;
    }
    const auto scope = part == 0 ? ident::Scope::global : ident::Scope::local;
    for (const ident::Finding& f : ident::check_identifier(component, scope)) {
      if (f.is_error)
        problems.push_back(f.message);
    }
    if (end == std::string_view::npos)
      break;
    start = end + 2;
  }
  return problems;
}

class Validator {
public:
  Validator(const Module& module, const Locator& locator) : module_(module), locator_(locator) {}

  diag::Diagnostics run() {
    text("generator", module_.generator);
    text("libclang_version", module_.libclang_version);
    size_t i = 0;
    for (const auto& [name, denoted] : module_.aliases) {
      const std::string at = "aliases[" + std::to_string(i++) + "]";
      if (name.empty() || denoted.empty())
        module_error(at, kInvalid, "an alias needs a name and what it denotes");
      text(at + ".name", name);
      text(at + ".denotes", denoted);
    }
    if (module_.library)
      library(*module_.library);
    std::map<std::string_view, size_t> first_of_source;
    for (size_t i = 0; i < module_.sources.size(); ++i) {
      source(i, module_.sources[i]);
      // A file has one content: a second entry could only disagree or repeat.
      auto [it, fresh] = first_of_source.emplace(module_.sources[i].path, i);
      if (!fresh) {
        module_error("sources[" + std::to_string(i) + "].path", kInvalid,
                     support::quoted(module_.sources[i].path) + " is listed twice (also sources[" +
                         std::to_string(it->second) + "]): a source has one entry");
      }
    }
    std::map<std::string_view, size_t> first_of_usr;
    for (size_t i = 0; i < module_.kernels.size(); ++i) {
      const Kernel& k = module_.kernels[i];
      auto [it, fresh] = first_of_usr.emplace(k.usr, i);
      if (!fresh) {
        diag::Diagnostic d = locator_.kernel_error(
            i, k, "", "opscan-duplicate-kernel",
            "the same kernel as kernels[" + std::to_string(it->second) + "] (USR " +
                support::quoted(k.usr) + "); a kernel is registered once");
        d.notes.push_back({"the kernel is annotated here", k.location});
        diags_.push_back(std::move(d));
        continue;
      }
      kernel(i, k);
    }
    return std::move(diags_);
  }

private:
  void module_error(std::string_view path, std::string code, std::string message) {
    diags_.push_back(locator_.module_error(path, std::move(code), std::move(message)));
  }
  void kernel_error(size_t i, std::string_view field, std::string code, std::string message) {
    diags_.push_back(
        locator_.kernel_error(i, module_.kernels[i], field, std::move(code), std::move(message)));
  }
  void text(std::string_view path, std::string_view value) {
    if (auto why = unprintable(value))
      module_error(path, kInvalid, support::quoted(value) + " " + *why);
  }
  void kernel_text(size_t i, std::string_view field, std::string_view value) {
    if (auto why = unprintable(value))
      kernel_error(i, field, kInvalid, support::quoted(value) + " " + *why);
  }

  void library(const LibraryInfo& lib) {
    if (lib.name != "all") {
      ident::RegistrationSymbol symbol = ident::registration_symbol(lib.name);
      for (const ident::Finding& f : symbol.findings) {
        if (f.is_error)
          module_error("library.name", "opscan-ir-library-name", f.message);
      }
    }
    if (!is_target_name(lib.target))
      module_error("library.target", kInvalid,
                   support::quoted(lib.target) + " is not a target name");
    text("library.function", lib.function);
    text("library.link_anchor", lib.link_anchor);
  }

  void source(size_t i, const SourceFile& s) {
    const std::string path = "sources[" + std::to_string(i) + "]";
    if (s.path.empty())
      module_error(path + ".path", kInvalid, "the path is empty");
    text(path + ".path", s.path);
    const bool hex =
        s.sha256.size() == 64 && std::all_of(s.sha256.begin(), s.sha256.end(), [](char c) {
          return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        });
    if (!hex) {
      module_error(path + ".sha256", kInvalid,
                   support::quoted(s.sha256) + " is not a SHA-256 (64 lowercase hex digits)");
    }
  }

  void kernel(size_t i, const Kernel& k) {
    // The operator name; then the schema, which must read back as itself.
    // When it does, so does every part of it; when it does not, the parts
    // say which is wrong (and the whole, if none does).
    std::set<std::string> naming_codes;
    for (const schema::Error& e : schema::check_operator_name(k.op)) {
      naming_codes.insert(e.code);
      kernel_error(i, "operator", "opscan-ir-operator-name",
                   support::quoted(k.op.str()) + ": " + e.message);
    }
    const schema::Schema s = k.schema();
    const std::string spelled = s.str();
    auto reparsed = schema::parse_schema_with_layout(spelled);
    if (reparsed && reparsed.value->schema == s) {
      for (const schema::Error& e : schema::check_schema(s, reparsed.value->layout)) {
        if (!naming_codes.contains(e.code) && e.code != "opscan-schema-syntax")
          kernel_error(i, "schema", "opscan-ir-schema", e.message + " [" + e.code + "]");
      }
    } else if (!schema_parts(i, k) && naming_codes.empty()) {
      kernel_error(i, "schema", "opscan-ir-schema",
                   support::quoted(spelled, 200) + " does not read back as itself" +
                       (reparsed ? std::string() : ": " + reparsed.error->message));
    }
    for (size_t j = 0; j < k.arguments.size(); ++j) {
      const std::string at = "arguments[" + std::to_string(j) + "]";
      kernel_text(i, at + ".cpp_type", k.arguments[j].cpp_type);
      kernel_text(i, at + ".cpp_canonical_type", k.arguments[j].cpp_canonical_type);
    }

    for (const std::string& problem : qualified_name_problems(k.cpp_function))
      kernel_error(i, "cpp_function", "opscan-ir-cpp-name", problem);
    std::set<std::string_view> seen;
    for (size_t j = 0; j < k.cpp_inline_namespaces.size(); ++j) {
      const std::string& ns = k.cpp_inline_namespaces[j];
      const bool encloses = k.cpp_function.starts_with(ns + "::") && !ns.empty();
      if (!encloses || !seen.insert(ns).second) {
        kernel_error(i, "cpp_inline_namespaces[" + std::to_string(j) + "]", "opscan-ir-cpp-name",
                     support::quoted(ns) + (encloses ? " is listed twice"
                                                     : " is not a namespace enclosing " +
                                                           support::quoted(k.cpp_function)));
      }
    }
    kernel_text(i, "cpp_return_type", k.cpp_return_type);
    kernel_text(i, "cpp_canonical_return_type", k.cpp_canonical_return_type);
    for (const auto& [key, value] : k.fields)
      kernel_text(i, key, value);
    kernel_text(i, "location.file", k.location.file);
    kernel_text(i, "usr", k.usr);
    if (k.usr.empty())
      kernel_error(i, "usr", kInvalid, "the USR is empty; it names the kernel's C++ function");
  }

  // The problems of each part of a kernel's schema; whether there were any.
  bool schema_parts(size_t i, const Kernel& k) {
    const size_t before = diags_.size();
    for (size_t j = 0; j < k.arguments.size(); ++j)
      argument(i, j, k.arguments[j].schema);
    for (size_t j = 0; j < k.returns.size(); ++j) {
      const schema::Return& r = k.returns[j];
      const std::string at = "returns[" + std::to_string(j) + "]";
      if (!r.name.empty() && !is_schema_identifier(r.name)) {
        kernel_error(i, at + ".name", "opscan-ir-schema",
                     support::quoted(r.name) + " is not a schema identifier");
      }
      type(i, at + ".schema_type", r.type);
    }
    return diags_.size() != before;
  }

  void argument(size_t i, size_t j, const schema::Argument& a) {
    const std::string at = "arguments[" + std::to_string(j) + "]";
    if (!is_schema_identifier(a.name)) {
      kernel_error(i, at + ".name", "opscan-ir-schema",
                   support::quoted(a.name) + " is not a schema identifier");
    }
    type(i, at + ".schema_type", a.type);
    if (a.default_value) {
      // A default reads back as itself in a schema of its own.
      const std::string probe = "x::y(" + a.type.str() + " a=" + *a.default_value + ") -> ()";
      auto parsed = schema::parse_schema(probe);
      if (!parsed || parsed.value->arguments.size() != 1 ||
          parsed.value->arguments[0].default_value != a.default_value) {
        kernel_error(i, at + ".default", "opscan-ir-schema",
                     support::quoted(*a.default_value) + " is not a default value" +
                         (parsed ? std::string() : ": " + parsed.error->message));
      }
    }
  }

  void type(size_t i, const std::string& at, const schema::Type& t) {
    const std::string spelled = t.str();
    auto parsed = schema::parse_type(spelled);
    if (!parsed || !(*parsed.value == t)) {
      kernel_error(i, at, "opscan-ir-schema",
                   support::quoted(spelled) + " is not a schema type" +
                       (parsed ? std::string() : ": " + parsed.error->message));
    }
  }

  const Module& module_;
  const Locator& locator_;
  diag::Diagnostics diags_;
};

} // namespace

diag::Diagnostics validate(const Module& module, const Locator& locator) {
  return Validator(module, locator).run();
}

} // namespace opscan::ir
