// The fragment cache: what a re-scan parses again, and which entries it
// refuses to trust.
#include "ir/json.h"
#include "scan/cache.h"
#include "scan/includes.h"
#include "scan/scan.h"
#include "scan_test_helpers.h"
#include "support/sha256.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
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
    options.fields = test_fields();
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

  // A source (or header) declaring kernel t::NAME.out, after `preamble`.
  static std::string kernel_file(const std::string& name, const std::string& preamble = "") {
    return "#pragma once\n#include \"" + data_file("et_types.h") + "\"\n" + preamble +
           "OPSCAN_KERNEL(\"t::" + name + ".out\")\nTensor& " + name +
           "_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);\n";
  }
  // Scans the one file src/k.cpp with `args` besides -std=c++17.
  Result run_k(const std::vector<std::string>& args) const {
    Options opts = options();
    opts.files = {path("src/k.cpp").string()};
    opts.extra_args.insert(opts.extra_args.end(), args.begin(), args.end());
    return scan(opts);
  }
  static bool has_kernel(const Result& r, const std::string& name) {
    return find_kernel(r.module, "t::" + name + ".out") != nullptr;
  }

  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(path("cache"))) {
      if (e.path().extension() == ".entry")
        out.push_back(e.path());
    }
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

  std::vector<fs::path> blocks() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(path("cache"))) {
      if (e.path().extension() == ".block")
        out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // An entry's text with the lines of the block file it names in place of
  // its "block <name>" line.
  std::string with_block(const fs::path& entry) const {
    const std::string text = text_of(entry.string());
    const size_t at = text.find("\nblock ") + 1;
    if (at == 0)
      return text;
    const size_t end = text.find('\n', at);
    const fs::path block = path("cache") / (text.substr(at + 6, end - at - 6) + ".block");
    return text.substr(0, at) + text_of(block.string()) + text.substr(end + 1);
  }

  // Each input an entry names, with its stamp ("-" for none).
  static std::map<std::string, std::string> stamps_of(const std::string& entry) {
    std::map<std::string, std::string> out;
    std::istringstream lines(entry.substr(0, entry.find("\n---\n")));
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with("input "))
        continue;
      const size_t stamp_at = line.find(' ', 6) + 1;
      const size_t path_at = line.find(' ', stamp_at) + 1;
      out[line.substr(path_at)] = line.substr(stamp_at, path_at - 1 - stamp_at);
    }
    return out;
  }
  // `entry` with every input's stamp "-".
  static std::string without_stamps(const std::string& entry) {
    std::string out;
    std::istringstream lines(entry);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("input ")) {
        const size_t stamp_at = line.find(' ', 6) + 1;
        line.replace(stamp_at, line.find(' ', stamp_at) - stamp_at, "-");
      }
      out += line + "\n";
    }
    return out;
  }
  static int64_t modified_ns(const fs::path& file) {
    struct stat status {};
    ::stat(file.c_str(), &status);
    return int64_t{status.st_mtim.tv_sec} * 1'000'000'000 + status.st_mtim.tv_nsec;
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
  EXPECT_EQ(ir::to_json(warm.module, test_fields()), ir::to_json(cold.module, test_fields()));
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
  EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
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
  // Known schemas decide a kernel's schema: every file's content is part
  // of the key.
  const std::string out = ", *, Tensor(a!) out) -> Tensor(a!)\n";
  write("schemas.txt", "t::a.out(Tensor self" + out);
  write("more.txt", "t::b.out(Tensor self" + out + "t::c.out(Tensor self" + out);
  Options opts = options();
  opts.schemas_files = {path("schemas.txt").string(), path("more.txt").string()};
  Result cold = scan(opts);
  ASSERT_TRUE(cold.diagnostics.empty()) << describe(cold.diagnostics);
  EXPECT_EQ(cold.files_parsed, 3u);
  EXPECT_EQ(scan(opts).files_parsed, 0u);
  for (const char* changed : {"schemas.txt", "more.txt"}) {
    SCOPED_TRACE(changed);
    write(changed, opscan::testing::read_file(path(changed)) + "# changed\n");
    Result after = scan(opts);
    EXPECT_TRUE(after.diagnostics.empty()) << describe(after.diagnostics);
    EXPECT_EQ(after.files_parsed, 3u);
    EXPECT_EQ(scan(opts).files_parsed, 0u);
  }
  write("more.txt", "t::b.out(Tensor input, *, Tensor(a!) result) -> Tensor(a!)\nt::c.out(Tensor "
                    "self" +
                        out);
  Result after = scan(opts);
  EXPECT_EQ(after.files_parsed, 3u);
  const ir::Kernel* b = find_kernel(after.module, "t::b.out");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->schema_origin, ir::SchemaOrigin::known);
  EXPECT_EQ(b->arguments[0].schema.name, "input");
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
  EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
  EXPECT_EQ(run().files_parsed, 0u); // and rewritten whole
}

