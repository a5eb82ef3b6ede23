// What every target registering kernels with PyTorch's dispatcher shares:
// the dispatcher's C++ types for schema types, the dispatch key field, the
// wrappers' signatures, and the library itself (schema definitions, impl
// lines, static blocks or a named registration function). The torch target
// is one such target; executorch-aot (lib/emit/targets/executorch_aot/),
// which registers ExecuTorch kernels compiled in ATen mode, is another;
// torch-stable (lib/emit/targets/torch_stable/), which registers through
// the stable ABI's C shim, shares the field, identity, claims and text.
// Private to lib/emit/targets.
#pragma once

#include "emit/cpp.h"
#include "emit/target.h"
#include "schema/schema.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace opscan::emit::torch {

// How the dispatcher passes a schema type (argument or return): the C++
// value type (spelled from the global namespace), how it is passed, and the
// canonical type libclang reports for it (without reference and const).
struct TorchType {
  std::string value;
  Passing passing = Passing::value;
  std::string canonical;
  std::string spelled() const { return declare(value, passing); }
};

// What the libtorch headers the kernels were scanned against make of the
// names the dispatcher's types are spelled with (ir::Module::aliases):
// libtorch 1.13 defines c10::optional and c10::basic_string_view itself;
// libtorch 2 makes them std::optional and std::string_view.
struct HeaderTypes {
  std::string optional = "c10::optional";
  std::string string_view = "c10::basic_string_view<char>";

  explicit HeaderTypes(const std::map<std::string, std::string>& aliases);
};

// The dispatcher's C++ type of a schema type, or nullopt when it has none
// the targets generate.
std::optional<TorchType> torch_type(const schema::Type& type, bool is_return,
                                    const HeaderTypes& headers);

// The IR key of the field `dispatch = "CUDA"`: the dispatch key a kernel
// registers under (CPU unless it says).
inline constexpr const char* kDispatchKeyField = "dispatch_key";
ir::Field dispatch_key_field();

// A warning (opscan-dispatch-without-tensor) when `kernel` takes no tensor
// and registers under a key the dispatcher finds only in a call's tensors
// (CPU, CUDA, ...): a boxed call (every call from Python) then fails with
// "There were no tensor arguments to this function". The Composite keys
// and BackendSelect serve calls without tensors.
void warn_if_no_tensor_dispatch(const ir::Kernel& kernel, Problems& problems);

// A kernel's registration: its operator under its dispatch key.
std::string dispatcher_identity(const ir::Kernel& kernel);

// Whether a library registering `kernel` defines its schema: aten's
// operators are libtorch's own.
bool defines_schema(const ir::Kernel& kernel);

// `claimed` and, for an operator the library defines, its schema: the
// dispatcher takes one definition of each.
std::vector<Target::Claim> with_schema_claim(const ir::Kernel& kernel,
                                             std::vector<Target::Claim> claimed);

// Each line of each item, indented.
std::string indented(const std::vector<std::string>& items, const char* indent);

// RegisterKernels.h's text in static mode, where there is nothing to call.
std::string static_registration_note(const LibrarySpec& library, const Symbols& symbols);

// The dispatcher's C++ signature of a kernel's operator, and the kernel's
// parameters as NativeFunctions.h declares them.
struct Signature {
  std::string ret = "void";          // "::at::Tensor&", "::std::tuple<...>"
  std::vector<std::string> params;   // the wrapper's: "const ::at::Tensor& self"
  std::vector<std::string> args;     // what the wrapper passes the kernel after its context
  std::vector<std::string> declared; // the kernel's own, after its context
};

// The signature of `kernel`'s wrapper, its parameters named `locals` (one
// per argument), or why the dispatcher cannot call the kernel: a type it
// has no C++ type of, or a kernel whose parameters or return are not the
// types it passes (canonical types compared; `target` names the target in
// messages). A kernel taking a DispatchKeySet first gets the dispatcher's
// (the parameter `keys`); one taking a runtime context gets nothing here.
std::variant<Signature, Refusal> signature(const ir::Kernel& kernel, const HeaderTypes& headers,
                                           const std::vector<std::string>& locals,
                                           std::string_view target);

// What a dispatcher target generates for one kernel.
struct KernelCode {
  std::string wrapper;
  std::string declaration;
  std::string wrapper_name;
};

// A target that registers kernels with PyTorch's dispatcher under their
// operator and dispatch key, defining the schemas of operators outside aten.
// Its subclass says which kernels it takes and writes their wrappers.
class DispatcherTarget : public Target {
public:
  // PyTorch's dispatcher, whichever target registers with it.
  std::string_view runtime() const override { return "torch"; }
  bool accepts(ir::Registration) const override { return true; }
  const ir::Fields& fields() const override { return fields_; }
  std::string identity(const ir::Kernel& kernel) const override;
  std::vector<std::string> stack_layout(const ir::Kernel& kernel) const override;
  std::vector<Claim> claims(const ir::Kernel& kernel) const override;
  Symbols symbols(const LibrarySpec& library) const override;
  void generate(const ir::Module& module, const LibrarySpec& library, const Options& options,
                Problems& problems, OutputSink& sink) const override;

protected:
  // The code of a kernel's refusals ("opscan-torch-unsupported").
  virtual std::string unsupported_code() const = 0;
  // What the dispatcher's type names are where the library is compiled.
  virtual HeaderTypes header_types(const ir::Module& module) const = 0;
  // The wrapper of `kernel` (its name unique among `taken`, which it joins)
  // and its declaration, or why the target cannot generate it. `index` is
  // the kernel's place in the library's table of sources (sources_table).
  virtual std::variant<KernelCode, Refusal> kernel_code(const ir::Kernel& kernel,
                                                        const HeaderTypes& headers,
                                                        std::set<std::string>& taken,
                                                        size_t index) const = 0;
  // Definitions the wrappers share, before them in RegisterKernels.cpp when
  // the library has a kernel, and the names they take.
  virtual std::string shared_definitions(const LibrarySpec&) const { return {}; }
  virtual std::vector<std::string> shared_names() const { return {}; }

  // The table of the kernels' debug texts, in KernelSources.cpp.
  static std::string sources_table(const LibrarySpec& library);

private:
  const ir::Fields fields_{{dispatch_key_field()}};
};

} // namespace opscan::emit::torch
