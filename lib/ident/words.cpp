// C++'s keywords, alternative tokens and special identifiers, the reserved
// spellings, and the macro names generated code must not use as names.
#include "ident/words.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

namespace opscan::ident {
namespace {

// C++23 [lex.key], table "Keywords". C++23 added none to C++20's 81.
constexpr std::array<std::string_view, 81> kKeywords = {
    "alignas",       "alignof",     "asm",       "auto",       "bool",         "break",
    "case",          "catch",       "char",      "char8_t",    "char16_t",     "char32_t",
    "class",         "co_await",    "co_return", "co_yield",   "concept",      "const",
    "consteval",     "constexpr",   "constinit", "const_cast", "continue",     "decltype",
    "default",       "delete",      "do",        "double",     "dynamic_cast", "else",
    "enum",          "explicit",    "export",    "extern",     "false",        "float",
    "for",           "friend",      "goto",      "if",         "inline",       "int",
    "long",          "mutable",     "namespace", "new",        "noexcept",     "nullptr",
    "operator",      "private",     "protected", "public",     "register",     "reinterpret_cast",
    "requires",      "return",      "short",     "signed",     "sizeof",       "static",
    "static_assert", "static_cast", "struct",    "switch",     "template",     "this",
    "thread_local",  "throw",       "true",      "try",        "typedef",      "typeid",
    "typename",      "union",       "unsigned",  "using",      "virtual",      "void",
    "volatile",      "wchar_t",     "while",
};

// A std::array with too few initialisers pads with empty strings, so the
// size alone would not prove the table complete.
template <std::size_t N>
constexpr bool distinct_and_non_empty(const std::array<std::string_view, N>& words) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (words[i].empty() || words[i] == words[j]) {
        return false;
      }
    }
  }
  return N == 0 || !words[0].empty();
}
static_assert(distinct_and_non_empty(kKeywords));

// C++23 [lex.key], table "Alternative representations", with the token each
// one spells, so the message can say what the name would mean.
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kAlternativeTokens = {{
    {"and", "&&"},
    {"and_eq", "&="},
    {"bitand", "&"},
    {"bitor", "|"},
    {"compl", "~"},
    {"not", "!"},
    {"not_eq", "!="},
    {"or", "||"},
    {"or_eq", "|="},
    {"xor", "^"},
    {"xor_eq", "^="},
}};

// C++23 [lex.name.special]: identifiers with special meaning in some contexts.
constexpr std::array<std::string_view, 4> kSpecialIdentifiers = {"final", "import", "module",
                                                                 "override"};

// ---- Macros ---------------------------------------------------------------
//
// Names that are macros where generated code is compiled: in the headers it
// includes (the C and C++ standard library's, POSIX's through glibc, which
// g++ always reads with _GNU_SOURCE; libtorch's with glog and gflags for the
// torch target; ExecuTorch's), or predefined by g++ and clang++ in GNU modes
// (-std=gnu++17 is CMake's default). Used as a name there, the preprocessor
// would replace it. Families the standards reserve for a header's macros
// are matched by prefix, so a future macro of the family is covered too.
// ident_test (IdentMacros) and test/torch's macro_names_test preprocess
// those headers with the installed compilers and check that every macro
// they define is here.

// What comes after a family's prefix: anything, or (as the standards word
// the reservation) an uppercase letter or digit, in a name of capitals (as
// the macros are; "EValue" is none), or a lowercase letter or X.
enum class After { any, upper_or_digit, lower_or_x };

struct MacroFamily {
  std::string_view prefix;
  After after;
  std::string_view from;
};

