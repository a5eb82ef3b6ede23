// Owning handles for libclang's C objects, and string helpers; private to
// lib/scan. Every libclang object opscan creates is owned by one of these.
#pragma once

#include "diag/diag.h"

#include <clang-c/Index.h>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace opscan::scan {

// A libclang object of pointer type T, disposed of with Dispose.
template <typename T, auto Dispose>
class Handle {
public:
  Handle() = default;
  explicit Handle(T object) : object_(object) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      object_ = std::exchange(other.object_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  T get() const { return object_; }
  explicit operator bool() const { return object_ != nullptr; }
  void reset() {
    if (object_ != nullptr)
      Dispose(object_);
    object_ = nullptr;
  }

private:
  T object_ = nullptr;
};

using Index = Handle<CXIndex, clang_disposeIndex>;
using TranslationUnit = Handle<CXTranslationUnit, clang_disposeTranslationUnit>;
using Diagnostic = Handle<CXDiagnostic, clang_disposeDiagnostic>;

// The tokens of a range of a translation unit.
class Tokens {
public:
  Tokens(CXTranslationUnit tu, CXSourceRange range) : tu_(tu) {
    clang_tokenize(tu, range, &tokens_, &count_);
  }
  ~Tokens() { clang_disposeTokens(tu_, tokens_, count_); }
  Tokens(const Tokens&) = delete;
  Tokens& operator=(const Tokens&) = delete;

  unsigned size() const { return count_; }
  CXToken operator[](unsigned i) const { return tokens_[i]; }

private:
  CXTranslationUnit tu_;
  CXToken* tokens_ = nullptr;
  unsigned count_ = 0;
};

// A libclang string as a std::string, disposing of it.
inline std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string result = c ? c : "";
  clang_disposeString(s);
  return result;
}

inline std::string spelling(CXCursor c) {
  return take(clang_getCursorSpelling(c));
}
inline std::string spelling(CXType t) {
  return take(clang_getTypeSpelling(t));
}

// Where a cursor is, after macro expansion: a declaration written by a macro
// is where the macro was used.
inline diag::Location location_of(CXSourceLocation where) {
  CXFile file;
  unsigned line = 0, column = 0, offset = 0;
  clang_getExpansionLocation(where, &file, &line, &column, &offset);
  return {file ? take(clang_getFileName(file)) : std::string(), line, column, offset};
}

// A declaration's qualified name and the parts of it that are inline
// namespaces: "ns::v1::f" and {"ns::v1"}. Linkage specifications (extern
// "C" blocks) are not part of a name. An unnamed namespace is spelled
// "(anonymous namespace)".
struct QualifiedName {
  std::string name;
  std::vector<std::string> inline_namespaces;
};
QualifiedName qualified_name(CXCursor decl);

// Parses `file` with `args` (and `unsaved` buffers standing for files);
// empty, with an error in `diags` saying why, when libclang cannot. Every
// parse gets -disable-pragma-debug-crash first (where no argument can take
// it as its value): without it a source's `#pragma clang __debug crash`
// (or llvm_fatal_error, overflow_stack, parser_crash; through _Pragma or in
// a header too) aborts, kills or hangs the process. A crash of libclang,
// even a stack overflow on deeply nested input, ends the parse with an
// error, not the process. A file the arguments name that is not a regular
// file (unreadable_named_file, flags.h) is refused before libclang opens it.
TranslationUnit parse(CXIndex index, const std::string& file, const std::vector<std::string>& args,
                      unsigned options, diag::Diagnostics& diags,
                      std::vector<CXUnsavedFile> unsaved = {});

// Parses `tu` again, with `unsaved` standing for files (its main file
// too), as parse() does: crashes end it with false, and it is bounded by
// limit_parse_time as a parse of `file`. After false, `tu` is unusable.
bool reparse(CXTranslationUnit tu, const std::string& file, std::vector<CXUnsavedFile> unsaved);

// The name as types are compared: without inline namespaces (std::__1,
// std::__cxx11), so names match across standard libraries.
std::string type_name(CXCursor decl);

} // namespace opscan::scan
