// Extraction: one parsed translation unit -> its kernels (an IR fragment)
// and the problems found on the way. Private to lib/scan: shared by batch
// scans and the editor's live files.
#pragma once

#include "diag/diag.h"
#include "ir/ir.h"
#include "kernel/known_schemas.h"
#include "kernel/signature.h"
#include "scan/preamble_unit.h"
#include "scan/scan.h"

#include <clang-c/Index.h>
#include <map>
#include <optional>
#include <string>

namespace opscan::scan {

struct Extracted {
  ir::Module fragment; // the kernels annotated in the unit, and their sources' hashes
  diag::Diagnostics diagnostics;
};

// What a translation unit given to extract_kernels must be parsed with:
// the preprocessor's record of macro expansions, where an OPSCAN_KERNEL in a
// function body (skipped by CXTranslationUnit_SkipFunctionBodies, never
// parsed) is seen.
constexpr unsigned kExtractParseOptions = CXTranslationUnit_DetailedPreprocessingRecord;

// libclang's errors about a translation unit, and annotations it dropped.
diag::Diagnostics clang_errors(CXTranslationUnit tu);

// The annotated kernels of `tu` (`main_file` is its source), each checked
// against `known` (may be null), its annotation `fields` checked as they
// define; libclang's errors first.
Extracted extract_kernels(CXTranslationUnit tu, const std::string& main_file,
                          const kernel::KnownSchemas* known, const ir::Fields& fields);

// What `tu`'s headers make of the runtime names generated code spells whose
// meaning changed between versions of the runtime ("c10::optional" ->
// "std::optional" in libtorch 2): each such name `tu` declares as an alias
// (a typedef, alias template or using-declaration), and the canonical type
// or template it denotes. extract_kernels records them in a fragment with
// kernels (ir::Module::aliases).
std::map<std::string, std::string> header_aliases(CXTranslationUnit tu);

// The functions declared at namespace scope in `main_file`, and its includes.
SourceSites sites_of(CXTranslationUnit tu, const std::string& main_file);

// The same of the file `at` places in a preamble unit (preamble_unit.h),
// mapped back to the file: what sites_of gives for a plain parse of it.
// Nullopt when something cannot be mapped back (the file then needs a plain
// parse).
std::optional<SourceSites> unit_sites_of(CXTranslationUnit tu, const UnitPlacement& at);

// The functions of `main_file` that would scan as kernels, without
// diagnostics, once annotated with the operator name derived from them:
// non-template free functions at namespace scope with external linkage,
// not inline, not written by a macro, whose parameters (after an optional
// runtime context) and return map to schema types, that take or return a
// tensor, and whose schema inference accepts. One per function, at its
// first declaration in the file.
//
// The operator's namespace is the innermost enclosing namespace that is not
// `native`, `detail`, inline or unnamed, except that ExecuTorch's
// `torch::executor::native` and ATen's `at::native` are `aten`; its name is
// the function's, a trailing `_out` made the overload ("add_out" ->
// "add.out"). A function without such a namespace, or whose operator name
// opscan's naming rules refuse, gets none.
//
// Every suggestion of a file lacking the include carries the same include
// fix-it (first, at the same place): identical fix-its are one edit, which
// a client applying several suggestions at once makes once.
std::vector<KernelSuggestion> suggest_kernels(CXTranslationUnit tu, const std::string& main_file);

} // namespace opscan::scan
