// emit::generate and emit::list_outputs (emit/generate.h): the checks every
// generation passes, whatever its target, and what it returns; and
// emit::write_outputs.
#include "emit_test_helpers.h"
#include "files.h"
#include "support/files.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace emit_test;
using ir::ContextKind;
using ir::Registration;
using opscan::testing::TempDir;

const std::vector<Registration> kModes = {Registration::static_init, Registration::manual,
                                          Registration::named};

// A valid one-kernel module for each built-in target.
ir::Module valid_for(const std::string& target) {
  if (target == "torch-stable") {
    const std::string tensor = "torch::stable::Tensor";
    return module_of(
        {kernel("my_ops::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "s::neg_out",
                ir::ContextKind::none, {"const " + tensor + " &", tensor + " &"}, tensor + " &")});
  }
  return module_of({target == "torch" ? torch_neg_out() : et_neg_out()});
}

// A sink that records the files a target writes and how often it rendered.
class Recording final : public emit::OutputSink {
public:
  explicit Recording(bool render) : render_(render) {}
  void file(std::string path, emit::OutputKind kind,
            const std::function<std::string()>& render) override {
    files.push_back({std::move(path), kind, render_ ? render() : ""});
    renders += render_;
  }
  std::vector<emit::OutputFile> files;
  size_t renders = 0;

private:
  bool render_;
};

// What `target` lists for `library`: the files it writes for `module` (by
// default no kernels) through a sink that never renders.
std::vector<emit::OutputFile> listed(const emit::Target& target, const emit::LibrarySpec& library,
                                     const ir::Module& module = {}, const emit::Options& o = {}) {
  diag::Diagnostics diags;
  ir::Locator locator;
  emit::Problems problems(locator, diags);
  Recording sink(false);
  target.generate(module, library, o, problems, sink);
  EXPECT_TRUE(diags.empty()) << dump(diags);
  return sink.files;
}

// ===== The target ===========================================================

TEST(GenerateTarget, AnUnknownTargetListsTheRegisteredOnes) {
  emit::Options o = options("tflite");
  emit::Output output = generate(valid_for("executorch"), o);
  ASSERT_EQ(output.diagnostics.size(), 1u) << dump(output.diagnostics);
  EXPECT_EQ(output.diagnostics[0].code, "opscan-unknown-target");
  EXPECT_EQ(output.diagnostics[0].message,
            "unknown target 'tflite' (targets: executorch, executorch-aot, torch, torch-stable)");
  EXPECT_TRUE(output.files.empty());
  EXPECT_EQ(output.symbols.registration_function, "");

  emit::OutputList list = emit::list_outputs(o, emit::builtin_targets());
  EXPECT_EQ(list.diagnostics, output.diagnostics);
  EXPECT_TRUE(list.files.empty());

  // A name that could garble the message is quoted with escapes.
  o.target = "tf\nlite";
  output = generate(valid_for("executorch"), o);
  ASSERT_EQ(output.diagnostics.size(), 1u);
  EXPECT_EQ(
      output.diagnostics[0].message,
      "unknown target 'tf\\nlite' (targets: executorch, executorch-aot, torch, torch-stable)");
}

TEST(GenerateTarget, AFieldDefaultTheTargetDoesNotReadIsRefused) {
  emit::Options o = options("executorch");
  o.field_defaults["dispatch_key"] = "CUDA";
  emit::Output output = generate(valid_for("executorch"), o);
  ASSERT_EQ(output.diagnostics.size(), 1u) << dump(output.diagnostics);
  EXPECT_EQ(output.diagnostics[0].code, "opscan-unsupported-field");
  EXPECT_FALSE(output.diagnostics[0].location.valid());
  EXPECT_EQ(output.diagnostics[0].message, "a default dispatch_key ('CUDA') is given, but the "
                                           "executorch target reads no dispatch_key");
  EXPECT_TRUE(output.files.empty());
  EXPECT_EQ(emit::list_outputs(o, emit::builtin_targets()).diagnostics, output.diagnostics);

  o = options("torch", "lib");
  o.field_defaults["kernel_key"] = "v1/6;0|6;0";
  output = generate(valid_for("torch"), o);
  EXPECT_EQ(codes(output.diagnostics), (std::vector<std::string>{"opscan-unsupported-field"}));
}

