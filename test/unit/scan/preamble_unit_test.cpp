// Preamble units: files that share their leading #include lines parsed as
// re-parses of one translation unit. Each scan runs with and without them
// (--no-auto-pch) and must give the same IR (locations and source hashes
// included), diagnostics, inputs and cache behaviour; locate_functions (what
// import-yaml reads) the same sites.
#include "ir/json.h"
#include "scan/scan.h"
#include "scan_test_helpers.h"

#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace opscan::scan {
namespace {

using namespace test_support;

class PreambleUnitTest : public ::testing::Test {
protected:
  void SetUp() override {
    write("include/common.h", "#pragma once\n#include <map>\n#include <vector>\n#include <string>\n"
                              "#include <functional>\n#include \"" +
                                  data_file("et_types.h") + "\"\n");
  }

  std::string write(const std::string& name, const std::string& text) {
    return dir_.write(name, text);
  }

  Result run(const std::vector<std::string>& files, bool units, const std::string& cache = {}) {
    Options options;
    options.fields = test_fields();
    options.files = files;
    options.extra_args = {"-std=c++17", "-I" + dir_.file("include")};
    options.jobs = 2;
    if (!cache.empty())
      options.cache_dir = dir_.file(cache);
    options.auto_pch = units;
    return scan(options);
  }

  // The scan with units, checked against the scan without.
  Result same_either_way(const std::vector<std::string>& files) {
    Result with = run(files, true);
    Result without = run(files, false);
    EXPECT_EQ(without.files_with_pch, 0u);
    EXPECT_EQ(ir::to_json(with.module, test_fields()), ir::to_json(without.module, test_fields()));
    EXPECT_EQ(describe(with.diagnostics), describe(without.diagnostics));
    EXPECT_EQ(with.inputs, without.inputs);
    return with;
  }

  // A kernel file: `prefix`, then `body` (declarations before the kernel),
  // then the kernel `name` whose second argument has type `type`.
  std::string kernel(const std::string& path, const std::string& prefix, const std::string& name,
                     const std::string& type = "int64_t", const std::string& body = "") {
    return write(path, prefix + "\n// " + name + "\n" + body + "OPSCAN_KERNEL(\"t::" + name +
                           "\")\nTensor " + name + "(const Tensor& self, " + type + " n);\n");
  }

  // `count` kernel files src/<stem><i>.cpp starting with `prefix`.
  std::vector<std::string> kernels(const std::string& stem, const std::string& prefix, int count) {
    std::vector<std::string> files;
    for (int i = 0; i < count; ++i)
      files.push_back(
          kernel("src/" + stem + std::to_string(i) + ".cpp", prefix, stem + std::to_string(i)));
    return files;
  }

  LocateResult locate(const std::vector<std::string>& files, bool units) {
    Options options;
    options.fields = test_fields();
    options.files = files;
    options.extra_args = {"-std=c++17", "-I" + dir_.file("include")};
    options.jobs = 2;
    options.auto_pch = units;
    return locate_functions(options);
  }

  // locate_functions with units, checked against it without: every site,
  // as text. Returns how many files the units parsed.
  size_t same_sites_either_way(const std::vector<std::string>& files) {
    const LocateResult with = locate(files, true);
    const LocateResult without = locate(files, false);
    EXPECT_EQ(without.files_in_units, 0u);
    EXPECT_EQ(describe(with.diagnostics), describe(without.diagnostics));
    EXPECT_EQ(with.files.size(), without.files.size());
    for (size_t i = 0; i < with.files.size() && i < without.files.size(); ++i)
      EXPECT_EQ(sites_text(with.files[i]), sites_text(without.files[i]));
    return with.files_in_units;
  }

  static std::string sites_text(const SourceSites& sites) {
    std::string text = fmt::format("{} after_includes={} annotations={}\n", sites.file,
                                   sites.after_includes, sites.includes_annotations);
    for (const FunctionSite& f : sites.functions) {
      text += fmt::format("  {} at {}:{}:{}+{} annotated={}", f.qualified_name, f.begin.file,
                          f.begin.line, f.begin.column, f.begin.offset, f.annotated);
      if (f.key_tensors)
        text += fmt::format(" tensors={},{},{}", f.key_tensors->required, f.key_tensors->all,
                            f.key_tensors->returned);
      if (!f.macro_first.empty())
        text += " after=" + f.macro_first;
      text += "\n";
    }
    return text;
  }

  TempDir dir_;
};

TEST_F(PreambleUnitTest, SharedAngleBracketPrefixesGiveTheSameIr) {
  std::vector<std::string> files = kernels("a", "#include <common.h>\n#include <deque>", 6);
  // A longer prefix, then the lone file.
  for (const std::string& file :
       kernels("b", "/* licence */\n#include <common.h>\n#include <deque>\n#include <set>", 3))
    files.push_back(file);
  files.push_back(kernel("src/c.cpp", "#include <deque>\n#include <common.h>", "c"));
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 10u);
  EXPECT_EQ(result.files_with_pch, 9u);
}

