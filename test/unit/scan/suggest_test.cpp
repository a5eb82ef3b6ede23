// suggest_kernels with the real libclang: which functions of a file would be
// kernels, the operator names derived for them, and that applying the
// suggested fix-its gives a file that scans to exactly those kernels.
#include "scan/clang.h"
#include "scan/extract.h"
#include "scan/flags.h"
#include "scan_test_helpers.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace opscan::scan {
namespace {

using namespace test_support;

const std::string kExecuTorchTypes =
    (kRepo / "examples/include/opscan_examples/executorch_types.h").string();
const std::string kAtenTypes = data_file("aten_types.h");

// The suggestions for `path`, parsed as a scan parses it.
std::vector<KernelSuggestion> suggestions_for(const std::string& path) {
  std::vector<std::string> args = {"-x", "c++", "-std=c++17"};
  add_scanning_arguments(args);
  Index index(clang_createIndex(0, 0));
  diag::Diagnostics diags;
  TranslationUnit tu =
      parse(index.get(), path, args,
            CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing, diags);
  EXPECT_TRUE(tu) << describe(diags);
  if (!tu)
    return {};
  const diag::Diagnostics errors = clang_errors(tu.get());
  EXPECT_TRUE(errors.empty()) << describe(errors);
  return suggest_kernels(tu.get(), path);
}

// "function -> op" for each suggestion.
std::vector<std::string> described(const std::vector<KernelSuggestion>& suggestions) {
  std::vector<std::string> out;
  for (const KernelSuggestion& s : suggestions)
    out.push_back(s.function + " -> " + s.op);
  return out;
}

// `path`'s text with every suggestion's fix-its applied at once (identical
// fix-its, such as the include each carries, are one edit).
std::string with_all_applied(const std::string& path,
                             const std::vector<KernelSuggestion>& suggestions) {
  std::vector<diag::FixIt> fixes;
  for (const KernelSuggestion& s : suggestions) {
    for (const diag::FixIt& f : s.fixits) {
      EXPECT_EQ(f.file, path);
      if (std::find(fixes.begin(), fixes.end(), f) == fixes.end())
        fixes.push_back(f);
    }
  }
  return applied(text_of(path), fixes);
}

// Scans `text` as `name` in a new directory, with opscan's include
// directory on the path: the suggested kernels, and nothing else, result.
void expect_scans_to(const std::string& name, const std::string& text,
                     const std::vector<KernelSuggestion>& suggestions) {
  TempDir dir;
  const Result result =
      scan_paths({dir.write(name, text)}, {"-std=c++17", "-I" + (kRepo / "include").string()});
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics) << text;
  std::vector<std::string> kernels;
  for (const ir::Kernel& k : result.module.kernels)
    kernels.push_back(k.cpp_function + " -> " + k.op.str());
  std::vector<std::string> expected = described(suggestions);
  std::sort(kernels.begin(), kernels.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(kernels, expected) << text;
}

const std::string kExecuTorchFile = R"cpp(// ExecuTorch-style kernels, not annotated yet.
#include ")cpp" + kExecuTorchTypes + R"cpp("

#include <cstdint>

namespace torch {
namespace executor {
namespace native {

Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out);

Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return out;
}

// Not kernels: no tensor, a refused type, static, inline, a template.
int64_t numel(int64_t rank);
Tensor& bad_out(const Tensor& self, int dim, Tensor& out);
static Tensor& hidden_out(const Tensor& self, Tensor& out) { return out; }
inline Tensor& inlined_out(const Tensor& self, Tensor& out) { return out; }
template <typename T>
Tensor& generic_out(const Tensor& self, Tensor& out);

struct Helper {
  Tensor& method_out(const Tensor& self, Tensor& out);
};

namespace {
Tensor& anonymous_out(const Tensor& self, Tensor& out);
}

// Written by a macro.
#define DECLARE_OUT(name) Tensor& name##_out(const Tensor& self, Tensor& out);
DECLARE_OUT(abs)

}  // namespace native
}  // namespace executor
}  // namespace torch

namespace custom {
using torch::executor::Tensor;

inline namespace v1 {
namespace detail {
  Tensor& my_op_out(const Tensor& self, double scale, Tensor& out);
}  // namespace detail
}  // namespace v1

[[nodiscard]] Tensor gelu(const Tensor& self);

extern "C" Tensor& c_neg_out(const Tensor& self, Tensor& out);

// Inference refuses it: two out tensors, one returned.
Tensor& split_out(const Tensor& self, Tensor& first, Tensor& second);
}  // namespace custom

// No namespace to name an operator by.
torch::executor::Tensor& global_out(const torch::executor::Tensor& self,
                                    torch::executor::Tensor& out);
)cpp";

TEST(SuggestKernels, ExecuTorchStyleFunctionsAndWhatIsNoKernel) {
  TempDir dir;
  const std::string path = dir.write("kernels.cpp", kExecuTorchFile);
  const std::vector<KernelSuggestion> suggestions = suggestions_for(path);
  EXPECT_EQ(described(suggestions), (std::vector<std::string>{
                                        "torch::executor::native::add_out -> aten::add.out",
                                        "torch::executor::native::relu_out -> aten::relu.out",
                                        "custom::v1::detail::my_op_out -> custom::my_op.out",
                                        "custom::gelu -> custom::gelu",
                                        "c_neg_out -> custom::c_neg.out",
                                    }));
  ASSERT_FALSE(suggestions.empty());
  // At the function's name.
  const LineColumn add = locate(path, "add_out(KernelRuntimeContext");
  EXPECT_EQ(suggestions[0].location.line, add.line);
  EXPECT_EQ(suggestions[0].location.column, add.column);
  EXPECT_EQ(suggestions[0].location.offset, add.offset);
}

