#include "ident/ident.h"
#include "run.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unicode/utf8.h>
#include <vector>

namespace opscan::ident {
namespace {

// The codes are part of the interface (users filter on them), so the tests
// spell them out rather than reuse the implementation's constants.
const std::string kEmpty = "opscan-ident-empty";
const std::string kUtf8 = "opscan-ident-invalid-utf8";
const std::string kStart = "opscan-ident-invalid-start";
const std::string kChar = "opscan-ident-invalid-char";
const std::string kNfc = "opscan-ident-not-nfc";
const std::string kKeyword = "opscan-ident-keyword";
const std::string kAltToken = "opscan-ident-alternative-token";
const std::string kReserved = "opscan-ident-reserved";
const std::string kSpecial = "opscan-ident-special";
const std::string kLibEmpty = "opscan-libname-empty";
const std::string kLibAll = "opscan-libname-all";
const std::string kLibInvalid = "opscan-libname-invalid";
const std::string kLibSymbol = "opscan-libname-symbol";
const std::string kLibLength = "opscan-libname-too-long";
const std::string kMacro = "opscan-ident-macro";

constexpr Scope G = Scope::global;
constexpr Scope L = Scope::local;

std::vector<std::string> codes_of(const std::vector<Finding>& findings) {
  std::vector<std::string> codes;
  for (const Finding& f : findings) {
    codes.push_back(f.code);
  }
  return codes;
}

std::string all_messages(const std::vector<Finding>& findings) {
  std::string text;
  for (const Finding& f : findings) {
    text += f.message + "\n";
  }
  return text;
}

// ---- check_identifier ------------------------------------------------------

struct IdentCase {
  std::string label; // gtest name
  std::string name;  // the UTF-8 bytes checked
  Scope scope;
  std::vector<std::string> codes;         // exactly these, in this order
  std::vector<std::string> message_parts; // each in some finding's message
  std::string shown = {};                 // how messages quote the name, if not verbatim
};

const std::vector<IdentCase>& ident_cases() {
  static const std::vector<IdentCase> cases = {
      // ASCII, valid.
      {"ascii_word", "matmul", G, {}, {}},
      {"ascii_mixed_case_digit", "MatMul2D", G, {}, {}},
      {"ascii_inner_underscore", "conv_2d", G, {}, {}},
      {"ascii_single_letter", "x", G, {}, {}},
      {"ascii_trailing_underscore", "x_", G, {}, {}},
      {"keyword_other_case", "For", G, {}, {}},
      {"keyword_prefix", "format", G, {}, {}},
      {"keyword_suffix", "finally", G, {}, {}},
      {"c_keyword_restrict", "restrict", G, {}, {}},
      {"ts_keyword_reflexpr", "reflexpr", G, {}, {}},
      {"ts_keyword_atomic_cancel", "atomic_cancel", G, {}, {}},
      {"cxx26_keyword_contract_assert", "contract_assert", G, {}, {}},
      // ASCII, invalid.
      {"empty", "", G, {kEmpty}, {"empty name ('')", "at least one character"}},
      {"digit_start",
       "2d",
       G,
       {kStart},
       {"'2d' is not a valid C++ identifier: U+0032 '2' at byte 0 cannot start an identifier"}},
      {"only_digits", "123", G, {kStart}, {"U+0031 '1' at byte 0 cannot start"}},
      {"hyphen",
       "foo-bar",
       G,
       {kChar},
       {"'foo-bar' is not a valid C++ identifier: U+002D '-' at byte 3 cannot appear in an "
        "identifier"}},
      {"dot", "foo.bar", G, {kChar}, {"U+002E '.' at byte 3 cannot appear"}},
      {"space", "foo bar", G, {kChar}, {"U+0020 (SPACE) at byte 3"}},
      {"dollar", "a$b", G, {kChar}, {"U+0024 '$' at byte 1"}},
      {"two_bad_chars",
       "a-b.c",
       G,
       {kChar, kChar},
       {"U+002D '-' at byte 1", "U+002E '.' at byte 3"}},
      {"hyphen_start", "-x", G, {kStart}, {"U+002D '-' at byte 0 cannot start an identifier"}},
      {"nul_byte",
       std::string("a\0b", 3),
       G,
       {kChar},
       {"U+0000 (<control-0000>) at byte 1"},
       "a\\u{0000}b"},
      {"tab", "a\tb", G, {kChar}, {"U+0009 (<control-0009>) at byte 1"}, "a\\u{0009}b"},
      // Keywords of C++23, old and new.
      {"kw_for", "for", G, {kKeyword}, {"'for' is a C++ keyword"}},
      {"kw_class", "class", L, {kKeyword}, {"'class' is a C++ keyword"}},
      {"kw_char8_t", "char8_t", G, {kKeyword}, {"'char8_t' is a C++ keyword"}},
      {"kw_co_await", "co_await", G, {kKeyword}, {"'co_await' is a C++ keyword"}},
      {"kw_consteval", "consteval", G, {kKeyword}, {"'consteval' is a C++ keyword"}},
      {"kw_constinit", "constinit", G, {kKeyword}, {"'constinit' is a C++ keyword"}},
      {"kw_requires", "requires", G, {kKeyword}, {"'requires' is a C++ keyword"}},
      {"kw_register_unused", "register", G, {kKeyword}, {"'register' is a C++ keyword"}},
      {"kw_export", "export", G, {kKeyword}, {"'export' is a C++ keyword"}},
      {"kw_nullptr", "nullptr", G, {kKeyword}, {"'nullptr' is a C++ keyword"}},
      {"kw_static_assert", "static_assert", G, {kKeyword}, {"'static_assert' is a C++ keyword"}},
      {"kw_thread_local", "thread_local", G, {kKeyword}, {"'thread_local' is a C++ keyword"}},
      {"kw_wchar_t", "wchar_t", G, {kKeyword}, {"'wchar_t' is a C++ keyword"}},
      {"kw_reinterpret_cast",
       "reinterpret_cast",
       G,
       {kKeyword},
       {"'reinterpret_cast' is a C++ keyword"}},
      // Alternative tokens.
      {"alt_and", "and", G, {kAltToken}, {"'and' is a C++ alternative token (it means '&&')"}},
      {"alt_bitor", "bitor", G, {kAltToken}, {"'bitor'", "it means '|'"}},
      {"alt_not_eq", "not_eq", L, {kAltToken}, {"'not_eq'", "it means '!='"}},
      {"alt_compl", "compl", G, {kAltToken}, {"'compl'", "it means '~'"}},
      {"alt_xor_eq", "xor_eq", G, {kAltToken}, {"'xor_eq'", "it means '^='"}},
      // Identifiers with special meaning: warnings only.
      {"special_final", "final", G, {kSpecial}, {"'final' has a special meaning"}},
      {"special_override", "override", G, {kSpecial}, {"'override' has a special meaning"}},
      {"special_import", "import", L, {kSpecial}, {"'import' has a special meaning"}},
      {"special_module", "module", G, {kSpecial}, {"'module' has a special meaning"}},
      // Reserved identifiers, in both scopes.
      {"underscore_lower_global",
       "_x",
       G,
       {kReserved},
       {"'_x' is a reserved identifier in C++", "global scope"}},
      {"underscore_lower_local", "_x", L, {}, {}},
      {"underscore_upper_global",
       "_X",
       G,
       {kReserved},
       {"'_X' is a reserved identifier", "'_' and an uppercase letter"}},
      {"underscore_upper_local", "_Foo", L, {kReserved}, {"'_Foo'", "'_' and an uppercase letter"}},
      {"double_underscore_global", "a__b", G, {kReserved}, {"'a__b'", "contains '__'"}},
      {"double_underscore_local", "a__b", L, {kReserved}, {"'a__b'", "contains '__'"}},
      {"double_underscore_start_local", "__init", L, {kReserved}, {"'__init'", "contains '__'"}},
      {"double_underscore_end_local", "x__", L, {kReserved}, {"'x__'", "contains '__'"}},
      {"lone_underscore_global", "_", G, {kReserved}, {"'_'", "global scope"}},
      {"lone_underscore_local", "_", L, {}, {}},
      {"underscore_digit_local", "_1", L, {}, {}},
      {"underscore_digit_global", "_1", G, {kReserved}, {"'_1'", "global scope"}},
      // "Uppercase letter" in [lex.name] is read as A-Z, as compilers do.
      {"underscore_greek_upper_local", "_Ω", L, {}, {}},
      {"reserved_and_invalid_char",
       "_X-y",
       L,
       {kChar, kReserved},
       {"U+002D '-' at byte 2", "uppercase letter"}},
      // Unicode, valid.
      {"latin_nfc", "café", G, {}, {}},
      {"greek", "αβγ", G, {}, {}},
      {"greek_mixed", "Ωmega_2", G, {}, {}},
      {"cjk", "変数", G, {}, {}},
      {"cjk_with_digit", "名前2", G, {}, {}},
      {"hangul", "변수", G, {}, {}},
      {"cyrillic", "переменная", G, {}, {}},
      {"devanagari_with_marks", "नमस्ते", G, {}, {}},
      {"combining_mark_inside", "x\u0316", G, {}, {}},
      // Canonical reordering and composition are both NFC's business.
      {"marks_out_of_order",
       "x\u0301\u0316",
       G,
       {kNfc},
       {"U+0301 U+0316 at byte 1 should be U+0316 U+0301"}},
      {"composable_across_mark",
       "e\u0301\u0316",
       G,
       {kNfc},
       {"U+0065 U+0301 at byte 0 should be U+00E9"}},
      // Unicode, invalid.
      {"decomposed_not_nfc",
       "cafe\u0301",
       G,
       {kNfc},
       {"not in Unicode Normalization Form C (NFC)", "U+0065 U+0301 at byte 3 should be U+00E9",
        "(NFC spelling: 'café')"}},
      {"angstrom_sign_not_nfc", "\u212Bngstrom", G, {kNfc}, {"U+212B at byte 0 should be U+00C5"}},
      {"hangul_jamo_not_nfc",
       "\u1100\u1161",
       G,
       {kNfc},
       {"U+1100 U+1161 at byte 0 should be U+AC00"}},
      {"euro_sign",
       "a€b",
       G,
       {kChar},
       {"'a€b' is not a valid C++ identifier: U+20AC '€' at byte 1 cannot appear in an "
        "identifier"}},
      {"combining_mark_start",
       "\u0301a",
       G,
       {kStart},
       {"U+0301 (COMBINING ACUTE ACCENT) at byte 0 cannot start an identifier"},
       "\\u{0301}a"},
      {"emoji_start", "😀", G, {kStart}, {"U+1F600 '😀' at byte 0 cannot start"}},
      {"emoji_inside", "a😀", G, {kChar}, {"U+1F600 '😀' at byte 1 cannot appear"}},
      {"zero_width_joiner",
       "a\u200Db",
       G,
       {kChar},
       {"U+200D (ZERO WIDTH JOINER) at byte 1"},
       "a\\u{200D}b"},
      {"no_break_space",
       "a\u00A0b",
       G,
       {kChar},
       {"U+00A0 (NO-BREAK SPACE) at byte 1"},
       "a\\u{00A0}b"},
      {"fullwidth_digit_start", "１a", G, {kStart}, {"U+FF11 '１' at byte 0 cannot start"}},
      // Ill-formed UTF-8: one finding, nothing else judged.
      {"utf8_ff",
       "\xFF",
       G,
       {kUtf8},
       {"'\\xFF' is not valid UTF-8: byte 0xFF at byte 0 never occurs in UTF-8"},
       "\\xFF"},
      {"utf8_f5",
       "\xF5\x80\x80\x80",
       G,
       {kUtf8},
       {"byte 0xF5 at byte 0 never occurs"},
       "\\xF5\\x80\\x80\\x80"},
      {"utf8_stray_continuation",
       "a\x80"
       "b",
       G,
       {kUtf8},
       {"unexpected continuation byte 0x80 at byte 1"},
       "a\\x80b"},
      {"utf8_overlong_c0",
       "\xC0\xAF",
       G,
       {kUtf8},
       {"byte 0xC0 at byte 0 can only start an overlong encoding"},
       "\\xC0\\xAF"},
      {"utf8_overlong_3",
       "\xE0\x80\xAF",
       G,
       {kUtf8},
       {"overlong encoding at byte 0"},
       "\\xE0\\x80\\xAF"},
      {"utf8_overlong_4",
       "\xF0\x80\x80\xAF",
       G,
       {kUtf8},
       {"overlong encoding at byte 0"},
       "\\xF0\\x80\\x80\\xAF"},
      {"utf8_surrogate",
       "a\xED\xA0\x80",
       G,
       {kUtf8},
       {"encoded surrogate", "at byte 1"},
       "a\\xED\\xA0\\x80"},
      {"utf8_above_10ffff",
       "\xF4\x90\x80\x80",
       G,
       {kUtf8},
       {"code point above U+10FFFF at byte 0"},
       "\\xF4\\x90\\x80\\x80"},
      {"utf8_truncated",
       "caf\xC3",
       G,
       {kUtf8},
       {"sequence starting at byte 3 is cut off by the end"},
       "caf\\xC3"},
      {"utf8_latin1_at_end",
       "caf\xE9",
       G,
       {kUtf8},
       {"sequence starting at byte 3 is cut off"},
       "caf\\xE9"},
      {"utf8_incomplete",
       "\xC3(",
       G,
       {kUtf8},
       {"missing continuation bytes (found 0x28 at byte 1)"},
       "\\xC3("},
      {"utf8_latin1_inside",
       "caf\xE9s",
       G,
       {kUtf8},
       {"starting at byte 3 is missing continuation bytes"},
       "caf\\xE9s"},
  };
  return cases;
}

// Names the case in gtest's output instead of dumping its bytes.
void PrintTo(const IdentCase& c, std::ostream* os) {
  *os << c.label;
}

class CheckIdentifier : public ::testing::TestWithParam<IdentCase> {};

TEST_P(CheckIdentifier, ReportsExpectedFindings) {
  const IdentCase& c = GetParam();
  const std::vector<Finding> findings = check_identifier(c.name, c.scope);
  EXPECT_EQ(codes_of(findings), c.codes);
  const std::string messages = all_messages(findings);
  for (const std::string& part : c.message_parts) {
    EXPECT_NE(messages.find(part), std::string::npos) << "missing '" << part << "' in:\n"
                                                      << messages;
  }
  const std::string quote = "'" + (c.shown.empty() ? c.name : c.shown) + "'";
  bool any_error = false;
  for (const Finding& f : findings) {
    EXPECT_EQ(f.is_error, f.code != kSpecial) << f.code;
    EXPECT_NE(f.message.find(quote), std::string::npos) << f.message;
    any_error = any_error || f.is_error;
  }
  EXPECT_EQ(is_valid_identifier(c.name, c.scope), !any_error);
  // Deterministic: the same input gives the same findings.
  EXPECT_EQ(check_identifier(c.name, c.scope), findings);
}

INSTANTIATE_TEST_SUITE_P(Table, CheckIdentifier, ::testing::ValuesIn(ident_cases()),
                         [](const ::testing::TestParamInfo<IdentCase>& info) {
                           return info.param.label;
                         });

TEST(CheckIdentifier, DefaultScopeIsGlobal) {
  EXPECT_EQ(codes_of(check_identifier("_x")), std::vector<std::string>{kReserved});
  EXPECT_FALSE(is_valid_identifier("_x"));
  EXPECT_TRUE(is_valid_identifier("_x", Scope::local));
}

TEST(CheckIdentifier, SpecialIdentifiersAreValid) {
  for (std::string_view name : {"final", "override", "import", "module"}) {
    EXPECT_TRUE(is_valid_identifier(name)) << name;
    EXPECT_FALSE(is_keyword(name)) << name;
  }
}

// ---- Keyword tables ---------------------------------------------------------

// C++23 [lex.key], table "Keywords": 81 entries.
constexpr std::array<std::string_view, 81> kCxx23Keywords = {
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

static_assert(std::ranges::none_of(kCxx23Keywords, &std::string_view::empty));

constexpr std::array<std::string_view, 11> kCxx23AlternativeTokens = {
    "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor", "xor_eq",
};

// 81 distinct words, each a keyword to the implementation, whose table has
// 81 distinct entries too (checked there): so the two tables are equal.
TEST(Keywords, AllCxx23KeywordsAreRefused) {
  EXPECT_EQ(std::set<std::string_view>(kCxx23Keywords.begin(), kCxx23Keywords.end()).size(), 81u);
  for (std::string_view kw : kCxx23Keywords) {
    EXPECT_TRUE(is_keyword(kw)) << kw;
    EXPECT_FALSE(is_alternative_token(kw)) << kw;
    EXPECT_EQ(codes_of(check_identifier(kw, Scope::local)), std::vector<std::string>{kKeyword})
        << kw;
  }
}

TEST(Keywords, AllAlternativeTokensAreRefused) {
  EXPECT_EQ(
      std::set<std::string_view>(kCxx23AlternativeTokens.begin(), kCxx23AlternativeTokens.end())
          .size(),
      11u);
  for (std::string_view tok : kCxx23AlternativeTokens) {
    EXPECT_TRUE(is_alternative_token(tok)) << tok;
    EXPECT_FALSE(is_keyword(tok)) << tok;
    EXPECT_EQ(codes_of(check_identifier(tok, Scope::local)), std::vector<std::string>{kAltToken})
        << tok;
  }
}

TEST(Keywords, LookalikesAreNotKeywords) {
  for (std::string_view name :
       {"FOR", "For", "fo", "forr", "int8_t", "char64_t", "co_async", "final", "import", "module",
        "override", "restrict", "_Bool", "typeof", "NULL", "", "AND", "and_", "nand"}) {
    EXPECT_FALSE(is_keyword(name)) << name;
    EXPECT_FALSE(is_alternative_token(name)) << name;
  }
}

// ---- UTF-8 validation agrees with ICU --------------------------------------

bool icu_well_formed(const std::string& s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto length = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < length;) {
    UChar32 c = 0;
    U8_NEXT(p, i, length, c);
    if (c < 0) {
      return false;
    }
  }
  return true;
}

bool reports_bad_utf8(const std::string& s) {
  const std::vector<std::string> codes = codes_of(check_identifier(s, Scope::local));
  return codes == std::vector<std::string>{kUtf8};
}

TEST(Utf8, AgreesWithIcuOnAllOneAndTwoByteStrings) {
  for (int a = 0; a < 256; ++a) {
    for (int b = -1; b < 256; ++b) {
      std::string s(1, static_cast<char>(a));
      if (b >= 0) {
        s += static_cast<char>(b);
      }
      if (s.find('\0') != std::string::npos) {
        continue; // valid UTF-8 but not an identifier; covered by the table
      }
      ASSERT_EQ(reports_bad_utf8(s), !icu_well_formed(s)) << std::hex << a << " " << b;
    }
  }
}

TEST(Utf8, AgreesWithIcuOnLongerSequenceBoundaries) {
  const std::array<int, 6> trails = {0x00 + 'a', 0x7F, 0x80, 0x8F, 0x9F, 0xBF};
  for (int lead = 0xE0; lead <= 0xFF; ++lead) {
    for (int second = 0; second < 256; ++second) {
      for (int third : trails) {
        for (int fourth : trails) {
          std::string s = {static_cast<char>(lead), static_cast<char>(second),
                           static_cast<char>(third), static_cast<char>(fourth)};
          if (s.find('\0') != std::string::npos) {
            continue;
          }
          ASSERT_EQ(reports_bad_utf8(s), !icu_well_formed(s))
              << std::hex << lead << " " << second << " " << third << " " << fourth;
        }
      }
    }
  }
}

// ---- suggest_identifier ----------------------------------------------------

struct SuggestCase {
  std::string label;
  std::string name;
  std::string expected;
};

const std::vector<SuggestCase>& suggest_cases() {
  static const std::vector<SuggestCase> cases = {
      {"hyphen", "foo-bar", "foo_bar"},
      {"dot", "foo.bar", "foo_bar"},
      {"invalid_run", "foo - bar", "foo_bar"},
      {"digit_start", "2d", "op_2d"},
      {"underscore_then_digit", "_2d", "op_2d"},
      {"keyword", "for", "for_"},
      {"alternative_token", "and", "and_"},
      {"reserved_double", "a__b", "a_b"},
      {"reserved_upper", "_Foo", "Foo"},
      {"reserved_leading", "__init__", "init_"},
      {"euro", "a€b", "a_b"},
      {"decomposed", "cafe\u0301", "café"},
      {"angstrom_sign", "\u212Bngstrom", "\u00C5ngstrom"},
      {"combining_start", "\u0301a", "a"},
      {"combining_after_junk", "-\u0301a", "a"},
      {"fullwidth_digit_start", "１a", "op_１a"},
      {"emoji", "😀face", "face"},
      {"bad_utf8", "caf\xC3", "caf_"},
      {"bad_utf8_only", "\xFF\xFE", "op"},
      {"empty", "", "op"},
      {"only_symbols", "-+-", "op"},
      {"only_underscores", "___", "op"},
      {"keyword_after_cleanup", "-int-", "int_"},
      {"valid_kept", "portable_ops", "portable_ops"},
      {"valid_unicode_kept", "変数", "変数"},
      {"special_kept", "final", "final"},
  };
  return cases;
}

void PrintTo(const SuggestCase& c, std::ostream* os) {
  *os << c.label;
}

class SuggestIdentifier : public ::testing::TestWithParam<SuggestCase> {};

TEST_P(SuggestIdentifier, GivesDocumentedSpelling) {
  const SuggestCase& c = GetParam();
  EXPECT_EQ(suggest_identifier(c.name), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Table, SuggestIdentifier, ::testing::ValuesIn(suggest_cases()),
                         [](const ::testing::TestParamInfo<SuggestCase>& info) {
                           return info.param.label;
                         });

std::vector<std::string> all_test_inputs();

TEST(SuggestIdentifier, AlwaysValidAtGlobalScope) {
  for (const std::string& name : all_test_inputs()) {
    const std::string s = suggest_identifier(name);
    EXPECT_TRUE(is_valid_identifier(s, Scope::global))
        << "suggestion '" << s << "' for '" << name
        << "': " << all_messages(check_identifier(s, Scope::global));
  }
}

TEST(SuggestIdentifier, KeepsValidGlobalNames) {
  for (const std::string& name : all_test_inputs()) {
    if (is_valid_identifier(name, Scope::global)) {
      EXPECT_EQ(suggest_identifier(name), name);
    }
  }
}

// ---- Macros where generated code is compiled (issue 23, finding 13) -------

// The names the issue found: they scanned and checked clean, and the
// generated code did not compile.
TEST(IdentMacros, TheIssuesNamesAreRefusedSayingWhy) {
  const std::pair<std::string, std::string> cases[] = {
      {"NULL", "from <cstddef>"},
      {"EOF", "from <cstdio>"},
      {"INT64_MAX", "from <climits> and <cstdint>"},
      {"SIZE_MAX", "from <climits> and <cstdint>"},
      {"errno", "from <cerrno>"},
      {"linux", "predefined by g++ and clang++ in GNU modes such as -std=gnu++17"},
      {"unix", "predefined by g++ and clang++ in GNU modes such as -std=gnu++17"},
      {"i386", "predefined by g++ and clang++"},
  };
  for (const auto& [name, from] : cases) {
    for (Scope scope : {G, L}) {
      const std::vector<Finding> findings = check_identifier(name, scope);
      ASSERT_EQ(codes_of(findings), std::vector<std::string>{kMacro}) << name;
      EXPECT_TRUE(findings[0].message.starts_with("'" + name + "' is a macro in generated code, "))
          << findings[0].message;
      EXPECT_NE(findings[0].message.find(from), std::string::npos) << findings[0].message;
      EXPECT_NE(findings[0].message.find("the preprocessor would replace it"), std::string::npos);
    }
    EXPECT_TRUE(macro_origin(name)) << name;
  }
  // Near misses stay valid names.
  for (const char* name : {"null", "Eof", "eof", "int64_max", "Linux", "unix_time", "errno_", "E",
                           "EValue", "SIGma", "M", "SIG", "MAX", "size_max", "nan", "my_linux"})
    EXPECT_TRUE(is_valid_identifier(name, L)) << name;
}

TEST(IdentMacros, SuggestionsAvoidThem) {
  for (const char* name : {"NULL", "EOF", "linux", "EPS", "K_MAX", "M_X"}) {
    const std::string suggested = suggest_identifier(name);
    EXPECT_TRUE(is_valid_identifier(suggested, G)) << name << " -> " << suggested;
  }
  EXPECT_EQ(suggest_identifier("NULL"), "op_NULL");
}

// The macro names the compilers define where generated code is compiled.
// `includes` is the text of a source file; the compiler runs in GNU mode.
std::set<std::string> macros_of(const std::string& compiler, const std::string& flags,
                                const std::string& includes) {
  opscan::testing::TempDir dir;
  opscan::testing::write_file(dir.path() / "in.cpp", includes);
  const opscan::testing::RunResult run = opscan::testing::run_command(
      dir.path(), compiler + " -std=gnu++17 " + flags + " -dM -E -x c++ in.cpp");
  EXPECT_EQ(run.exit_code, 0) << compiler << " " << flags << "\n" << run.err;
  std::set<std::string> names;
  static const std::regex define(R"(#define ([A-Za-z_][A-Za-z0-9_]*))");
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, define) && m.position(0) == 0)
      names.insert(m[1]);
  }
  EXPECT_GT(names.size(), 50u) << compiler << " " << flags;
  return names;
}

