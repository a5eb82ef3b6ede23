// The pure stage: a kernel's neutral signature and annotation to an IR kernel.
#include "kernel/signature.h"

#include "kernel/annotation.h"
#include "kernel/infer.h"
#include "support/cpp_literal.h"

#include <algorithm>
#include <tuple>

namespace opscan::kernel {
namespace {

diag::Location shifted(diag::Location loc, size_t bytes) {
  loc.column += static_cast<uint32_t>(bytes);
  loc.offset += static_cast<uint32_t>(bytes);
  return loc;
}

// Naming errors of a declared schema stand on their own; the others are
// reported only if the signature fits the schema (otherwise the fix-it
// rewrites the schema anyway).
bool is_naming_rule(const std::string& code) {
  return code == "opscan-schema-out-suffix" || code == "opscan-schema-reserved-overload" ||
         code == "opscan-schema-reserved-name" || code == "opscan-schema-syntax";
}

// The naming errors schema::repaired_operator_name repairs.
bool is_repaired_naming_rule(const std::string& code) {
  return code == "opscan-schema-out-suffix" || code == "opscan-schema-reserved-overload";
}

// Whether a parameter is a tensor the kernel could write if it took it by
// non-const reference.
bool is_writable_tensor(const Parameter& p) {
  const std::optional<schema::Type>& t = p.mapped.type;
  return t && !p.mapped.is_mutable && t->base == "Tensor" &&
         (t->suffixes.empty() || (t->suffixes.size() == 1 && t->is_optional()));
}

class Builder {
public:
  Builder(const Signature& signature, const KnownSchemas* known, const ir::Fields& fields)
      : sig_(signature), known_(known), fields_(fields) {}

  Built run() {
    ParsedAnnotation parsed = parse_annotation(sig_.annotation, fields_);
    if (!parsed.annotation) {
      error("opscan-annotation-syntax", sig_.annotation_map.at(parsed.error->offset),
            parsed.error->message);
      return std::move(out_);
    }
    note_ = std::move(*parsed.annotation);
    if (sig_.annotation_map.exact()) {
      // From the spec's opening quote to just after its closing quote.
      diag::Location begin = text_at(note_.spec_offset - 1);
      diag::Location end = text_at(note_.text_offset(note_.spec.size()));
      if (begin.file == end.file && end.offset >= begin.offset)
        spec_fix_ = diag::FixIt{begin.file, begin.offset, end.offset + 1 - begin.offset, ""};
    }
    if (auto kernel = build())
      out_.kernel = std::move(*kernel);
    if (diag::has_errors(out_.diagnostics))
      out_.kernel.reset();
    return std::move(out_);
  }

private:
  diag::Location text_at(size_t offset) const { return sig_.annotation_map.at(offset); }
  diag::Location spec_at(size_t i) const { return text_at(note_.text_offset(i)); }

  void error(std::string code, diag::Location where, std::string message) {
    out_.diagnostics.push_back(
        diag::make_error(std::move(code), std::move(where), std::move(message)));
  }

  // The spec: an operator name, or a schema when it has a '('. Sets op_
  // and declared_. Nullopt when it does not parse, false when it breaks a
  // naming rule (the parameters are still worth checking).
  std::optional<bool> read_spec() {
    if (note_.spec.find('(') != std::string::npos) {
      auto parsed = schema::parse_schema_with_layout(note_.spec);
      if (!parsed) {
        parse_error(*parsed.error);
        return std::nullopt;
      }
      declared_ = parsed.value->schema;
      op_ = declared_->name;
      const std::optional<diag::FixIt> fix = name_fix(parsed.value->layout.name);
      bool ok = true;
      for (schema::Error& e : schema::check_schema(*declared_, parsed.value->layout)) {
        if (is_naming_rule(e.code)) {
          naming_error(e.code, spec_at(e.offset), e.message, fix);
          ok = false;
        } else {
          declared_rule_errors_.push_back(diag::make_error(e.code, spec_at(e.offset), e.message));
        }
      }
      return ok;
    }
    auto parsed = schema::parse_operator_name(note_.spec);
    if (!parsed) {
      parse_error(*parsed.error);
      return std::nullopt;
    }
    op_ = *parsed.value;
    // Offsets are into the printed name, which the spec starts with when
    // written canonically (after any leading spaces).
    const size_t name_at = std::min(note_.spec.find_first_not_of(" \t\n\r\f\v"), note_.spec.size());
    const std::optional<diag::FixIt> fix = name_fix(name_at);
    bool ok = true;
    for (const schema::Error& e : schema::check_operator_name(op_)) {
      naming_error(e.code, spec_at(name_at + e.offset), e.message, fix);
      ok = false;
    }
    return ok;
  }

