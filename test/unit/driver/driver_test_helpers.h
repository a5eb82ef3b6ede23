// Shared by the driver tests: IR modules for both built-in targets, written
// to files the way users pass them.
#pragma once

#include "driver/driver.h"
#include "emit/registry.h"
#include "files.h"
#include "ir/json.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>

namespace opscan::testing {

namespace fs = std::filesystem;

// The annotation fields the IR carries in opscan: the built-in targets'.
inline const ir::Fields& test_fields() {
  return emit::builtin_targets().fields();
}

// A kernel `ns::op(Tensor self) -> Tensor` for ExecuTorch: context first,
// one tensor in, one returned.
inline ir::Kernel et_kernel(std::string ns, std::string name, std::string function,
                            std::string key = "") {
  ir::Kernel k;
  k.op = {std::move(ns), std::move(name), ""};
  k.arguments = {{{{"Tensor", std::nullopt, {}}, "self", std::nullopt, false},
                  "const Tensor &",
                  "const executorch::runtime::etensor::Tensor &"}};
  k.returns = {{{"Tensor", std::nullopt, {}}, ""}};
  k.cpp_function = std::move(function);
  k.cpp_return_type = "Tensor";
  k.cpp_canonical_return_type = "executorch::runtime::etensor::Tensor";
  k.usr = "c:@F@" + k.cpp_function + "#";
  k.context = ir::ContextKind::runtime_context;
  k.set_field("kernel_key", std::move(key));
  k.location = {"kernels/" + k.cpp_function + ".cpp", 3, 8, 40};
  return k;
}

// The same operator shape for PyTorch's dispatcher: no context.
inline ir::Kernel torch_kernel(std::string ns, std::string name, std::string function,
                               std::string dispatch = "") {
  ir::Kernel k = et_kernel(std::move(ns), std::move(name), std::move(function));
  k.arguments[0].cpp_type = "const at::Tensor &";
  k.arguments[0].cpp_canonical_type = "const at::Tensor &";
  k.cpp_canonical_return_type = "at::Tensor";
  k.context = ir::ContextKind::none;
  k.set_field("dispatch_key", std::move(dispatch));
  return k;
}

inline ir::Module fragment(std::vector<ir::Kernel> kernels) {
  ir::Module m;
  m.generator = "opscan test";
  m.libclang_version = "clang 14";
  m.kernels = std::move(kernels);
  for (const ir::Kernel& k : m.kernels)
    m.sources.push_back({k.location.file, std::string(64, 'a')});
  return m;
}

// A library IR as `opscan generate` writes it: the module generated for
// `target` in `mode` as library `name`.
inline ir::Module library(std::vector<ir::Kernel> kernels, std::string name,
                          std::string target = "executorch",
                          ir::Registration mode = ir::Registration::named) {
  emit::Options options;
  options.target = std::move(target);
  options.registration = mode;
  options.library = std::move(name);
  emit::Output out =
      emit::generate(fragment(std::move(kernels)), options, emit::builtin_targets(), {});
  EXPECT_TRUE(out.diagnostics.empty()) << out.diagnostics[0].message;
  return out.module;
}

// Writes `module` to `dir`/`name` and returns the path.
inline std::string write_ir(const TempDir& dir, const std::string& name, const ir::Module& module) {
  std::string path = dir.file(name);
  write_file(path, ir::to_json(module, test_fields()));
  return path;
}

// Reads IR files as the commands do; fails the test on errors.
inline std::vector<driver::IrFile> read_ok(const std::vector<std::string>& paths) {
  driver::ReadIrs read = driver::read_irs(paths);
  EXPECT_EQ(read.status, driver::Status::ok)
      << (read.diagnostics.empty() ? "" : read.diagnostics[0].message);
  return std::move(read.files);
}

inline const diag::Diagnostic* find_code(const diag::Diagnostics& diags, const std::string& code) {
  for (const diag::Diagnostic& d : diags) {
    if (d.code == code)
      return &d;
  }
  return nullptr;
}

} // namespace opscan::testing
