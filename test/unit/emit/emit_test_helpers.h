// Builders shared by the emit tests: kernels as the scanner records them for
// each runtime, modules, options, and reading generated output.
#pragma once

#include "diag/diag.h"
#include "emit/generate.h"
#include "emit/registry.h"
#include "emit/target.h"
#include "ir/ir.h"
#include "ir/json.h"
#include "ir/validate.h"
#include "schema/schema.h"

#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emit_test {

namespace diag = opscan::diag;
namespace emit = opscan::emit;
namespace ir = opscan::ir;
namespace schema = opscan::schema;

// The annotation fields the IR carries in opscan: the built-in targets'.
inline const ir::Fields& test_fields() {
  return emit::builtin_targets().fields();
}

// ExecuTorch's tensor, as libclang spells its canonical type.
inline const std::string kEtTensor = "executorch::runtime::etensor::Tensor";
inline const std::string kEtArrayRef = "executorch::runtime::ArrayRef";

namespace detail {

// A kernel implementing `schema_text`, defined as `cpp_function`, with no
// C++ types yet.
inline ir::Kernel bare_kernel(std::string_view schema_text, std::string cpp_function,
                              ir::ContextKind context) {
  ir::Kernel k;
  auto parsed = schema::parse_schema(schema_text);
  if (!parsed) {
    ADD_FAILURE() << "bad test schema " << schema_text << ": " << parsed.error->message;
    return k;
  }
  k.op = parsed.value->name;
  for (const schema::Argument& a : parsed.value->arguments)
    k.arguments.push_back({a, "", ""});
  k.returns = parsed.value->returns;
  k.schema_origin = ir::SchemaOrigin::declared;
  k.cpp_function = std::move(cpp_function);
  k.usr = "c:@F@" + k.cpp_function;
  k.context = context;
  k.location = {"kernels.cpp", 10, 5, 400};
  return k;
}

} // namespace detail

// A kernel implementing `schema_text`, defined as `cpp_function`, whose
// parameters have the canonical types `canonical` (one per argument; also
// used as the types as written) and whose return type is `canonical_return`.
inline ir::Kernel kernel(std::string_view schema_text, std::string cpp_function,
                         ir::ContextKind context, std::vector<std::string> canonical,
                         std::string canonical_return) {
  ir::Kernel k = detail::bare_kernel(schema_text, std::move(cpp_function), context);
  if (canonical.size() != k.arguments.size())
    ADD_FAILURE() << "one canonical type per argument of " << schema_text;
  for (size_t i = 0; i < k.arguments.size() && i < canonical.size(); ++i)
    k.arguments[i].cpp_type = k.arguments[i].cpp_canonical_type = canonical[i];
  k.cpp_return_type = k.cpp_canonical_return_type = std::move(canonical_return);
  return k;
}

// `k` annotated at `line` of `file` (diagnostics are sorted by location).
inline ir::Kernel at(ir::Kernel k, uint32_t line, std::string file = "kernels.cpp") {
  k.location = {std::move(file), line, 5, line * 40};
  return k;
}