// Files with the same headers on the same search path share one block of
// input and absent lines: a and b include h1.h, c includes h2.h.
TEST_F(FragmentCacheTest, EntriesOfFilesWithTheSameHeadersShareABlock) {
  run();
  EXPECT_EQ(entries().size(), 3u);
  ASSERT_EQ(blocks().size(), 2u);
  const fs::path a = entry_with("\"a_out\""), b = entry_with("\"b_out\""),
                 c = entry_with("\"c_out\"");
  auto block_line = [&](const fs::path& entry) {
    const std::string text = text_of(entry.string());
    const size_t at = text.find("\nblock ");
    return text.substr(at, text.find('\n', at + 1) - at);
  };
  EXPECT_EQ(block_line(a), block_line(b));
  EXPECT_NE(block_line(a), block_line(c));
  EXPECT_NE(with_block(a).find(path("src/h1.h").string()), std::string::npos);
  EXPECT_NE(with_block(c).find(path("src/h2.h").string()), std::string::npos);
  // Each block is named by the SHA-256 of its text.
  for (const fs::path& block : blocks())
    EXPECT_EQ(block.stem().string(), support::sha256_hex(text_of(block.string())));
}

// A block that is not what its name says (damaged, emptied, another
// block's valid text) is a miss for every entry naming it, and is rewritten.
TEST_F(FragmentCacheTest, ABlockThatIsNotWhatItsNameSaysIsAMiss) {
  Result cold = run();
  const std::string a_with_block = with_block(entry_with("\"a_out\""));
  // The block a's entry names now (stamps recorded since rename it).
  auto shared_block = [&] {
    const std::string entry = text_of(entry_with("\"a_out\"").string());
    const size_t at = entry.find("\nblock ") + 7;
    return path("cache") / (entry.substr(at, entry.find('\n', at) - at) + ".block");
  };
  const std::string original = text_of(shared_block().string());
  std::string other;
  for (const fs::path& block : blocks()) {
    if (block != shared_block())
      other = text_of(block.string());
  }
  ASSERT_FALSE(other.empty());
  const std::pair<const char*, std::string> cases[] = {
      {"damaged", original.substr(0, original.size() / 2)},
      {"empty", ""},
      {"another block's text", other},
      {"a control character", std::string(original).insert(original.find('\n'), "\r")},
  };
  for (const auto& [what, text] : cases) {
    SCOPED_TRACE(what);
    write_file(shared_block(), text);
    Result after = run();
    EXPECT_EQ(after.files_parsed, 2u); // a and b
    EXPECT_TRUE(after.diagnostics.empty()) << describe(after.diagnostics);
    EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
    EXPECT_EQ(without_stamps(with_block(entry_with("\"a_out\""))), without_stamps(a_with_block));
    EXPECT_EQ(run().files_parsed, 0u);
  }
}

TEST_F(FragmentCacheTest, AnEntryBreakingTheIRRulesIsAMissAndIsRewritten) {
  Result cold = run();
  const fs::path entry = entry_with("\"a_out\"");
  const std::string original = text_of(entry.string());
  const std::string original_with_block = with_block(entry);
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
  EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
  // Rewritten as the scan made it (but for stamps since recorded), and used
  // from then on.
  EXPECT_EQ(without_stamps(with_block(entry)), without_stamps(original_with_block));
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
  EXPECT_EQ(ir::to_json(results[0].module, test_fields()),
            ir::to_json(results[1].module, test_fields()));
  Result warm = run();
  EXPECT_EQ(warm.files_parsed, 0u);
  EXPECT_EQ(ir::to_json(warm.module, test_fields()), ir::to_json(results[0].module, test_fields()));
  // No temporary files are left behind.
  for (const fs::path& e : entries())
    EXPECT_EQ(e.extension(), ".entry") << e;
}