constexpr MacroFamily kMacroFamilies[] = {
    // C17 7.31 (future library directions) and POSIX.1-2017 2.2.2.
    {"E", After::upper_or_digit, "<cerrno> (C and POSIX reserve E + uppercase or digit)"},
    {"PRI", After::lower_or_x, "<cinttypes> (C reserves PRI + lowercase or X)"},
    {"SCN", After::lower_or_x, "<cinttypes> (C reserves SCN + lowercase or X)"},
    {"SIG", After::upper_or_digit, "<csignal> (C reserves SIG + uppercase)"},
    {"SIG_", After::any, "<csignal> (C reserves SIG_)"},
    {"LC_", After::any, "<clocale> (C reserves LC_)"},
    {"FE_", After::any, "<cfenv> (C reserves FE_)"},
    {"FP_", After::any, "<cmath> (C reserves FP_)"},
    {"DBL_", After::any, "<cfloat> (C reserves DBL_)"},
    {"FLT_", After::any, "<cfloat> (C reserves FLT_)"},
    {"LDBL_", After::any, "<cfloat> (C reserves LDBL_)"},
    {"ATOMIC_", After::any, "<atomic> (C reserves ATOMIC_)"},
    {"TIME_", After::any, "<ctime> (C reserves TIME_)"},
    {"CLOCK_", After::any, "<ctime> (POSIX reserves CLOCK_)"},
    {"TIMER_", After::any, "<ctime> (POSIX reserves TIMER_)"},
    {"PTHREAD_", After::any, "<pthread.h> (POSIX reserves PTHREAD_), which libstdc++ includes"},
    {"pthread_", After::any, "<pthread.h> (POSIX reserves pthread_), which libstdc++ includes"},
    {"SCHED_", After::any, "<sched.h>, which libstdc++ includes"},
    {"CLONE_", After::any, "<sched.h> (GNU), which libstdc++ includes"},
    {"CPU_", After::any, "<sched.h> (GNU), which libstdc++ includes"},
    {"STA_", After::any, "<sys/timex.h> (GNU), which libstdc++ includes"},
    {"ADJ_", After::any, "<sys/timex.h> (GNU), which libstdc++ includes"},
    {"MOD_", After::any, "<sys/timex.h> (GNU), which libstdc++ includes"},
    {"M_", After::any, "<cmath> (POSIX's constants such as M_PI)"},
    {"HUGE_VAL", After::any, "<cmath>"},
    {"SNAN", After::any, "<cmath>"},
    {"MATH_ERR", After::any, "<cmath>"},
    {"NL_", After::any, "<climits> (POSIX)"},
    {"BC_", After::any, "<climits> (POSIX)"},
    {"SEEK_", After::any, "<cstdio>"},
    {"L_", After::any, "<cstdio> and <unistd.h>"},
    {"F_", After::any, "<unistd.h>"},
    {"FD_", After::any, "<sys/select.h>"},
    {"STDIN_", After::any, "<unistd.h>"},
    {"STDOUT_", After::any, "<unistd.h>"},
    {"STDERR_", After::any, "<unistd.h>"},
    {"RENAME_", After::any, "<cstdio> (GNU)"},
    {"CLOSE_RANGE_", After::any, "<unistd.h> (GNU)"},
    {"XATTR_", After::any, "<linux/limits.h>"},
    // The runtimes' own prefixes.
    {"C10_", After::any, "libtorch's c10 headers (and ExecuTorch's copy)"},
    {"AT_", After::any, "libtorch's ATen headers"},
    {"TORCH_", After::any, "libtorch's headers"},
    {"CAFFE_", After::any, "libtorch's headers"},
    {"CAFFE2_", After::any, "libtorch's headers"},
    {"STRONG_", After::any, "libtorch's c10/util/strong_type.h"},
    {"GLOG_", After::any, "glog's headers, which libtorch includes"},
    {"GOOGLE_", After::any, "glog's headers, which libtorch includes"},
    {"COMPACT_GOOGLE_LOG_", After::any, "glog's headers, which libtorch includes"},
    {"LOG_", After::any, "glog's headers, which libtorch includes"},
    {"SOME_KIND_OF_", After::any, "glog's headers, which libtorch includes"},
    {"CHECK_", After::any, "glog's headers, which libtorch includes"},
    {"DCHECK_", After::any, "glog's headers, which libtorch includes"},
    {"PCHECK_", After::any, "glog's headers, which libtorch includes"},
    {"GFLAGS_", After::any, "gflags' headers, which libtorch includes"},
    {"DECLARE_", After::any, "gflags' headers, which libtorch includes"},
    {"DEFINE_", After::any, "gflags' headers, which libtorch includes"},
    {"ET_", After::any, "ExecuTorch's headers"},
    {"EXECUTORCH_", After::any, "ExecuTorch's headers"},
};

struct MacroName {
  std::string_view name;
  std::string_view from;
};

constexpr std::string_view kFromGnuMode = "the compiler, predefined by g++ and clang++ in GNU "
                                          "modes such as -std=gnu++17, CMake's default";
