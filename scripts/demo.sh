#!/usr/bin/env bash
# The demo: scans the example kernel library in examples/ and generates
# ExecuTorch named registration for its two parts, into out/.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OPSCAN_SETUP=tool source "$repo/scripts/setup.sh"

cd "$repo"
opscan="$build/tool/opscan"
flags=(-std=c++17 -Iinclude -Iexamples/include)
echo "opscan demo: scanning examples/kernels/ and generating two named libraries into out/"
"$opscan" run examples/kernels/elementwise.cpp --registration named --lib elementwise -o out -- "${flags[@]}"
"$opscan" run examples/kernels/reduce.cpp --registration named --lib reduce -o out -- "${flags[@]}"
echo "Generated code and IR are in out/elementwise and out/reduce."