// src/k.cpp includes "k.h", found in old/ (on the path after new/).
class IncludeResolutionTest : public FragmentCacheTest {
protected:
  void SetUp() override {
    FragmentCacheTest::SetUp();
    write("old/k.h", kernel_file("old_k"));
    fs::create_directories(path("new"));
    write("src/k.cpp", "#include \"k.h\"\n" + kernel_file("k"));
  }
  std::vector<std::string> new_then_old() const {
    return {"-I" + path("new").string(), "-I" + path("old").string()};
  }
  // Scans three times: cold, again (all from the cache), and after `header`
  // is written to declare kernel `name`, which must be seen. The last result.
  Result expect_new_header_seen(const std::function<Result()>& scan_k, const std::string& header,
                                const std::string& name) {
    Result cold = scan_k();
    EXPECT_TRUE(cold.diagnostics.empty()) << describe(cold.diagnostics);
    EXPECT_EQ(scan_k().files_parsed, 0u);
    write(header, kernel_file(name));
    Result after = scan_k();
    EXPECT_EQ(after.files_parsed, 1u);
    EXPECT_TRUE(has_kernel(after, name));
    return after;
  }
};

TEST_F(IncludeResolutionTest, ANewHeaderEarlierOnThePathIsAMiss) {
  ASSERT_TRUE(has_kernel(run_k(new_then_old()), "old_k"));
  // Now "k.h" resolves to new/k.h: the cached result would be stale.
  Result after = expect_new_header_seen([&] { return run_k(new_then_old()); }, "new/k.h", "new_k");
  EXPECT_FALSE(has_kernel(after, "old_k"));
  EXPECT_EQ(run_k(new_then_old()).files_parsed, 0u);
}

TEST_F(IncludeResolutionTest, ANewHeaderBesideAQuotedIncluderIsAMiss) {
  run_k(new_then_old());
  // A quoted name is looked up in the includer's directory first.
  write("src/k.h", kernel_file("beside_k"));
  Result after = run_k(new_then_old());
  EXPECT_EQ(after.files_parsed, 1u);
  EXPECT_TRUE(has_kernel(after, "beside_k"));
  EXPECT_FALSE(has_kernel(after, "old_k"));
}

TEST_F(IncludeResolutionTest, ANewHeaderLaterOnThePathIsAMissToo) {
  // Conservative (see cache.h): the result is the same, parsed again.
  const std::vector<std::string> old_then_new = {"-I" + path("old").string(),
                                                 "-I" + path("new").string()};
  Result cold = run_k(old_then_new);
  write("new/k.h", kernel_file("new_k"));
  Result after = run_k(old_then_new);
  EXPECT_EQ(after.files_parsed, 1u);
  EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
  EXPECT_EQ(run_k(old_then_new).files_parsed, 0u);
}

TEST_F(IncludeResolutionTest, ANewHeaderTestedWithHasIncludeIsAMiss) {
  write("src/k.cpp",
        "#if __has_include(\"extra.h\")\n#include \"extra.h\"\n#endif\n" + kernel_file("k"));
  expect_new_header_seen([&] { return run_k({}); }, "src/extra.h", "extra");
}

TEST_F(IncludeResolutionTest, AHasIncludeWrapperMacroIsFollowed) {
  // As fmt defines FMT_HAS_INCLUDE.
  write("src/has.h", "#pragma once\n#define HAS_HEADER(x) __has_include(x)\n");
  write("src/k.cpp", "#include \"has.h\"\n#if HAS_HEADER(<extra.h>)\n#include <extra.h>\n#endif\n" +
                         kernel_file("k"));
  expect_new_header_seen([&] { return run_k({"-I" + path("new").string()}); }, "new/extra.h",
                         "extra");
}

