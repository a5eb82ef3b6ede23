#!/usr/bin/env bash
# opscan on an ExecuTorch-shaped kernel library: cold `opscan run` with and
# without the automatic precompiled header, next to clang++ -fsyntax-only of
# the same files and, when it can run, ExecuTorch's own generator.
#
#   bench/executorch.sh [--runs R] [--executorch DIR] [--keep]
#
#   --runs R          hyperfine runs per command (default 3)
#   --executorch DIR  an ExecuTorch checkout: its kernels/portable/cpu/op_*.cpp,
#                     annotated by `opscan import-yaml` from
#                     DIR/kernels/portable/functions.yaml, instead of the
#                     synthetic corpus (make_corpus.py --shape executorch)
#   --keep            keep the temporary work dir (path printed)
#   $OPSCAN           use this opscan binary instead of building bench/build
#   $OPSCAN_BENCH_SCHEMAS  with --executorch: a schemas file for --schemas
#
# Uses at most 2 processes at a time (-j2, xargs -P2, ninja -j2).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
RUNS=3 ET= KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --executorch) ET=$(realpath "$2"); shift ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "executorch.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

# --- tools --------------------------------------------------------------
. "$HERE/tools.sh"
need_pkg hyperfine hyperfine
command -v clang++ >/dev/null || { echo "executorch.sh: clang++ is needed for the baseline" >&2; exit 2; }
opscan_binary
# (b) needs --no-auto-pch; a binary without it has no automatic PCH either,
# so (b) then runs the same command as (a), and the table says so.
NO_AUTO_PCH=
if "$OPSCAN" run --help | grep -q -- --no-auto-pch; then NO_AUTO_PCH=--no-auto-pch; fi

WORK=$(mktemp -d /tmp/opscan-etbench.XXXXXX)
if [ "$KEEP" = 1 ]; then echo "work dir: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/lib"
cd "$WORK/lib"   # commands below use relative paths: short, shell-globbed

# --- corpus -------------------------------------------------------------
SCHEMAS=()
if [ -z "$ET" ]; then
  python3 "$HERE/make_corpus.py" . --shape executorch
  FLAGS="-x c++ -std=c++17 -I$REPO/include -I$WORK/lib/include"
  WHAT="synthetic ExecuTorch-shaped corpus (make_corpus.py --shape executorch)"
else
  [ -f "$ET/kernels/portable/functions.yaml" ] ||
    { echo "executorch.sh: $ET/kernels/portable/functions.yaml not found" >&2; exit 2; }
  # Sources include <executorch/...>: a directory whose executorch/ is DIR.
  mkdir -p "$WORK/inc" && ln -s "$ET" "$WORK/inc/executorch"
  FLAGS="-x c++ -std=c++17 -I$WORK/inc -I$ET/runtime/core/portable_type/c10"
  FLAGS="$FLAGS -DC10_USING_CUSTOM_GENERATED_MACROS -I$REPO/include"
  mkdir kernels && cp "$ET"/kernels/portable/cpu/op_*.cpp kernels/
  if [ -n "${OPSCAN_BENCH_SCHEMAS:-}" ]; then SCHEMAS=(--schemas "$(realpath "$OPSCAN_BENCH_SCHEMAS")"); fi
  # import-yaml reports the kernels it cannot place; the scan check below
  # decides which files stay.
  "$OPSCAN" import-yaml "$ET/kernels/portable/functions.yaml" kernels/op_*.cpp -- $FLAGS \
    >"$WORK/import.out" 2>"$WORK/import.err" || echo "executorch.sh: import-yaml reported problems (see below)" >&2
  # A file that does not scan would void the comparison: scan each once and
  # drop the failures, loudly.
  mkdir -p "$WORK/check/kernels"
  printf '%s\n' kernels/op_*.cpp | xargs -P2 -I{} sh -c \
    '"$0" scan -o '"$WORK"'/check/{}.json "$@" {} -- '"$FLAGS"' >/dev/null 2>&1 || echo {}' \
    "$OPSCAN" "${SCHEMAS[@]}" >"$WORK/dropped.txt"
  if [ -s "$WORK/dropped.txt" ]; then
    echo "executorch.sh: DROPPED $(wc -l <"$WORK/dropped.txt") file(s) that fail to scan:" \
      $(sort "$WORK/dropped.txt") >&2
    xargs rm -f <"$WORK/dropped.txt"
  fi
  WHAT="ExecuTorch portable kernels from $ET ($(wc -l <"$WORK/dropped.txt") file(s) dropped)"
fi
FILES=$(ls kernels/op_*.cpp | wc -l)

RUN_ARGS="--registration named --lib portable ${SCHEMAS[*]}"
RUN_A="$OPSCAN run -j2 kernels/op_*.cpp --cache $WORK/cache-a $RUN_ARGS -o $WORK/gen-a -- $FLAGS"
RUN_B="$OPSCAN run -j2 $NO_AUTO_PCH kernels/op_*.cpp --cache $WORK/cache-b $RUN_ARGS -o $WORK/gen-b -- $FLAGS"
# The baseline parses what opscan parses (OPSCAN_SCANNING on, warnings off),
# one compiler process per file as a build does.
CLANG="printf '%s\n' kernels/op_*.cpp | xargs -P2 -n1 clang++ -fsyntax-only -DOPSCAN_SCANNING=1 -w $FLAGS"