TEST_F(PreambleUnitTest, QuotedHeadersBesideTheSourcesAreSharedPerDirectory) {
  // The usual layout of custom-op repositories: "ops.h" beside the
  // sources; each directory's is another header, with another type.
  write("x/ops.h", "#pragma once\n#include <common.h>\nusing Count = int64_t;\n");
  write("y/ops.h", "#pragma once\n#include <common.h>\nusing Count = double;\n");
  std::vector<std::string> files;
  for (const char* dir : {"x", "y"}) {
    for (int i = 0; i < 4; ++i)
      files.push_back(kernel(std::string(dir) + "/k" + std::to_string(i) + ".cpp",
                             "#include \"ops.h\"", dir + std::to_string(i), "Count"));
  }
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  ASSERT_EQ(result.module.kernels.size(), 8u);
  for (const ir::Kernel& k : result.module.kernels)
    EXPECT_EQ(argument_types(k).at(1), k.op.name[0] == 'x' ? "int" : "float") << k.op.str();
  EXPECT_EQ(result.files_with_pch, 8u);
  EXPECT_EQ(result.pchs, 2u);
}

TEST_F(PreambleUnitTest, LineAndFileKeepTheirValuesInTheFile) {
  // Types that depend on __LINE__ and on __FILE__ (its length): in a unit
  // whose lines and name differ, they would change, silently.
  std::vector<std::string> files;
  for (int i = 0; i < 4; ++i) {
    const std::string path = "src/line" + std::to_string(i) + ".cpp";
    const std::string file_length = std::to_string(dir_.file(path).size() + 1);
    files.push_back(kernel(
        path, "#include <common.h>", "line" + std::to_string(i), "Pick",
        "#include <type_traits>\nusing Pick = std::conditional_t<__LINE__ == 4 && sizeof(__FILE__) "
        "== " +
            file_length + ", int64_t, double>;\n"));
  }
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  ASSERT_EQ(result.module.kernels.size(), 4u);
  for (const ir::Kernel& k : result.module.kernels)
    EXPECT_EQ(argument_types(k).at(1), "int") << k.op.str();
  EXPECT_EQ(result.files_with_pch, 4u);
}

TEST_F(PreambleUnitTest, FilesNamingTheirMainFileAreParsedAlone) {
  std::vector<std::string> files = kernels("p", "#include <common.h>", 3);
  // Its type is int64_t only where __BASE_FILE__ is its own name.
  const std::string own_length = std::to_string(dir_.file("src/base.cpp").size() + 1);
  files.push_back(kernel("src/base.cpp", "#include <common.h>", "base", "Pick",
                         "#include <type_traits>\nusing Pick = std::conditional_t<sizeof("
                         "__BASE_FILE__) == " +
                             own_length + ", int64_t, double>;\n"));
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  ASSERT_EQ(result.module.kernels.size(), 4u);
  EXPECT_EQ(argument_types(result.module.kernels.at(0)).at(1), "int"); // t::base
  EXPECT_EQ(result.files_with_pch, 3u);
}

TEST_F(PreambleUnitTest, DiagnosticsAreThoseOfPlainParses) {
  std::vector<std::string> files = kernels("ok", "#include <common.h>", 3);
  files.push_back(kernel("src/unknown.cpp", "#include <common.h>", "unknown", "Unknown"));
  files.push_back(write("src/internal.cpp", "#include <common.h>\nnamespace {\n"
                                            "OPSCAN_KERNEL(\"t::internal\")\n"
                                            "Tensor internal(const Tensor& self);\n}\n"));
  const Result result = same_either_way(files);
  EXPECT_FALSE(result.diagnostics.empty());
  EXPECT_EQ(result.files_with_pch, 3u);
}

TEST_F(PreambleUnitTest, AnnotatedOrUnguardedSharedHeadersAreNotShared) {
  write("include/annotated.h", "#pragma once\n#include <common.h>\nOPSCAN_KERNEL(\"t::shared\")\n"
                               "Tensor shared(const Tensor& self);\n");
  write("include/unguarded.h", "#include <common.h>\n");
  std::vector<std::string> files = kernels("h", "#include <annotated.h>", 3);
  for (const std::string& file : kernels("u", "#include <unguarded.h>", 3))
    files.push_back(file);
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 7u); // t::shared once
  EXPECT_EQ(result.files_with_pch, 0u);
}

TEST_F(PreambleUnitTest, TheCacheKnowsEachFileAndTheSharedHeaders) {
  write("include/real.h", "#pragma once\n#include <common.h>\nusing Real = int64_t;\n");
  // Named relative to the working directory, as a build names them:
  // libclang names a unit's main file absolute, and the cache must not.
  std::vector<std::string> files;
  for (int i = 0; i < 4; ++i)
    files.push_back(fs::relative(kernel("src/r" + std::to_string(i) + ".cpp", "#include <real.h>",
                                        "r" + std::to_string(i), "Real"))
                        .string());
  const Result first = run(files, true, "cache");
  ASSERT_EQ(first.files_with_pch, 4u);
  EXPECT_EQ(run(files, true, "cache").files_parsed, 0u);
  // A file that is not the unit's first one, edited: only it is parsed.
  write_file(files[2], text_of(files[2]) + "// edited\n");
  const Result edited = run(files, true, "cache");
  EXPECT_EQ(edited.files_parsed, 1u);
  EXPECT_EQ(ir::to_json(edited.module, test_fields()),
            ir::to_json(run(files, false).module, test_fields()));
  // A header of the preamble, edited: every file.
  write("include/real.h", "#pragma once\n#include <common.h>\nusing Real = double;\n");
  const Result header = run(files, true, "cache");
  EXPECT_EQ(header.files_parsed, 4u);
  EXPECT_EQ(argument_types(header.module.kernels.at(3)).at(1), "float");
  EXPECT_EQ(ir::to_json(header.module, test_fields()),
            ir::to_json(run(files, false).module, test_fields()));
}