constexpr std::string_view kFromGlog = "glog's headers, which libtorch includes";
constexpr std::string_view kFromTorch = "libtorch's headers";

// Sorted (byte order) for binary search; static_assert below.
constexpr MacroName kMacroNames[] = {
    {"BASE_VLOG_IS_ON_H_", kFromGlog},
    {"BIG_ENDIAN", "<endian.h>, which libstdc++ includes"},
    {"BUFSIZ", "<cstdio>"},
    {"BUILD_FEATURE_AVAILABLE", kFromTorch},
    {"BUILD_FEATURE_REQUIRED", kFromTorch},
    {"BYTE_ORDER", "<endian.h>, which libstdc++ includes"},
    {"CHAR_BIT", "<climits>"},
    {"CHECK", kFromGlog},
    {"CLOCKS_PER_SEC", "<ctime>"},
    {"CONSTEXPR_EXCEPT_GCC5", kFromTorch},
    {"CONSTEXPR_EXCEPT_WIN_CUDA", kFromTorch},
    {"CSIGNAL", "<sched.h> (GNU), which libstdc++ includes"},
    {"CUDA_KERNEL_ASSERT", kFromTorch},
    {"DCHECK", kFromGlog},
    {"DFATAL_LEVEL", kFromGlog},
    {"DLOG", kFromGlog},
    {"DLOG_ASSERT", kFromGlog},
    {"DLOG_EVERY_N", kFromGlog},
    {"DLOG_IF", kFromGlog},
    {"DLOG_IF_EVERY_N", kFromGlog},
    {"DVLOG", kFromGlog},
    {"DYNAMIC_TYPE_BIT", kFromTorch},
    {"EOF", "<cstdio>"},
    {"FORALL_DYNAMIC_TYPES", kFromTorch},
    {"FORALL_DYNAMIC_TYPES_FAKE", kFromTorch},
    {"HAS_DEMANGLE", kFromTorch},
    {"IF_DEBUG_MODE", kFromGlog},
    {"INFINITY", "<cmath>"},
    {"IS_NOT_GCC5_CONSTEXPR", kFromTorch},
    {"LEGACY_CONTIGUOUS_MEMORY_FORMAT", kFromTorch},
    {"LITTLE_ENDIAN", "<endian.h>, which libstdc++ includes"},
    {"LLVM_GNUC_PREREQ", kFromTorch},
    {"LOG", kFromGlog},
    {"LONG_BIT", "<climits> (POSIX)"},
    {"MAKE_TORCH_LIBRARY", kFromTorch},
    {"MAKE_TORCH_LIBRARY_IMPL", kFromTorch},
    {"MAXFLOAT", "<cmath>"},
    {"MAX_CANON", "<climits> (POSIX)"},
    {"MAX_INPUT", "<climits> (POSIX)"},
    {"MAYBE_STRIPPED_HELP", "gflags' headers, which libtorch includes"},
    {"MB_CUR_MAX", "<cstdlib>"},
    {"MIPSEB", kFromGnuMode},
    {"MIPSEL", kFromGnuMode},
    {"MaxTypeIndex", kFromTorch},
    {"NAN", "<cmath>"},
    {"NFDBITS", "<sys/select.h>, which libstdc++ includes"},
    {"NULL", "<cstddef>"},
    {"NZERO", "<climits> (POSIX)"},
    {"PCHECK", kFromGlog},
    {"PDP_ENDIAN", "<endian.h>, which libstdc++ includes"},
    {"PIPE_BUF", "<climits> (POSIX)"},
    {"PLOG", kFromGlog},
    {"PLOG_EVERY_N", kFromGlog},
    {"PLOG_IF", kFromGlog},
    {"P_tmpdir", "<cstdio>"},
    {"RECORD_CUSTOM_CLASS", kFromTorch},
    {"REGISTER_ALLOCATOR", kFromTorch},
    {"REGISTER_COPY_BYTES_FUNCTION", kFromTorch},
    {"ROLLBEAR_STRONG_TYPE_HPP_INCLUDED", kFromTorch},
    {"R_OK", "<unistd.h>"},
    {"SKA_NOINLINE", kFromTorch},
    {"STATIC_CONSTEXPR_STR_INL_EXCEPT_WIN_CUDA", kFromTorch},
    {"STATIC_CONST_STR_OUT_OF_LINE_FOR_WIN_CUDA", kFromTorch},
    {"SYCL_KERNEL_ASSERT", kFromTorch},
    {"SYSLOG", kFromGlog},
    {"SYSLOG_0", kFromGlog},
    {"SYSLOG_ASSERT", kFromGlog},
    {"SYSLOG_DFATAL", kFromGlog},
    {"SYSLOG_ERROR", kFromGlog},
    {"SYSLOG_EVERY_N", kFromGlog},
    {"SYSLOG_FATAL", kFromGlog},
    {"SYSLOG_IF", kFromGlog},
    {"SYSLOG_INFO", kFromGlog},
    {"SYSLOG_WARNING", kFromGlog},
    {"TEMP_FAILURE_RETRY", "<unistd.h>"},
    {"TENSORIMPL_MAYBE_VIRTUAL", kFromTorch},
    {"UTIL_GTL_STL_LOGGING_INL_H_", kFromGlog},
    {"VLOG", kFromGlog},
    {"VLOG_EVERY_N", kFromGlog},
    {"VLOG_IF", kFromGlog},
    {"VLOG_IF_EVERY_N", kFromGlog},
    {"VLOG_IS_ON", kFromGlog},
    {"WCONTINUED", "<sys/wait.h>, which <cstdlib> includes"},
    {"WEOF", "<cwchar>"},
    {"WEXITED", "<sys/wait.h>, which <cstdlib> includes"},
    {"WEXITSTATUS", "<sys/wait.h>, which <cstdlib> includes"},
    {"WIFCONTINUED", "<sys/wait.h>, which <cstdlib> includes"},
    {"WIFEXITED", "<sys/wait.h>, which <cstdlib> includes"},
    {"WIFSIGNALED", "<sys/wait.h>, which <cstdlib> includes"},
    {"WIFSTOPPED", "<sys/wait.h>, which <cstdlib> includes"},
    {"WIN32", kFromGnuMode},
    {"WIN64", kFromGnuMode},
    {"WINNT", kFromGnuMode},
    {"WNOHANG", "<sys/wait.h>, which <cstdlib> includes"},
    {"WNOWAIT", "<sys/wait.h>, which <cstdlib> includes"},
    {"WORD_BIT", "<climits> (POSIX)"},
    {"WSTOPPED", "<sys/wait.h>, which <cstdlib> includes"},
    {"WSTOPSIG", "<sys/wait.h>, which <cstdlib> includes"},
    {"WTERMSIG", "<sys/wait.h>, which <cstdlib> includes"},
    {"WUNTRACED", "<sys/wait.h>, which <cstdlib> includes"},
    {"W_OK", "<unistd.h>"},
    {"X_OK", "<unistd.h>"},
    {"_cdecl", kFromGnuMode},
    {"_fastcall", kFromGnuMode},
    {"_mips", kFromGnuMode},
    {"_pascal", kFromGnuMode},
    {"_stdcall", kFromGnuMode},
    {"_thiscall", kFromGnuMode},
    {"alloca", "<cstdlib>"},
    {"assert", "<cassert>"},
    {"assert_perror", "<cassert> (GNU)"},
    {"be16toh", "<endian.h>, which libstdc++ includes"},
    {"be32toh", "<endian.h>, which libstdc++ includes"},
    {"be64toh", "<endian.h>, which libstdc++ includes"},
    {"errno", "<cerrno>"},
    {"htobe16", "<endian.h>, which libstdc++ includes"},
    {"htobe32", "<endian.h>, which libstdc++ includes"},
    {"htobe64", "<endian.h>, which libstdc++ includes"},
    {"htole16", "<endian.h>, which libstdc++ includes"},
    {"htole32", "<endian.h>, which libstdc++ includes"},
    {"htole64", "<endian.h>, which libstdc++ includes"},
    {"i386", kFromGnuMode},
    {"issubnormal", "<cmath> (GNU)"},
    {"le16toh", "<endian.h>, which libstdc++ includes"},
    {"le32toh", "<endian.h>, which libstdc++ includes"},
    {"le64toh", "<endian.h>, which libstdc++ includes"},
    {"linux", kFromGnuMode},
    {"math_errhandling", "<cmath>"},
    {"mc68000", kFromGnuMode},
    {"mips", kFromGnuMode},
    {"offsetof", "<cstddef>"},
    {"sched_priority", "<sched.h>, which libstdc++ includes"},
    {"sparc", kFromGnuMode},
    {"stderr", "<cstdio>"},
    {"stdin", "<cstdio>"},
    {"stdout", "<cstdio>"},
    {"strdupa", "<cstring> (GNU)"},
    {"strndupa", "<cstring> (GNU)"},
    {"unix", kFromGnuMode},
    {"va_arg", "<cstdarg>"},
    {"va_copy", "<cstdarg>"},
    {"va_end", "<cstdarg>"},
    {"va_start", "<cstdarg>"},
};

