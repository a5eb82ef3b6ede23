#!/usr/bin/env bash
# Compile cost of opscan's generated ExecuTorch registration against a
# hand-written equivalent (bench/handwritten_registration.py), same kernels.
#
#   bench/compile_cost.sh [--runs R] [-n KERNELS] [--no-profiling] [--keep]
#
#   --runs R        hyperfine runs per command (default 10)
#   -n KERNELS      kernels in the library (default 209: one corpus file,
#                   make_corpus.py --big-file KERNELS)
#   --no-profiling  both files without the per-operator profiling calls
#   --keep          keep the work directory (path printed)
#   $OPSCAN         the opscan binary (default: a Release build in bench/build)
#
# Both files compile against the ExecuTorch stand-in (test/et_runtime) with
# the flags the end-to-end tests use. Before timing, each must compile with
# -Wall -Wextra without a warning (g++, and clang++ if present), and both must
# register the same kernels: each is linked with stubs of the corpus' kernels
# and the stand-in registry, and the registered (name, key) lists are compared.
# Timing: `g++ -std=c++17 -c` at -O0 and -O2 (and clang++ -O2), the two files
# side by side in one hyperfine invocation per level. Never more than one
# compiler at a time (the machine has 2 cores; hyperfine runs serially).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
RUNS=10 N=209 KEEP=0 PROFILING=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    -n) N=$2; shift ;;
    --no-profiling) PROFILING=(--no-profiling) ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "compile_cost.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

. "$HERE/tools.sh"
need_pkg hyperfine hyperfine
opscan_binary
COMPILERS=(g++)
command -v clang++ >/dev/null && COMPILERS+=(clang++)

WORK=$(mktemp -d /tmp/opscan-ccost.XXXXXX)
if [ "$KEEP" = 1 ]; then echo "work dir: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
cd "$WORK"

# --- the two files ------------------------------------------------------
python3 "$HERE/make_corpus.py" corpus -n 0 --big-file "$N"
# As test/e2e/CMakeLists.txt: the stand-in's include dir and definition.
RT="-I$REPO/test/et_runtime/include -DOPSCAN_ET_STAND_IN"
KFLAGS="-std=c++17 -I$REPO/include -I$REPO/examples/include $RT -Icorpus/include"
"$OPSCAN" run corpus/big/ops_big.cpp --registration named --lib bench "${PROFILING[@]}" \
  -o gen -- -x c++ $KFLAGS
python3 "$HERE/handwritten_registration.py" gen/bench/ir.json hand.cpp "${PROFILING[@]}"
cp gen/bench/RegisterKernels.cpp gen/bench/generated.cpp  # a name that says which is which
GEN=gen/bench/generated.cpp HAND=hand.cpp
kernels=$(grep -c '^    Kernel(' "$GEN")
[ "$kernels" = "$(grep -c '^    Kernel(' "$HAND")" ] ||
  { echo "compile_cost.sh: the two files register different numbers of kernels" >&2; exit 1; }

# --- both compile, without a warning ------------------------------------
for cxx in "${COMPILERS[@]}"; do
  for f in "$GEN" "$HAND"; do
    if ! "$cxx" -std=c++17 -fsyntax-only -Wall -Wextra $RT "$f" 2>"$WORK/warn.txt" ||
       [ -s "$WORK/warn.txt" ]; then
      cat "$WORK/warn.txt" >&2
      echo "compile_cost.sh: $cxx -Wall -Wextra: $f failed or warned (above)" >&2; exit 1
    fi
  done
done
echo "both files compile without warnings (-Wall -Wextra: ${COMPILERS[*]})"

# --- both register the same kernels -------------------------------------
# The corpus' kernel bodies need more of a tensor than the stand-in has, so
# each kernel keeps its own signature (from the corpus) with an aborting body:
# a wrapper calling a kernel of another signature fails to link.
python3 - corpus/big/ops_big.cpp stubs.cpp <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
text, n = re.subn(r"(\)\s*\{)\n.*?\n\}\n", r"\1 std::abort(); }\n", text, flags=re.S)
open(sys.argv[2], "w").write("#include <cstdlib>\n" + text)
EOF
cat >list.cpp <<'EOF'
// Registers library 'bench' and prints each registered (operator, kernel key).
#include <cstdio>
#include <executorch/runtime/kernel/operator_registry.h>
namespace torch::executor { executorch::runtime::Error register_bench_kernels(); }
int main() {
  if (torch::executor::register_bench_kernels() != executorch::runtime::Error::Ok) return 1;
  for (const auto& k : executorch::runtime::get_registered_kernels())
    std::printf("%s %s\n", k.name_, k.kernel_key_.is_fallback() ? "-" : k.kernel_key_.data());
}
EOF
g++ $KFLAGS -w -c stubs.cpp
for side in gen hand; do
  src=$GEN; [ "$side" = hand ] && src=$HAND
  g++ -std=c++17 $RT -o "list-$side" list.cpp "$src" stubs.o "$REPO"/test/et_runtime/src/*.cpp
  "./list-$side" >"registered-$side.txt"
done
cmp registered-gen.txt registered-hand.txt ||
  { diff registered-gen.txt registered-hand.txt | head >&2; exit 1; }
echo "both register the same $(wc -l <registered-gen.txt) kernels (registered-{gen,hand}.txt: cmp equal)"

# --- timing ---------------------------------------------------------------
TIMES=()
for level in "g++ -O0" "g++ -O2" "clang++ -O2"; do
  cxx=${level% *} opt=${level#* }
  command -v "$cxx" >/dev/null || continue
  tag="$cxx$opt" TIMES+=("time-$cxx$opt.json")
  hyperfine -N --style basic --warmup 1 --runs "$RUNS" --export-json "time-$tag.json" \
    -n generated "$cxx -std=c++17 $opt $RT -c $GEN -o gen.o" \
    -n hand-written "$cxx -std=c++17 $opt $RT -c $HAND -o hand.o" >/dev/null
done

# --- the table ------------------------------------------------------------
python3 - "$kernels" "$RUNS" "${TIMES[@]}" <<'EOF'
import json, sys
kernels, runs = sys.argv[1], sys.argv[2]
print(f"\n{kernels} kernels, {runs} runs each. Seconds: wall median (min-max, stddev); "
      "cpu = mean user+sys (less disturbed by other load)\n")
print("| compiler, level | generated | hand-written | generated / hand-written (wall median; cpu) |")
print("|---|---|---|---|")
for path in sys.argv[3:]:
    res = {r["command"]: r for r in json.load(open(path))["results"]}
    cpu = lambda r: r["user"] + r["system"]
    cell = lambda r: (f"{r['median']:.3f} ({r['min']:.3f}-{r['max']:.3f}, {r['stddev']:.3f}); "
                      f"cpu {cpu(r):.3f}")
    g, h = res["generated"], res["hand-written"]
    label = path[len("time-"):-len(".json")].replace("-", " -")
    print(f"| {label} | {cell(g)} | {cell(h)} | {g['median'] / h['median']:.2f}; {cpu(g) / cpu(h):.2f} |")
EOF
