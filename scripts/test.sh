#!/usr/bin/env bash
# Builds opscan and runs its whole test suite.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/scripts/setup.sh"

ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