constexpr bool sorted_by_name(const MacroName* first, const MacroName* last) {
  for (const MacroName* it = first; it + 1 < last; ++it)
    if (!(it->name < (it + 1)->name))
      return false;
  return true;
}
static_assert(sorted_by_name(std::begin(kMacroNames), std::end(kMacroNames)),
              "kMacroNames must be sorted and unique");

bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}

// Uppercase letters, digits and '_' only, as macro names are: "EINVAL",
// not "EValue".
bool all_caps(std::string_view name) {
  return std::ranges::all_of(
      name, [](char c) { return is_upper(c) || (c >= '0' && c <= '9') || c == '_'; });
}

// The limits of <climits>, <cstdint> and POSIX's <limits.h> (which reserves
// the suffix _MAX): CHAR_MAX, INT64_MIN, SIZE_WIDTH, PATH_MAX...; and
// <cstdint>'s constant macros INT64_C, UINTMAX_C.
std::optional<std::string_view> limit_macro(std::string_view name) {
  if (name.empty() || !all_caps(name))
    return std::nullopt;
  if (name.ends_with("_MAX") || name.ends_with("_MIN") || name.ends_with("_WIDTH"))
    return "<climits> and <cstdint> (POSIX reserves the suffix _MAX)";
  if ((name.starts_with("INT") || name.starts_with("UINT")) && name.ends_with("_C"))
    return "<cstdint>";
  return std::nullopt;
}

} // namespace

