// Shared by the scan tests, with the kernel tests' helpers
// (kernel/kernel_test_helpers.h). Inputs live under test/data/scan/ and share
// et_types.h (the examples' ExecuTorch stand-ins plus opscan/annotations.h),
// which they include by relative path, so "-std=c++17" is the only argument
// they need; aten_types.h stands in for ATen's types the same way.
#pragma once

#include "diag/diag.h"
#include "files.h"
#include "ir/ir.h"
#include "kernel/kernel_test_helpers.h"
#include "scan/scan.h"
#include "schema/schema.h"
#include "support/files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::scan::test_support {

namespace fs = std::filesystem;
using kernel::test_support::describe;
using kernel::test_support::parsed_schema;
using kernel::test_support::test_fields;
using kernel::test_support::text_of;
using kernel::test_support::type;
using opscan::testing::TempDir;
using opscan::testing::write_file;

inline const fs::path kRepo = fs::path(OPSCAN_TEST_DATA "/../..").lexically_normal();
inline const std::vector<std::string> kArgs = {"-std=c++17"};

inline std::string data_file(std::string_view name) {
  return (fs::path(OPSCAN_TEST_DATA) / "scan" / name).lexically_normal().string();
}

// How scan() names a file in diagnostics and the IR.
inline std::string shown(const std::string& path) {
  return support::display_path(path);
}

inline Result scan_paths(std::vector<std::string> files, std::vector<std::string> args = kArgs,
                         unsigned jobs = 1) {
  Options options;
  options.fields = test_fields();
  options.files = std::move(files);
  options.extra_args = std::move(args);
  options.jobs = jobs;
  return scan(options);
}

// Scans test/data/scan/<name> with kArgs, once per test program.
inline const Result& scanned(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, Result> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, scan_paths({data_file(name)})).first;
  return it->second;
}

struct ExpectedDiag {
  std::string code;
  uint32_t line;
  uint32_t column;
  std::string message; // a part of the message
};

// The diagnostics are exactly `expected`, in order (scan() sorts them), all
// errors located in `file`.
inline void expect_diagnostics(const diag::Diagnostics& diags, const std::string& file,
                               const std::vector<ExpectedDiag>& expected) {
  ASSERT_EQ(diags.size(), expected.size()) << describe(diags);
  for (size_t i = 0; i < expected.size(); ++i) {
    const diag::Diagnostic& d = diags[i];
    const ExpectedDiag& e = expected[i];
    SCOPED_TRACE("diagnostic " + std::to_string(i) + ": " + describe({d}));
    EXPECT_EQ(d.severity, diag::Severity::error);
    EXPECT_EQ(d.code, e.code);
    EXPECT_EQ(d.location.file, shown(file));
    EXPECT_EQ(d.location.line, e.line);
    EXPECT_EQ(d.location.column, e.column);
    EXPECT_NE(d.message.find(e.message), std::string::npos)
        << "expected in the message: " << e.message;
  }
}

inline const ir::Kernel* find_kernel(const ir::Module& module, std::string_view op) {
  for (const ir::Kernel& k : module.kernels) {
    if (k.op.str() == op)
      return &k;
  }
  return nullptr;
}

inline std::vector<std::string> schemas(const ir::Module& module) {
  std::vector<std::string> out;
  for (const ir::Kernel& k : module.kernels)
    out.push_back(k.schema().str());
  return out;
}

// The schema types of a kernel's arguments, as spelled.
inline std::vector<std::string> argument_types(const ir::Kernel& k) {
  std::vector<std::string> out;
  for (const ir::Argument& a : k.arguments)
    out.push_back(a.schema.type.str());
  return out;
}

// The fix-its of `diags` in `file` (as scan() shows it), each distinct one
// once: a fix-it that several diagnostics carry is one edit.
inline std::vector<diag::FixIt> fixits_in(const std::string& file, const diag::Diagnostics& diags) {
  std::vector<diag::FixIt> fixes;
  for (const diag::Diagnostic& d : diags) {
    for (const diag::FixIt& f : d.fixits) {
      if (f.file == shown(file) && std::find(fixes.begin(), fixes.end(), f) == fixes.end())
        fixes.push_back(f);
    }
  }
  return fixes;
}

// `text` with `fixes` applied, from the end so that earlier offsets stay
// valid; overlapping fix-its fail the test.
inline std::string applied(std::string text, std::vector<diag::FixIt> fixes) {
  std::sort(fixes.begin(), fixes.end(), [](const diag::FixIt& a, const diag::FixIt& b) {
    return a.offset != b.offset ? a.offset > b.offset : a.length > b.length;
  });
  size_t limit = text.size();
  for (const diag::FixIt& f : fixes) {
    EXPECT_LE(f.offset + f.length, limit) << "overlapping fix-its at offset " << f.offset;
    if (f.offset + f.length > limit)
      continue;
    text.replace(f.offset, f.length, f.replacement);
    limit = f.offset;
  }
  return text;
}

// The byte offset of a 1-based line and column in `text`.
inline size_t offset_of(std::string_view text, uint32_t line, uint32_t column) {
  size_t at = 0;
  for (uint32_t l = 1; l < line && at != std::string_view::npos; ++l) {
    at = text.find('\n', at);
    at = at == std::string_view::npos ? at : at + 1;
  }
  return at == std::string_view::npos ? at : at + column - 1;
}

// The 1-based line and column of the first `needle` in `path`, plus `shift`
// bytes: where a diagnostic about that text should be.
struct LineColumn {
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t offset = 0;
};
inline LineColumn locate(const std::string& path, std::string_view needle, size_t shift = 0) {
  const std::string text = text_of(path);
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle << " not in " << path;
  if (at == std::string::npos)
    return {};
  const size_t offset = at + shift;
  const size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t column = line_start == std::string::npos ? offset + 1 : offset - line_start;
  const auto line = static_cast<uint32_t>(
      std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n') + 1);
  return {line, static_cast<uint32_t>(column), static_cast<uint32_t>(offset)};
}

} // namespace opscan::scan::test_support
