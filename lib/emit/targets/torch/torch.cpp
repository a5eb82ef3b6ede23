// The torch target: wrappers with the dispatcher's C++ signatures, schema
// definitions for custom namespaces, and registration with PyTorch's
// dispatcher, eager (static blocks) or deferred (a named function). A
// kernel is registered under its operator and dispatch key. What it shares
// with the other dispatcher targets is in dispatcher.h.
#include "emit/cpp.h"
#include "emit/target.h"
#include "emit/targets/torch/dispatcher.h"
#include "support/cpp_literal.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <set>

namespace opscan::emit {
namespace torch {
namespace {

class TorchTarget final : public DispatcherTarget {
public:
  std::string_view name() const override { return "torch"; }
  std::string_view description() const override {
    return "PyTorch's dispatcher: wrappers with its C++ signatures, per dispatch key";
  }
  bool accepts(ir::ContextKind context) const override {
    return context != ir::ContextKind::runtime_context;
  }

protected:
  std::string unsupported_code() const override { return "opscan-torch-unsupported"; }
  HeaderTypes header_types(const ir::Module& module) const override {
    return HeaderTypes(module.aliases);
  }
  std::variant<KernelCode, Refusal> kernel_code(const ir::Kernel& kernel,
                                                const HeaderTypes& headers,
                                                std::set<std::string>& taken,
                                                size_t index) const override;
};

std::variant<KernelCode, Refusal> TorchTarget::kernel_code(const ir::Kernel& kernel,
                                                           const HeaderTypes& headers,
                                                           std::set<std::string>& taken,
                                                           size_t) const {
  if (kernel.context == ir::ContextKind::runtime_context) {
    return Refusal{"context", "takes ExecuTorch's KernelRuntimeContext first; kernels for "
                              "PyTorch's dispatcher take c10::DispatchKeySet first, or nothing"};
  }
  // The wrapper's own parameter: no local may hide it.
  auto signed_ = signature(kernel, headers, local_names(kernel, {"keys"}), name());
  if (auto* refusal = std::get_if<Refusal>(&signed_))
    return std::move(*refusal);
  const Signature& sig = std::get<Signature>(signed_);
  KernelCode code;
  code.wrapper_name = helper_name(kernel, taken, "wrap_");
  const std::string comment = support::cpp_comment(kernel.schema().str());
  code.wrapper =
      fmt::format("{}\n{} {}({}) {{\n  return ::{}({});\n}}\n", comment, sig.ret, code.wrapper_name,
                  fmt::join(sig.params, ", "), kernel.cpp_function, fmt::join(sig.args, ", "));
  code.declaration =
      fmt::format("{}\n{}\n", comment,
                  function_declaration(kernel, sig.ret,
                                       fmt::format("{}({})", unqualified(kernel.cpp_function),
                                                   fmt::join(sig.declared, ", "))));
  return code;
}

} // namespace
} // namespace torch

std::shared_ptr<const Target> make_torch_target() {
  return std::make_shared<torch::TorchTarget>();
}

} // namespace opscan::emit