// Every macro must be refused as a name (at local scope, the loosest):
// either by the table or because it is reserved (__x, _X) anyway.
void expect_all_refused(const std::set<std::string>& macros, const std::string& where) {
  for (const std::string& name : macros)
    EXPECT_FALSE(is_valid_identifier(name, L))
        << name << " is a macro (" << where << ") but accepted as a name: add it to the "
        << "macro table in lib/ident/words.cpp, with where it comes from";
}

// The standard headers the built-in templates include, and (for the
// ExecuTorch target) the headers of opscan's ExecuTorch stand-in: every
// macro they define, as g++ and clang++ define it under -std=gnu++17
// (CMake's default), is refused. libtorch's headers: test/torch's
// macro_names_test.
TEST(IdentMacros, EveryMacroOfTheTemplatesHeadersIsRefused) {
  namespace fs = std::filesystem;
  const fs::path source = OPSCAN_SOURCE_DIR;
  std::string includes;
  std::set<std::string> seen;
  static const std::regex include(R"(^#include <([^>]+)>)");
  for (const auto& entry : fs::recursive_directory_iterator(source / "templates")) {
    if (!entry.is_regular_file())
      continue;
    std::istringstream lines(opscan::testing::read_file(entry.path()));
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, include))
        continue;
      const std::string header = m[1];
      // Standard headers, and ExecuTorch's (the stand-in's); libtorch's
      // are test/torch's.
      const bool standard = header.find('/') == std::string::npos;
      const bool stand_in = fs::exists(source / "test/et_runtime/include" / header);
      if ((standard || stand_in) && seen.insert(header).second)
        includes += "#include <" + header + ">\n";
    }
  }
  ASSERT_TRUE(seen.contains("cstdint")) << "no #include found in the templates";
  const std::string flags = "-I" + (source / "test/et_runtime/include").string();
  for (const std::string& compiler :
       {std::string(OPSCAN_CXX_COMPILER), std::string(OPSCAN_CLANGXX)})
    expect_all_refused(macros_of(compiler, flags, includes),
                       compiler + " with the templates' includes");
}

