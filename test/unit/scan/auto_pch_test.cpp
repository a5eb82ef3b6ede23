// Shared leading includes (preamble units in a scan, headers stored by
// `opscan pch --shared`): which leading includes they may hold, and that a
// scan gives the same IR, diagnostics and inputs with and without them.
#include "ir/json.h"
#include "scan/auto_pch.h"
#include "scan/scan.h"
#include "scan_test_helpers.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace opscan::scan {
namespace {

using namespace test_support;

std::vector<std::string> names(const std::vector<HeaderName>& includes) {
  std::vector<std::string> out;
  for (const HeaderName& h : includes)
    out.push_back(h.quoted ? '"' + h.name + '"' : '<' + h.name + '>');
  return out;
}

using Names = std::vector<std::string>;

TEST(LeadingIncludes, AreTheIncludeLinesBeforeAnythingElse) {
  EXPECT_EQ(names(leading_includes("#include <a.h>\n#include \"b/c.h\"\nint x;\n#include <d.h>\n")),
            (Names{"<a.h>", "\"b/c.h\""}));
  EXPECT_EQ(names(leading_includes("")), Names{});
  EXPECT_EQ(names(leading_includes("int x;\n#include <a.h>\n")), Names{});
}

TEST(LeadingIncludes, SkipBlankLinesAndComments) {
  EXPECT_EQ(names(leading_includes("// licence\n\n/* block\n #include <no.h>\n */\n"
                                   "  #  include  <a.h> // why\r\n"
                                   "#include /* here */ <b.h>\n\t\n#include <c.h>\n")),
            (Names{"<a.h>", "<b.h>", "<c.h>"}));
}

TEST(LeadingIncludes, EndAtAnyOtherDirective) {
  for (const char* start :
       {"#define X 1\n", "#pragma once\n", "#if 1\n", "#include_next <x.h>\n", "#import <x.h>\n",
        "#include MACRO\n", "#include <x.h> extra\n", "#include <x.h\n", "#include <>\n"}) {
    EXPECT_EQ(names(leading_includes(std::string("#include <a.h>\n") + start + "#include <b.h>\n")),
              Names{"<a.h>"})
        << start;
  }
}

TEST(LeadingIncludes, EndWhereTheRulesDoNotReach) {
  // A line continuation, a possible trigraph, a byte-order mark, a comment
  // left open.
  EXPECT_EQ(names(leading_includes("#include <a.h>\n#include \\\n<b.h>\n")), Names{"<a.h>"});
  EXPECT_EQ(names(leading_includes("#include <a.h>\n?"
                                   "?=include <b.h>\n")),
            Names{"<a.h>"});
  EXPECT_EQ(names(leading_includes("\xEF\xBB\xBF#include <a.h>\n")), Names{});
  EXPECT_EQ(names(leading_includes("#include <a.h>\n/* open\n#include <b.h>\n")), Names{"<a.h>"});
}

// Kernel files in src/, with headers in include/ (found with -I): each scan
// runs twice, with and without the automatic header, each with its own
// cache, and must give the same result.
class AutoPchTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Heavy enough to be worth precompiling: the standard library.
    write("include/common.h", "#pragma once\n#include <map>\n#include <vector>\n#include <string>\n"
                              "#include <functional>\n#include \"" +
                                  data_file("et_types.h") + "\"\n");
    write("include/extra.h", "#pragma once\n#include <unordered_map>\n#include <deque>\n"
                             "using Extra = int;\n");
  }

  std::string write(const std::string& name, const std::string& text) {
    return dir_.write(name, text);
  }

  // `count` kernel files starting with `prefix`, named <stem><i>.cpp.
  std::vector<std::string> kernels(const std::string& stem, const std::string& prefix, int count,
                                   const std::string& type = "Tensor") {
    std::vector<std::string> files;
    for (int i = 0; i < count; ++i) {
      const std::string name = stem + std::to_string(i);
      files.push_back(write("src/" + name + ".cpp", prefix + "OPSCAN_KERNEL(\"t::" + name +
                                                        ".out\")\n" + type + "& " + name +
                                                        "_out(KernelRuntimeContext& ctx, const " +
                                                        type + "& self, " + type + "& out);\n"));
    }
    return files;
  }

  // One worker, which makes the headers before it scans: with more, a file
  // whose header another worker is still making is scanned without it, and
  // how many files had one varies.
  Result run(const std::vector<std::string>& files, bool auto_pch, const std::string& cache,
             unsigned jobs = 1) {
    Options options;
    options.fields = test_fields();
    options.files = files;
    options.extra_args = {"-std=c++17", "-I" + dir_.file("include")};
    options.jobs = jobs;
    options.cache_dir = dir_.file(cache);
    options.auto_pch = auto_pch;
    return scan(options);
  }

  // Scans with and without the automatic header; both must agree. Returns
  // the scan with it.
  Result same_either_way(const std::vector<std::string>& files) {
    Result with = run(files, true, "cache");
    Result without = run(files, false, "cache-off");
    EXPECT_EQ(without.files_with_pch, 0u);
    EXPECT_EQ(ir::to_json(with.module, test_fields()), ir::to_json(without.module, test_fields()));
    EXPECT_EQ(describe(with.diagnostics), describe(without.diagnostics));
    EXPECT_EQ(with.inputs, without.inputs);
    EXPECT_FALSE(fs::exists(dir_.file("cache-off/pch")));
    return with;
  }

  TempDir dir_;
};

