// Every macro of libtorch's headers that the torch target's generated code
// includes (ATen/core/Tensor.h, c10/core/DispatchKeySet.h, torch/library.h,
// with glog and gflags behind them), as g++ and clang++ define them under
// -std=gnu++17 (CMake's default), is refused as a name: a macro there would
// replace an operator namespace, operator name or argument name (issue 23,
// finding 13). ident_test does the same for the standard headers.
#include "ident/ident.h"
#include "run.h"

#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

TEST(TorchMacroNames, EveryMacroOfTheTemplatesTorchHeadersIsRefused) {
  const std::string includes = "#include <ATen/core/Tensor.h>\n"
                               "#include <c10/core/DispatchKeySet.h>\n"
                               "#include <torch/library.h>\n";
  for (const std::string& compiler :
       {std::string(OPSCAN_CXX_COMPILER), std::string(OPSCAN_CLANGXX)}) {
    SCOPED_TRACE(compiler);
    opscan::testing::TempDir dir;
    opscan::testing::write_file(dir.path() / "in.cpp", includes);
    const opscan::testing::RunResult run = opscan::testing::run_command(
        dir.path(), compiler + " -std=gnu++17 " OPSCAN_TORCH_INCLUDES " -dM -E -x c++ in.cpp");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    static const std::regex define(R"(^#define ([A-Za-z_][A-Za-z0-9_]*))");
    std::istringstream lines(run.out);
    size_t macros = 0;
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, define))
        continue;
      ++macros;
      const std::string name = m[1];
      EXPECT_FALSE(opscan::ident::is_valid_identifier(name, opscan::ident::Scope::local))
          << name << " is a macro of libtorch's headers but accepted as a name: add it to the "
          << "macro table in lib/ident/words.cpp, with where it comes from";
    }
    EXPECT_GT(macros, 1000u);
  }
}

} // namespace
