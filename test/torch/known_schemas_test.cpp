// Kernels annotated with only an operator name, checked against the schemas
// of the installed libtorch (dumped at test time by dump_schemas).
#include "files.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

namespace fs = std::filesystem;

namespace {

using opscan::testing::read_file;
using opscan::testing::TempDir;

struct ScanRun {
  int exit_code;
  std::string err;
  std::string ir;
};

ScanRun scan(const std::string& input) {
  TempDir tmp;
  const fs::path& dir = tmp.path();
  const std::string command = "cd '" OPSCAN_SOURCE_DIR "' && '" OPSCAN_BINARY
                              "' scan --schemas '" OPSCAN_KNOWN_SCHEMAS "' -o '" +
                              (dir / "ir.json").string() + "' test/torch/inputs/" + input +
                              " -- -Iinclude -Iexamples/include 2>'" + (dir / "err").string() + "'";
  int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(dir / "err"),
          read_file(dir / "ir.json")};
}

// The line of `schema` in the known-schemas file (1-based), or 0.
int line_of(const std::string& schema) {
  std::ifstream in(OPSCAN_KNOWN_SCHEMAS);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line == schema)
      return n;
  }
  return 0;
}

const char* const kAddOut =
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)";

TEST(KnownSchemas, LibtorchSchemasAreDumped) {
  EXPECT_GT(line_of(kAddOut), 0) << "aten::add.out missing from " << OPSCAN_KNOWN_SCHEMAS;
  EXPECT_GT(line_of("aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, "
                    "Tensor(a!) out) -> Tensor(a!)"),
            0);
}

TEST(KnownSchemas, NamedKernelsTakeTheKnownSchema) {
  ScanRun run = scan("known_good.cpp");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The known schema, with its defaults and keyword-only arguments, is the kernel's.
  EXPECT_NE(run.ir.find(std::string("\"schema\": \"") + kAddOut + "\""), std::string::npos)
      << run.ir;
  EXPECT_NE(
      run.ir.find("\"schema\": \"aten::sum.IntList_out(Tensor self, int[1]? dim, bool "
                  "keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)\""),
      std::string::npos)
      << run.ir;
  EXPECT_NE(run.ir.find("\"schema\": \"aten::split_copy.Tensor_out(Tensor self, int "
                        "split_size, int dim=0, *, Tensor(a!)[] out) -> ()\""),
            std::string::npos)
      << run.ir;
  EXPECT_NE(run.ir.find("\"schema\": \"custom::twice.out(Tensor self, *, Tensor(a!) out) -> "
                        "Tensor(a!)\""),
            std::string::npos)
      << run.ir;
}

TEST(KnownSchemas, WrongParameterOrderIsCaught) {
  ScanRun run = scan("known_bad.cpp");
  EXPECT_EQ(run.exit_code, 1);
  const std::string file = "test/torch/inputs/known_bad.cpp";
  // opscan shows paths relative to its working directory (the repository) when inside it.
  std::string known = fs::path(OPSCAN_KNOWN_SCHEMAS).lexically_relative(OPSCAN_SOURCE_DIR).string();
  if (known.empty() || known.starts_with(".."))
    known = OPSCAN_KNOWN_SCHEMAS;
  auto expect = [&](const std::string& text) {
    EXPECT_NE(run.err.find(text), std::string::npos) << "expected:\n"
                                                     << text << "\nin:\n"
                                                     << run.err;
  };
  expect(file + ":10:78: error: argument 2 'other': the known schema of aten::add.out says Tensor, "
                "C++ parameter is 'const executorch::aten::Scalar &' [opscan-mismatch-type]");
  expect(file +
         ":11:31: error: argument 3 'alpha': the known schema of aten::add.out says "
         "Scalar, C++ parameter is 'const executorch::aten::Tensor &' [opscan-mismatch-type]");
  expect(known + ":" + std::to_string(line_of(kAddOut)) + ":1: note: known schema: " + kAddOut);
  // Names do not overrule a known schema: a warning.
  expect(file + ":15:58: warning: argument 1: the known schema of aten::mul.out says 'self', the "
                "C++ parameter here is 'other', which is argument 2 in the known schema of "
                "aten::mul.out [opscan-mismatch-order]");
  expect(file + ":19:9: error: the known schema of aten::clamp.out has 4 arguments, the C++ "
                "function takes 2 (after the runtime context) [opscan-mismatch-count]");
}

} // namespace
