// The fragment cache: what a re-scan parses again, and which entries it
// refuses to trust.
#include "ir/json.h"
#include "scan/scan.h"
#include "scan_test_helpers.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace opscan::scan {
namespace {

using namespace test_support;

// src/a.cpp and src/b.cpp include h1.h, src/c.cpp includes h2.h; each
// declares one kernel. Scanned with a cache in cache/.
class FragmentCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    write("src/h1.h", "#pragma once\n#include \"" + data_file("et_types.h") + "\"\n");
    write("src/h2.h", "#pragma once\n#include \"" + data_file("et_types.h") + "\"\n");
    for (const char* name : {"a", "b", "c"}) {
      const std::string header = std::string(name) == "c" ? "h2.h" : "h1.h";
      write(std::string("src/") + name + ".cpp",
            "#include \"" + header + "\"\nOPSCAN_KERNEL(\"t::" + name + ".out\")\nTensor& " + name +
                "_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n");
    }
  }

  void write(const std::string& name, const std::string& text) { dir_.write(name, text); }
  fs::path path(const std::string& name) const { return dir_.path() / name; }

  Options options(std::vector<std::string> args = kArgs, unsigned jobs = 1) const {
    Options options;
    for (const char* name : {"a", "b", "c"})
      options.files.push_back(path(std::string("src/") + name + ".cpp").string());
    options.extra_args = std::move(args);
    options.jobs = jobs;
    options.cache_dir = path("cache").string();
    return options;
  }
  Result run(std::vector<std::string> args = kArgs, unsigned jobs = 1) const {
    return scan(options(std::move(args), jobs));
  }

  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(path("cache")))
      out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
  }
  // The entry that holds `text` (a kernel's function name, say).
  fs::path entry_with(const std::string& text) const {
    for (const fs::path& entry : entries()) {
      if (text_of(entry.string()).find(text) != std::string::npos)
        return entry;
    }
    ADD_FAILURE() << "no cache entry holds " << text;
    return {};
  }

  TempDir dir_;
};

TEST_F(FragmentCacheTest, ProgressIsReportedOncePerFileInOrder) {
  Options opts = options(kArgs, 2);
  opts.cache_dir.reset();
  std::vector<size_t> done;
  std::set<std::string> files;
  opts.progress = [&](size_t n, size_t total, const std::string& file) {
    EXPECT_EQ(total, 3u);
    done.push_back(n);
    files.insert(file);
  };
  scan(opts);
  EXPECT_EQ(done, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(files.size(), 3u);
}

TEST_F(FragmentCacheTest, NoChangeParsesNothing) {
  Result cold = run();
  ASSERT_TRUE(cold.diagnostics.empty()) << describe(cold.diagnostics);
  EXPECT_EQ(cold.files_parsed, 3u);
  EXPECT_EQ(entries().size(), 3u);
  Result warm = run();
  EXPECT_EQ(warm.files_parsed, 0u);
  EXPECT_TRUE(warm.diagnostics.empty()) << describe(warm.diagnostics);
  EXPECT_EQ(ir::to_json(warm.module), ir::to_json(cold.module));
  // A hit still knows what the file read.
  EXPECT_EQ(warm.inputs, cold.inputs);
  EXPECT_TRUE(std::find(warm.inputs.begin(), warm.inputs.end(),
                        fs::weakly_canonical(path("src/h1.h")).string()) != warm.inputs.end());
}

TEST_F(FragmentCacheTest, AHeaderChangeReparsesExactlyItsIncluders) {
  Result cold = run();
  write("src/h1.h", "#pragma once\n#include \"" + data_file("et_types.h") + "\"\n// changed\n");
  Result after = run();
  EXPECT_EQ(after.files_parsed, 2u); // a and b, not c
  EXPECT_EQ(ir::to_json(after.module), ir::to_json(cold.module));
  // A changed source: only that file.
  write("src/c.cpp", "#include \"h2.h\"\nOPSCAN_KERNEL(\"t::c2.out\")\nTensor& c_out("
                     "KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n");
  Result changed = run();
  EXPECT_EQ(changed.files_parsed, 1u);
  ASSERT_EQ(changed.module.kernels.size(), 3u);
  EXPECT_EQ(changed.module.kernels[2].op.str(), "t::c2.out");
}

TEST_F(FragmentCacheTest, AFlagChangeReparsesEverything) {
  run();
  EXPECT_EQ(run({"-std=c++17", "-DSOMETHING=1"}).files_parsed, 3u);
  EXPECT_EQ(run({"-std=c++17", "-DSOMETHING=1"}).files_parsed, 0u);
}

TEST_F(FragmentCacheTest, AChangedSchemasFileReparsesEverything) {
  // Known schemas decide a kernel's schema: they are part of the key.
  write("schemas.txt", "t::a.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n");
  Options opts = options();
  opts.schemas_file = path("schemas.txt").string();
  Result cold = scan(opts);
  ASSERT_TRUE(cold.diagnostics.empty()) << describe(cold.diagnostics);
  EXPECT_EQ(cold.files_parsed, 3u);
  EXPECT_EQ(scan(opts).files_parsed, 0u);
  write("schemas.txt", "t::a.out(Tensor input, *, Tensor(a!) result) -> Tensor(a!)\n");
  Result after = scan(opts);
  EXPECT_EQ(after.files_parsed, 3u);
  const ir::Kernel* a = find_kernel(after.module, "t::a.out");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->schema_origin, ir::SchemaOrigin::known);
  EXPECT_EQ(a->arguments[0].schema.name, "input");
}