// What compilers predefine in GNU modes, for the targets Debian builds for
// (clang++ can preprocess for each): linux and unix everywhere, i386, mips,
// sparc, mc68000; WIN32 on Windows.
TEST(IdentMacros, EveryPredefinedMacroOfGnuModesIsRefused) {
  for (const char* target :
       {"x86_64-linux-gnu", "i686-linux-gnu", "aarch64-linux-gnu", "arm-linux-gnueabihf",
        "mips-linux-gnu", "mips64el-linux-gnuabi64", "powerpc64le-linux-gnu", "s390x-linux-gnu",
        "riscv64-linux-gnu", "sparc64-linux-gnu", "m68k-linux-gnu", "x86_64-pc-windows-gnu",
        "x86_64-apple-darwin", "x86_64-unknown-freebsd"}) {
    const std::string flags = std::string("--target=") + target;
    expect_all_refused(macros_of(OPSCAN_CLANGXX, flags, ""), flags);
  }
  expect_all_refused(macros_of(OPSCAN_CXX_COMPILER, "", ""), OPSCAN_CXX_COMPILER);
}

// ---- registration_symbol ---------------------------------------------------

struct LibCase {
  std::string label;
  std::optional<std::string> name;
  std::string symbol; // empty when refused
  std::vector<std::string> codes;
  std::vector<std::string> message_parts;
};

