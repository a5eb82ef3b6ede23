// C++ identifiers: the C++23 grammar on Unicode XID, keywords, reserved and library names.
#include "ident/ident.h"

#include "support/text.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <utility>

namespace opscan::ident {
namespace {

constexpr std::string_view kCodeEmpty = "opscan-ident-empty";
constexpr std::string_view kCodeUtf8 = "opscan-ident-invalid-utf8";
constexpr std::string_view kCodeStart = "opscan-ident-invalid-start";
constexpr std::string_view kCodeChar = "opscan-ident-invalid-char";
constexpr std::string_view kCodeNfc = "opscan-ident-not-nfc";
constexpr std::string_view kCodeKeyword = "opscan-ident-keyword";
constexpr std::string_view kCodeAltToken = "opscan-ident-alternative-token";
constexpr std::string_view kCodeReserved = "opscan-ident-reserved";
constexpr std::string_view kCodeSpecial = "opscan-ident-special";
constexpr std::string_view kCodeMacro = "opscan-ident-macro";
constexpr std::string_view kCodeLibEmpty = "opscan-libname-empty";
constexpr std::string_view kCodeLibAll = "opscan-libname-all";
constexpr std::string_view kCodeLibInvalid = "opscan-libname-invalid";
constexpr std::string_view kCodeLibSymbol = "opscan-libname-symbol";
constexpr std::string_view kCodeLibLength = "opscan-libname-too-long";

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

constexpr std::string_view kFromGnuMode = "predefined by g++ and clang++ in GNU modes such as "
                                          "-std=gnu++17, CMake's default";
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

Finding error(std::string_view code, std::string message) {
  return {true, std::string(code), std::move(message)};
}

Finding warning(std::string_view code, std::string message) {
  return {false, std::string(code), std::move(message)};
}

bool has_error(const std::vector<Finding>& findings) {
  return std::ranges::any_of(findings, [](const Finding& f) { return f.is_error; });
}

std::string hex(std::uint32_t value, int min_digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  while (value != 0 || static_cast<int>(out.size()) < min_digits) {
    out.insert(out.begin(), kDigits[value % 16]);
    value /= 16;
  }
  return out;
}

std::string byte_hex(unsigned char byte) {
  return "0x" + hex(byte, 2);
}

std::string code_point_label(UChar32 c) {
  return "U+" + hex(static_cast<std::uint32_t>(c), 4);
}

void append_utf8(std::string& out, UChar32 c) {
  support::append_utf8(out, static_cast<char32_t>(c));
}

std::string to_utf8(const std::vector<UChar32>& cps) {
  std::string out;
  for (UChar32 c : cps) {
    append_utf8(out, c);
  }
  return out;
}

// ---- UTF-8 decoding -------------------------------------------------------

enum class Utf8Problem {
  none,
  stray_continuation, // 80..BF where a sequence should start
  overlong_lead,      // C0, C1: can only encode ASCII, overlong
  invalid_byte,       // F5..FF: never in UTF-8
  overlong,           // E0 80..9F, F0 80..8F
  surrogate,          // ED A0..BF
  too_large,          // F4 90..BF: above U+10FFFF
  truncated,          // the text ends inside a sequence
  incomplete,         // a non-continuation byte inside a sequence
};

struct Unit {
  UChar32 cp = 0;
  std::size_t offset = 0;
  std::size_t length = 1; // on a problem: the bytes to skip (the maximal subpart)
  Utf8Problem problem = Utf8Problem::none;
};

// Decodes one sequence at `pos` following the table of well-formed byte
// sequences (Unicode 15, table 3-7), which rules out overlongs, surrogates
// and values above U+10FFFF by the range of the second byte.
Unit decode_at(std::string_view s, std::size_t pos) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  Unit u;
  u.offset = pos;
  const unsigned char lead = byte(pos);
  if (lead < 0x80) {
    u.cp = lead;
    return u;
  }
  if (lead < 0xC0) {
    u.problem = Utf8Problem::stray_continuation;
    return u;
  }
  if (lead < 0xC2) {
    u.problem = Utf8Problem::overlong_lead;
    return u;
  }
  if (lead > 0xF4) {
    u.problem = Utf8Problem::invalid_byte;
    return u;
  }
  const std::size_t trail = lead < 0xE0 ? 1 : lead < 0xF0 ? 2 : 3;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  Utf8Problem range_problem = Utf8Problem::none;
  switch (lead) {
  case 0xE0:
    lo = 0xA0;
    range_problem = Utf8Problem::overlong;
    break;
  case 0xED:
    hi = 0x9F;
    range_problem = Utf8Problem::surrogate;
    break;
  case 0xF0:
    lo = 0x90;
    range_problem = Utf8Problem::overlong;
    break;
  case 0xF4:
    hi = 0x8F;
    range_problem = Utf8Problem::too_large;
    break;
  default:
    break;
  }
  UChar32 cp = lead & (trail == 1 ? 0x1F : trail == 2 ? 0x0F : 0x07);
  for (std::size_t i = 1; i <= trail; ++i) {
    if (pos + i >= s.size()) {
      u.problem = Utf8Problem::truncated;
      u.length = i;
      return u;
    }
    const unsigned char c = byte(pos + i);
    if ((c & 0xC0) != 0x80) {
      u.problem = Utf8Problem::incomplete;
      u.length = i;
      return u;
    }
    if (i == 1 && (c < lo || c > hi)) {
      u.problem = range_problem;
      u.length = 1;
      return u;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  u.cp = cp;
  u.length = trail + 1;
  return u;
}

std::string describe_utf8_problem(std::string_view s, const Unit& u) {
  const std::string at = std::to_string(u.offset);
  const auto byte = static_cast<unsigned char>(s[u.offset]);
  switch (u.problem) {
  case Utf8Problem::stray_continuation:
    return "unexpected continuation byte " + byte_hex(byte) + " at byte " + at;
  case Utf8Problem::overlong_lead:
    return "byte " + byte_hex(byte) + " at byte " + at + " can only start an overlong encoding";
  case Utf8Problem::invalid_byte:
    return "byte " + byte_hex(byte) + " at byte " + at + " never occurs in UTF-8";
  case Utf8Problem::overlong:
    return "overlong encoding at byte " + at;
  case Utf8Problem::surrogate:
    return "encoded surrogate (U+D800..U+DFFF, not a character) at byte " + at;
  case Utf8Problem::too_large:
    return "code point above U+10FFFF at byte " + at;
  case Utf8Problem::truncated:
    return "the sequence starting at byte " + at + " is cut off by the end of the text";
  case Utf8Problem::incomplete: {
    const std::size_t next = u.offset + u.length;
    return "the sequence starting at byte " + at + " is missing continuation bytes (found " +
           byte_hex(static_cast<unsigned char>(s[next])) + " at byte " + std::to_string(next) + ")";
  }
  case Utf8Problem::none:
    break;
  }
  return "malformed sequence at byte " + at;
}

// Decodes the whole text; ill-formed sequences become U+FFFD, which is not
// an identifier character, so callers that only need a best effort can go on.
std::vector<UChar32> decode_lenient(std::string_view s) {
  std::vector<UChar32> out;
  for (std::size_t pos = 0; pos < s.size();) {
    const Unit u = decode_at(s, pos);
    out.push_back(u.problem == Utf8Problem::none ? u.cp : 0xFFFD);
    pos += u.length;
  }
  return out;
}

// ---- Display ---------------------------------------------------------------

bool is_mark(UChar32 c) {
  return (U_GET_GC_MASK(c) & U_GC_M_MASK) != 0;
}

// Shows a name inside quotes without letting bad bytes or invisible
// characters garble the message: raw bytes become \xHH; invisible and
// line-breaking characters, and a leading mark (which would combine with the
// opening quote), become \u{HHHH}.
std::string shown(std::string_view s) {
  std::string out;
  for (std::size_t pos = 0; pos < s.size();) {
    const Unit u = decode_at(s, pos);
    if (u.problem != Utf8Problem::none) {
      for (std::size_t i = 0; i < u.length; ++i) {
        out += "\\x" + hex(static_cast<unsigned char>(s[pos + i]), 2);
      }
    } else if (u.cp == ' ' ||
               (u_isprint(u.cp) && !u_isUWhiteSpace(u.cp) && !(pos == 0 && is_mark(u.cp)))) {
      out.append(s.substr(pos, u.length));
    } else {
      out += "\\u{" + hex(static_cast<std::uint32_t>(u.cp), 4) + "}";
    }
    pos += u.length;
  }
  return out;
}

std::string quoted(std::string_view s) {
  // Appending, not "'" + ...: GCC 12 at -O3 warns falsely (-Wrestrict) on that.
  std::string out = "'";
  out += shown(s);
  out += '\'';
  return out;
}

// "U+20AC '€'" for a visible character; the Unicode name instead for marks
// and invisible characters, whose glyph alone would not show.
std::string describe(UChar32 c) {
  std::string out = code_point_label(c);
  if (u_isgraph(c) && !is_mark(c)) {
    out += " '";
    append_utf8(out, c);
    out += "'";
    return out;
  }
  char name[128] = {};
  UErrorCode status = U_ZERO_ERROR;
  const int32_t length = u_charName(c, U_EXTENDED_CHAR_NAME, name, sizeof name, &status);
  if (U_SUCCESS(status) && length > 0) {
    out += " (" + std::string(name, static_cast<std::size_t>(length)) + ")";
  }
  return out;
}

// ---- Character classes and normalisation ----------------------------------

bool is_ascii_letter(UChar32 c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_ascii_digit(UChar32 c) {
  return c >= '0' && c <= '9';
}

// identifier-start: nondigit or XID_Start.
bool is_start(UChar32 c) {
  return c == '_' || is_ascii_letter(c) || u_hasBinaryProperty(c, UCHAR_XID_START);
}

// identifier-continue: digit, nondigit or XID_Continue.
bool is_continue(UChar32 c) {
  return c == '_' || is_ascii_letter(c) || is_ascii_digit(c) ||
         u_hasBinaryProperty(c, UCHAR_XID_CONTINUE);
}

const icu::Normalizer2* nfc_normalizer() {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  return U_SUCCESS(status) ? nfc : nullptr;
}

icu::UnicodeString to_icu(const std::vector<UChar32>& cps) {
  return icu::UnicodeString::fromUTF32(cps.data(), static_cast<int32_t>(cps.size()));
}

std::vector<UChar32> from_icu(const icu::UnicodeString& s) {
  std::vector<UChar32> out;
  for (int32_t i = 0; i < s.length(); i = s.moveIndex32(i, 1)) {
    out.push_back(s.char32At(i));
  }
  return out;
}

// Leaves the text unchanged when ICU cannot normalise it; the result is then
// checked again by the callers that need it to be NFC.
std::vector<UChar32> to_nfc(const std::vector<UChar32>& cps) {
  const icu::Normalizer2* nfc = nfc_normalizer();
  if (nfc == nullptr) {
    return cps;
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString normal = nfc->normalize(to_icu(cps), status);
  return U_SUCCESS(status) ? from_icu(normal) : cps;
}

std::string code_point_list(std::vector<UChar32>::const_iterator first,
                            std::vector<UChar32>::const_iterator last) {
  std::string out;
  for (auto it = first; it != last; ++it) {
    if (!out.empty())
      out += ' ';
    out += code_point_label(*it);
  }
  return out;
}

// Describes where `name` (decoded into `units`) differs from its NFC form,
// since the two usually look identical on screen.
std::optional<Finding> check_nfc(std::string_view name, const std::vector<Unit>& units) {
  const icu::Normalizer2* nfc = nfc_normalizer();
  // ASCII text is always NFC: no need to ask ICU (slow, and most names are ASCII).
  if (nfc != nullptr && std::ranges::all_of(units, [](const Unit& u) { return u.cp < 0x80; }))
    return std::nullopt;
  std::vector<UChar32> cps;
  for (const Unit& u : units) {
    cps.push_back(u.cp);
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString text = to_icu(cps);
  if (nfc == nullptr || !nfc->isNormalized(text, status) || U_FAILURE(status)) {
    status = U_ZERO_ERROR;
    const icu::UnicodeString normal =
        nfc == nullptr ? icu::UnicodeString() : nfc->normalize(text, status);
    if (nfc == nullptr || U_FAILURE(status)) {
      // Without ICU's data the rule cannot be checked; refusing is the safe side.
      return error(kCodeNfc, quoted(name) + " could not be checked for Unicode Normalization "
                                            "Form C (NFC): ICU's normaliser is unavailable");
    }
    const std::vector<UChar32> want = from_icu(normal);
    std::size_t prefix = 0;
    while (prefix < cps.size() && prefix < want.size() && cps[prefix] == want[prefix]) {
      ++prefix;
    }
    std::size_t suffix = 0;
    while (suffix < cps.size() - prefix && suffix < want.size() - prefix &&
           cps[cps.size() - 1 - suffix] == want[want.size() - 1 - suffix]) {
      ++suffix;
    }
    const auto diff_end = static_cast<std::ptrdiff_t>(suffix);
    const auto diff_begin = static_cast<std::ptrdiff_t>(prefix);
    const std::size_t at = prefix < units.size() ? units[prefix].offset : name.size();
    const std::string want_utf8 = to_utf8(want);
    return error(kCodeNfc, quoted(name) +
                               " is not in Unicode Normalization Form C (NFC), which C++ "
                               "requires: " +
                               code_point_list(cps.begin() + diff_begin, cps.end() - diff_end) +
                               " at byte " + std::to_string(at) + " should be " +
                               code_point_list(want.begin() + diff_begin, want.end() - diff_end) +
                               " (NFC spelling: " + quoted(want_utf8) + ")");
  }
  return std::nullopt;
}

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

// ---- Suggestions -----------------------------------------------------------

// One pass of the suggestion rule, on code points:
//  1. NFC-normalise;
//  2. replace every run of characters that cannot continue an identifier
//     (and every run of '_') with one '_', so "__" cannot remain;
//  3. drop leading '_' (reserved at global scope, or with an uppercase) and
//     leading marks and other non-digits that cannot start an identifier;
//  4. prefix "op_" when the name then starts with a digit, or use "op" when
//     nothing is left;
//  5. append '_' to a keyword or an alternative token.
std::string suggest_once(const std::vector<UChar32>& input, bool ascii_only) {
  std::vector<UChar32> cps = to_nfc(input);
  std::vector<UChar32> out;
  for (UChar32 c : cps) {
    const bool keep =
        c != '_' && (ascii_only ? (is_ascii_letter(c) || is_ascii_digit(c)) : is_continue(c));
    if (keep) {
      out.push_back(c);
    } else if (!out.empty() && out.back() != '_') {
      out.push_back('_');
    }
  }
  // A stray leading mark is noise, but a leading digit is usually meaning
  // ("2d"), so it is kept behind a prefix.
  auto first = std::ranges::find_if(out, [](UChar32 c) {
    return c != '_' && (is_start(c) || u_charType(c) == U_DECIMAL_DIGIT_NUMBER);
  });
  out.erase(out.begin(), first);
  if (out.empty()) {
    return "op";
  }
  std::string result = to_utf8(out);
  if (!is_start(out.front())) {
    result = "op_" + result;
  }
  if (is_keyword(result) || is_alternative_token(result)) {
    result += '_';
  }
  // A macro family may match the name with '_' appended ("EPS_"), never
  // with a lowercase prefix.
  if (macro_origin(result)) {
    result = "op_" + result;
  }
  return result;
}

// A library name close to `name` whose registration symbol is usable: the
// identifier suggestion without trailing '_' (it would make "__" before
// "_kernels"), and with "_lib" appended when that leaves a keyword, an
// alternative token or "all".
std::string suggest_library_name(std::string_view name) {
  std::string s = suggest_identifier(name);
  while (!s.empty() && s.back() == '_') {
    s.pop_back();
  }
  if (s.empty() || s == "all" || is_keyword(s) || is_alternative_token(s)) {
    s += "_lib";
  }
  const bool usable = is_valid_identifier(s, Scope::local) &&
                      is_valid_identifier("register_" + s + "_kernels", Scope::global);
  return usable ? s : "ops";
}

} // namespace

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

// ASCII letters, digits and '_', not starting with a digit: XID and NFC
// without asking ICU, which most names (and every generated one) never need.
bool is_plain_ascii_identifier(std::string_view name) {
  if (name.empty() || is_ascii_digit(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return is_ascii_letter(u) || is_ascii_digit(u) || c == '_';
  });
}

std::vector<Finding> check_identifier(std::string_view name, Scope scope) {
  std::vector<Finding> findings;
  if (is_plain_ascii_identifier(name) && !is_keyword(name) && !alternative_token_for(name) &&
      !reserved_reason(name, scope) && !is_special(name) && !macro_origin(name)) {
    return findings;
  }
  if (name.empty()) {
    findings.push_back(
        error(kCodeEmpty, "an empty name ('') is not a valid C++ identifier: it needs at least one "
                          "character"));
    return findings;
  }

  // Nothing else can be judged reliably in ill-formed text, so stop at the
  // first bad sequence.
  std::vector<Unit> units;
  units.reserve(name.size());
  for (std::size_t pos = 0; pos < name.size();) {
    const Unit u = decode_at(name, pos);
    if (u.problem != Utf8Problem::none) {
      findings.push_back(error(
          kCodeUtf8, quoted(name) + " is not valid UTF-8: " + describe_utf8_problem(name, u)));
      return findings;
    }
    units.push_back(u);
    pos += u.length;
  }

  for (std::size_t i = 0; i < units.size(); ++i) {
    const Unit& u = units[i];
    // Built only for a bad character: names are checked by the thousand.
    auto where = [&] {
      return describe(u.cp) + " at byte " + std::to_string(u.offset) + " cannot ";
    };
    if (i == 0 && !is_start(u.cp)) {
      findings.push_back(error(kCodeStart, quoted(name) + " is not a valid C++ identifier: " +
                                               where() + "start an identifier"));
    } else if (i != 0 && !is_continue(u.cp)) {
      findings.push_back(error(kCodeChar, quoted(name) + " is not a valid C++ identifier: " +
                                              where() + "appear in an identifier"));
    }
  }

  if (auto nfc = check_nfc(name, units)) {
    findings.push_back(std::move(*nfc));
  }

  if (is_keyword(name)) {
    findings.push_back(
        error(kCodeKeyword, quoted(name) + " is a C++ keyword and cannot be used as a name"));
  } else if (auto token = alternative_token_for(name)) {
    findings.push_back(
        error(kCodeAltToken, quoted(name) + " is a C++ alternative token (it means '" +
                                 std::string(*token) + "') and cannot be used as a name"));
  }

  if (auto reason = reserved_reason(name, scope)) {
    findings.push_back(
        error(kCodeReserved, quoted(name) + " is a reserved identifier in C++: " + *reason));
  } else if (auto from = macro_origin(name)) {
    findings.push_back(error(kCodeMacro, quoted(name) + " is a macro in generated code, from " +
                                             std::string(*from) +
                                             "; the preprocessor would replace it there"));
  }

  if (is_special(name)) {
    findings.push_back(
        warning(kCodeSpecial, quoted(name) + " has a special meaning in some C++ contexts; "
                                             "it is allowed as a name but may confuse readers"));
  }
  return findings;
}

bool is_valid_identifier(std::string_view name, Scope scope) {
  return !has_error(check_identifier(name, scope));
}

// See suggest_once for the rule. Passes repeat because removing characters
// can, in rare cases, leave text that normalises differently; an ASCII-only
// pass is the last resort, as its result is always valid.
std::string suggest_identifier(std::string_view name) {
  std::vector<UChar32> cps = decode_lenient(name);
  for (int pass = 0; pass < 3; ++pass) {
    std::string s = suggest_once(cps, false);
    if (is_valid_identifier(s, Scope::global)) {
      return s;
    }
    cps = decode_lenient(s);
  }
  return suggest_once(decode_lenient(name), true);
}

RegistrationSymbol registration_symbol(std::optional<std::string_view> library_name) {
  RegistrationSymbol result;
  if (!library_name) {
    result.symbol = "register_all_kernels";
    return result;
  }
  const std::string_view name = *library_name;
  if (name.empty()) {
    result.findings.push_back(
        error(kCodeLibEmpty, "library name is empty: give a name or omit the option"));
    return result;
  }
  if (name.size() > kMaxLibraryNameLength) {
    result.findings.push_back(
        error(kCodeLibLength, "library name " + quoted(name.substr(0, 40)) + "... is " +
                                  std::to_string(name.size()) + " bytes long; the limit is " +
                                  std::to_string(kMaxLibraryNameLength) +
                                  " (it names the output directory, and file systems allow 255 "
                                  "bytes a name)"));
    return result;
  }
  if (name == "all") {
    result.findings.push_back(error(
        kCodeLibAll, "library name 'all' cannot be used: register_all_kernels is the registration "
                     "function of the unnamed default library; omit the option to get it, or "
                     "choose another name"));
    return result;
  }

  // The name is only part of a symbol, so a leading '_' is judged on the
  // built symbol below, not as a global name.
  result.findings = check_identifier(name, Scope::local);
  if (has_error(result.findings)) {
    result.findings.push_back(error(kCodeLibInvalid, "library name " + quoted(name) +
                                                         " is not a valid C++ identifier; did "
                                                         "you mean '" +
                                                         suggest_library_name(name) + "'?"));
    return result;
  }

  std::string symbol = "register_" + std::string(name) + "_kernels";
  // A valid name can only make a reserved symbol ("__" from a leading or
  // trailing '_'), but any other error is still refused.
  const std::vector<Finding> symbol_findings = check_identifier(symbol, Scope::global);
  const auto first_error =
      std::ranges::find_if(symbol_findings, [](const Finding& f) { return f.is_error; });
  if (first_error != symbol_findings.end()) {
    const std::optional<std::string> reason = reserved_reason(symbol, Scope::global);
    const std::string why = reason ? "is reserved in C++ (" + *reason + ")"
                                   : "cannot be used (" + first_error->message + ")";
    result.findings.push_back(
        error(kCodeLibSymbol, "library name " + quoted(name) + " gives the registration symbol " +
                                  quoted(symbol) + ", which " + why + "; did you mean '" +
                                  suggest_library_name(name) + "'?"));
    return result;
  }
  result.symbol = std::move(symbol);
  return result;
}

} // namespace opscan::ident