TEST_F(AutoPchTest, SharedPrefixIsPrecompiledOnceAndGivesTheSameIr) {
  const std::vector<std::string> files =
      kernels("k", "#include <common.h>\n#include <vector>\n", 8);
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 8u);
  EXPECT_EQ(result.pchs, 1u);
  EXPECT_EQ(result.files_with_pch, 8u);
  // Two workers: the same IR, however many files had the header.
  EXPECT_EQ(ir::to_json(run(files, true, "cache-2", 2).module, test_fields()),
            ir::to_json(result.module, test_fields()));
  // A second run, nothing changed: every file from the cache.
  const Result again = run(files, true, "cache");
  EXPECT_EQ(again.files_parsed, 0u);
  EXPECT_EQ(ir::to_json(again.module, test_fields()), ir::to_json(result.module, test_fields()));
  // One file edited: parsed alone, and the scan stores no header (a unit
  // needs two files) ...
  write_file(files[3], text_of(files[3]) + "// edited\n");
  const Result edited = run(files, true, "cache");
  EXPECT_EQ(edited.files_parsed, 1u);
  EXPECT_EQ(edited.files_with_pch, 0u);
  // ... but one `opscan pch --shared` stored is used, and so in a scan of
  // that file only.
  Options shared;
  shared.files = files;
  shared.extra_args = {"-std=c++17", "-I" + dir_.file("include")};
  shared.cache_dir = dir_.file("cache");
  ASSERT_EQ(precompile_shared(shared).pchs.size(), 1u);
  write_file(files[3], text_of(files[3]) + "// edited again\n");
  const Result stored = run(files, true, "cache");
  EXPECT_EQ(stored.files_parsed, 1u);
  EXPECT_EQ(stored.files_with_pch, 1u);
  EXPECT_EQ(stored.pchs, 1u);
  write_file(files[4], text_of(files[4]) + "// edited\n");
  const Result alone = run({files[4]}, true, "cache");
  EXPECT_EQ(alone.files_with_pch, 1u);
  EXPECT_EQ(alone.module.kernels.size(), 1u);
  EXPECT_EQ(alone.inputs, run({files[4]}, false, "cache-alone").inputs);
}

TEST_F(AutoPchTest, WithoutACacheLivesOnlyForTheScan) {
  const std::vector<std::string> files = kernels("n", "#include <common.h>\n", 7);
  Options options;
  options.fields = test_fields();
  options.files = files;
  options.extra_args = {"-std=c++17", "-I" + dir_.file("include")};
  options.jobs = 1;
  const Result with = scan(options);
  options.auto_pch = false;
  const Result without = scan(options);
  EXPECT_EQ(with.files_with_pch, 7u);
  EXPECT_EQ(without.files_with_pch, 0u);
  EXPECT_EQ(ir::to_json(with.module, test_fields()), ir::to_json(without.module, test_fields()));
  EXPECT_EQ(with.inputs, without.inputs);
  for (const std::string& input : with.inputs)
    EXPECT_EQ(input.find("opscan-pch-"), std::string::npos) << input;
}

TEST_F(AutoPchTest, DivergingPrefixesEachGetTheirOwnOrNone) {
  std::vector<std::string> files = kernels("a", "#include <common.h>\n#include <extra.h>\n", 7);
  for (const std::string& f : kernels("b", "#include <extra.h>\n#include <common.h>\n", 7))
    files.push_back(f);
  for (const std::string& f : kernels("c", "#include <common.h>\n", 1)) // alone
    files.push_back(f);
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 15u);
  // The lone file may share the first group's header, <common.h> alone.
  EXPECT_EQ(result.pchs, 2u);
  EXPECT_GE(result.files_with_pch, 14u);
}