const std::vector<LibCase>& lib_cases() {
  static const std::vector<LibCase> cases = {
      {"omitted", std::nullopt, "register_all_kernels", {}, {}},
      {"empty", "", "", {kLibEmpty}, {"library name is empty: give a name or omit the option"}},
      {"all", "all", "", {kLibAll}, {"'all'", "register_all_kernels", "unnamed default library"}},
      {"portable_ops", "portable_ops", "register_portable_ops_kernels", {}, {}},
      // It names the output directory: 255 bytes a name (issue 23, 16).
      {"longest", std::string(200, 'a'), "register_" + std::string(200, 'a') + "_kernels", {}, {}},
      {"too_long",
       std::string(201, 'a'),
       "",
       {kLibLength},
       {"is 201 bytes long; the limit is 200 (it names the output directory"}},
      {"macro", "linux", "", {kMacro, kLibInvalid}, {"'linux' is a macro in generated code"}},
      {"single_letter", "x", "register_x_kernels", {}, {}},
      {"all_other_case", "All", "register_All_kernels", {}, {}},
      {"unicode", "café", "register_café_kernels", {}, {}},
      {"greek", "Ω", "register_Ω_kernels", {}, {}},
      {"special_warns",
       "final",
       "register_final_kernels",
       {kSpecial},
       {"'final' has a special meaning"}},
      {"hyphen",
       "foo-bar",
       "",
       {kChar, kLibInvalid},
       {"U+002D '-' at byte 3",
        "library name 'foo-bar' is not a valid C++ identifier; did you mean 'foo_bar'?"}},
      {"dot",
       "foo.bar",
       "",
       {kChar, kLibInvalid},
       {"U+002E '.' at byte 3", "did you mean 'foo_bar'?"}},
      {"leading_underscore",
       "_x",
       "",
       {kLibSymbol},
       {"library name '_x' gives the registration symbol 'register__x_kernels', which is reserved "
        "in C++ (it contains '__'); did you mean 'x'?"}},
      {"lone_underscore", "_", "", {kLibSymbol}, {"'register___kernels'", "did you mean 'op'?"}},
      {"trailing_underscore",
       "x_",
       "",
       {kLibSymbol},
       {"'register_x__kernels'", "contains '__'", "did you mean 'x'?"}},
      {"underscore_upper",
       "_X",
       "",
       {kReserved, kLibInvalid},
       {"uppercase letter", "did you mean 'X'?"}},
      {"double_underscore",
       "a__b",
       "",
       {kReserved, kLibInvalid},
       {"contains '__'", "did you mean 'a_b'?"}},
      {"digit_start",
       "2d",
       "",
       {kStart, kLibInvalid},
       {"U+0032 '2' at byte 0", "did you mean 'op_2d'?"}},
      {"keyword",
       "for",
       "",
       {kKeyword, kLibInvalid},
       {"'for' is a C++ keyword", "did you mean 'for_lib'?"}},
      {"alternative_token",
       "and",
       "",
       {kAltToken, kLibInvalid},
       {"it means '&&'", "did you mean 'and_lib'?"}},
      {"all_with_junk", "all-", "", {kChar, kLibInvalid}, {"did you mean 'all_lib'?"}},
      {"not_nfc", "cafe\u0301", "", {kNfc, kLibInvalid}, {"NFC", "did you mean 'café'?"}},
      {"bad_utf8", "\xFF", "", {kUtf8, kLibInvalid}, {"not valid UTF-8", "did you mean 'op'?"}},
      {"space", "my lib", "", {kChar, kLibInvalid}, {"did you mean 'my_lib'?"}},
  };
  return cases;
}

