// The executorch-aot target: ExecuTorch kernels registered with PyTorch's
// dispatcher, for exporting programs that use them (what ExecuTorch's
// gen_custom_ops_aot_lib builds). It takes the kernels the executorch
// target takes (a KernelRuntimeContext& first, then ExecuTorch's types) and
// generates what the torch target generates for a dispatcher kernel: the
// schemas of their namespaces, a wrapper per kernel with the dispatcher's
// C++ signature, registered under its operator and dispatch key (CPU unless
// the annotation says), eagerly or by a named function. The wrapper gives
// the kernel a fresh KernelRuntimeContext and, when the kernel failed it,
// raises PyTorch's error (c10::Error) naming the operator.
//
// Types. The library is compiled in ExecuTorch's ATen mode
// (-DUSE_ATEN_LIB=1), where executorch::aten's types are ATen's
// (executorch::aten::Tensor is at::Tensor, ArrayRef c10::ArrayRef, optional
// std::optional) and the context is executorch::runtime::aten::
// KernelRuntimeContext: the wrapper passes the dispatcher's values to the
// kernel as they are. A kernel scanned in ExecuTorch's normal mode has the
// portable types' canonical names (executorch::runtime::etensor::Tensor,
// executorch::runtime::ArrayRef); they are checked as the ATen types they
// name in ATen mode (etensor::Tensor is at::Tensor, the other etensor types
// c10's, ArrayRef c10::ArrayRef). A kernel scanned in ATen mode has the ATen
// names already. Either way the torch target's check follows: a schema type
// the dispatcher passes as another C++ type than ExecuTorch (Tensor?[]: a
// c10::List, not an ArrayRef; int[]?: an OptionalArrayRef) is refused, as
// are types the dispatcher has none of. The library is for libtorch 2
// (ExecuTorch needs it): c10::optional and c10::string_view are std's.
// Kernel keys (dtype-specialised kernels) are ExecuTorch's alone: the
// target does not read the field, so a kernel setting one is refused.
#include "emit/cpp.h"
#include "emit/target.h"
#include "emit/targets/executorch/conversions.h"
#include "emit/targets/torch/dispatcher.h"
#include "support/cpp_literal.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <set>
#include <string_view>

namespace opscan::emit {
namespace executorch_aot {
namespace {

using torch::HeaderTypes;
using torch::KernelCode;
using torch::Signature;

// The function every wrapper calls after its kernel: raises c10::Error when
// the kernel failed its context.
constexpr const char* kCheckContext = "check_kernel_context";

// The context type in either mode: ExecuTorch's exec_aten.h defines
// ET_RUNTIME_NAMESPACE (runtime::aten in ATen mode).
constexpr const char* kContextType = "::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext";

class ExecuTorchAotTarget final : public torch::DispatcherTarget {
public:
  std::string_view name() const override { return "executorch-aot"; }
  std::string_view description() const override {
    return "PyTorch's dispatcher, for export: ExecuTorch kernels compiled in ATen mode";
  }
  bool accepts(ir::ContextKind context) const override {
    return context == ir::ContextKind::runtime_context;
  }

protected:
  std::string unsupported_code() const override { return "opscan-executorch-aot-unsupported"; }
  HeaderTypes header_types(const ir::Module&) const override {
    return HeaderTypes(
        {{"c10::optional", "std::optional"}, {"c10::string_view", "std::basic_string_view<char>"}});
  }
  std::variant<KernelCode, Refusal> kernel_code(const ir::Kernel& kernel,
                                                const HeaderTypes& headers,
                                                std::set<std::string>& taken,
                                                size_t index) const override;
  std::string shared_definitions(const LibrarySpec& library) const override;
  std::vector<std::string> shared_names() const override { return {kCheckContext}; }
};

std::variant<KernelCode, Refusal> ExecuTorchAotTarget::kernel_code(const ir::Kernel& kernel,
                                                                   const HeaderTypes& headers,
                                                                   std::set<std::string>& taken,
                                                                   size_t index) const {
  if (kernel.context != ir::ContextKind::runtime_context) {
    return Refusal{"context", "the executorch-aot target registers ExecuTorch kernels, which take "
                              "'executorch::runtime::KernelRuntimeContext&' as their first "
                              "parameter"};
  }
  // The wrapper's body names these besides the kernel (qualified).
  const std::vector<std::string> locals = local_names(kernel, {"context", "result", kCheckContext});
  auto signed_ = torch::signature(executorch::in_aten_mode(kernel), headers, locals, name());
  if (auto* refusal = std::get_if<Refusal>(&signed_))
    return std::move(*refusal);
  const Signature& sig = std::get<Signature>(signed_);
  std::vector<std::string> args = {"context"}, declared = {std::string(kContextType) + "& context"};
  args.insert(args.end(), sig.args.begin(), sig.args.end());
  declared.insert(declared.end(), sig.declared.begin(), sig.declared.end());

  KernelCode code;
  code.wrapper_name = helper_name(kernel, taken, "wrap_");
  const std::string comment = support::cpp_comment(kernel.schema().str());
  const std::string call = fmt::format("::{}({})", kernel.cpp_function, fmt::join(args, ", "));
  const std::string check = fmt::format("{}(context, {}, {});\n", kCheckContext,
                                        support::cpp_string_literal(kernel.op.str()), index);
  const std::string body =
      kernel.returns.empty()
          ? fmt::format("  {};\n  {}", call, check)
          : fmt::format("  {} result = {};\n  {}  return result;\n", sig.ret, call, check);
  code.wrapper = fmt::format("{}\n{} {}({}) {{\n  {} context;\n{}}}\n", comment, sig.ret,
                             code.wrapper_name, fmt::join(sig.params, ", "), kContextType, body);
  code.declaration =
      fmt::format("{}\n{}\n", comment,
                  function_declaration(kernel, sig.ret,
                                       fmt::format("{}({})", unqualified(kernel.cpp_function),
                                                   fmt::join(declared, ", "))));
  return code;
}

std::string ExecuTorchAotTarget::shared_definitions(const LibrarySpec& library) const {
  return fmt::format(
      "// Raises PyTorch's error, naming the operator and its kernel, when kernel\n"
      "// `index` of operator `op` failed its context: ExecuTorch kernels report\n"
      "// errors there rather than by throwing.\n"
      "void {}(const {}& context, const char* op, ::std::size_t index) {{\n"
      "  const ::executorch::runtime::Error error = context.failure_state();\n"
      "  TORCH_CHECK(error == ::executorch::runtime::Error::Ok, op, \": the ExecuTorch kernel \",\n"
      "              {}[index], \" failed its KernelRuntimeContext with error \",\n"
      "              static_cast<int>(error));\n"
      "}}\n",
      kCheckContext, kContextType, sources_table(library));
}

} // namespace
} // namespace executorch_aot

std::shared_ptr<const Target> make_executorch_aot_target() {
  return std::make_shared<executorch_aot::ExecuTorchAotTarget>();
}

} // namespace opscan::emit
