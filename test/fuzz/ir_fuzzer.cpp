// libFuzzer target for the IR reader (lib/ir/json.h) and validator
// (lib/ir/validate.h). The input is an IR file, then optionally a NUL byte
// and a JSON path to look up in it (ir::Positions::at). Whatever the bytes:
// no crash; a refused file has an error located in it; every module read
// prints (to_json) to a file that reads back as the same module, canonical
// order aside, and prints the same again; validation finds the same
// problems in both; diagnostics and looked-up positions lie in the file,
// their line and column agreeing with their offset.
#include "diag/diag.h"
#include "fields.h"
#include "fuzz_check.h"
#include "ir/ir.h"
#include "ir/json.h"
#include "ir/validate.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#define FUZZ_TARGET "ir_fuzzer"

namespace {

using namespace opscan;

const std::string kPath = "fuzz.json";

// A location in `text` (read as `kPath`): in it, 1-based line and column
// agreeing with the 0-based byte offset.
void check_location(const diag::Location& where, std::string_view text, std::string_view input) {
  FUZZ_CHECK(where.file == kPath, input);
  FUZZ_CHECK(where.offset <= text.size(), input);
  const std::string_view before = text.substr(0, where.offset);
  const size_t line = static_cast<size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  FUZZ_CHECK(where.line == line, input);
  FUZZ_CHECK(where.column == where.offset - line_start + 1, input);
}

// Diagnostics about the file: located in it (notes may point at sources).
void check_diagnostics(const diag::Diagnostics& diags, std::string_view text,
                       std::string_view input) {
  for (const diag::Diagnostic& d : diags) {
    FUZZ_CHECK(d.severity == diag::Severity::error, input);
    FUZZ_CHECK(d.code.starts_with("opscan-"), input);
    FUZZ_CHECK(!d.message.empty(), input);
    check_location(d.location, text, input);
  }
}

std::vector<std::string> codes(const diag::Diagnostics& diags) {
  std::vector<std::string> out;
  for (const diag::Diagnostic& d : diags)
    out.push_back(d.code);
  std::sort(out.begin(), out.end());
  return out;
}

diag::Diagnostics validated(const ir::ReadResult& read) {
  ir::Locator locator;
  locator.add(*read.module, read.positions);
  return ir::validate(*read.module, locator);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);

  const ir::ReadResult read =
      ir::from_json(std::string(text), kPath, opscan::fuzz::builtin_fields());
  FUZZ_CHECK(read.positions.file() == kPath, input);
  if (nul != std::string_view::npos)
    check_location(read.positions.at(input.substr(nul + 1)), text, input);
  if (!read.module) {
    FUZZ_CHECK(diag::has_errors(read.diagnostics), input);
    check_diagnostics(read.diagnostics, text, input);
    return 0;
  }
  FUZZ_CHECK(read.diagnostics.empty(), input);
  const diag::Diagnostics problems = validated(read);
  check_diagnostics(problems, text, input);

  const std::string printed = ir::to_json(*read.module, opscan::fuzz::builtin_fields());
  const ir::ReadResult again = ir::from_json(printed, kPath, opscan::fuzz::builtin_fields());
  if (!again.module)
    opscan::fuzz::fail(FUZZ_TARGET, ("printed IR does not read back:\n" + printed).c_str(), input);
  ir::Module canonical = *read.module;
  ir::canonicalize(canonical);
  FUZZ_CHECK(*again.module == canonical, input);
  FUZZ_CHECK(ir::is_canonical(*again.module) == ir::is_canonical(canonical), input);
  FUZZ_CHECK(ir::to_json(*again.module, opscan::fuzz::builtin_fields()) == printed, input);
  const diag::Diagnostics problems_again = validated(again);
  check_diagnostics(problems_again, printed, input);
  FUZZ_CHECK(codes(problems_again) == codes(problems), input);
  return 0;
}