# The peer: ExecuTorch's generator, when this Python has torchgen.executorch
# (Debian's python3-torch 1.13 does not; nothing is installed for it).
PEER= PEER_WHY=
if [ -z "$ET" ]; then PEER_WHY="no --executorch checkout given"
elif ! WHY=$(python3 -c 'import torchgen.executorch' 2>&1); then
  PEER_WHY="python3 cannot import torchgen.executorch (${WHY##*$'\n'})"
else
  TG=$(python3 -c 'import os, torchgen; print(os.path.dirname(torchgen.__file__))')
  GEN="-m torchgen.gen_executorch"; [ -f "$ET/codegen/gen.py" ] && GEN="$ET/codegen/gen.py"
  PEER="python3 $GEN --source-path=$ET/codegen --install-dir=$WORK/peer \
    --tags-path=$TG/packaged/ATen/native/tags.yaml \
    --aten-yaml-path=$TG/packaged/ATen/native/native_functions.yaml \
    --functions-yaml-path=$ET/kernels/portable/functions.yaml"
  sh -c "$PEER" >/dev/null 2>"$WORK/peer.err" ||
    { PEER_WHY="the generator failed: $(tail -1 "$WORK/peer.err")"; PEER=; }
fi

# --- checks: both sides must work, and (a) and (b) must agree -----------
sh -c "$CLANG" || { echo "executorch.sh: clang++ -fsyntax-only failed on the corpus" >&2; exit 1; }
sh -c "$RUN_A" >/dev/null 2>"$WORK/a.err" || { cat "$WORK/a.err" >&2; exit 1; }
sh -c "$RUN_B" >/dev/null 2>"$WORK/b.err" || { cat "$WORK/b.err" >&2; exit 1; }
cmp "$WORK/gen-a/portable/ir.json" "$WORK/gen-b/portable/ir.json" ||
  { echo "executorch.sh: IR with the automatic PCH differs from the IR without it" >&2; exit 1; }
KERNELS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["kernels"]))' \
  "$WORK/gen-a/portable/ir.json")

# --- measurements -------------------------------------------------------
# Cold means a fresh cache and output dir before every run (--prepare). The
# no-change run follows cold (a)'s last run and keeps its cache and output.
PEER_CMD=(); [ -n "$PEER" ] && PEER_CMD=(--prepare "rm -rf $WORK/peer" -n e_peer "$PEER")
hyperfine --style basic --runs "$RUNS" --export-json "$WORK/hf.json" \
  --prepare "rm -rf $WORK/cache-a $WORK/gen-a" -n a_run_auto_pch "$RUN_A" \
  --prepare "true" -n d_run_nochange "$RUN_A" \
  --prepare "rm -rf $WORK/cache-b $WORK/gen-b" -n b_run_no_auto_pch "$RUN_B" \
  --prepare "true" -n c_clang_p2 "$CLANG" \
  "${PEER_CMD[@]}" >&2

# --- report -------------------------------------------------------------
python3 - "$WORK/hf.json" "$WHAT" "$FILES" "$KERNELS" "$RUNS" "$NO_AUTO_PCH" "$PEER_WHY" <<'EOF'
import json, sys
hf, what, files, kernels, runs, no_auto_pch, peer_why = sys.argv[1:]
t = {r["command"]: r for r in json.load(open(hf))["results"]}
def s(k):
    r = t[k]
    return f"{r['median']:.2f} s ({r['min']:.2f}–{r['max']:.2f})"
a, c, d = (t[k]["median"] for k in ("a_run_auto_pch", "c_clang_p2", "d_run_nochange"))
yes = lambda ok: "yes" if ok else "**no**"
print(f"\n{what}: {files} files, {kernels} kernels; {runs} runs per command, "
      "median (min–max); 2 cores\n")
print("| measurement | time | ratio | target | met |")
print("|---|---|---|---|---|")
print(f"| (a) cold `opscan run -j2 --cache C` (automatic PCH) | {s('a_run_auto_pch')} | | | |")
b_note = "" if no_auto_pch else " — binary has no `--no-auto-pch`: same command as (a)"
print(f"| (b) the same, `--no-auto-pch`{b_note} | {s('b_run_no_auto_pch')} | (b)/(a) {t['b_run_no_auto_pch']['median'] / a:.2f} | | |")
print(f"| (c) `clang++ -fsyntax-only` per file, `xargs -P2` | {s('c_clang_p2')} | (a)/(c) {a / c:.3f} | ≤ 0.1 | {yes(a / c <= 0.1)} |")
print(f"| (d) no-change re-run of (a) | {s('d_run_nochange')} | | < 0.2 s | {yes(d < 0.2)} |")
if "e_peer" in t:
    e = t["e_peer"]["median"]
    print(f"| (e) ExecuTorch's generator (gen_executorch) | {s('e_peer')} | (a)/(e) {a / e:.2f} | ≤ 1.0 | {yes(a / e <= 1.0)} |")
else:
    print(f"| (e) peer not measured: {peer_why} | about 3 s wall (assumed) | (a)/3 s {a / 3:.2f} | ≤ 1.0 | {yes(a <= 3)} |")
EOF
[ -z "$PEER" ] && echo "peer not measured: $PEER_WHY" >&2
exit 0
