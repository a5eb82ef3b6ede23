// What a function declaration says, read from libclang (declarations.cpp).
// Private to lib/scan: the extraction, the import's sites and the
// suggestions read declarations alike.
#pragma once

#include "ir/ir.h"
#include "kernel/signature.h"
#include "scan/scan.h"

#include <clang-c/Index.h>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opscan::scan {

// The tokens of a type as the file writes it, for edits of it.
struct WrittenToken {
  std::string spelling;
  CXTokenKind kind;
  uint32_t begin = 0; // byte offsets in the file
  uint32_t end = 0;
};
struct WrittenType {
  std::string file;
  std::vector<WrittenToken> tokens;
};

// Whether the source at `where` (a macro use) is an OPSCAN_KERNEL.
bool is_kernel_macro_at(CXTranslationUnit tu, const diag::Location& where);

// Where an OPSCAN_KERNEL is written in `range`, if one is. The range may
// start or end in a macro use: its tokens are those of the file.
std::optional<diag::Location> kernel_macro_in(CXTranslationUnit tu, CXSourceRange range);

// Whether the macro an expansion uses writes an annotate attribute (as
// <opscan/annotations.h>'s OPSCAN_KERNEL does while scanning; a project
// that defines its own, empty, OPSCAN_KERNEL annotates nothing with it).
bool writes_annotation(CXTranslationUnit tu, CXCursor expansion);

// The OPSCAN_KERNEL annotations of a declaration (a function's own and
// those it inherits from earlier declarations).
std::vector<CXCursor> annotations_of(CXCursor decl);

// Maps byte offsets in an annotation's text (the macro arguments as the
// preprocessor stringized them: whitespace between tokens becomes one
// space) back to the source, token by token, so that errors point at the
// right line and column even in multi-line or oddly spaced annotations.
kernel::AnnotationMap map_annotation(CXTranslationUnit tu, CXCursor attr, std::string_view text);

// Whether a function is noexcept. libclang gives one kind for noexcept(true)
// and noexcept(false); the canonical type is spelled with the value.
bool is_noexcept(CXCursor function);

// Whether the file spells what is at `where`: a macro did not write it.
bool spelled_in_file(CXSourceLocation where);

// The tokens of a declaration's `extent` before its `name` (all of them
// when null; a default argument's '=' ends them too), or nullopt when a
// macro wrote the declaration. The extent may start with a macro use (an
// OPSCAN_KERNEL): its tokens are those of the file.
std::optional<WrittenType> written_type(CXTranslationUnit tu, CXSourceRange extent,
                                        CXSourceLocation name);

// The edit of a type as written that makes a refused type map (see
// MappedType::repair): empty when the written tokens are not the refused
// type's own (an alias or macro names it) or the repair would not compile.
std::vector<diag::FixIt> type_fix(const WrittenType& written, const kernel::MappedType& mapped,
                                  bool has_string_view);

// Deletes the `const` of `const T&` or `T const&` as written.
std::optional<diag::FixIt> const_removal(const WrittenType& written);

// Whether the translation unit includes <string_view>, so that a fix-it may
// write std::string_view.
bool includes_string_view(CXTranslationUnit tu);

// A function with C language linkage is not mangled.
ir::Linkage linkage_of(CXCursor function);

// Why generated code cannot call `function`, or nullopt.
std::optional<std::pair<std::string, std::string>> refusal(CXCursor function,
                                                           const std::string& name);

// Why an inline (or constexpr) function cannot be a kernel: a code and a
// message naming it.
std::optional<std::pair<std::string, std::string>> refusal_of_inline(const std::string& name);

// What `function` declares, as the pure stage reads it: everything but its
// name, linkage, USR and annotation, which the caller decides.
kernel::Signature signature_of(CXTranslationUnit tu, CXCursor function, bool has_string_view);

// The tensors of `function` a kernel key has entries for (see
// FunctionSite::key_tensors): the schema's tensor arguments and return,
// which the scan infers from them or checks them against.
std::optional<KeyTensors> key_tensors_of(CXCursor function);

} // namespace opscan::scan