void PrintTo(const LibCase& c, std::ostream* os) {
  *os << c.label;
}

class RegistrationSymbolTest : public ::testing::TestWithParam<LibCase> {};

TEST_P(RegistrationSymbolTest, BuildsOrRefuses) {
  const LibCase& c = GetParam();
  const RegistrationSymbol r =
      c.name ? registration_symbol(std::string_view(*c.name)) : registration_symbol(std::nullopt);
  EXPECT_EQ(r.symbol, c.symbol);
  EXPECT_EQ(r.ok(), !c.symbol.empty());
  EXPECT_EQ(codes_of(r.findings), c.codes);
  const std::string messages = all_messages(r.findings);
  for (const std::string& part : c.message_parts) {
    EXPECT_NE(messages.find(part), std::string::npos) << "missing '" << part << "' in:\n"
                                                      << messages;
  }
  bool any_error = false;
  for (const Finding& f : r.findings) {
    any_error = any_error || f.is_error;
  }
  // Refused exactly when there is an error; a warning alone never refuses.
  EXPECT_EQ(r.ok(), !any_error);
}

INSTANTIATE_TEST_SUITE_P(Table, RegistrationSymbolTest, ::testing::ValuesIn(lib_cases()),
                         [](const ::testing::TestParamInfo<LibCase>& info) {
                           return info.param.label;
                         });