  // A parse error of the spec, with its fix (schema::Error::fix) where the
  // bytes it replaces are in the source as they are: from the first one's
  // place to the place of the byte after the last (across the quotes
  // between adjacent literals, which the removal then joins).
  void parse_error(const schema::Error& e) {
    auto d = diag::make_error(e.code, spec_at(e.offset), e.message);
    if (e.fix && sig_.annotation_map.exact()) {
      const diag::Location begin = spec_at(e.fix->offset);
      const diag::Location end = spec_at(e.fix->offset + e.fix->length);
      if (begin.file == end.file && end.offset >= begin.offset)
        d.fixits.push_back(
            {begin.file, begin.offset, end.offset - begin.offset, e.fix->replacement});
    }
    out_.diagnostics.push_back(std::move(d));
  }

  void naming_error(std::string code, diag::Location where, std::string message,
                    const std::optional<diag::FixIt>& fix) {
    auto d = diag::make_error(std::move(code), std::move(where), std::move(message));
    if (fix && is_repaired_naming_rule(d.code))
      d.fixits.push_back(*fix);
    out_.diagnostics.push_back(std::move(d));
  }

  // Writes the repaired operator name (schema::repaired_operator_name) over
  // op_, which the spec spells at `name_at`: just the name where the source
  // has its bytes as they are, else the whole literal rewritten.
  std::optional<diag::FixIt> name_fix(size_t name_at) const {
    const std::optional<schema::OperatorName> repaired = schema::repaired_operator_name(op_);
    const std::string written = op_.str();
    if (!repaired || note_.spec.compare(name_at, written.size(), written) != 0)
      return std::nullopt;
    if (sig_.annotation_map.exact()) {
      const diag::Location begin = spec_at(name_at);
      const diag::Location end = spec_at(name_at + written.size());
      if (begin.file == end.file && end.offset == begin.offset + written.size())
        return diag::FixIt{begin.file, begin.offset, static_cast<uint32_t>(written.size()),
                           repaired->str()};
    }
    if (!spec_fix_)
      return std::nullopt;
    std::string spec = note_.spec;
    spec.replace(name_at, written.size(), repaired->str());
    diag::FixIt fix = *spec_fix_;
    fix.replacement = support::cpp_string_literal(spec);
    return fix;
  }

  // The signature as read: the schema arguments as C++ takes them, and its
  // returns.
  struct Read {
    std::vector<CppParam> params;
    std::vector<ir::Argument> arguments;
    std::vector<diag::Location> param_locations;
    CppSpelling cpp;
    CppReturn ret;
  };

  // The parameters into `read`; false after reporting one that cannot be
  // an argument (its type unresolved or unsupported, or it has no name).
  bool read_parameters(Read& read) {
    const std::string& name = sig_.qualified_name;
    bool ok = true;
    for (size_t i = 0; i < sig_.parameters.size(); ++i) {
      const Parameter& p = sig_.parameters[i];
      // Numbered as written, the context included.
      const size_t number = i + 1 + (sig_.context != ir::ContextKind::none ? 1 : 0);
      if (p.invalid) {
        error("opscan-scan-invalid-type", p.location,
              "the type of parameter '" + p.name + "' of '" + name +
                  "' could not be resolved (see the error above)");
        ok = false;
        continue;
      }
      if (!p.mapped.type) {
        auto d =
            diag::make_error("opscan-scan-unsupported-type", p.location,
                             "parameter '" + p.name + "' of '" + name + "': " + p.mapped.error);
        d.fixits = p.mapped.fix;
        out_.diagnostics.push_back(std::move(d));
        ok = false;
        continue;
      }
      if (p.name.empty()) {
        // Suggest the declared schema's name for it, else one by position.
        const size_t index = read.params.size();
        std::string suggested = declared_ && index < declared_->arguments.size()
                                    ? declared_->arguments[index].name
                                    : "arg" + std::to_string(index + 1);
        auto d = diag::make_error("opscan-scan-unnamed-parameter", p.location,
                                  "parameter " + std::to_string(number) + " of '" + name +
                                      "' has no name: name it, the schema argument takes its name");
        if (p.end.file == p.location.file)
          d.fixits.push_back({p.end.file, p.end.offset, 0, " " + suggested});
        out_.diagnostics.push_back(std::move(d));
        ok = false;
        read.params.push_back({suggested, *p.mapped.type, p.mapped.is_mutable});
        continue;
      }
      read.cpp.params.push_back(p.type);
      read.params.push_back({p.name, *p.mapped.type, p.mapped.is_mutable});
      read.arguments.push_back(
          {{*p.mapped.type, p.name, std::nullopt, false}, p.type, p.canonical_type});
      read.param_locations.push_back(p.location);
    }
    return ok;
  }

