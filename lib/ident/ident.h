// C++ identifiers: the grammar of C++23 [lex.name], keywords, reserved names,
// and the rules for library names (docs/command-line.md, "Library names").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::ident {

// One problem with a name. Errors make the name unusable; warnings do not.
struct Finding {
  bool is_error = true;
  std::string code;    // e.g. "opscan-ident-keyword"
  std::string message; // names the offending text, e.g. "'for' is a C++ keyword"
  friend bool operator==(const Finding&, const Finding&) = default;
};

enum class Scope {
  global, // a leading '_' is reserved too
  local,
};

// Checks a UTF-8 string as a C++ identifier: well-formed UTF-8, XID_Start or
// '_' first, XID_Continue after, NFC-normalised, not a keyword or an
// alternative token, not reserved, not a macro (macro_origin). Warns on
// 'final', 'override', 'import', 'module'. Returns no finding for a good name.
std::vector<Finding> check_identifier(std::string_view name, Scope scope = Scope::global);

// True when check_identifier reports no error.
bool is_valid_identifier(std::string_view name, Scope scope = Scope::global);

bool is_keyword(std::string_view name);           // the keywords of C++23
bool is_alternative_token(std::string_view name); // and, bitor, not_eq, ...

// Where `name` is a macro when generated code is compiled ("<cstddef>" for
// NULL; the compilers' GNU modes for linux), or nullopt. Such names are
// refused (opscan-ident-macro): the preprocessor would replace them.
std::optional<std::string_view> macro_origin(std::string_view name);

// A valid identifier close to `name` ("foo-bar" -> "foo_bar", "2d" -> "_2d"
// is avoided: "op_2d"), for "did you mean" messages. Never used to rewrite.
std::string suggest_identifier(std::string_view name);

// The longest library name, in bytes: it names the output directory
// <out>/<lib>/, and file systems allow 255 bytes a component (NAME_MAX),
// which leaves room for the temporary names written beside it.
inline constexpr std::size_t kMaxLibraryNameLength = 200;

// The registration function of a kernel library: given no name it is
// register_all_kernels; given a name it is register_<name>_kernels. The name
// must be non-empty, at most kMaxLibraryNameLength bytes, a valid
// identifier, not "all", and the built symbol must be a valid, unreserved
// identifier. Every command (and the language server) checks names here.
struct RegistrationSymbol {
  std::string symbol;            // empty when there is an error
  std::vector<Finding> findings; // errors and warnings about the name
  bool ok() const { return !symbol.empty(); }
};
RegistrationSymbol registration_symbol(std::optional<std::string_view> library_name);

} // namespace opscan::ident