TEST_F(FragmentCacheTest, ScansWithDiagnosticsAreNotCached) {
  write("src/b.cpp", "#include \"h1.h\"\nOPSCAN_KERNEL(\"t::b.out\")\nTensor& b_out("
                     "KernelRuntimeContext& ctx, const Tensor&, Tensor& out);\n");
  Result cold = run();
  ASSERT_EQ(cold.diagnostics.size(), 1u) << describe(cold.diagnostics);
  EXPECT_EQ(cold.diagnostics[0].code, "opscan-scan-unnamed-parameter");
  EXPECT_EQ(entries().size(), 2u);
  Result again = run();
  EXPECT_EQ(again.files_parsed, 1u); // b, whose error is reported again
  EXPECT_EQ(describe(again.diagnostics), describe(cold.diagnostics));
  // A dropped flag's note is the run's, not a file's: files are looked up
  // under the arguments kept, the same as above.
  EXPECT_EQ(run({"-std=c++17", "-fconcepts"}).files_parsed, 1u);
}

TEST_F(FragmentCacheTest, DamagedEntriesAreRebuilt) {
  Result cold = run();
  std::vector<fs::path> files = entries();
  ASSERT_EQ(files.size(), 3u);
  fs::resize_file(files[0], fs::file_size(files[0]) / 2); // truncated
  std::ofstream(files[1], std::ios::binary) << "not a cache entry";
  Result after = run();
  EXPECT_EQ(after.files_parsed, 2u);
  EXPECT_TRUE(after.diagnostics.empty()) << describe(after.diagnostics);
  EXPECT_EQ(ir::to_json(after.module), ir::to_json(cold.module));
  EXPECT_EQ(run().files_parsed, 0u); // and rewritten whole
}

TEST_F(FragmentCacheTest, AnEntryBreakingTheIRRulesIsAMissAndIsRewritten) {
  Result cold = run();
  const fs::path entry = entry_with("\"a_out\"");
  const std::string original = text_of(entry.string());
  const std::string field = "\"cpp_function\": \"a_out\"";
  const size_t at = original.find(field);
  ASSERT_NE(at, std::string::npos) << original;

  // A valid edit is trusted: entries are checked, not signed. (This shows
  // that what follows is refused for breaking a rule, not for the edit.)
  std::string renamed = original;
  renamed.replace(at, field.size(), "\"cpp_function\": \"renamed_out\"");
  write_file(entry, renamed);
  Result trusted = run();
  EXPECT_EQ(trusted.files_parsed, 0u);
  ASSERT_NE(find_kernel(trusted.module, "t::a.out"), nullptr);
  EXPECT_EQ(find_kernel(trusted.module, "t::a.out")->cpp_function, "renamed_out");

  // A reserved identifier reads as JSON but breaks ir::validate: a miss.
  std::string reserved = original;
  reserved.replace(at, field.size(), "\"cpp_function\": \"a__out\"");
  write_file(entry, reserved);
  Result after = run();
  EXPECT_EQ(after.files_parsed, 1u);
  EXPECT_TRUE(after.diagnostics.empty()) << describe(after.diagnostics);
  EXPECT_EQ(ir::to_json(after.module), ir::to_json(cold.module));
  // Rewritten as the scan made it, and used from then on.
  EXPECT_EQ(text_of(entry.string()), original);
  EXPECT_EQ(run().files_parsed, 0u);
}

TEST_F(FragmentCacheTest, ConcurrentRunsShareTheCacheSafely) {
  Result results[2];
  std::thread first([&] { results[0] = run(kArgs, 2); });
  std::thread second([&] { results[1] = run(kArgs, 2); });
  first.join();
  second.join();
  EXPECT_TRUE(results[0].diagnostics.empty()) << describe(results[0].diagnostics);
  EXPECT_TRUE(results[1].diagnostics.empty()) << describe(results[1].diagnostics);
  EXPECT_EQ(ir::to_json(results[0].module), ir::to_json(results[1].module));
  Result warm = run();
  EXPECT_EQ(warm.files_parsed, 0u);
  EXPECT_EQ(ir::to_json(warm.module), ir::to_json(results[0].module));
  // No temporary files are left behind.
  for (const fs::path& e : entries())
    EXPECT_EQ(e.extension(), ".entry") << e;
}

} // namespace
} // namespace opscan::scan