TEST(GenerateTarget, AnOptionTheTargetDoesNotReadIsRefusedNamingItsTargets) {
  struct Case {
    std::string target;
    std::function<void(emit::Options&)> set;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"torch", [](emit::Options& o) { o.aten_mode = true; },
            "--use-aten-lib is given, but the torch target has no such option (it is for: "
            "executorch)"},
           {"executorch-aot", [](emit::Options& o) { o.exception_boundary = true; },
            "--exception-boundary is given, but the executorch-aot target has no such option "
            "(it is for: executorch)"},
           {"executorch", [](emit::Options& o) { o.torch_target_version = "2.10"; },
            "--torch-target-version is given, but the executorch target has no such option (it "
            "is for: torch-stable)"},
       }) {
    SCOPED_TRACE(c.target);
    emit::Options o = options(c.target);
    c.set(o);
    emit::Output output = generate(valid_for(c.target), o);
    ASSERT_EQ(output.diagnostics.size(), 1u) << dump(output.diagnostics);
    EXPECT_EQ(output.diagnostics[0].code, "opscan-unsupported-option");
    EXPECT_EQ(output.diagnostics[0].message, c.message);
    EXPECT_TRUE(output.files.empty());
  }
  // Where they are read, they are no error.
  emit::Options aten = options("executorch");
  aten.aten_mode = aten.exception_boundary = true;
  EXPECT_TRUE(generate(valid_for("executorch"), aten).diagnostics.empty());
}

TEST(GenerateTarget, ADefaultOfAFieldItReadsAppliesToKernelsWithoutOne) {
  emit::Options o = options("executorch");
  o.field_defaults["kernel_key"] = "v1/6;0|6;0";
  ir::Kernel keyed = et_neg_out();
  keyed.cpp_function = "k::neg_out_int";
  keyed.usr += "_int";
  keyed.set_field("kernel_key", "v1/3;0|3;0");
  emit::Output output = generate(module_of({et_neg_out(), keyed}), o);
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  ASSERT_EQ(output.module.kernels.size(), 2u);
  EXPECT_EQ(output.module.kernels[0].field("kernel_key"), "v1/3;0|3;0");
  EXPECT_EQ(output.module.kernels[1].field("kernel_key"), "v1/6;0|6;0");
  EXPECT_TRUE(contains(file(output, "mine/RegisterKernels.cpp"),
                       "Kernel(\"demo::neg.out\", \"v1/6;0|6;0\", "));
}

// ===== The library name ======================================================

TEST(GenerateLibraryName, AnInvalidNameGeneratesNothingAndChecksNothingElse) {
  struct Case {
    std::string library, code;
  };
  ir::Kernel bad = et_neg_out();
  bad.context = ContextKind::none; // not reported: the name stops everything
  for (const Case& c : std::vector<Case>{{"foo-bar", "opscan-libname-invalid"},
                                         {"for", "opscan-libname-invalid"},
                                         {"all", "opscan-libname-all"},
                                         {"", "opscan-libname-empty"},
                                         {"_x", "opscan-libname-symbol"},
                                         {"x_", "opscan-libname-symbol"}}) {
    for (std::string target : {"executorch", "executorch-aot", "torch", "torch-stable"}) {
      SCOPED_TRACE(target + " " + c.library);
      emit::Options o = options(target, c.library);
      emit::Output output = generate(module_of({bad}), o);
      EXPECT_TRUE(diag::has_errors(output.diagnostics));
      std::vector<std::string> found = codes(output.diagnostics);
      EXPECT_NE(std::find(found.begin(), found.end(), c.code), found.end())
          << dump(output.diagnostics);
      for (const std::string& code : found)
        EXPECT_TRUE(code.starts_with("opscan-libname-") || code.starts_with("opscan-ident-"))
            << code;
      EXPECT_TRUE(output.files.empty());
      EXPECT_EQ(output.symbols.registration_function, "");
      EXPECT_EQ(output.symbols.link_anchor, "");

      emit::OutputList list = emit::list_outputs(o, emit::builtin_targets());
      EXPECT_EQ(list.diagnostics, output.diagnostics);
      EXPECT_TRUE(list.files.empty());
    }
  }
}

