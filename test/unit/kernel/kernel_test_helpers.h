// Shared by the kernel tests, and by the scan tests through
// scan_test_helpers.h: what needs no libclang.
#pragma once

#include "diag/diag.h"
#include "files.h"
#include "ir/fields.h"
#include "schema/schema.h"
#include "support/files.h"

#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace opscan::diag {
// For gtest's messages.
inline void PrintTo(const Location& loc, std::ostream* os) {
  *os << loc.file << ":" << loc.line << ":" << loc.column << " (offset " << loc.offset << ")";
}
inline void PrintTo(const FixIt& fix, std::ostream* os) {
  *os << fix.file << " at " << fix.offset << ", " << fix.length << " bytes -> '" << fix.replacement
      << "'";
}
} // namespace opscan::diag

namespace opscan::kernel::test_support {

// Fields named like the built-in targets' (key = "...", dispatch = "..."),
// each checked by `check` (unset: any value is taken), with `code`s.
inline ir::Fields test_fields(
    std::function<std::optional<ir::FieldProblem>(std::string_view, const ir::Kernel&)> check = {},
    std::string key_code = "opscan-kernel-key", std::string dispatch_code = "opscan-dispatch-key") {
  return ir::Fields(
      {{"key", "kernel_key", std::move(key_code), "kernel key", "kernel key '{}'", "", check},
       {"dispatch", "dispatch_key", std::move(dispatch_code), "dispatch key", "dispatch key {}", "",
        check}});
}

namespace fs = std::filesystem;
using opscan::testing::TempDir;
using opscan::testing::write_file;

inline std::string describe(const diag::Diagnostics& diags) {
  std::string out;
  for (const diag::Diagnostic& d : diags) {
    out += d.location.file + ":" + std::to_string(d.location.line) + ":" +
           std::to_string(d.location.column) + ": " + diag::to_string(d.severity) + ": " +
           d.message + " [" + d.code + "]\n";
  }
  return out.empty() ? "(no diagnostics)\n" : out;
}

inline schema::Type type(std::string_view text) {
  schema::Parsed<schema::Type> parsed = schema::parse_type(text);
  EXPECT_TRUE(parsed) << text;
  return parsed.value.value_or(schema::Type{});
}

inline schema::Schema parsed_schema(std::string_view text) {
  schema::Parsed<schema::Schema> parsed = schema::parse_schema(text);
  EXPECT_TRUE(parsed) << text << ": " << (parsed ? "" : parsed.error->message);
  return parsed.value.value_or(schema::Schema{});
}

inline std::string text_of(const std::string& path) {
  std::optional<std::string> text = support::read_file(path);
  EXPECT_TRUE(text) << "cannot read " << path;
  return text.value_or("");
}

} // namespace opscan::kernel::test_support