namespace detail {

// How libclang spells the canonical type of a parameter or return of a
// kernel written for a runtime, for the types most tests use.
struct Spelling {
  std::string tensor, tensor_ref, const_tensor_ref, optional_tensor, scalar, str, int_list;
};

inline std::string canonical_of(const schema::Type& type, bool is_return, const Spelling& s) {
  const std::string t = type.str();
  if (type.base == "Tensor" && type.suffixes.empty()) {
    if (type.is_mutable())
      return s.tensor_ref;
    return is_return ? s.tensor : s.const_tensor_ref;
  }
  if (type.base == "Tensor" && t.ends_with("?") && !is_return)
    return "const " + s.optional_tensor + " &";
  if (type.base == "Scalar" && type.suffixes.empty())
    return is_return ? s.scalar : "const " + s.scalar + " &";
  if ((type.base == "int" || type.base == "SymInt") && type.suffixes.empty())
    return "long";
  if ((type.base == "int" || type.base == "SymInt") && type.is_list() && !is_return)
    return s.int_list;
  if (t == "float")
    return "double";
  if (t == "bool")
    return "bool";
  if (t == "str" && !is_return)
    return s.str;
  ADD_FAILURE() << "no canonical type for " << t << ": give it";
  return t;
}

inline ir::Kernel runtime_kernel(std::string_view schema_text, std::string cpp_function,
                                 ir::ContextKind context, const Spelling& s) {
  ir::Kernel k = bare_kernel(schema_text, std::move(cpp_function), context);
  for (ir::Argument& a : k.arguments)
    a.cpp_type = a.cpp_canonical_type = canonical_of(a.schema.type, false, s);
  std::vector<std::string> returns;
  for (const schema::Return& r : k.returns)
    returns.push_back(canonical_of(r.type, true, s));
  std::string ret = "void";
  if (returns.size() == 1)
    ret = returns[0];
  if (returns.size() > 1) {
    ret = "std::tuple<";
    for (size_t i = 0; i < returns.size(); ++i)
      ret += (i ? ", " : "") + returns[i];
    ret += ">";
  }
  k.cpp_return_type = k.cpp_canonical_return_type = ret;
  return k;
}

} // namespace detail

// An ExecuTorch kernel (KernelRuntimeContext& first) of `schema_text` with
// the parameter types ExecuTorch passes.
inline ir::Kernel et_kernel(std::string_view schema_text, std::string cpp_function) {
  static const detail::Spelling kSpelling{kEtTensor,
                                          kEtTensor + " &",
                                          "const " + kEtTensor + " &",
                                          "std::optional<" + kEtTensor + ">",
                                          "executorch::runtime::etensor::Scalar",
                                          "std::basic_string_view<char>",
                                          kEtArrayRef + "<long>"};
  return detail::runtime_kernel(schema_text, std::move(cpp_function),
                                ir::ContextKind::runtime_context, kSpelling);
}

// A kernel for PyTorch's dispatcher (ATen types), taking `context` first.
inline ir::Kernel torch_kernel(std::string_view schema_text, std::string cpp_function,
                               ir::ContextKind context = ir::ContextKind::none) {
  static const detail::Spelling kSpelling{"at::Tensor",         "at::Tensor &",
                                          "const at::Tensor &", "c10::optional<at::Tensor>",
                                          "c10::Scalar",        "c10::basic_string_view<char>",
                                          "c10::ArrayRef<long>"};
  return detail::runtime_kernel(schema_text, std::move(cpp_function), context, kSpelling);
}

