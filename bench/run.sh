#!/usr/bin/env bash
# opscan performance benchmark: every figure is measured in one run and
# reported as a ratio next to its target (no timed assertions anywhere).
#
#   bench/run.sh [--quick] [-n FILES] [--runs R] [--gen-ops OPS] [--keep]
#
#   --quick      N=20, 2 timed runs per command: a few minutes
#   -n FILES     corpus size (default 200)
#   --runs R     hyperfine runs per command (default 3; each parse-bound run
#                of N=200 takes tens of seconds on 2 cores)
#   --gen-ops    operators in the IR timed by `opscan generate` (default 2000)
#   --keep       keep the temporary corpus and outputs (path printed)
#   $OPSCAN      use this opscan binary instead of building bench/build
#
# Uses at most 2 processes at a time (-j2, xargs -P2, ninja -j2).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
N=200 RUNS=3 GEN_OPS=2000 KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) N=20 RUNS=2 ;;
    -n) N=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --gen-ops) GEN_OPS=$2; shift ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

# --- tools --------------------------------------------------------------
. "$HERE/tools.sh"
need_pkg hyperfine hyperfine
[ -x /usr/bin/time ] || need_pkg /usr/bin/time time
command -v clang++ >/dev/null || { echo "run.sh: clang++ is needed for the baseline" >&2; exit 2; }
opscan_binary

# --- corpus -------------------------------------------------------------
WORK=$(mktemp -d /tmp/opscan-bench.XXXXXX)
if [ "$KEEP" = 1 ]; then echo "work dir: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
python3 "$HERE/make_corpus.py" "$WORK/corpus" -n "$N" --big-file "$GEN_OPS"
cd "$WORK/corpus"   # commands below use relative paths: short, shell-globbed

FLAGS="-x c++ -std=c++17 -I$REPO/include -I$REPO/examples/include -I$WORK/corpus/include"
# The baseline parses the very same code opscan parses (OPSCAN_SCANNING on,
# warnings off, as opscan adds them), one compiler process per file as a build does.
CLANG_FLAGS="-fsyntax-only -DOPSCAN_SCANNING=1 -w $FLAGS"
SCAN="$OPSCAN scan -o $WORK/scan.json kernels/*.cpp -- $FLAGS"
CLANG="printf '%s\n' kernels/*.cpp | xargs -P2 -n1 clang++ $CLANG_FLAGS"
RUN="$OPSCAN run -j2 kernels/*.cpp --cache $WORK/cache --registration named --lib bench -o $WORK/gen -- $FLAGS"
GEN="$OPSCAN generate $WORK/big.json --registration named --lib bench -o $WORK/gen-big"
# (1) with a precompiled header: opscan precompiles the runtime header every
# kernel file includes first, then each scan loads it. The cold time
# includes making the precompiled header.
PCH="$OPSCAN pch include/bench_kernels/kernel_runtime.h -o $WORK/runtime.pch -- $FLAGS"
SCAN_PCH="$PCH && ${SCAN/scan -o/scan -j2 -o} -include-pch $WORK/runtime.pch"

# A comparison is void if either side fails: check both once, loudly.
sh -c "$CLANG" || { echo "run.sh: clang++ -fsyntax-only failed on the corpus" >&2; exit 1; }
sh -c "${SCAN/scan -o/scan -j2 --no-auto-pch -o}" 2>"$WORK/scan.err" || { cat "$WORK/scan.err" >&2; exit 1; }
cp "$WORK/scan.json" "$WORK/scan-plain.json"
sh -c "${SCAN/scan -o/scan -j2 -o}" 2>"$WORK/scan.err" || { cat "$WORK/scan.err" >&2; exit 1; }
cmp -s "$WORK/scan.json" "$WORK/scan-plain.json" ||
  { echo "run.sh: the scan with the automatic precompiled header gave another IR" >&2; exit 1; }
sh -c "$SCAN_PCH" 2>"$WORK/scan.err" || { cat "$WORK/scan.err" >&2; exit 1; }
cmp -s "$WORK/scan.json" "$WORK/scan-plain.json" ||
  { echo "run.sh: the scan with a precompiled header gave another IR" >&2; exit 1; }
count() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["kernels"]))' "$1"; }
KERNELS=$(count "$WORK/scan.json")
$OPSCAN scan -j1 -o "$WORK/big.json" big/ops_big.cpp -- $FLAGS 2>"$WORK/big.err" ||
  { cat "$WORK/big.err" >&2; exit 1; }
[ "$(count "$WORK/big.json")" = "$GEN_OPS" ] || { echo "run.sh: big IR lacks kernels" >&2; exit 1; }