// A "did you mean" must itself be accepted, or the advice goes in circles.
TEST(RegistrationSymbolTest, SuggestedNamesAreAccepted) {
  const std::string marker = "did you mean '";
  int suggestions = 0;
  for (const std::string& name : all_test_inputs()) {
    for (const Finding& f : registration_symbol(std::string_view(name)).findings) {
      const auto start = f.message.find(marker);
      if (start == std::string::npos) {
        continue;
      }
      const auto begin = start + marker.size();
      const std::string suggested = f.message.substr(begin, f.message.find("'?", begin) - begin);
      const RegistrationSymbol again = registration_symbol(std::string_view(suggested));
      EXPECT_TRUE(again.ok()) << "'" << name << "' -> '" << suggested
                              << "': " << all_messages(again.findings);
      ++suggestions;
    }
  }
  EXPECT_GT(suggestions, 50);
}

TEST(RegistrationSymbolTest, NeverRewritesTheName) {
  for (const std::string& name : all_test_inputs()) {
    const RegistrationSymbol r = registration_symbol(std::string_view(name));
    if (r.ok()) {
      EXPECT_EQ(r.symbol, "register_" + name + "_kernels");
    }
  }
}

std::vector<std::string> all_test_inputs() {
  std::vector<std::string> inputs;
  for (const IdentCase& c : ident_cases()) {
    inputs.push_back(c.name);
  }
  for (const SuggestCase& c : suggest_cases()) {
    inputs.push_back(c.name);
  }
  for (const LibCase& c : lib_cases()) {
    if (c.name) {
      inputs.push_back(*c.name);
    }
  }
  for (std::string_view kw : kCxx23Keywords) {
    inputs.emplace_back(kw);
  }
  for (std::string_view tok : kCxx23AlternativeTokens) {
    inputs.emplace_back(tok);
  }
  return inputs;
}

} // namespace
} // namespace opscan::ident