  // The returns into `read`; false after reporting one of an unsupported type.
  bool read_returns(Read& read) {
    bool ok = true;
    read.cpp.ret = sig_.return_type;
    read.cpp.has_context = sig_.context != ir::ContextKind::none;
    for (const MappedType& value : sig_.returns) {
      if (!value.type) {
        auto d = diag::make_error("opscan-scan-unsupported-type", sig_.location,
                                  "return type of '" + sig_.qualified_name + "': " + value.error);
        d.fixits = value.fix;
        out_.diagnostics.push_back(std::move(d));
        ok = false;
        continue;
      }
      read.ret.values.push_back({"", *value.type, value.is_mutable});
    }
    return ok;
  }

  // The schema the rules of inference give the signature (no schema was
  // declared or is known), checked against torchgen's rules.
  std::optional<schema::Schema> inferred_schema(const Read& read) {
    const std::string& name = sig_.qualified_name;
    auto inferred = infer_schema(op_, read.params, read.ret);
    if (auto* e = std::get_if<InferError>(&inferred)) {
      auto d = diag::make_error(
          e->code,
          e->param >= 0 ? read.param_locations[static_cast<size_t>(e->param)] : sig_.location,
          "kernel '" + name + "': " + e->message);
      d.fixits = inferred_out_fix(read.params, read.ret);
      out_.diagnostics.push_back(std::move(d));
      return std::nullopt;
    }
    schema::Schema schema = std::move(std::get<schema::Schema>(inferred));
    // An inferred schema obeys torchgen's rules too (its name was checked
    // already).
    bool broken = false;
    for (const schema::Error& e : schema::check_schema(schema, schema::layout_of(schema))) {
      if (is_naming_rule(e.code))
        continue;
      auto d = diag::make_error(e.code, sig_.location, "kernel '" + name + "': " + e.message);
      d.notes.push_back({"schema inferred from the signature: " + schema.str(), sig_.location});
      out_.diagnostics.push_back(std::move(d));
      broken = true;
    }
    if (broken)
      return std::nullopt;
    return schema;
  }

  // Schemas files were given and none knows the operator: the inferred
  // schema (null when inference failed) may not be the operator's (its
  // names, defaults, keyword-only arguments), which would otherwise go
  // unsaid.
  void unknown_warning(const schema::Schema* inferred) {
    std::string message = "kernel '" + sig_.qualified_name + "': " + op_.str() +
                          " is in none of the schemas files given: its schema is inferred "
                          "from the signature";
    if (op_.ns == "aten")
      message += " (aten's schemas are in PyTorch's native_functions.yaml)";
    auto d = diag::make_warning("opscan-schema-unknown", sig_.location, std::move(message));
    if (inferred)
      d.notes.push_back({"schema inferred from the signature: " + inferred->str(), sig_.location});
    out_.diagnostics.push_back(std::move(d));
  }