# --- measurements -------------------------------------------------------
HF="hyperfine --style basic"
echo "== (1)+(4) cold scan -j2 / clang++ -fsyntax-only -P2 / scan -j1" >&2
# No warm-up: the checks above already warmed the page cache, and a
# parse-bound run is long.
$HF --runs $RUNS --export-json "$WORK/scan.hf.json" \
  -n scan_j2 "${SCAN/scan -o/scan -j2 -o}" \
  -n clang_p2 "$CLANG" \
  -n scan_j1 "${SCAN/scan -o/scan -j1 -o}" \
  -n scan_noauto_j2 "${SCAN/scan -o/scan -j2 --no-auto-pch -o}" \
  -n scan_pch_j2 "$SCAN_PCH" >&2

echo "== (2)+(3) opscan run: cold / no change / one file touched" >&2
# Each command's --prepare runs before each of its runs: cold deletes the
# output and the fragment cache; no-change leaves both; "touched" changes one
# file's content (the cache keys on content hashes, so a bare mtime change is
# no change). run_cold's runs leave gen/ and the cache behind for the others.
$HF --runs $RUNS --export-json "$WORK/run.hf.json" \
  --prepare "rm -rf $WORK/gen $WORK/cache" -n run_cold "$RUN" \
  --prepare "true" -n run_nochange "$RUN" \
  --prepare "echo '// edit '\$RANDOM >> kernels/op_0000.cpp" -n run_touch1 "$RUN" >&2

echo "== (5) generate from an IR of $GEN_OPS operators" >&2
$HF --warmup 2 --runs $((RUNS > 10 ? RUNS : 10)) --export-json "$WORK/gen.hf.json" \
  --prepare "rm -rf $WORK/gen-big" -n generate "$GEN" >&2

echo "== peak memory (/usr/bin/time -v)" >&2
rss_kb() { /usr/bin/time -v sh -c "$1" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}'; }
RSS_J1=$(rss_kb "${SCAN/scan -o/scan -j1 -o}")
RSS_J2=$(rss_kb "${SCAN/scan -o/scan -j2 -o}")

# --- report -------------------------------------------------------------
python3 - "$WORK" "$N" "$KERNELS" "$GEN_OPS" "$RSS_J1" "$RSS_J2" "$RUNS" <<'EOF'
import json, sys
work, n, kernels, gen_ops, rss1, rss2, runs = sys.argv[1:]
t = {}
for f in ("scan", "run", "gen"):
    for r in json.load(open(f"{work}/{f}.hf.json"))["results"]:
        t[r["command"]] = (r["mean"], r["stddev"] or 0.0)
def s(name):
    m, sd = t[name]
    return f"{m:.3f} s ± {sd:.3f}"
rows = [
    ("(1) cold `scan -j2` (default options) / `clang++ -fsyntax-only` (xargs -P2)",
     f"{s('scan_j2')} / {s('clang_p2')}", t["scan_j2"][0] / t["clang_p2"][0], "≤ 0.1", lambda v: v <= 0.1),
    ("(1) without the automatic precompiled header: cold `scan -j2 --no-auto-pch` / `clang++ -fsyntax-only` (xargs -P2)",
     f"{s('scan_noauto_j2')} / {s('clang_p2')}", t["scan_noauto_j2"][0] / t["clang_p2"][0], "≤ 0.5", lambda v: v <= 0.5),
    ("(1) with a precompiled header made by hand: cold `pch` + `scan -j2 -include-pch` / `clang++ -fsyntax-only` (xargs -P2)",
     f"{s('scan_pch_j2')} / {s('clang_p2')}", t["scan_pch_j2"][0] / t["clang_p2"][0], "≤ 0.5", lambda v: v <= 0.5),
    ("(2) no-change re-run / cold (`opscan run -j2`)",
     f"{s('run_nochange')} / {s('run_cold')}", t["run_nochange"][0] / t["run_cold"][0], "≤ 0.02", lambda v: v <= 0.02),
    ("(3) one file touched / cold (`opscan run -j2`)",
     f"{s('run_touch1')} / {s('run_cold')}", t["run_touch1"][0] / t["run_cold"][0], "≤ 0.03", lambda v: v <= 0.03),
    ("(4) speed-up `scan -j1` / `scan -j2`",
     f"{s('scan_j1')} / {s('scan_j2')}", t["scan_j1"][0] / t["scan_j2"][0], "≥ 1.7×", lambda v: v >= 1.7),
]
print(f"\nN = {n} files, {kernels} kernels; {runs} timed runs per command (mean ± stddev)\n")
print("| figure | measured | value | target | met |")
print("|---|---|---|---|---|")
for name, raw, v, target, ok in rows:
    print(f"| {name} | {raw} | {v:.3f} | {target} | {'yes' if ok(v) else '**no**'} |")
mb1, mb2 = int(rss1) / 1024, int(rss2) / 1024
print(f"| peak RSS, `scan -j1` (one worker) | {mb1:.0f} MB (-j2: {mb2:.0f} MB) | {mb1:.0f} MB | ≤ 200 MB per worker | {'yes' if mb1 <= 200 else '**no**'} |")
g = t["generate"][0]
print(f"| (5) `generate` {gen_ops} operators, named | {s('generate')} | {g:.3f} s | ≤ 0.2 s | {'yes' if g <= 0.2 else '**no**'} |")
EOF