TEST_F(IncludeResolutionTest, AComputedIncludeIsNotCached) {
  // Which names a macro could spell is not known: the file is parsed each time.
  write("src/k.cpp", "#define HEADER \"k.h\"\n#include HEADER\n" + kernel_file("k"));
  Result cold = run_k(new_then_old());
  ASSERT_TRUE(cold.diagnostics.empty()) << describe(cold.diagnostics);
  EXPECT_TRUE(has_kernel(cold, "old_k"));
  EXPECT_TRUE(!fs::exists(path("cache")) || entries().empty());
  write("new/k.h", kernel_file("new_k"));
  Result after = run_k(new_then_old());
  EXPECT_EQ(after.files_parsed, 1u);
  EXPECT_TRUE(has_kernel(after, "new_k"));
}

TEST_F(IncludeResolutionTest, UnderAPrecompiledHeaderTheNamesOfItsHeadersAreCheckedToo) {
  // libclang does not list an include of a header the PCH holds, but a
  // fresh scan looks its name up, and would find new/k.h.
  std::vector<std::string> args = new_then_old();
  PrecompileOptions pch_options{path("old/k.h").string(), kArgs};
  pch_options.args.insert(pch_options.args.end(), args.begin(), args.end());
  PrecompileResult pch = precompile(pch_options);
  ASSERT_TRUE(pch.diagnostics.empty()) << describe(pch.diagnostics);
  write("k.pch", pch.pch);
  args.insert(args.end(), {"-include-pch", path("k.pch").string()});
  ASSERT_TRUE(has_kernel(run_k(args), "old_k"));
  expect_new_header_seen([&] { return run_k(args); }, "new/k.h", "new_k");
}

TEST_F(IncludeResolutionTest, RelativeDirectoriesAreTheCompilationDatabaseEntrys) {
  // -Inew means <the entry's directory>/new, wherever opscan runs.
  write("compile_commands.json", "[{\"directory\": \"" + dir_.path().string() +
                                     "\", \"command\": \"c++ -std=c++17 -Inew -Iold -c "
                                     "src/k.cpp\", \"file\": \"src/k.cpp\"}]");
  Options opts = options({});
  opts.files = {path("src/k.cpp").string()};
  opts.build_dir = dir_.path().string();
  ASSERT_NE(fs::current_path(), dir_.path());
  ASSERT_TRUE(has_kernel(scan(opts), "old_k"));
  expect_new_header_seen([&] { return scan(opts); }, "new/k.h", "new_k");
}

// Sets an environment variable for the life of the object.
class ScopedEnvironment {
public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name))
      old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_F(IncludeResolutionTest, TheIncludePathVariablesArePartOfTheKey) {
  // The kernel's argument type comes from kk.h. (Directories from
  // CPLUS_INCLUDE_PATH are system ones, whose kernels are not scanned.)
  write("old/kk.h", "#pragma once\nusing KArg = const Tensor&;\n");
  write("new/kk.h", "#pragma once\nusing KArg = double;\n");
  write("src/k.cpp", "#include \"" + data_file("et_types.h") +
                         "\"\n#include <kk.h>\nOPSCAN_KERNEL(\"t::k.out\")\n"
                         "Tensor& k_out(KernelRuntimeContext& ctx, KArg self, Tensor& out);\n");
  auto self_type = [](const Result& r) {
    const ir::Kernel* k = find_kernel(r.module, "t::k.out");
    return k ? argument_types(*k).at(0) : "(no kernel)";
  };
  for (const char* variable : {"CPATH", "CPLUS_INCLUDE_PATH"}) {
    SCOPED_TRACE(variable);
    fs::remove_all(path("cache"));
    {
      ScopedEnvironment env(variable, path("old").string());
      Result cold = run_k({});
      ASSERT_TRUE(cold.diagnostics.empty()) << describe(cold.diagnostics);
      EXPECT_EQ(self_type(cold), "Tensor");
      EXPECT_EQ(run_k({}).files_parsed, 0u);
    }
    ScopedEnvironment env(variable, path("new").string());
    Result after = run_k({});
    EXPECT_EQ(after.files_parsed, 1u);
    EXPECT_EQ(self_type(after), "float");
  }
}

