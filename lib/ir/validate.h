// The rules every IR obeys, whatever its target: checked on scan output, on
// every IR file read and on every cache entry, so that nothing reaches a
// code generator unchecked. (Each target adds its own rules: emit::Target.)
#pragma once

#include "diag/diag.h"
#include "ir/ir.h"
#include "ir/json.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::ir {

// Turns a problem with part of a module into a located diagnostic. A module
// read from an IR file is located in that file, at the JSON value the
// problem's path names, and the message starts with that path
// ("kernels[3].cpp_function: ..."); a scanned module at its kernels' source
// locations.
class Locator {
public:
  Locator() = default; // scanned modules only
  // The kernels of `module`, read with `positions`, are found by their USR
  // in any module made from it (merged, sorted, selected).
  void add(const Module& module, Positions positions);

  // A problem with `kernel` at `field` ("cpp_function", "arguments[1].name";
  // "" for the kernel as a whole); one located in an IR file has a note at
  // the kernel's source.
  diag::Diagnostic kernel_error(const Kernel& kernel, std::string_view field, std::string code,
                                std::string message) const;
  // A problem at the `index`th kernel of the module added last, as it was read.
  diag::Diagnostic kernel_error(size_t index, const Kernel& kernel, std::string_view field,
                                std::string code, std::string message) const;
  // A problem at a module-level path ("library.name") of the module added
  // last, or a file-less one when none was added.
  diag::Diagnostic module_error(std::string_view path, std::string code, std::string message) const;

private:
  struct File {
    Positions positions;
    std::map<std::string, size_t, std::less<>> kernel_by_usr;
  };
  diag::Diagnostic located(const File* file, std::optional<size_t> index, const Kernel& kernel,
                           std::string_view field, std::string code, std::string message) const;
  std::vector<File> files_;
  std::map<std::string, size_t, std::less<>> file_by_usr_;
};

// Every problem of `module` by the rules all targets share:
//  - operator names: ASCII identifiers, and the naming rules of
//    schema::check_operator_name;
//  - the schema: printed and parsed back it is the same schema (so no
//    argument name, type or default can smuggle text), and it obeys
//    schema::check_schema's invariants;
//  - cpp_function: a C++ qualified name of valid, unreserved identifiers;
//    cpp_inline_namespaces: enclosing namespaces of it;
//  - text that only messages show (types as written, USR, paths, keys):
//    UTF-8 without control characters;
//  - sources: a path, each once, and a SHA-256 of 64 lowercase hex digits;
//  - the library record: a valid library name or "all";
//  - no USR twice (a USR names one kernel).
// Codes: opscan-ir-invalid (structure and text), opscan-ir-operator-name,
// opscan-ir-schema, opscan-ir-cpp-name, opscan-ir-library-name,
// opscan-duplicate-kernel.
diag::Diagnostics validate(const Module& module, const Locator& locator);

} // namespace opscan::ir