  // Whether the signature (read as `as_read`) fits `reference`, the
  // declared schema or `known`'s; false after reporting how it does not,
  // with the fix that makes it fit.
  bool fits(const schema::Schema& reference, const KnownSchema* known,
            const schema::Schema& as_read, const Read& read) {
    const Reference kind = declared_ ? Reference::declared : Reference::known;
    auto mismatches = cross_check(reference, as_read, read.cpp, kind);
    std::optional<diag::FixIt> fix;
    if (declared_ && spec_fix_) {
      fix = *spec_fix_;
      fix->replacement = support::cpp_string_literal(repair(*declared_, as_read).str());
    }
    // Tensors the schema writes and C++ takes by const reference: when
    // taking them by reference fits the schema, that is the fix, declared
    // schema or known (the schema is what the kernel was meant to be).
    const std::vector<diag::FixIt> cpp_fix =
        written_out_fix(reference, read.params, read.ret, read.cpp, kind);
    bool mismatched = false;
    for (const InferError& e : mismatches) {
      const diag::Location where =
          e.param >= 0 ? read.param_locations[static_cast<size_t>(e.param)] : sig_.location;
      auto d = e.is_warning ? diag::make_warning(e.code, where, e.message)
                            : diag::make_error(e.code, where, e.message);
      mismatched = mismatched || !e.is_warning;
      if (!cpp_fix.empty()) {
        d.fixits = cpp_fix;
        d.notes.push_back({declared_ ? "schema declared here" : "known schema: " + known->schema.str(),
                           declared_ ? spec_at(0) : known->where});
      } else if (declared_) {
        // The note spells out what the fix-it writes, for readers of text.
        d.notes.push_back({fix ? "schema declared here; to fit the signature: " + fix->replacement
                               : std::string("schema declared here"),
                           spec_at(0)});
        if (fix)
          d.fixits.push_back(*fix);
      } else {
        d.notes.push_back({"known schema: " + known->schema.str(), known->where});
      }
      out_.diagnostics.push_back(std::move(d));
    }
    if (mismatched)
      return false;
    if (!declared_rule_errors_.empty()) {
      out_.diagnostics.insert(out_.diagnostics.end(), declared_rule_errors_.begin(),
                              declared_rule_errors_.end());
      return false;
    }
    return true;
  }

  // Whether the annotation's fields hold values their targets understand;
  // false after reporting the first that does not, where it is written.
  bool fields_understood(const ir::Kernel& kernel) {
    for (const ir::Field& field : fields_) {
      const Annotation::Field* given = note_.field(field.annotation);
      if (given == nullptr || !field.check)
        continue;
      if (auto problem = field.check(given->value, kernel)) {
        error(field.code, text_at(given->text_offset(problem->offset)), problem->message);
        return false;
      }
    }
    return true;
  }

  std::optional<ir::Kernel> build() {
    std::optional<bool> spec_ok = read_spec();
    if (!spec_ok)
      return std::nullopt;
    Read read;
    // Both read, for every problem at once.
    const bool params_ok = read_parameters(read);
    bool ok = *spec_ok && params_ok;
    if (sig_.invalid && ok) {
      error("opscan-scan-invalid-type", sig_.location,
            "the declaration of '" + sig_.qualified_name + "' is invalid (see the error above)");
      ok = false;
    }
    if (!read_returns(read) || !ok)
      return std::nullopt;

    const KnownSchema* known = nullptr;
    if (!declared_ && known_) {
      auto it = known_->find(op_);
      if (it != known_->end())
        known = &it->second;
    }
    // Given a schema (declared or known), the signature is checked against
    // it; the rules of inference apply only without one.
    std::optional<schema::Schema> as_read;
    if (declared_ || known)
      as_read = read_signature(op_, read.params, read.ret);
    else
      as_read = inferred_schema(read);
    // Said even when inference fails: the file that knows the operator is
    // then the likelier fix.
    if (known_ && !declared_ && !known)
      unknown_warning(as_read ? &*as_read : nullptr);
    if (!as_read)
      return std::nullopt;
    const schema::Schema* used = &*as_read;
    ir::SchemaOrigin origin = ir::SchemaOrigin::inferred;
    if (declared_ || known) {
      const schema::Schema& reference = declared_ ? *declared_ : known->schema;
      if (!fits(reference, known, *as_read, read))
        return std::nullopt;
      used = &reference;
      origin = declared_ ? ir::SchemaOrigin::declared : ir::SchemaOrigin::known;
    }

    ir::Kernel kernel;
    kernel.op = op_;
    kernel.schema_origin = origin;
    kernel.cpp_function = sig_.qualified_name;
    kernel.cpp_inline_namespaces = sig_.inline_namespaces;
    kernel.cpp_linkage = sig_.linkage;
    kernel.cpp_noexcept = sig_.is_noexcept;
    kernel.cpp_return_type = sig_.return_type;
    kernel.cpp_canonical_return_type = sig_.canonical_return_type;
    kernel.usr = sig_.usr;
    kernel.context = sig_.context;
    for (const Annotation::Field& given : note_.fields)
      kernel.set_field(fields_.by_annotation(given.name)->key, given.value);
    kernel.location = sig_.location;
    for (size_t i = 0; i < read.arguments.size(); ++i)
      read.arguments[i].schema = used->arguments[i];
    kernel.arguments = std::move(read.arguments);
    kernel.returns = used->returns;
    if (!fields_understood(kernel))
      return std::nullopt;
    return kernel;
  }

