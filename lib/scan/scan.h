// Scanning: annotated C++ kernel sources -> IR, with libclang.
#pragma once

#include "diag/diag.h"
#include "ir/ir.h"
#include "kernel/signature.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opscan::scan {

struct Options {
  std::vector<std::string> files;
  std::optional<std::string> build_dir; // read compile_commands.json from here (-p)
  std::vector<std::string> extra_args;  // compiler arguments (after "--")
  unsigned jobs = 0;                    // worker threads; 0: one per core
  // Files of known operator schemas (load_known_schemas: one per line as
  // PyTorch prints them, or operator YAML); kernels annotated with only the
  // name of a known operator are checked against its schema, and, given
  // files, those of an operator none knows get a warning.
  std::vector<std::string> schemas_files;
  // A directory caching each file's fragment: files whose inputs did not
  // change since they were scanned with the same arguments are not parsed.
  std::optional<std::string> cache_dir;
  // With a cache directory: the leading #include lines that files share are
  // precompiled once, and kept in its pch/ (the IR is the same either way).
  bool auto_pch = true;
  // The annotation fields kernels may set (key = "...", dispatch = "..."),
  // each checked as it defines; the targets' (emit::TargetRegistry::fields).
  ir::Fields fields;
  // Called after each file, from the worker that scanned it (calls are
  // serialised): files done, total, the file.
  std::function<void(size_t done, size_t total, const std::string& file)> progress;
};

struct Result {
  ir::Module module; // the merged IR of all files
  diag::Diagnostics diagnostics;
  size_t files_parsed = 0;   // the others came from the cache
  size_t files_with_pch = 0; // parsed with an automatic precompiled header
  size_t pchs = 0;           // automatic precompiled headers used
  // Every file the scanned translation units read (the sources and all they
  // included), absolute and sorted: what a build tool's depfile lists.
  std::vector<std::string> inputs;
};

// Parses every file (function bodies skipped) and extracts its kernels.
// Diagnostics are sorted; the module holds whatever could be extracted even
// when there are errors.
Result scan(const Options& options);

// A precompiled header for scans: the common header of a library's sources,
// parsed once. Scans given "-include-pch <output>" (and the same arguments)
// load it instead of parsing those headers again in every file; it acts as
// if each file included `header` first.
struct PrecompileOptions {
  std::string header;
  std::vector<std::string> args; // compiler arguments, as for scan
};

struct PrecompileResult {
  std::string pch; // the precompiled header; empty on errors
  diag::Diagnostics diagnostics;
  std::vector<std::string> inputs; // every file read, absolute and sorted
};

PrecompileResult precompile(const PrecompileOptions& options);

// The automatic precompiled headers of a set of sources, made ahead of
// their scans (a build step before one scan per source): the prefixes scan()
// would choose for options.files are made into options.cache_dir's pch/,
// where later scans with that cache find them. Nothing is scanned.
struct SharedPch {
  std::string path;                  // the .pch
  std::vector<std::string> includes; // its #include lines' names, "<a.h>" or "\"a.h\""
  size_t files = 0;                  // how many of the sources start with them
};

struct SharedPchResult {
  std::vector<SharedPch> pchs; // sorted by path
  diag::Diagnostics diagnostics;
  // The sources (their first lines decide) and every file the headers read.
  std::vector<std::string> inputs;
};

SharedPchResult precompile_shared(const Options& options);

// A function declared in one of the files given, for tools that edit them
// (opscan import-yaml).
// The tensors of a function a kernel key has one entry each for
// (executorch::check_kernel_key): between its plain tensor parameters and
// all of them (optional ones too), then up to its returned tensor, which
// programs pass again in a call's return slot.
struct KeyTensors {
  size_t required = 0;
  size_t all = 0;
  size_t returned = 0; // 1 for a Tensor or Tensor& return, else 0
  friend bool operator==(const KeyTensors&, const KeyTensors&) = default;
};

struct FunctionSite {
  std::string qualified_name; // "torch::executor::native::add_out"
  // Where its declaration begins, in the file given.
  diag::Location begin;
  bool annotated = false; // it has an OPSCAN_KERNEL already
  // Its tensors as the scan maps them, which a kernel key has entries for.
  // Nullopt when a parameter maps to no schema type.
  std::optional<KeyTensors> key_tensors;
  // When its declaration begins inside a macro call (`begin` is the
  // call's) that declares something else first: that one's name. An
  // annotation written before the call attaches to the first only.
  std::string macro_first;
  // Its first parameter is ExecuTorch's KernelRuntimeContext&: the
  // overload ExecuTorch's generator calls.
  bool takes_context = false;
};

struct SourceSites {
  std::string file;                    // as given
  std::vector<FunctionSite> functions; // declared in the file itself, in order
  // The end of the line of the file's last #include (0 when it has none),
  // and whether the translation unit includes opscan/annotations.h.
  uint32_t after_includes = 0;
  bool includes_annotations = false;
};

struct LocateResult {
  std::vector<SourceSites> files; // one per file parsed without errors, in order
  diag::Diagnostics diagnostics;  // libclang's errors; a file with errors has no sites
  size_t files_in_units = 0;      // parsed in a unit sharing their leading #include lines
};

// Parses each of options.files as scan does (its build_dir, extra_args,
// jobs and auto_pch are used; nothing is cached: files that share leading
// #include lines are parsed in units, with the same result) and lists the
// functions declared at namespace scope in the file itself.
LocateResult locate_functions(const Options& options);

// A function with a kernel's shape and no OPSCAN_KERNEL, and the edit that
// annotates it (found by the editor's live units).
struct KernelSuggestion {
  std::string function;            // qualified name, "custom::my_op_out"
  diag::Location location;         // the function's name
  std::string op;                  // the operator name it would register: "custom::my_op.out"
  std::vector<diag::FixIt> fixits; // the OPSCAN_KERNEL line, and the #include
                                   // <opscan/annotations.h> when the file lacks it
};

// "clang version 14.0.6", as libclang reports itself (loading it); empty
// when libclang cannot be loaded (scan/libclang_loader.h says why).
std::string libclang_version();

// The resource directory (clang's builtin headers) of that libclang: what a
// scan passes as -resource-dir unless its arguments give one.
const char* clang_resource_dir();

// Bounds the time of each parse (`limit`; 0: none). libclang cannot cancel
// a parse, and some inputs never end one (an #include of a FIFO) or take
// hours (hostile nesting): only the program can end them. `expired` is
// called, with the file, from the thread that waits for a parse that took
// longer; when it returns, the wait goes on. For programs, once, before the
// first parse.
void limit_parse_time(std::chrono::milliseconds limit,
                      std::function<void(const std::string& file)> expired);

} // namespace opscan::scan
