// Checks names as C++ identifiers, suggests valid ones, and makes a
// library's registration symbol.
#include "ident/ident.h"

#include "ident/unicode.h"
#include "ident/words.h"

#include <algorithm>
#include <cstddef>
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

Finding error(std::string_view code, std::string message) {
  return {true, std::string(code), std::move(message)};
}

Finding warning(std::string_view code, std::string message) {
  return {false, std::string(code), std::move(message)};
}

bool has_error(const std::vector<Finding>& findings) {
  return std::ranges::any_of(findings, [](const Finding& f) { return f.is_error; });
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