TEST(SearchDirectories, AreThoseOfEveryIncludeOptionTheEnvironmentAndTheSystem) {
  ScopedEnvironment env("CPATH", "k::l");
  const std::vector<std::string> args = {"-Ia",
                                         "-I",
                                         "b",
                                         "-iquote",
                                         "c",
                                         "-iquoted",
                                         "-isystem",
                                         "e",
                                         "-isystemf",
                                         "-idirafter",
                                         "g",
                                         "--include-directory=h",
                                         "-iprefix",
                                         "/p/",
                                         "-iwithprefix",
                                         "i",
                                         "-isysroot",
                                         "/root",
                                         "-iwithsysroot",
                                         "/j",
                                         "-resource-dir",
                                         "/res",
                                         "-include",
                                         "forced.h",
                                         "-include-pch",
                                         "x.pch",
                                         "-Xclang",
                                         "-working-directory=/wd"};
  const std::vector<std::string> found = search_directories(args);
  const std::set<std::string> dirs(found.begin(), found.end());
  for (const char* expected :
       {"/wd/a", "/wd/b", "/wd/c", "/wd/d", "/wd/e", "/wd/f", "/wd/g", "/wd/h", "/p/i", "/j",
        "/root/j", "/res/include", "/usr/include", "/usr/local/include", "/root/usr/include",
        "/root/usr/local/include", "/wd/k", "/wd/.", "/wd/l"})
    EXPECT_TRUE(dirs.count(expected)) << expected;
  for (const std::string& dir : dirs) {
    EXPECT_EQ(dir.find("forced"), std::string::npos) << dir;
    EXPECT_EQ(dir.find("pch"), std::string::npos) << dir;
  }
}

TEST_F(FragmentCacheTest, AnEntryOfAnotherKeyIsAMiss) {
  Result cold = run();
  const fs::path a = entry_with("\"a_out\"");
  const fs::path b = entry_with("\"b_out\"");
  const std::string a_text = with_block(a);
  const std::string b_text = with_block(b);
  auto expect_b_rebuilt = [&](const char* how) {
    SCOPED_TRACE(how);
    Result after = run();
    EXPECT_EQ(after.files_parsed, 1u);
    EXPECT_TRUE(after.diagnostics.empty()) << describe(after.diagnostics);
    EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
    // a's own entry untouched (but for stamps since recorded)
    EXPECT_EQ(without_stamps(with_block(a)), without_stamps(a_text));
    EXPECT_EQ(without_stamps(with_block(b)), without_stamps(b_text));
    EXPECT_FALSE(fs::is_symlink(b));
  };
  fs::copy_file(a, b, fs::copy_options::overwrite_existing);
  expect_b_rebuilt("copied");
  fs::remove(b);
  fs::create_hard_link(a, b);
  expect_b_rebuilt("hard link");
  fs::remove(b);
  fs::create_symlink(a, b);
  expect_b_rebuilt("symbolic link");
}

TEST_F(FragmentCacheTest, AnEntryThatIsALinkIsAMiss) {
  // Even to the right content: entries are only ever files renamed into place.
  run();
  const fs::path b = entry_with("\"b_out\"");
  const fs::path elsewhere = path("elsewhere.entry");
  fs::rename(b, elsewhere);
  fs::create_symlink(elsewhere, b);
  EXPECT_EQ(run().files_parsed, 1u);
  EXPECT_FALSE(fs::is_symlink(b));
  EXPECT_EQ(run().files_parsed, 0u);
}

// A FIFO, and a thread that opens it for writing, so that any reader of
// the FIFO would get an end of file rather than block. Counts the readers.
class WatchedFifo {
public:
  explicit WatchedFifo(fs::path path, fs::path keep) : keep_(std::move(keep)) {
    if (::mkfifo(path.c_str(), 0600) != 0 || ::link(path.c_str(), keep_.c_str()) != 0)
      throw std::runtime_error("cannot make a FIFO at " + path.string());
    writer_ = std::thread([this] {
      while (!stop_) {
        const int fd = ::open(keep_.c_str(), O_WRONLY); // returns once a reader opens it
        if (!stop_)
          ++readers_;
        if (fd >= 0)
          ::close(fd);
      }
    });
  }
  // How many times something opened the FIFO to read.
  int readers() {
    stop_ = true;
    const int fd = ::open(keep_.c_str(), O_RDONLY | O_NONBLOCK); // releases the writer
    if (writer_.joinable())
      writer_.join();
    if (fd >= 0)
      ::close(fd);
    return readers_;
  }
  ~WatchedFifo() { readers(); }

private:
  fs::path keep_;
  std::atomic<bool> stop_{false};
  std::atomic<int> readers_{0};
  std::thread writer_;
};