TEST_F(PreambleUnitTest, LocatedSitesAreThoseOfPlainParses) {
  // What import-yaml places annotations by: every function's place, where
  // the #include lines end and whether the annotations header is included.
  write("include/opscan/annotations.h",
        "#pragma once\n#include \"" + (kRepo / "include/opscan/annotations.h").string() + "\"\n");
  write("include/plain.h", "#pragma once\n#include <vector>\n#include <map>\nstruct Tensor {};\n");
  write("include/with_annotations.h", "#pragma once\n#include <opscan/annotations.h>\n");
  write("include/unguarded.h", "// included twice\n");
  const std::string kernel = "Tensor& k_out(const Tensor& self, Tensor& out);\n";
  const std::string angle = "#include <plain.h>\n#include <string>\n";
  std::vector<std::string> files = {
      // The kernel right after the shared lines.
      write("src/right_after.cpp", angle + kernel),
      // Comments and blank lines first; more includes after the shared ones.
      write("src/more.cpp", "// licence\n\n/* block\n */\n" + angle +
                                "#include <set>\n\nnamespace a::native {\n" + kernel + "}\n"),
      // A last include that enters nothing (<vector> is in), then a later
      // one after code.
      write("src/entered_nothing.cpp",
            angle + "#include <vector>\nint x;\n#include <deque>\n" + kernel),
      write("src/late_guarded.cpp", angle + "int y;\n#include <map>\n" + kernel),
      // An unguarded header, entered by each line naming it.
      write("src/unguarded.cpp", angle + "#include <unguarded.h>\n" + kernel +
                                     "#include <unguarded.h>\nvoid after();\n"),
      // The annotations header: after the shared lines, directly or not.
      write("src/annotations.cpp", angle + "#include <opscan/annotations.h>\n" + kernel),
      write("src/annotations_within.cpp", angle + "#include <with_annotations.h>\n" + kernel),
      // Functions a macro declares, and one already annotated.
      write("src/macro.cpp", angle +
                                 "#include <opscan/annotations.h>\n"
                                 "#define DECLARE(name) Tensor& name(Tensor& out);\n"
                                 "DECLARE(m_out)\nDECLARE(n_out)\n"
                                 "#define PAIR(a, b) Tensor& a(Tensor&); Tensor& b(Tensor&);\n"
                                 "PAIR(p_out, q_out)\n"
                                 "OPSCAN_KERNEL(\"t::k.out\")\n" +
                                 kernel),
      // Code before the #include lines: no prefix to share.
      write("src/code_first.cpp", "void first();\n" + angle + kernel),
  };
  // Quoted headers beside the sources, per directory.
  write("x/ops.h", "#pragma once\n#include <plain.h>\nusing Count = long;\n");
  write("y/ops.h", "#pragma once\n#include <plain.h>\n#include <opscan/annotations.h>\n");
  for (const char* dir : {"x", "y"}) {
    for (int i = 0; i < 3; ++i)
      files.push_back(write(fmt::format("{}/k{}.cpp", dir, i),
                            fmt::format("#include \"ops.h\"\n{}namespace {}{} {{\n{}}}\n",
                                        i == 2 ? "#include <string>\n" : "", dir, i, kernel)));
  }
  // Kernels of ExecuTorch's types, whose tensors a kernel key counts.
  for (const std::string& file : kernels("e", "#include <common.h>", 2))
    files.push_back(file);
  EXPECT_EQ(same_sites_either_way(files), 16u);
}

TEST_F(PreambleUnitTest, LocatedSitesOfFilesTheUnitRefusesAreThoseOfPlainParses) {
  write("include/plain.h", "#pragma once\n#include <vector>\nstruct Tensor {};\n");
  const std::string prefix = "#include <plain.h>\n#include <string>\n";
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i)
    files.push_back(write(fmt::format("src/ok{}.cpp", i), prefix + "Tensor f(Tensor);\n"));
  // An error: reported as a plain parse reports it, and no sites.
  files.push_back(write("src/error.cpp", prefix + "Unknown g(Tensor);\n"));
  // __BASE_FILE__: a unit would change it.
  files.push_back(write("src/base.cpp", prefix + "const char* b = __BASE_FILE__;\nTensor h();\n"));
  EXPECT_EQ(same_sites_either_way(files), 3u);
}

} // namespace
} // namespace opscan::scan