  // `params` with those at `indices` taken by non-const reference, and the
  // edits that do it (empty when one cannot be made).
  std::optional<std::pair<std::vector<CppParam>, std::vector<diag::FixIt>>>
  made_writable(std::vector<CppParam> params, const std::vector<size_t>& indices) const {
    std::vector<diag::FixIt> fixes;
    for (size_t i : indices) {
      const Parameter& p = sig_.parameters[i];
      if (!is_writable_tensor(p) || !p.const_removal)
        return std::nullopt;
      params[i].is_mutable = true;
      fixes.push_back(*p.const_removal);
    }
    if (fixes.empty())
      return std::nullopt;
    return std::pair{std::move(params), std::move(fixes)};
  }

  // When inference fails because an out tensor is taken by const reference:
  // the edits that take the parameters named `out` (and an in-place
  // operator's `self`, its first) by reference, if inference then succeeds.
  std::vector<diag::FixIt> inferred_out_fix(const std::vector<CppParam>& params,
                                            const CppReturn& ret) const {
    std::vector<size_t> outs;
    const bool in_place = op_.name.ends_with('_');
    for (size_t i = 0; i < params.size(); ++i) {
      if (is_writable_tensor(sig_.parameters[i]) &&
          (params[i].name == "out" || (in_place && i == 0)))
        outs.push_back(i);
    }
    auto writable = made_writable(params, outs);
    if (!writable)
      return {};
    auto inferred = infer_schema(op_, writable->first, ret);
    auto* schema = std::get_if<schema::Schema>(&inferred);
    if (!schema || !schema::check_schema(*schema, schema::layout_of(*schema)).empty())
      return {};
    return std::move(writable->second);
  }

  // The edits that take the tensors `reference` writes and C++ reads by
  // reference, if the signature then fits it.
  std::vector<diag::FixIt> written_out_fix(const schema::Schema& reference,
                                           const std::vector<CppParam>& params,
                                           const CppReturn& ret, const CppSpelling& cpp,
                                           Reference kind) const {
    if (reference.arguments.size() != params.size())
      return {};
    std::vector<size_t> written;
    for (size_t i = 0; i < params.size(); ++i) {
      if (reference.arguments[i].type.is_mutable() && !params[i].is_mutable)
        written.push_back(i);
    }
    auto writable = made_writable(params, written);
    if (!writable)
      return {};
    for (const InferError& e :
         cross_check(reference, read_signature(op_, writable->first, ret), cpp, kind)) {
      if (!e.is_warning)
        return {};
    }
    return std::move(writable->second);
  }

  const Signature& sig_;
  const KnownSchemas* known_;
  const ir::Fields& fields_;
  Built out_;
  Annotation note_;
  std::optional<diag::FixIt> spec_fix_;
  schema::OperatorName op_;
  std::optional<schema::Schema> declared_;
  diag::Diagnostics declared_rule_errors_;
};

} // namespace

diag::Location AnnotationMap::at(size_t offset) const {
  for (const Piece& piece : pieces_) {
    // In this token, or in the space before it.
    if (offset < piece.offset + piece.length)
      return shifted(piece.where, offset > piece.offset ? offset - piece.offset : 0);
  }
  if (pieces_.empty())
    return fallback_;
  return shifted(pieces_.back().where, pieces_.back().length);
}

Built build_kernel(const Signature& signature, const KnownSchemas* known,
                   const ir::Fields& fields) {
  return Builder(signature, known, fields).run();
}

} // namespace opscan::kernel