TEST(GenerateLibraryName, WarningsAboutTheNameDoNotStopGeneration) {
  emit::Output output = generate(valid_for("executorch"), options("executorch", "final"));
  ASSERT_FALSE(output.diagnostics.empty());
  EXPECT_FALSE(diag::has_errors(output.diagnostics)) << dump(output.diagnostics);
  EXPECT_EQ(output.symbols.registration_function, "torch::executor::register_final_kernels");
  EXPECT_EQ(output.files.size(), 8u);
}

// ===== Kernels ==============================================================

TEST(GenerateKernels, NoKernelsIsAnError) {
  for (std::string target : {"executorch", "executorch-aot", "torch", "torch-stable"}) {
    emit::Output output = generate(module_of({}), options(target));
    ASSERT_EQ(output.diagnostics.size(), 1u) << dump(output.diagnostics);
    EXPECT_EQ(output.diagnostics[0].code, "opscan-no-kernels");
    EXPECT_EQ(output.diagnostics[0].message, "no annotated kernels found: nothing to register "
                                             "(annotate kernels with OPSCAN_KERNEL)");
    EXPECT_TRUE(output.files.empty());
  }
}

// Every problem of every kernel is reported at once, in source order
// whatever the order of the module, and nothing is generated.
TEST(GenerateKernels, AllProblemsInSourceOrder) {
  ir::Kernel no_context = at(et_neg_out(), 5, "b.cpp");
  no_context.context = ContextKind::none;
  ir::Kernel dispatch =
      at(et_kernel("demo::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "k::abs_out"), 9,
         "a.cpp");
  dispatch.set_field("dispatch_key", "CPU");
  ir::Kernel bad_type =
      at(kernel("demo::sum(Tensor self) -> str", "k::sum", ContextKind::runtime_context,
                {"const " + kEtTensor + " &"}, "std::basic_string_view<char>"),
         2, "a.cpp");
  ir::Kernel bad_key = at(et_kernel("demo::max(Tensor self) -> Tensor", "k::max"), 1, "c.cpp");
  bad_key.set_field("kernel_key", "v1/x");
  emit::Output output =
      generate(module_of({no_context, bad_key, dispatch, bad_type}), options("executorch"));
  EXPECT_EQ(codes(output.diagnostics),
            (std::vector<std::string>{"opscan-executorch-unsupported", "opscan-unsupported-field",
                                      "opscan-executorch-unsupported", "opscan-kernel-key"}))
      << dump(output.diagnostics);
  std::vector<diag::Location> where;
  for (const diag::Diagnostic& d : output.diagnostics)
    where.push_back(d.location);
  EXPECT_EQ(where, (std::vector<diag::Location>{bad_type.location, dispatch.location,
                                                no_context.location, bad_key.location}));
  EXPECT_TRUE(output.files.empty());
}

// A duplicate in an IR file: at the later kernel's JSON value, with notes at
// the first kernel and at the later one's source.
TEST(GenerateKernels, ADuplicateInAnIrFileIsLocatedThere) {
  ir::Kernel first = at(torch_neg_out(), 3);
  ir::Kernel second = at(torch_neg_out(), 9);
  second.cpp_function = "t::again";
  second.usr += "_again";
  FromIr in = from_ir(module_of({first, second}));
  emit::Output output = generate(in, options("torch", "lib"));
  ASSERT_EQ(output.diagnostics.size(), 1u) << dump(output.diagnostics);
  const diag::Diagnostic& d = output.diagnostics[0];
  EXPECT_EQ(d.code, "opscan-duplicate-kernel");
  EXPECT_EQ(d.location, in.positions.at("kernels[1]"));
  EXPECT_EQ(d.message, "kernels[1]: two kernels for my_ops::neg.out (dispatch key CPU): "
                       "'t::my_ops_neg_out' and 't::again'; the torch target registers one "
                       "kernel there");
  EXPECT_EQ(d.notes,
            (std::vector<diag::Note>{{"'t::my_ops_neg_out' is annotated here", first.location},
                                     {"'t::again' is declared here", second.location}}));
}

// ===== Results ==============================================================

TEST(GenerateResult, FilesAreTheTargetsOutputsThenTheLibraryIr) {
  for (std::string target : {"executorch", "executorch-aot", "torch", "torch-stable"}) {
    for (Registration mode : kModes) {
      if (!emit::builtin_targets().find(target)->accepts(mode))
        continue;
      for (std::optional<std::string> library :
           {std::optional<std::string>("lib"), std::optional<std::string>()}) {
        SCOPED_TRACE(target + " " + std::string(ir::to_string(mode)) + " " +
                     library.value_or("(unnamed)"));
        emit::Output output = generate(valid_for(target), options(target, library, mode));
        ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
        const std::string name = library.value_or("all");
        EXPECT_EQ(output.library.name, name);
        EXPECT_EQ(output.library.registration, mode);
        std::vector<emit::OutputFile> expected =
            listed(*emit::builtin_targets().find(target), output.library);
        expected.push_back({name + "/ir.json", emit::OutputKind::data, ""});
        ASSERT_EQ(paths(output.files), paths(expected));
        for (size_t i = 0; i < expected.size(); ++i) {
          EXPECT_EQ(output.files[i].kind, expected[i].kind) << expected[i].path;
          EXPECT_FALSE(output.files[i].content.empty()) << expected[i].path;
          EXPECT_TRUE(output.files[i].path.starts_with(name + "/"));
        }
      }
    }
  }
}

TEST(GenerateResult, TheLibraryIrRecordsTheLibraryAndTheResolvedFields) {
  ir::Module in = module_of({torch_neg_out("zz_ops"), torch_neg_out("aa_ops")});
  in.library = ir::LibraryInfo{"old", Registration::named, "executorch", "x", ""};
  in.generator = "opscan 0.0.1";
  emit::Output output = generate(in, options("torch", "lib", Registration::static_init));
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  const ir::Module& library = output.module;
  EXPECT_EQ(library.library, (ir::LibraryInfo{"lib", Registration::static_init, "torch", "",
                                              "opscan_static_registration_lib"}));
  EXPECT_EQ(library.generator, "opscan test");
  // In canonical order, with the default dispatch key.
  ASSERT_EQ(library.kernels.size(), 2u);
  EXPECT_EQ(library.kernels[0].op.ns, "aa_ops");
  EXPECT_EQ(library.kernels[0].field("dispatch_key"), "CPU");
  EXPECT_EQ(library.kernels[1].field("dispatch_key"), "CPU");
  EXPECT_TRUE(ir::is_canonical(library));

  // ir.json holds exactly that, and reads back as it.
  EXPECT_EQ(file(output, "lib/ir.json"), ir::to_json(library, test_fields()));
  ir::ReadResult read = ir::from_json(file(output, "lib/ir.json"), "lib/ir.json", test_fields());
  ASSERT_TRUE(read.module.has_value()) << dump(read.diagnostics);
  EXPECT_EQ(*read.module, library);

  output = generate(valid_for("executorch"), options("executorch", "mine", Registration::named));
  EXPECT_EQ(output.module.library, (ir::LibraryInfo{"mine", Registration::named, "executorch",
                                                    "torch::executor::register_mine_kernels", ""}));
  EXPECT_EQ(output.module.library->function, output.symbols.registration_function);
}

// Regenerating from a library's own IR gives the same files.
TEST(GenerateResult, ALibraryIrRegeneratesItsFiles) {
  for (std::string target : {"executorch", "executorch-aot", "torch", "torch-stable"}) {
    // torch-stable has no manual mode.
    emit::Options o = options(
        target, "lib", target == "torch-stable" ? Registration::named : Registration::manual);
    emit::Output first = generate(valid_for(target), o);
    ASSERT_TRUE(first.diagnostics.empty()) << dump(first.diagnostics);
    FromIr in = from_ir(first.module);
    emit::Output again = generate(in, o);
    ASSERT_TRUE(again.diagnostics.empty()) << dump(again.diagnostics);
    ASSERT_EQ(paths(again.files), paths(first.files));
    for (size_t i = 0; i < first.files.size(); ++i)
      EXPECT_EQ(again.files[i].content, first.files[i].content) << first.files[i].path;
  }
}

TEST(GenerateResult, OutputDoesNotDependOnTheOrderOfTheKernels) {
  std::vector<ir::Kernel> et = {
      at(et_neg_out(), 4),
      at(et_kernel("demo::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "k::abs_out"), 9,
         "b.cpp"),
      at(et_kernel("aten::add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                   "k::add_out"),
         2, "c.cpp")};
  std::vector<ir::Kernel> pt = {at(torch_neg_out("b_ops"), 4), at(torch_neg_out("a_ops"), 8),
                                at(torch_neg_out("aten"), 1)};
  pt[2].set_field("dispatch_key", "CUDA");
  for (auto& [target, kernels] :
       {std::pair{std::string("executorch"), et}, std::pair{std::string("torch"), pt}}) {
    std::vector<ir::Kernel> order = kernels;
    std::sort(order.begin(), order.end(),
              [](const ir::Kernel& a, const ir::Kernel& b) { return a.usr < b.usr; });
    const emit::Output reference = generate(module_of(order), options(target));
    ASSERT_TRUE(reference.diagnostics.empty()) << dump(reference.diagnostics);
    size_t permutations = 0;
    do {
      emit::Output output = generate(module_of(order), options(target));
      ASSERT_EQ(output.files.size(), reference.files.size());
      for (size_t i = 0; i < output.files.size(); ++i)
        EXPECT_EQ(output.files[i].content, reference.files[i].content) << output.files[i].path;
      ++permutations;
    } while (std::next_permutation(
        order.begin(), order.end(),
        [](const ir::Kernel& a, const ir::Kernel& b) { return a.usr < b.usr; }));
    EXPECT_EQ(permutations, 6u);
  }
}

// ===== list_outputs ==========================================================

TEST(ListOutputs, WhatGenerateWritesWithoutAnyInput) {
  for (std::string target : {"executorch", "executorch-aot", "torch", "torch-stable"}) {
    for (Registration mode : kModes) {
      if (!emit::builtin_targets().find(target)->accepts(mode))
        continue;
      for (std::optional<std::string> library :
           {std::optional<std::string>("lib"), std::optional<std::string>()}) {
        SCOPED_TRACE(target + " " + std::string(ir::to_string(mode)));
        emit::Options o = options(target, library, mode);
        emit::OutputList list = emit::list_outputs(o, emit::builtin_targets());
        emit::Output output = generate(valid_for(target), o);
        ASSERT_TRUE(list.diagnostics.empty()) << dump(list.diagnostics);
        EXPECT_EQ(list.library.name, output.library.name);
        EXPECT_EQ(list.library.registration, output.library.registration);
        EXPECT_EQ(list.symbols.registration_function, output.symbols.registration_function);
        EXPECT_EQ(list.symbols.link_anchor, output.symbols.link_anchor);
        ASSERT_EQ(paths(list.files), paths(output.files));
        for (size_t i = 0; i < list.files.size(); ++i) {
          EXPECT_EQ(list.files[i].kind, output.files[i].kind);
          EXPECT_EQ(list.files[i].content, "");
        }
      }
    }
  }
}

// ===== Templates =============================================================

TEST(GenerateTemplates, AnOverrideDirectoryReplacesOnlyTheTemplatesItHas) {
  TempDir dir; // of override templates
  dir.write("executorch/Functions.h", "// mine for ${library}\n${functions}\n");
  emit::Options o = options("executorch");
  o.templates_dir = dir.path().string();
  emit::Output output = generate(valid_for("executorch"), o);
  ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);
  EXPECT_TRUE(file(output, "mine/Functions.h").starts_with("// mine for mine\nnamespace "))
      << file(output, "mine/Functions.h");
  EXPECT_EQ(
      file(output, "mine/NativeFunctions.h"),
      file(generate(valid_for("executorch"), options("executorch")), "mine/NativeFunctions.h"));
}

TEST(GenerateTemplates, TemplateErrorsGenerateNothing) {
  TempDir dir; // of override templates
  dir.write("torch/RegisterKernels.h", "ok\n  ${nope}\n");
  dir.write("executorch/NativeFunctions.h", "x\n${declarations\n");
  for (std::string target : {"executorch", "torch"}) {
    SCOPED_TRACE(target);
    emit::Options o = options(target);
    o.templates_dir = dir.path().string();
    emit::Output output = generate(valid_for(target), o);
    ASSERT_EQ(output.diagnostics.size(), 1u) << dump(output.diagnostics);
    const diag::Diagnostic& d = output.diagnostics[0];
    EXPECT_EQ(d.code, "opscan-template");
    EXPECT_EQ(d.location.line, 2u);
    if (target == "torch") {
      EXPECT_EQ(d.location.file, dir.file("torch/RegisterKernels.h"));
      EXPECT_EQ(d.location.column, 3u);
      EXPECT_EQ(d.message, "no value for '${nope}'");
    } else {
      EXPECT_EQ(d.location.file, dir.file("executorch/NativeFunctions.h"));
    }
    EXPECT_TRUE(output.files.empty());
  }
}

// ===== The sink ==============================================================

TEST(GenerateSink, ListingReadsNoTemplate) {
  for (std::string target : emit::builtin_targets().names()) {
    SCOPED_TRACE(target);
    // Every template of the target broken.
    TempDir dir; // of override templates
    emit::Options o = options(target);
    emit::OutputList plain = emit::list_outputs(o, emit::builtin_targets());
    ASSERT_TRUE(plain.diagnostics.empty()) << dump(plain.diagnostics);
    for (const emit::OutputFile& f : plain.files) {
      if (!f.path.ends_with("/ir.json"))
        dir.write(target + "/" + f.path.substr(f.path.rfind('/') + 1), "${broken\n");
    }
    o.templates_dir = dir.path().string();

    emit::OutputList list = emit::list_outputs(o, emit::builtin_targets());
    EXPECT_TRUE(list.diagnostics.empty()) << dump(list.diagnostics);
    EXPECT_EQ(paths(list.files), paths(plain.files));

    // A generation reads them: one error for each of the target's files.
    emit::Output output = generate(valid_for(target), o);
    EXPECT_EQ(codes(output.diagnostics),
              std::vector<std::string>(plain.files.size() - 1, "opscan-template"));
    EXPECT_TRUE(output.files.empty());
  }
}

// The run-time check that a target writes what it lists, as a test: in every
// mode it has, listing (of no kernels or of a library's) records the names
// and kinds a generation renders, in its order.
TEST(GenerateSink, ATargetListsWhatItGenerates) {
  ASSERT_EQ(emit::builtin_targets().names(),
            (std::vector<std::string>{"executorch", "executorch-aot", "torch", "torch-stable"}));
  for (std::string name : emit::builtin_targets().names()) {
    const emit::Target& target = *emit::builtin_targets().find(name);
    for (Registration mode : kModes) {
      if (!target.accepts(mode))
        continue;
      SCOPED_TRACE(name + " " + std::string(ir::to_string(mode)));
      emit::Options o = options(name, "lib", mode);
      emit::Output output = generate(valid_for(name), o);
      ASSERT_TRUE(output.diagnostics.empty()) << dump(output.diagnostics);

      diag::Diagnostics diags;
      ir::Locator locator;
      emit::Problems problems(locator, diags);
      Recording rendering(true);
      target.generate(output.module, output.library, o, problems, rendering);
      ASSERT_TRUE(diags.empty()) << dump(diags);
      EXPECT_EQ(rendering.renders, rendering.files.size());
      output.files.pop_back(); // the library IR, which emit::generate adds
      ASSERT_EQ(paths(rendering.files), paths(output.files));
      for (size_t i = 0; i < output.files.size(); ++i) {
        EXPECT_EQ(rendering.files[i].kind, output.files[i].kind);
        EXPECT_EQ(rendering.files[i].content, output.files[i].content);
      }

      for (const ir::Module& module : {ir::Module{}, output.module}) {
        std::vector<emit::OutputFile> list = listed(target, output.library, module, o);
        ASSERT_EQ(paths(list), paths(output.files));
        for (size_t i = 0; i < list.size(); ++i) {
          EXPECT_EQ(list[i].kind, output.files[i].kind) << list[i].path;
          EXPECT_EQ(list[i].content, "");
        }
      }
    }
  }
}

// ===== write_outputs =========================================================

TEST(WriteOutputs, WritesOnlyWhatChanged) {
  TempDir tmp;
  const std::filesystem::path dir = tmp.path() / "out"; // made by write_outputs
  using emit::OutputKind;
  auto first = emit::write_outputs(
      dir, {{"l/a.h", OutputKind::header, "a\n"}, {"l/b.h", OutputKind::header, "b\n"}});
  EXPECT_TRUE(first.diagnostics.empty());
  EXPECT_EQ(first.written, (std::vector<std::string>{"l/a.h", "l/b.h"}));
  EXPECT_TRUE(first.unchanged.empty());

  auto second = emit::write_outputs(
      dir, {{"l/a.h", OutputKind::header, "a\n"}, {"l/b.h", OutputKind::header, "B\n"}});
  EXPECT_EQ(second.written, (std::vector<std::string>{"l/b.h"}));
  EXPECT_EQ(second.unchanged, (std::vector<std::string>{"l/a.h"}));
  EXPECT_EQ(opscan::support::read_file(dir / "l/b.h"), "B\n");
  EXPECT_EQ(opscan::support::read_file(dir / "l/a.h"), "a\n");

  // A path that cannot be written is an error naming the file in the way,
  // and nothing is written: c.h is not created.
  auto third = emit::write_outputs(
      dir, {{"l/c.h", OutputKind::header, "c\n"}, {"l/a.h/x.h", OutputKind::header, "x\n"}});
  ASSERT_EQ(third.diagnostics.size(), 1u);
  EXPECT_EQ(third.diagnostics[0].code, "opscan-io");
  EXPECT_EQ(third.diagnostics[0].location.file, (dir / "l/a.h").string());
  EXPECT_EQ(third.diagnostics[0].message, "cannot write " + (dir / "l/a.h").string() +
                                              ": Not a directory (no output was changed)");
  EXPECT_TRUE(third.written.empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "l/c.h"));
}

TEST(WriteOutputs, WritesAGeneratedLibrary) {
  TempDir tmp;
  const std::filesystem::path dir = tmp.path() / "out"; // made by write_outputs
  emit::Output output = generate(valid_for("torch"), options("torch", "lib"));
  auto report = emit::write_outputs(dir, output.files);
  EXPECT_TRUE(report.diagnostics.empty());
  EXPECT_EQ(report.written, paths(output.files));
  for (const emit::OutputFile& f : output.files)
    EXPECT_EQ(opscan::support::read_file(dir / f.path), f.content) << f.path;
  report = emit::write_outputs(dir, output.files);
  EXPECT_TRUE(report.written.empty());
  EXPECT_EQ(report.unchanged, paths(output.files));
}

} // namespace
