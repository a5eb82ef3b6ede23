#!/usr/bin/env bash
# Builds opscan and runs its whole test suite, then the unit and cli tests
# again built with AddressSanitizer and UndefinedBehaviorSanitizer (the
# asan-ubsan preset, CMakePresets.json, in build-asan/).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/scripts/setup.sh"

ctest --test-dir "$build" --output-on-failure -j"$(nproc)"

# The sanitized suite. Its build log is kept, and shown only when it fails.
cd "$repo"
asan_build="$repo/build-asan"
if [[ ! -f "$asan_build/build.ninja" ]]; then
  cmake --preset asan-ubsan >/dev/null
fi
install_npm_packages "$asan_build"
echo "opscan test: building the sanitized tests in $asan_build"
if ! cmake --build --preset asan-ubsan -j"$(nproc)" >"$asan_build/build.log" 2>&1; then
  cat "$asan_build/build.log" >&2
  echo "opscan test: sanitized build failed (log: $asan_build/build.log)" >&2
  exit 1
fi
ctest --preset asan-ubsan -j"$(nproc)"
