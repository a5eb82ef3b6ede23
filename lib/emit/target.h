// A runtime opscan generates registration code for. Each runtime is one
// implementation of Target in its own folder (lib/emit/targets/<name>/),
// registered by name (emit/registry.h); nothing outside that folder knows a
// target by its name. A target owns everything that differs between
// runtimes: the runtime context its kernels take, the registration modes it
// supports, what makes two kernels the same registration (its identity),
// the annotation fields it accepts, and its output files, symbols and
// templates.
#pragma once

#include "diag/diag.h"
#include "ir/fields.h"
#include "ir/ir.h"
#include "ir/validate.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::emit {

// The target a generation is for when none is named (--target): the
// documented default, ExecuTorch's.
inline constexpr const char* kDefaultTarget = "executorch";

// Generation options every target understands.
struct Options {
  std::string target = kDefaultTarget; // a registered target's name
  ir::Registration registration = ir::Registration::named;
  std::optional<std::string> library;       // --lib; unset: the unnamed default library
  std::optional<std::string> templates_dir; // overrides the built-in templates
  std::string generator = "opscan";         // "opscan <version>", for the header line
  // The value of an annotation field, by IR key, for kernels whose
  // annotation sets none (--dispatch-key sets dispatch_key); only for
  // fields the target reads. Overrides the field's own default.
  std::map<std::string, std::string> field_defaults;
  // Per-operator profiling in the wrappers, where the runtime asks for it
  // (ExecuTorch's profiler and event tracer; PyTorch's dispatcher profiles
  // by itself).
  bool profiling = true;
  // Set with --operators-from: the runtime's own operators (ExecuTorch's
  // prim ops) the selection needs, for a target that selects those apart
  // (ExecuTorch's selected_prim_ops.h); empty when it needs none.
  std::optional<std::vector<std::string>> prim_ops;
  // A try/catch in each wrapper that turns an exception a kernel throws into
  // a failed call, where the runtime has no other way to report it
  // (ExecuTorch's --add-exception-boundary).
  bool exception_boundary = false;
  // The stable ABI version ("2.10") a library for PyTorch's stable ABI is
  // built for (torch-stable's TORCH_TARGET_VERSION); unset: the oldest that
  // has every conversion its kernels need.
  std::optional<std::string> torch_target_version;
  // ExecuTorch's ATen mode (its generator's --use-aten-lib): the kernels are
  // compiled with USE_ATEN_LIB, where ExecuTorch's tensor is at::Tensor and
  // its registry lives in executorch::runtime::aten (the executorch target).
  bool aten_mode = false;

  friend bool operator==(const Options&, const Options&) = default;
};

// The options of Options only some targets read, by the flag that sets each.
enum class TargetOption { exception_boundary, torch_target_version, aten_mode };

// The library being generated, after its name was checked.
struct LibrarySpec {
  std::string name; // as given, or "all" for the unnamed library
  ir::Registration registration = ir::Registration::named;
};

// What a target's generated library defines that a build must know of.
struct Symbols {
  std::string registration_function; // fully qualified; empty in static mode
  // Static mode (else empty): an extern "C" symbol RegisterKernels.cpp
  // defines. Nothing references a statically registered library, so a link
  // from a static archive needs -Wl,--undefined=<link_anchor> to keep it.
  std::string link_anchor;
};

enum class OutputKind {
  header, // compiled by consumers: part of the library's interface
  source, // compiled into the library
  data,   // read by tools: the library IR, selective-build lists
};
std::string_view to_string(OutputKind kind); // "header", "source", "data"

struct OutputFile {
  std::string path; // relative to the output directory: "<lib>/RegisterKernels.h"
  OutputKind kind = OutputKind::data;
  std::string content;
};

