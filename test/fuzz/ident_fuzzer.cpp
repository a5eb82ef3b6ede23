// libFuzzer target for the identifier checker (lib/ident/ident.h). Whatever
// the bytes: no crash; the checks are deterministic and agree with each
// other; an accepted identifier is non-empty UTF-8 without '__', blanks or
// control characters, not a keyword, not starting with a digit; a global
// name that passes passes as a local one; findings name a code and show the
// name without raw bad bytes or control characters; suggestions, including
// the one a refused library name's message gives, are accepted names.
#include "ident/ident.h"

#include "fuzz_check.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#define FUZZ_TARGET "ident_fuzzer"

namespace {

using namespace opscan::ident;

bool has_error(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.is_error; });
}

bool has_code(const std::vector<Finding>& findings, std::string_view code) {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const Finding& f) { return f.code == code; });
}

// Messages are printed to terminals: UTF-8, and no control characters.
void check_findings(const std::vector<Finding>& findings, std::string_view prefix,
                    std::string_view input) {
  for (const Finding& f : findings) {
    FUZZ_CHECK(f.code.starts_with(prefix), input);
    FUZZ_CHECK(!f.message.empty(), input);
    FUZZ_CHECK(opscan::fuzz::is_utf8(f.message), input);
    FUZZ_CHECK(std::none_of(f.message.begin(), f.message.end(),
                            [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }),
               input);
  }
}

void check_accepted(std::string_view name, std::string_view input) {
  FUZZ_CHECK(!name.empty(), input);
  FUZZ_CHECK(opscan::fuzz::is_utf8(name), input);
  FUZZ_CHECK(!(name[0] >= '0' && name[0] <= '9'), input);
  FUZZ_CHECK(name.find("__") == std::string_view::npos, input);
  FUZZ_CHECK(std::none_of(name.begin(), name.end(),
                          [](char c) {
                            const auto u = static_cast<unsigned char>(c);
                            return u <= 0x20 || u == 0x7F ||
                                   (u < 0x80 && !std::isalnum(u) && c != '_');
                          }),
             input);
  FUZZ_CHECK(!is_keyword(name) && !is_alternative_token(name), input);
}

void fuzz_name(std::string_view name, std::string_view input) {
  const std::vector<Finding> global = check_identifier(name, Scope::global);
  const std::vector<Finding> local = check_identifier(name, Scope::local);
  FUZZ_CHECK(check_identifier(name, Scope::global) == global, input);
  check_findings(global, "opscan-ident-", input);
  check_findings(local, "opscan-ident-", input);
  FUZZ_CHECK(is_valid_identifier(name, Scope::global) == !has_error(global), input);
  FUZZ_CHECK(is_valid_identifier(name, Scope::local) == !has_error(local), input);
  if (!has_error(global)) {
    FUZZ_CHECK(!has_error(local), input);
    check_accepted(name, input);
  }
  if (!has_error(local))
    check_accepted(name, input);
  FUZZ_CHECK(!is_keyword(name) || has_code(local, "opscan-ident-keyword"), input);
  FUZZ_CHECK(!is_alternative_token(name) || has_code(local, "opscan-ident-alternative-token"),
             input);

  const std::string suggestion = suggest_identifier(name);
  FUZZ_CHECK(suggest_identifier(name) == suggestion, input);
  FUZZ_CHECK(is_valid_identifier(suggestion, Scope::global), input);
  check_accepted(suggestion, input);

  const RegistrationSymbol lib = registration_symbol(name);
  check_findings(lib.findings, "opscan-", input);
  FUZZ_CHECK(lib.ok() == !has_error(lib.findings), input);
  if (lib.ok()) {
    FUZZ_CHECK(lib.symbol == "register_" + std::string(name) + "_kernels", input);
    FUZZ_CHECK(is_valid_identifier(lib.symbol, Scope::global), input);
    FUZZ_CHECK(!has_error(local), input);
    return;
  }
  // A refused library name's message ends "did you mean 'x'?", x a library
  // name that is accepted. (The name shown earlier may hold the same words.)
  for (const Finding& f : lib.findings) {
    if (f.code != "opscan-libname-invalid" && f.code != "opscan-libname-symbol")
      continue;
    const std::string_view marker = "did you mean '";
    FUZZ_CHECK(f.message.ends_with("'?"), input);
    const size_t at = f.message.rfind(marker);
    FUZZ_CHECK(at != std::string::npos, input);
    const size_t begin = at + marker.size();
    const std::string suggested = f.message.substr(begin, f.message.size() - 2 - begin);
    if (!registration_symbol(suggested).ok())
      opscan::fuzz::fail(FUZZ_TARGET, ("suggested library name refused: " + suggested).c_str(),
                         input);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  fuzz_name(input, input);
  // Names are checked inside larger texts too (qualified C++ names): also
  // each "::"-separated part.
  if (input.find("::") != std::string_view::npos) {
    for (size_t start = 0;;) {
      const size_t end = input.find("::", start);
      fuzz_name(input.substr(start, end - start), input);
      if (end == std::string_view::npos)
        break;
      start = end + 2;
    }
  }
  return 0;
}