TEST_F(AutoPchTest, MacrosBeforeTheFirstIncludeKeepTheirMeaning) {
  // The header's type depends on a macro some files define first.
  write("include/scalar.h", "#pragma once\n#include <common.h>\n#ifdef WIDE\nusing Real = double;\n"
                            "#else\nusing Real = int64_t;\n#endif\n");
  std::vector<std::string> files;
  for (int i = 0; i < 12; ++i) {
    const std::string name = "m" + std::to_string(i);
    const std::string define = i % 2 ? "#define WIDE 1\n" : "";
    files.push_back(write("src/" + name + ".cpp",
                          define + "#include <scalar.h>\nOPSCAN_KERNEL(\"t::" + name +
                              "\")\nTensor " + name + "(const Tensor& self, Real alpha);\n"));
  }
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  ASSERT_EQ(result.module.kernels.size(), 12u);
  for (const ir::Kernel& k : result.module.kernels) {
    const bool wide = std::stoi(k.op.name.substr(1)) % 2 == 1;
    EXPECT_EQ(argument_types(k), (std::vector<std::string>{"Tensor", wide ? "float" : "int"}))
        << k.op.str();
  }
  EXPECT_EQ(result.files_with_pch, 6u); // the files that define nothing first
}

TEST_F(AutoPchTest, AHeaderEditedBetweenRunsIsReadAgain) {
  write("include/real.h", "#pragma once\n#include <common.h>\nusing Real = int64_t;\n");
  std::vector<std::string> files;
  for (int i = 0; i < 7; ++i) {
    const std::string name = "e" + std::to_string(i);
    files.push_back(write("src/" + name + ".cpp", "#include <real.h>\nOPSCAN_KERNEL(\"t::" + name +
                                                      "\")\nTensor " + name +
                                                      "(const Tensor& self, Real alpha);\n"));
  }
  Result first = same_either_way(files);
  EXPECT_EQ(first.files_with_pch, 7u);
  EXPECT_EQ(argument_types(first.module.kernels.at(0)),
            (std::vector<std::string>{"Tensor", "int"}));
  // Other content of the same size at the same time, which libclang's own
  // check of a precompiled header (size and time) would not see; then only
  // a newer time.
  const auto time = fs::last_write_time(dir_.file("include/real.h"));
  write("include/real.h", "#pragma once\n#include <common.h>\nusing Real = double ;\n");
  fs::last_write_time(dir_.file("include/real.h"), time);
  Result second = same_either_way(files);
  EXPECT_EQ(second.files_parsed, 7u);
  EXPECT_EQ(second.files_with_pch, 7u);
  EXPECT_EQ(argument_types(second.module.kernels.at(0)),
            (std::vector<std::string>{"Tensor", "float"}));
  fs::last_write_time(dir_.file("include/real.h"),
                      fs::last_write_time(dir_.file("include/real.h")) + std::chrono::seconds(5));
  Result touched = same_either_way(files);
  EXPECT_EQ(touched.diagnostics.size(), 0u) << describe(touched.diagnostics);
  EXPECT_EQ(touched.files_parsed, 0u); // the fragments: same content
}

TEST_F(AutoPchTest, UnguardedHeadersAndHeadersWithKernelsAreNotPrecompiled) {
  write("include/unguarded.h", "#include <common.h>\n");
  write("include/annotated.h", "#pragma once\n#include <common.h>\nOPSCAN_KERNEL(\"t::shared\")\n"
                               "Tensor shared(const Tensor& self);\n");
  std::vector<std::string> files = kernels("u", "#include <unguarded.h>\n", 7);
  for (const std::string& f : kernels("h", "#include <annotated.h>\n", 7))
    files.push_back(f);
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  EXPECT_EQ(result.module.kernels.size(), 15u); // t::shared once
  EXPECT_EQ(result.files_with_pch, 0u);
}

TEST_F(AutoPchTest, HeadersWithAnAnnotationInAFunctionBodyAreNotPrecompiled) {
  // The annotation is in no declaration the scan reads, but the header's
  // scan reports it: every file is scanned without the header, and says so.
  const std::string header = write(
      "include/body.h", "#pragma once\n#include <common.h>\ninline void host() {\n"
                        "  OPSCAN_KERNEL(\"t::hidden\") Tensor hidden(const Tensor& self);\n}\n");
  const Result result = same_either_way(kernels("b", "#include <body.h>\n", 7));
  expect_diagnostics(
      result.diagnostics, header,
      {{"opscan-annotation-misplaced", 4, 3,
        "OPSCAN_KERNEL annotates a declaration in the body of a function ('host')"}});
  EXPECT_EQ(result.files_with_pch, 0u);
}

