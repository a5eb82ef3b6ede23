#include "diag/codes.h"

#include <algorithm>

namespace opscan::diag {

const std::vector<CodeInfo>& all_codes() {
  static const std::vector<CodeInfo> codes = {
    {"opscan-annotation-misplaced", ""},
    {"opscan-annotation-syntax", ""},
    {"opscan-clang-error", ""},
    {"opscan-depfile-path", ""},
    {"opscan-dispatch-key", ""},
    {"opscan-dropped-flag", ""},
    {"opscan-duplicate-kernel", ""},
    {"opscan-duplicate-library", ""},
    {"opscan-duplicate-registration", ""},
    {"opscan-executorch-unsupported", ""},
    {"opscan-functions-skipped", ""},
    {"opscan-ident-alternative-token", ""},
    {"opscan-ident-empty", ""},
    {"opscan-ident-invalid-char", ""},
    {"opscan-ident-invalid-start", ""},
    {"opscan-ident-invalid-utf8", ""},
    {"opscan-ident-keyword", ""},
    {"opscan-ident-not-nfc", ""},
    {"opscan-ident-reserved", ""},
    {"opscan-ident-special", ""},
    {"opscan-import-annotated", ""},
    {"opscan-import-arg-meta", ""},
    {"opscan-import-keyed", ""},
    {"opscan-import-macro", ""},
    {"opscan-import-no-kernels", ""},
    {"opscan-import-not-found", ""},
    {"opscan-import-operator", ""},
    {"opscan-import-shared", ""},
    {"opscan-infer-mixed-returns", ""},
    {"opscan-infer-return-count", ""},
    {"opscan-internal", ""},
    {"opscan-io", ""},
    {"opscan-ir-cpp-name", ""},
    {"opscan-ir-invalid", ""},
    {"opscan-ir-library", ""},
    {"opscan-ir-library-name", ""},
    {"opscan-ir-not-library", ""},
    {"opscan-ir-operator-name", ""},
    {"opscan-ir-schema", ""},
    {"opscan-ir-stale", ""},
    {"opscan-kernel-conflict", ""},
    {"opscan-kernel-key", ""},
    {"opscan-known-schemas-skipped", ""},
    {"opscan-libname-all", ""},
    {"opscan-libname-empty", ""},
    {"opscan-libname-invalid", ""},
    {"opscan-libname-symbol", ""},
    {"opscan-library-overlap", ""},
    {"opscan-mismatch-count", ""},
    {"opscan-mismatch-mutability", ""},
    {"opscan-mismatch-order", ""},
    {"opscan-mismatch-returns", ""},
    {"opscan-mismatch-type", ""},
    {"opscan-no-compile-command", ""},
    {"opscan-no-compile-commands", ""},
    {"opscan-no-kernels", ""},
    {"opscan-output-is-input", ""},
    {"opscan-output-twice", ""},
    {"opscan-parse-failed", ""},
    {"opscan-pch-failed", ""},
    {"opscan-scan-inline", ""},
    {"opscan-scan-internal-linkage", ""},
    {"opscan-scan-invalid-type", ""},
    {"opscan-scan-method", ""},
    {"opscan-scan-template", ""},
    {"opscan-scan-unnamed-parameter", ""},
    {"opscan-scan-unsupported-type", ""},
    {"opscan-schema-duplicate-argument", ""},
    {"opscan-schema-kwarg-marker", ""},
    {"opscan-schema-out-suffix", ""},
    {"opscan-schema-reserved-name", ""},
    {"opscan-schema-reserved-overload", ""},
    {"opscan-schema-syntax", ""},
    {"opscan-schema-unknown-type", ""},
    {"opscan-template", ""},
    {"opscan-torch-unsupported", ""},
    {"opscan-unknown-operator", ""},
    {"opscan-unknown-target", ""},
    {"opscan-unsupported-field", ""},
    {"opscan-unsupported-registration", ""},
    {"opscan-usage", ""},
    {"opscan-yaml-format", ""},
    {"opscan-yaml-syntax", ""},
  };
  return codes;
}

const CodeInfo* find_code(std::string_view code) {
  const std::vector<CodeInfo>& codes = all_codes();
  auto it = std::lower_bound(codes.begin(), codes.end(), code,
                             [](const CodeInfo& info, std::string_view c) { return info.code < c; });
  return it != codes.end() && it->code == code ? &*it : nullptr;
}

std::string_view docs_url() {
  return OPSCAN_DOCS_URL;
}

std::string help_url(std::string_view code) {
  return std::string(docs_url()) + "#" + std::string(code);
}

} // namespace opscan::diag
