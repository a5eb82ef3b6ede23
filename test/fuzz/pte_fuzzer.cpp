// libFuzzer target for the ExecuTorch program reader (lib/pte/program.h).
// The input is a file's bytes. Whatever they are: no crash, no read outside
// them (the sanitizers watch); a refused file has exactly one error, with an
// opscan-pte-* code, located at the file and naming it; a program read has
// every call's operator index in range, and its needs (kernel keys) are
// well-formed: "v1/" and one "<dtype>;<dim order>" entry per tensor.
#include "diag/diag.h"
#include "fuzz_check.h"
#include "executorch/program.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#define FUZZ_TARGET "pte_fuzzer"

namespace {

using namespace opscan;

const std::string kPath = "fuzz.pte";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const executorch::ReadResult read = executorch::read_program(input, kPath);
  if (!read.program) {
    FUZZ_CHECK(read.diagnostics.size() == 1, input);
    const diag::Diagnostic& d = read.diagnostics.front();
    FUZZ_CHECK(d.severity == diag::Severity::error, input);
    FUZZ_CHECK(d.code.starts_with("opscan-pte-"), input);
    FUZZ_CHECK(d.location.file == kPath && d.location.line == 0, input);
    FUZZ_CHECK(d.message.starts_with(kPath + ": "), input);
    return 0;
  }
  FUZZ_CHECK(read.diagnostics.empty(), input);
  FUZZ_CHECK(executorch::looks_like_program(input), input);
  for (const executorch::Plan& plan : read.program->plans) {
    for (const std::string& op : plan.operators)
      FUZZ_CHECK(!op.empty() && opscan::fuzz::is_utf8(op), input);
    for (const executorch::Call& call : plan.calls) {
      FUZZ_CHECK(call.op_index < plan.operators.size(), input);
      const std::string key = executorch::kernel_key(call.tensors);
      FUZZ_CHECK(key.empty() == call.tensors.empty(), input);
      if (!key.empty()) {
        FUZZ_CHECK(key.starts_with("v1/"), input);
        size_t entries = 1;
        for (char c : key)
          entries += c == '|' ? 1 : 0;
        FUZZ_CHECK(entries == call.tensors.size(), input);
      }
    }
  }
  for (const auto& [op, need] : executorch::needed_operators(*read.program)) {
    FUZZ_CHECK(!need.keys.empty() && !need.plans.empty(), input);
    FUZZ_CHECK(!op.empty(), input);
  }
  // What a reader of only the program part sees is the same.
  if (std::optional<uint64_t> program = executorch::program_size(input); program && *program < size) {
    const executorch::ReadResult part = executorch::read_program(input.substr(0, *program), kPath);
    FUZZ_CHECK(part.program == read.program, input);
  }
  return 0;
}