TEST_F(AutoPchTest, AQuotedNameBesideTheSourceEndsThePrefix) {
  // "local.h" is found beside the sources, not from the store.
  write("src/local.h", "#pragma once\nusing Local = double;\n");
  write("include/local.h", "#pragma once\nusing Local = bool;\n");
  std::vector<std::string> files;
  for (int i = 0; i < 7; ++i) {
    const std::string name = "q" + std::to_string(i);
    files.push_back(write("src/" + name + ".cpp",
                          "#include <common.h>\n#include \"local.h\"\nOPSCAN_KERNEL(\"t::" + name +
                              "\")\nTensor " + name + "(const Tensor& self, Local n);\n"));
  }
  const Result result = same_either_way(files);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  EXPECT_EQ(argument_types(result.module.kernels.at(0)),
            (std::vector<std::string>{"Tensor", "float"}));
  EXPECT_EQ(result.files_with_pch, 7u); // with <common.h> only
}

TEST_F(AutoPchTest, ErrorsAreReportedAsWithout) {
  std::vector<std::string> files = kernels("ok", "#include <common.h>\n", 6);
  files.push_back(write("src/bad.cpp", "#include <common.h>\nOPSCAN_KERNEL(\"t::bad\")\n"
                                       "Tensor bad(const Tensor& self, Unknown u);\n"));
  const Result result = same_either_way(files);
  EXPECT_FALSE(result.diagnostics.empty());
  EXPECT_EQ(result.files_with_pch, 6u);
}

TEST_F(AutoPchTest, ADamagedStoreIsMadeAgain) {
  const std::vector<std::string> files = kernels("d", "#include <common.h>\n", 7);
  Options shared;
  shared.files = files;
  shared.extra_args = {"-std=c++17", "-I" + dir_.file("include")};
  shared.cache_dir = dir_.file("cache");
  ASSERT_EQ(precompile_shared(shared).pchs.size(), 1u);
  std::vector<fs::path> stored;
  for (const auto& entry : fs::directory_iterator(dir_.file("cache/pch")))
    stored.push_back(entry.path());
  ASSERT_FALSE(stored.empty());
  for (const fs::path& path : stored) {
    if (path.extension() == ".pch")
      fs::resize_file(path, fs::file_size(path) / 2);
    else if (path.extension() == ".h")
      write_file(path, "#error not ours\n");
  }
  // Made again by the next `opscan pch --shared`, and used by a scan of
  // one file (files scanned together share a unit instead).
  ASSERT_EQ(precompile_shared(shared).pchs.size(), 1u);
  const Result alone = run({files[0]}, true, "cache");
  EXPECT_EQ(alone.diagnostics.size(), 0u) << describe(alone.diagnostics);
  EXPECT_EQ(alone.files_with_pch, 1u);
  EXPECT_EQ(ir::to_json(alone.module, test_fields()),
            ir::to_json(run({files[0]}, false, "cache-off").module, test_fields()));
}

TEST_F(AutoPchTest, ForcedIncludesGetNone) {
  const std::vector<std::string> files = kernels("f", "#include <common.h>\n", 7);
  Options options;
  options.fields = test_fields();
  options.files = files;
  options.extra_args = {"-std=c++17", "-I" + dir_.file("include"), "-include", "extra.h"};
  options.cache_dir = dir_.file("cache");
  const Result result = scan(options);
  EXPECT_EQ(result.diagnostics.size(), 0u) << describe(result.diagnostics);
  EXPECT_EQ(result.files_with_pch, 0u);
}

TEST(AutoPchExamples, GiveTheSameIrWithAndWithout) {
  TempDir dir;
  std::vector<std::string> files;
  for (const char* name : {"elementwise.cpp", "reduce.cpp"})
    files.push_back((kRepo / "examples/kernels" / name).string());
  auto run = [&](bool auto_pch) {
    Options options;
    options.fields = test_fields();
    options.files = files;
    options.extra_args = {"-std=c++17", "-I" + (kRepo / "include").string(),
                          "-I" + (kRepo / "examples/include").string()};
    options.cache_dir = dir.file(auto_pch ? "on" : "off");
    options.auto_pch = auto_pch;
    return scan(options);
  };
  const Result with = run(true);
  const Result without = run(false);
  EXPECT_EQ(with.diagnostics.size(), 0u) << describe(with.diagnostics);
  EXPECT_EQ(ir::to_json(with.module, test_fields()), ir::to_json(without.module, test_fields()));
  EXPECT_EQ(with.inputs, without.inputs);
}

} // namespace
} // namespace opscan::scan
