// LiveUnit: an editor's translation unit, re-parsed from memory. Real
// libclang on files in a temporary directory.
#include "scan/live.h"
#include "scan_test_helpers.h"

#include <algorithm>
#include <filesystem>
#include <sys/stat.h>

namespace opscan::scan {
namespace {

using namespace test_support;

const std::string kEtTypes = data_file("et_types.h");

std::string kernel_file(std::string_view parameter) {
  return "#include \"" + kEtTypes + "\"\n" +
         "namespace custom {\n"
         "OPSCAN_KERNEL(\"custom::neg\")\n"
         "Tensor neg(KernelRuntimeContext& ctx, const Tensor& self, " +
         std::string(parameter) + ");\n}\n";
}

std::vector<std::string> codes(const diag::Diagnostics& diags) {
  std::vector<std::string> out;
  for (const diag::Diagnostic& d : diags)
    out.push_back(d.code);
  return out;
}

TEST(LiveUnit, ReparsesFromTheBufferNotTheDisk) {
  TempDir dir;
  const std::string file = dir.file("k.cpp");
  write_file(file, kernel_file("double alpha"));
  LiveUnit unit(file, kArgs, /*main_file_only=*/true);

  LiveAnalysis first = unit.analyze({}, nullptr, {}, file);
  EXPECT_FALSE(first.reparsed);
  EXPECT_TRUE(first.diagnostics.empty()) << first.diagnostics.front().message;
  ASSERT_EQ(first.fragment.kernels.size(), 1u);
  EXPECT_EQ(first.fragment.kernels[0].schema().str(),
            "custom::neg(Tensor self, float alpha) -> Tensor");
  EXPECT_EQ(first.files.front(), file);
  EXPECT_NE(std::find(first.files.begin(), first.files.end(), kEtTypes), first.files.end());

  // The edited text is in the buffer only; the file on disk is unchanged.
  LiveAnalysis edited = unit.analyze({{file, kernel_file("int alpha")}}, nullptr, {}, file);
  EXPECT_TRUE(edited.reparsed);
  EXPECT_EQ(codes(edited.diagnostics), std::vector<std::string>{"opscan-scan-unsupported-type"});
  EXPECT_EQ(edited.diagnostics[0].location.file, file);
  EXPECT_EQ(edited.diagnostics[0].fixits.at(0).replacement, "int64_t");
  EXPECT_TRUE(edited.fragment.kernels.empty());

  LiveAnalysis back = unit.analyze({}, nullptr, {}, file);
  EXPECT_TRUE(back.diagnostics.empty());
}

TEST(LiveUnit, AHeadersKernelsAreItsOwnUnlessTheUnitWalksEveryDeclaration) {
  TempDir dir;
  const std::string header = dir.file("k.h");
  const std::string source = dir.file("k.cpp");
  write_file(header, "#pragma once\n" + kernel_file("int alpha"));
  write_file(source, "#include \"k.h\"\nint unrelated();\n");

  LiveUnit own(source, kArgs, /*main_file_only=*/true);
  LiveAnalysis main_only = own.analyze({}, nullptr, {}, source);
  EXPECT_TRUE(main_only.diagnostics.empty()) << main_only.diagnostics.front().message;
  EXPECT_NE(std::find(main_only.files.begin(), main_only.files.end(), header),
            main_only.files.end());

  // Parsed for the header: its kernel's problem, at the header.
  LiveUnit all(source, kArgs, /*main_file_only=*/false);
  LiveAnalysis for_header = all.analyze({}, nullptr, {}, header);
  ASSERT_EQ(codes(for_header.diagnostics),
            std::vector<std::string>{"opscan-scan-unsupported-type"});
  EXPECT_EQ(for_header.diagnostics[0].location.file, header);
  // Edited in the editor: the header's buffer is what the unit reads.
  for_header =
      all.analyze({{header, "#pragma once\n" + kernel_file("double alpha")}}, nullptr, {}, header);
  EXPECT_TRUE(for_header.diagnostics.empty());
  EXPECT_EQ(for_header.fragment.kernels.size(), 1u);
}

TEST(LiveUnit, SuggestsKernelsInTheFileAskedAbout) {
  TempDir dir;
  const std::string file = dir.file("plain.cpp");
  write_file(file, "#include \"" + kEtTypes +
                       "\"\nnamespace custom {\n"
                       "Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& "
                       "out);\n}\n");
  LiveUnit unit(file, kArgs, /*main_file_only=*/true);
  LiveAnalysis analysis = unit.analyze({}, nullptr, {}, file);
  ASSERT_EQ(analysis.suggestions.size(), 1u);
  EXPECT_EQ(analysis.suggestions[0].op, "custom::relu.out");
  EXPECT_EQ(analysis.suggestions[0].location.line, 3u);
}

TEST(LiveUnit, AFileLibclangCannotParseIsAnErrorAndTheNextAnalysisTriesAgain) {
  TempDir dir;
  const std::string file = dir.file("gone.cpp");
  LiveUnit unit(file, kArgs, /*main_file_only=*/true);
  LiveAnalysis missing = unit.analyze({}, nullptr, {}, file);
  ASSERT_EQ(codes(missing.diagnostics), std::vector<std::string>{"opscan-io"});
  // The editor has the text although the disk does not.
  LiveAnalysis from_buffer = unit.analyze({{file, kernel_file("double alpha")}}, nullptr, {}, file);
  EXPECT_TRUE(from_buffer.diagnostics.empty());
  EXPECT_EQ(from_buffer.fragment.kernels.size(), 1u);
}

// A file the arguments name that is (or has become, since the last parse) a
// FIFO is an error, not a parse blocked for ever.
TEST(LiveUnit, AFileTheArgumentsNameThatIsAFifoIsAnError) {
  TempDir dir;
  const std::string file = dir.file("k.cpp");
  write_file(file, kernel_file("double alpha"));
  const std::string forced = dir.file("forced.h");
  write_file(forced, "");
  std::vector<std::string> args = kArgs;
  args.insert(args.end(), {"-include", forced});
  LiveUnit unit(file, args, /*main_file_only=*/true);
  LiveAnalysis first = unit.analyze({}, nullptr, {}, file);
  EXPECT_TRUE(first.diagnostics.empty());
  std::filesystem::remove(forced);
  ASSERT_EQ(::mkfifo(forced.c_str(), 0644), 0);
  LiveAnalysis blocked = unit.analyze({}, nullptr, {}, file);
  ASSERT_EQ(codes(blocked.diagnostics), std::vector<std::string>{"opscan-io"});
  EXPECT_NE(blocked.diagnostics[0].message.find("given with -include: Not a regular file (a FIFO)"),
            std::string::npos)
      << blocked.diagnostics[0].message;
  LiveUnit fresh(file, args, /*main_file_only=*/true);
  EXPECT_EQ(codes(fresh.analyze({}, nullptr, {}, file).diagnostics),
            std::vector<std::string>{"opscan-io"});
}

} // namespace
} // namespace opscan::scan