TEST(SuggestKernels, FixItsAnnotateAndIncludeOnce) {
  TempDir dir;
  const std::string path = dir.write("kernels.cpp", kExecuTorchFile);
  const std::vector<KernelSuggestion> suggestions = suggestions_for(path);
  ASSERT_EQ(suggestions.size(), 5u);
  // The include, after the last #include (which the header included
  // first), first in every suggestion.
  const diag::FixIt include{path, locate(path, "\n\nnamespace torch").offset + 1, 0,
                            "#include <opscan/annotations.h>\n"};
  for (const KernelSuggestion& s : suggestions) {
    ASSERT_EQ(s.fixits.size(), 2u) << s.function;
    EXPECT_EQ(s.fixits[0], include);
  }
  // On a line of its own, indented like the declaration.
  EXPECT_EQ(suggestions[0].fixits[1], (diag::FixIt{path, locate(path, "Tensor& add_out").offset, 0,
                                                   "OPSCAN_KERNEL(\"aten::add.out\")\n"}));
  EXPECT_EQ(suggestions[2].fixits[1], (diag::FixIt{path, locate(path, "Tensor& my_op_out").offset,
                                                   0, "OPSCAN_KERNEL(\"custom::my_op.out\")\n  "}));
  // After C++11 attributes, which a GNU attribute may not precede, and
  // after extern "C".
  EXPECT_EQ(suggestions[3].fixits[1], (diag::FixIt{path, locate(path, "Tensor gelu").offset, 0,
                                                   "OPSCAN_KERNEL(\"custom::gelu\") "}));
  EXPECT_EQ(suggestions[4].fixits[1], (diag::FixIt{path, locate(path, "Tensor& c_neg_out").offset,
                                                   0, "OPSCAN_KERNEL(\"custom::c_neg.out\") "}));

  // All at once: one include, and the kernels suggested.
  const std::string text = with_all_applied(path, suggestions);
  EXPECT_EQ(text.find("#include <opscan/annotations.h>"),
            text.rfind("#include <opscan/annotations.h>"));
  expect_scans_to("kernels.cpp", text, suggestions);
  // Each alone, too.
  for (const KernelSuggestion& s : suggestions) {
    SCOPED_TRACE(s.function);
    expect_scans_to("kernels.cpp", with_all_applied(path, {s}), {s});
  }
}

TEST(SuggestKernels, AtenStyleNamespaceAndAnnotatedFunctions) {
  TempDir dir;
  const std::string path = dir.write("aten.cpp", R"cpp(#include ")cpp" + kAtenTypes + R"cpp("

namespace at {
namespace native {

at::Tensor& mul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out);

// Annotated here, or at a later declaration: already a kernel.
OPSCAN_KERNEL("aten::sub.out")
at::Tensor& sub_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out);
at::Tensor& div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out);
OPSCAN_KERNEL("aten::div.out")
at::Tensor& div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out);

// Declared twice: one suggestion, at the first.
at::Tensor sigmoid(const at::Tensor& self);
at::Tensor sigmoid(const at::Tensor& self);

// In-place.
at::Tensor& relu_(at::Tensor& self);

}  // namespace native
}  // namespace at
)cpp");
  const std::vector<KernelSuggestion> suggestions = suggestions_for(path);
  EXPECT_EQ(described(suggestions), (std::vector<std::string>{
                                        "at::native::mul_out -> aten::mul.out",
                                        "at::native::sigmoid -> aten::sigmoid",
                                        "at::native::relu_ -> aten::relu_",
                                    }));
  // The file includes the annotations: no include.
  for (const KernelSuggestion& s : suggestions)
    EXPECT_EQ(s.fixits.size(), 1u) << s.function;
  ASSERT_EQ(suggestions.size(), 3u);
  EXPECT_EQ(suggestions[1].location.line, locate(path, "at::Tensor sigmoid").line);

  // Applied, the file has the annotated kernels and the suggested ones.
  TempDir out;
  const Result result = scan_paths({out.write("aten.cpp", with_all_applied(path, suggestions))});
  EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
  EXPECT_EQ(schemas(result.module),
            (std::vector<std::string>{
                "aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                "aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                "aten::relu_(Tensor(a!) self) -> Tensor(a!)",
                "aten::sigmoid(Tensor self) -> Tensor",
                "aten::sub.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
            }));
}

TEST(SuggestKernels, FileWithoutIncludesGetsTheIncludeAtTheTop) {
  TempDir dir;
  const std::string path = dir.write("bare.cpp", R"cpp(namespace at {
class Tensor {};
}  // namespace at

namespace custom {
at::Tensor& fill_out(const at::Tensor& self, double value, at::Tensor& out);
}  // namespace custom
)cpp");
  const std::vector<KernelSuggestion> suggestions = suggestions_for(path);
  ASSERT_EQ(described(suggestions),
            (std::vector<std::string>{"custom::fill_out -> custom::fill.out"}));
  ASSERT_EQ(suggestions[0].fixits.size(), 2u);
  EXPECT_EQ(suggestions[0].fixits[0],
            (diag::FixIt{path, 0, 0, "#include <opscan/annotations.h>\n"}));
  expect_scans_to("bare.cpp", with_all_applied(path, suggestions), suggestions);
}

} // namespace
} // namespace opscan::scan