TEST_F(FragmentCacheTest, AnEntryThatIsAFifoIsAMissAndIsNotOpened) {
  Result cold = run();
  const fs::path b = entry_with("\"b_out\"");
  fs::remove(b);
  WatchedFifo fifo(b, path("fifo"));
  Result after = run();
  EXPECT_EQ(fifo.readers(), 0);
  EXPECT_EQ(after.files_parsed, 1u);
  EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(b)));
  EXPECT_EQ(run().files_parsed, 0u);
}

// The line of an entry that lists `file` as an input.
std::string input_line(const std::string& entry, const std::string& file) {
  const size_t end = entry.find(" " + file + "\n");
  const size_t start = entry.rfind('\n', end) + 1;
  return end == std::string::npos ? "" : entry.substr(start, end + file.size() + 2 - start);
}

TEST_F(FragmentCacheTest, AnInputThatIsAFifoIsAMissAndIsNotOpened) {
  Result cold = run();
  const fs::path b = entry_with("\"b_out\"");
  const std::string pipe = path("src/pipe.h").string();
  WatchedFifo fifo(pipe, path("fifo"));
  // A hand-made block listing the FIFO as an input of b.cpp, named as a
  // block is (by its hash), and b's entry naming it.
  std::string text = text_of(b.string());
  const std::string line = input_line(text, path("src/b.cpp").string());
  ASSERT_FALSE(line.empty()) << text;
  std::string fifo_line = line;
  fifo_line.replace(fifo_line.rfind(path("src/b.cpp").string()), std::string::npos, pipe + "\n");
  const size_t name_at = text.find("\nblock ") + 7;
  const size_t name_end = text.find('\n', name_at);
  const std::string block =
      fifo_line + text_of((path("cache") / (text.substr(name_at, name_end - name_at) + ".block"))
                              .string());
  const std::string name = support::sha256_hex(block);
  write_file(path("cache") / (name + ".block"), block);
  write_file(b, text.replace(name_at, name_end - name_at, name));
  Result after = run();
  EXPECT_EQ(fifo.readers(), 0);
  EXPECT_EQ(after.files_parsed, 1u);
  EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
}

TEST_F(FragmentCacheTest, AnOversizedEntryIsAMiss) {
  run();
  const fs::path b = entry_with("\"b_out\"");
  // Valid but for its size: JSON ends in as much white space as it likes.
  std::ofstream(b, std::ios::binary | std::ios::app) << std::string((64 << 20) + 1, ' ');
  EXPECT_EQ(run().files_parsed, 1u);
  EXPECT_LT(fs::file_size(b), 1u << 20); // rewritten
  EXPECT_EQ(run().files_parsed, 0u);
}