std::optional<std::string_view> alternative_token_for(std::string_view name) {
  for (const auto& [spelling, token] : kAlternativeTokens) {
    if (spelling == name) {
      return token;
    }
  }
  return std::nullopt;
}

bool is_special(std::string_view name) {
  return std::ranges::find(kSpecialIdentifiers, name) != kSpecialIdentifiers.end();
}

// The reason `name` is reserved ([lex.name]/3), or nothing. "Uppercase
// letter" is read as A-Z, as compilers do (clang's -Wreserved-identifier).
std::optional<std::string> reserved_reason(std::string_view name, Scope scope) {
  if (name.find("__") != std::string_view::npos) {
    return "it contains '__'";
  }
  if (name.size() >= 2 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z') {
    return "it begins with '_' and an uppercase letter";
  }
  if (scope == Scope::global && !name.empty() && name[0] == '_') {
    return "it begins with '_', which is reserved at global scope";
  }
  return std::nullopt;
}

bool is_keyword(std::string_view name) {
  return std::ranges::find(kKeywords, name) != kKeywords.end();
}

bool is_alternative_token(std::string_view name) {
  return alternative_token_for(name).has_value();
}

std::optional<std::string_view> macro_origin(std::string_view name) {
  const auto* end = std::end(kMacroNames);
  const auto* it =
      std::lower_bound(std::begin(kMacroNames), end, name,
                       [](const MacroName& m, std::string_view n) { return m.name < n; });
  if (it != end && it->name == name)
    return it->from;
  for (const MacroFamily& family : kMacroFamilies) {
    if (!name.starts_with(family.prefix))
      continue;
    // The prefix alone is a macro too (HUGE_VAL, SNAN) where anything may
    // follow it.
    if (name.size() == family.prefix.size()) {
      if (family.after == After::any)
        return family.from;
      continue;
    }
    const char next = name[family.prefix.size()];
    const bool fits =
        family.after == After::any ||
        (family.after == After::upper_or_digit &&
         (is_upper(next) || (next >= '0' && next <= '9')) && all_caps(name)) ||
        (family.after == After::lower_or_x && ((next >= 'a' && next <= 'z') || next == 'X'));
    if (fits)
      return family.from;
  }
  return limit_macro(name);
}

} // namespace opscan::ident