// The out variant most ExecuTorch tests use.
inline ir::Kernel et_neg_out() {
  return et_kernel("demo::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "k::neg_out");
}
inline ir::Kernel torch_neg_out(std::string ns = "my_ops") {
  return torch_kernel(ns + "::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                      "t::" + ns + "_neg_out");
}

inline ir::Module module_of(std::vector<ir::Kernel> kernels) {
  ir::Module m;
  m.generator = "opscan test";
  m.libclang_version = "clang 0";
  m.kernels = std::move(kernels);
  return m;
}

inline emit::Options options(std::string target, std::optional<std::string> library = "mine",
                             ir::Registration registration = ir::Registration::named) {
  emit::Options o;
  o.target = std::move(target);
  o.library = std::move(library);
  o.registration = registration;
  o.generator = "opscan test";
  return o;
}

// Generates a scanned module (problems located at the kernels' sources).
inline emit::Output generate(const ir::Module& module, const emit::Options& o,
                             const emit::TargetRegistry& targets = emit::builtin_targets()) {
  static const ir::Locator kScanned;
  return emit::generate(module, o, targets, kScanned);
}

// A module as read back from an IR file, with the locator that places its
// problems in that file.
struct FromIr {
  ir::Module module;
  ir::Locator locator;
  ir::Positions positions;
};
inline constexpr std::string_view kIrPath = "in/kernels.ir.json";

inline FromIr from_ir(const ir::Module& module) {
  ir::ReadResult read =
      ir::from_json(ir::to_json(module, test_fields()), std::string(kIrPath), test_fields());
  EXPECT_TRUE(read.module.has_value())
      << (read.diagnostics.empty() ? std::string() : read.diagnostics[0].message);
  FromIr result{read.module.value_or(ir::Module{}), {}, read.positions};
  result.locator.add(result.module, read.positions);
  return result;
}

inline emit::Output generate(const FromIr& in, const emit::Options& o,
                             const emit::TargetRegistry& targets = emit::builtin_targets()) {
  return emit::generate(in.module, o, targets, in.locator);
}

// The content of `path` among `output`'s files ("" and a failure if none).
inline const std::string& file(const emit::Output& output, std::string_view path) {
  for (const emit::OutputFile& f : output.files) {
    if (f.path == path)
      return f.content;
  }
  ADD_FAILURE() << "no file " << path << " among " << output.files.size() << " files";
  static const std::string kNone;
  return kNone;
}

// Every diagnostic on its own line, for failure messages.
inline std::string dump(const diag::Diagnostics& diags) {
  std::string out;
  for (const diag::Diagnostic& d : diags) {
    out += d.location.file + ":" + std::to_string(d.location.line) + ": " + d.code + ": " +
           d.message + "\n";
  }
  return out;
}

// The one error of a generation, which wrote nothing.
inline diag::Diagnostic only_error(const emit::Output& output) {
  EXPECT_EQ(output.diagnostics.size(), 1u) << dump(output.diagnostics);
  EXPECT_TRUE(output.files.empty());
  return output.diagnostics.empty() ? diag::Diagnostic{} : output.diagnostics[0];
}

// The one diagnostic of a generation that stands: a warning.
inline diag::Diagnostic only_warning(const emit::Output& output) {
  EXPECT_EQ(output.diagnostics.size(), 1u) << dump(output.diagnostics);
  EXPECT_FALSE(output.files.empty());
  if (output.diagnostics.empty())
    return {};
  EXPECT_EQ(output.diagnostics[0].severity, diag::Severity::warning);
  return output.diagnostics[0];
}

inline std::vector<std::string> paths(const std::vector<emit::OutputFile>& files) {
  std::vector<std::string> out;
  for (const emit::OutputFile& f : files)
    out.push_back(f.path);
  return out;
}

// The files `kernel` and `kernel` moved one line down (a line added above
// it) generate differently with `options`, by path.
inline std::vector<std::string> changed_by_a_moved_line(const ir::Kernel& kernel,
                                                        const emit::Options& options) {
  ir::Kernel moved = kernel;
  moved.location.line += 1;
  moved.location.offset += 16;
  emit::Output before = generate(module_of({kernel}), options);
  emit::Output after = generate(module_of({moved}), options);
  EXPECT_TRUE(before.diagnostics.empty()) << dump(before.diagnostics);
  EXPECT_EQ(paths(before.files), paths(after.files));
  std::vector<std::string> changed;
  for (size_t i = 0; i < before.files.size() && i < after.files.size(); ++i) {
    if (before.files[i].content != after.files[i].content)
      changed.push_back(before.files[i].path);
  }
  return changed;
}

inline std::vector<std::string> codes(const diag::Diagnostics& diags) {
  std::vector<std::string> out;
  for (const diag::Diagnostic& d : diags)
    out.push_back(d.code);
  return out;
}

// `text` without its "//" comments: what a compiler reads of it.
inline std::string without_comments(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? end : end - start);
    if (size_t comment = line.find("//"); comment != std::string::npos)
      line.erase(comment);
    out += line + "\n";
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return out;
}

inline bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

} // namespace emit_test