// Where a target writes its files. A sink that lists the outputs records
// names and kinds and never renders; one that generates renders each file.
class OutputSink {
public:
  virtual ~OutputSink() = default;
  // One generated file, in order: its path relative to the output
  // directory ("<lib>/RegisterKernels.h") and its kind. `render` produces
  // its content, reporting a template's errors to the Problems'
  // diagnostics (the content is then not used); it may be called during
  // this call only, at most once. A sink that only lists never calls it.
  virtual void file(std::string path, OutputKind kind,
                    const std::function<std::string()>& render) = 0;
};

// Where a target reports what it refuses. Problems with a kernel are located
// by the IR's locator: at the JSON path of the field in an IR file, or at
// the kernel's source.
class Problems {
public:
  Problems(const ir::Locator& locator, diag::Diagnostics& out) : locator_(locator), out_(out) {}
  void kernel(const ir::Kernel& kernel, std::string_view field, std::string code,
              std::string message, std::vector<diag::Note> notes = {});
  // A doubt about `kernel`, located as a problem is: the kernel is still
  // generated.
  void kernel_warning(const ir::Kernel& kernel, std::string_view field, std::string code,
                      std::string message);
  void error(std::string code, std::string message);
  const ir::Locator& locator() const { return locator_; }
  // Where other diagnostics go (a template's errors).
  diag::Diagnostics& diagnostics() { return out_; }
  // Whether a problem with `kernel` was reported.
  bool has_problems(const ir::Kernel& kernel) const { return kernels_.contains(kernel.usr); }

private:
  const ir::Locator& locator_;
  diag::Diagnostics& out_;
  std::set<std::string> kernels_; // the USRs of kernels with problems
};

class Target {
public:
  virtual ~Target() = default;

  virtual std::string_view name() const = 0;        // "executorch"
  // The runtime its libraries register with, by the name of its first
  // target: libraries of the targets of one runtime claim in one registry
  // (torch and executorch-aot both register with PyTorch's dispatcher). By
  // default the target's own name.
  virtual std::string_view runtime() const { return name(); }
  virtual std::string_view description() const = 0; // one line, for help texts

  // The runtime context its kernels take before their schema arguments.
  virtual bool accepts(ir::ContextKind context) const = 0;
  virtual bool accepts(ir::Registration registration) const = 0;
  // Whether it reads `option`: one given to a target that does not is an
  // error, not an option silently doing nothing.
  virtual bool reads(TargetOption) const { return false; }
  // The annotation fields it reads, each with its default and its check;
  // a kernel it generates sets no other.
  virtual const ir::Fields& fields() const = 0;

  // What the runtime registers a kernel under: two kernels of one identity
  // cannot both be registered, by one library or by two in one program.
  virtual std::string identity(const ir::Kernel& kernel) const = 0;

  // What a library registering `kernel` claims in the runtime, each a key
  // and a description for messages: two libraries in one program may not
  // make one claim (one library makes each once, however many of its
  // kernels make it). By default the kernel's identity.
  struct Claim {
    std::string key;
    std::string description;
  };
  virtual std::vector<Claim> claims(const ir::Kernel& kernel) const;

  // Where the generated wrapper finds `kernel`'s arguments and puts its
  // results on the runtime's stack, one line per slot, for people (an
  // editor's hover).
  virtual std::vector<std::string> stack_layout(const ir::Kernel& kernel) const = 0;

  virtual Symbols symbols(const LibrarySpec& library) const = 0;

  // Writes the library's files for `module` (its annotation fields resolved
  // and checked as fields() says, its identities checked) through
  // `sink`: every file, in one order, the same names and kinds in every
  // registration mode and for every module, the empty one too (build files
  // list the outputs by generating no kernels through a sink that never
  // renders, so they never disagree with a generation). Every reason a
  // kernel cannot be generated (its context, types, returns...) goes to
  // `problems` whether or not the sink renders; a template's errors go
  // there when a file is rendered. With any problem the files are not used.
  // Generating is the check: there is no other. An empty module has no
  // problems.
  virtual void generate(const ir::Module& module, const LibrarySpec& library,
                        const Options& options, Problems& problems, OutputSink& sink) const = 0;
};

} // namespace opscan::emit