TEST_F(FragmentCacheTest, HandEditedEntriesAreValidated) {
  Result cold = run();
  const fs::path b = entry_with("\"b_out\"");
  const std::string original = text_of(b.string());
  const std::string original_with_block = with_block(b);
  const size_t ir_at = original.find("\n---\n");
  ASSERT_NE(ir_at, std::string::npos);
  const std::string b_hash = support::sha256_hex(text_of(path("src/b.cpp").string()));
  auto replaced = [&](const std::string& from, const std::string& to, size_t after = 0) {
    std::string text = original;
    const size_t at = text.find(from, after);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  // Without the lines that name the files it was made from.
  std::string no_inputs;
  std::istringstream lines(original.substr(0, ir_at + 1));
  for (std::string line; std::getline(lines, line);) {
    if (!fs::is_regular_file(line.substr(line.rfind(' ') + 1)))
      no_inputs += line + "\n";
  }
  no_inputs += original.substr(ir_at + 1);
  const std::pair<const char*, std::string> cases[] = {
      // Nothing would say what it was made from.
      {"no inputs", no_inputs},
      // The IR's sources are among the inputs, with their hashes.
      {"the IR's source hash", replaced(b_hash, support::sha256_hex("other"), ir_at)},
      {"another source",
       replaced("source " + path("src/b.cpp").string(), "source " + path("src/a.cpp").string())},
      {"another key", replaced("key ", "key 0")},
      {"a hash that is not one", replaced("\ninput " + b_hash.substr(0, 8), "\ninput ABCDEFGH")},
      {"a control character in a path", replaced("src/b.cpp\n", "src/b.cpp\r\n")},
      {"an unknown line", replaced("\n---\n", "\nextra line\n---\n")},
      {"an old format", replaced("opscan-fragment-cache 6", "opscan-fragment-cache 5")},
      {"no block", replaced("\nblock ", "\nblock 0")},
      {"no IR", original.substr(0, ir_at + 5)},
  };
  for (const auto& [what, text] : cases) {
    SCOPED_TRACE(what);
    write_file(b, text);
    Result after = run();
    EXPECT_EQ(after.files_parsed, 1u);
    EXPECT_TRUE(after.diagnostics.empty()) << describe(after.diagnostics);
    EXPECT_EQ(ir::to_json(after.module, test_fields()), ir::to_json(cold.module, test_fields()));
    // The same, but for the stamps of inputs that have since become old
    // enough to record.
    EXPECT_EQ(without_stamps(with_block(b)), without_stamps(original_with_block));
  }
}

// The stamps (size, modification and change times) of settled inputs are
// recorded, and a no-change lookup trusts them without reading the file.
TEST_F(FragmentCacheTest, UnchangedStampsAreTrustedUnread) {
  run();
  // Inputs changed less than 2 s before they were looked at are not
  // recorded: a later change within the same timestamp tick could keep
  // the times. Every stamp recorded is older than that.
  const fs::path b = entry_with("\"b_out\"");
  for (const auto& [input, stamp] : stamps_of(with_block(b))) {
    if (stamp == "-")
      continue;
    const int64_t changed = std::stoll(stamp.substr(stamp.rfind(':') + 1));
    EXPECT_LE(changed + 2'000'000'000, modified_ns(b)) << input;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  Result settled = run(); // hashes them, and records their stamps
  EXPECT_EQ(settled.files_parsed, 0u);
  const std::string text = with_block(b);
  const auto stamps = stamps_of(text);
  ASSERT_TRUE(stamps.count(path("src/b.cpp").string()));
  EXPECT_NE(stamps.at(path("src/b.cpp").string()), "-");
  EXPECT_NE(stamps.at(path("src/h1.h").string()), "-");
  // A lookup now reads no input.
  const size_t key_at = text.find("\nkey ") + 5;
  FragmentCache cache(path("cache"), test_fields());
  auto hit = cache.lookup(text.substr(key_at, text.find('\n', key_at) - key_at),
                          path("src/b.cpp").string());
  EXPECT_TRUE(hit);
  EXPECT_EQ(cache.files_read(), 0u);
}

// An edit that keeps the size and sets the modification time back (touch
// -d, a tool restoring times) still changes the change time, which no user
// can set: the file is hashed, and its includers parsed again.
TEST_F(FragmentCacheTest, AnEditThatRestoresSizeAndModificationTimeIsSeen) {
  write("src/h1.h", kernel_file("h"));
  run();
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  run(); // stamps recorded
  struct stat before {};
  ASSERT_EQ(::stat(path("src/h1.h").c_str(), &before), 0);
  std::string text = text_of(path("src/h1.h").string());
  text.replace(text.find("t::h.out"), 8, "t::g.out");
  write("src/h1.h", text);
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path("src/h1.h").c_str(), times, 0), 0);
  struct stat after {};
  ASSERT_EQ(::stat(path("src/h1.h").c_str(), &after), 0);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  Result edited = run();
  EXPECT_EQ(edited.files_parsed, 2u); // a.cpp and b.cpp include h1.h
  EXPECT_TRUE(find_kernel(edited.module, "t::g.out"));
  EXPECT_FALSE(find_kernel(edited.module, "t::h.out"));
}

} // namespace
} // namespace opscan::scan
