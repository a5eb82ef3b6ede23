#!/usr/bin/env bash
# opscan on an ExecuTorch-shaped kernel library: cold `opscan run` with and
# without the automatic precompiled header, next to clang++ -fsyntax-only of
# the same files and, when it can run, ExecuTorch's own generator (the peer)
# raced against opscan's cold run, round by round.
#
#   bench/executorch.sh [--runs R] [--executorch DIR [--torchgen DIR]
#                        [--python PY] [--race-only | --import-only]] [--keep]
#
#   --runs R          hyperfine runs per command, and rounds of the race
#                     (default 3)
#   --executorch DIR  an ExecuTorch checkout: its kernels/portable/cpu/op_*.cpp,
#                     annotated by `opscan import-yaml` from
#                     DIR/kernels/portable/functions.yaml, instead of the
#                     synthetic corpus (make_corpus.py --shape executorch)
#   --torchgen DIR    with --executorch: a directory holding the `torchgen`
#                     Python package (a dist-packages or site-packages
#                     directory), put first on the peer's PYTHONPATH; without
#                     it the peer uses $PYTHONPATH and PY's own packages.
#                     Nothing is downloaded or installed for the peer.
#   --python PY       the Python that runs the peer (default python3; a
#                     distribution's optimised build, such as Debian's
#                     /usr/bin/python3, runs it faster than a plain source build)
#   --race-only       with --executorch: only the race against the peer (no
#                     hyperfine table, no clang++ baseline, no import-yaml)
#   --import-only     with --executorch: only `opscan import-yaml` of
#                     functions.yaml into fresh copies of the sources, against
#                     opscan's cold run of the same files, round by round
#   --keep            keep the temporary work dir (path printed)
#   $OPSCAN           use this opscan binary instead of building bench/build
#   $OPSCAN_BENCH_SCHEMAS  with --executorch: schemas files, each given with
#                     --schemas, separated by ':' (PyTorch's native_functions.yaml
#                     and DIR/kernels/portable/functions.yaml)
#
# The race runs the peer as ExecuTorch's tools/cmake/Codegen.cmake does, from
# DIR: `PY -m codegen.tools.gen_oplist` on functions.yaml, then
# `PY -m codegen.gen` with torchgen's tags.yaml and native_functions.yaml.
# Each round times, with /usr/bin/time (wall, user+sys CPU, peak RSS of the
# largest process), the peer, opscan's cold `run --registration named`
# (fresh cache and output) and opscan's no-change re-run; rounds alternate
# which side goes first. With --executorch, R more rounds time the one-time
# migration, `opscan import-yaml` into fresh copies of the sources, next to
# a cold run of the same files (alternating which goes first). Python's bytecode goes to a cache in the work dir
# (PYTHONPYCACHEPREFIX, filled by a first untimed run), as an installed
# torchgen and a built checkout have theirs.
#
# Uses at most 2 processes at a time (-j2, xargs -P2, ninja -j2).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
RUNS=3 ET= KEEP=0 TORCHGEN= PY=python3 RACE_ONLY=0 IMPORT_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --executorch) ET=$(realpath "$2"); shift ;;
    --torchgen) TORCHGEN=$(realpath "$2"); shift ;;
    --python) PY=$2; shift ;;
    --race-only) RACE_ONLY=1 ;;
    --import-only) IMPORT_ONLY=1 ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,/^# Uses at most/p' "$0"; exit 0 ;;
    *) echo "executorch.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

# --- tools --------------------------------------------------------------
. "$HERE/tools.sh"
if [ -z "$ET" ] && { [ "$RACE_ONLY" = 1 ] || [ "$IMPORT_ONLY" = 1 ] || [ -n "$TORCHGEN" ]; }; then
  echo "executorch.sh: --race-only, --import-only and --torchgen need --executorch DIR" >&2; exit 2
fi
if [ "$RACE_ONLY" = 1 ] && [ "$IMPORT_ONLY" = 1 ]; then
  echo "executorch.sh: --race-only and --import-only exclude each other" >&2; exit 2
fi
need_pkg hyperfine hyperfine
[ -x /usr/bin/time ] || need_pkg /usr/bin/time time
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
  if [ -n "${OPSCAN_BENCH_SCHEMAS:-}" ]; then
    IFS=: read -r -a schema_files <<<"$OPSCAN_BENCH_SCHEMAS"
    for file in "${schema_files[@]}"; do SCHEMAS+=(--schemas "$(realpath "$file")"); done
  fi
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

# The peer: ExecuTorch's generator, run from DIR as its Codegen.cmake runs it,
# when PY imports torchgen (from --torchgen DIR, $PYTHONPATH or its own).
PEER= PEER_WHY= PEER_ENV=()
if [ -z "$ET" ]; then PEER_WHY="no --executorch checkout given"
elif [ "$IMPORT_ONLY" = 1 ]; then PEER_WHY="--import-only"
elif [ ! -f "$ET/codegen/gen.py" ] || [ ! -f "$ET/codegen/tools/gen_oplist.py" ]; then
  PEER_WHY="$ET has no codegen/gen.py and codegen/tools/gen_oplist.py"
else
  # Bytecode is written (a PYTHONDONTWRITEBYTECODE in the environment would
  # have every run compile torchgen again), to the work dir.
  PEER_ENV=(env -u PYTHONDONTWRITEBYTECODE "PYTHONPATH=${TORCHGEN:+$TORCHGEN:}${PYTHONPATH:-}"
            "PYTHONPYCACHEPREFIX=$WORK/pycache")
  if ! TG=$(cd "$ET" && "${PEER_ENV[@]}" "$PY" -c \
      'import os, torchgen; print(os.path.dirname(torchgen.__file__))' 2>"$WORK/peer.err"); then
    PEER_WHY="$PY cannot import torchgen ($(tail -1 "$WORK/peer.err"))${TORCHGEN:+ from $TORCHGEN}"
  else
    P=$WORK/peer-out YAML=$ET/kernels/portable/functions.yaml
    q() { printf '%q ' "$@"; }
    PEER="cd $(q "$ET") && $(q "${PEER_ENV[@]}" "$PY" -m codegen.tools.gen_oplist \
      --output_path="$P/selected_operators.yaml" --ops_schema_yaml_path="$YAML") && \
      $(q "${PEER_ENV[@]}" "$PY" -m codegen.gen --source-path="$ET/codegen" --install-dir="$P" \
      --tags-path="$TG/packaged/ATen/native/tags.yaml" \
      --aten-yaml-path="$TG/packaged/ATen/native/native_functions.yaml" \
      --op-selection-yaml-path="$P/selected_operators.yaml" --functions-yaml-path="$YAML")"
    # The first run also fills the bytecode cache.
    mkdir -p "$P"
    if ! sh -c "$PEER" >/dev/null 2>"$WORK/peer.err"; then
      PEER_WHY="the generator failed: $(tail -1 "$WORK/peer.err")"; PEER=
    elif [ ! -s "$P/RegisterCodegenUnboxedKernelsEverything.cpp" ]; then
      PEER_WHY="the generator wrote no RegisterCodegenUnboxedKernelsEverything.cpp"; PEER=
    else
      TORCH_VERSION=$("${PEER_ENV[@]}" "$PY" -c \
        'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || echo unknown)
      PEER_WHAT="$("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])'),"
      PEER_WHAT="$PEER_WHAT torchgen $TORCH_VERSION from $TG"
    fi
  fi
fi
if [ "$RACE_ONLY" = 1 ] && [ -z "$PEER" ]; then
  echo "executorch.sh: --race-only, but the peer cannot run: $PEER_WHY" >&2; exit 1
fi

# --- checks: both sides must work, and (a) and (b) must agree -----------
if [ "$RACE_ONLY" = 0 ] && [ "$IMPORT_ONLY" = 0 ]; then
  sh -c "$CLANG" || { echo "executorch.sh: clang++ -fsyntax-only failed on the corpus" >&2; exit 1; }
fi
sh -c "$RUN_A" >/dev/null 2>"$WORK/a.err" || { cat "$WORK/a.err" >&2; exit 1; }
if [ "$RACE_ONLY" = 0 ] && [ "$IMPORT_ONLY" = 0 ]; then
  sh -c "$RUN_B" >/dev/null 2>"$WORK/b.err" || { cat "$WORK/b.err" >&2; exit 1; }
  cmp "$WORK/gen-a/portable/ir.json" "$WORK/gen-b/portable/ir.json" ||
    { echo "executorch.sh: IR with the automatic PCH differs from the IR without it" >&2; exit 1; }
fi
KERNELS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["kernels"]))' \
  "$WORK/gen-a/portable/ir.json")

# --- measurements -------------------------------------------------------
# Cold means a fresh cache and output dir before every run (--prepare). The
# no-change run follows cold (a)'s last run and keeps its cache and output.
if [ "$RACE_ONLY" = 0 ] && [ "$IMPORT_ONLY" = 0 ]; then
  hyperfine --style basic --runs "$RUNS" --export-json "$WORK/hf.json" \
    --prepare "rm -rf $WORK/cache-a $WORK/gen-a" -n a_run_auto_pch "$RUN_A" \
    --prepare "true" -n d_run_nochange "$RUN_A" \
    --prepare "rm -rf $WORK/cache-b $WORK/gen-b" -n b_run_no_auto_pch "$RUN_B" \
    --prepare "true" -n c_clang_p2 "$CLANG" >&2
fi

# The race: each round the peer, opscan cold (fresh cache and output) and
# opscan's no-change re-run, timed by /usr/bin/time; odd rounds start with
# the peer, even rounds with opscan, so neither side always runs first.
timed() { # NAME COMMAND: one line "NAME wall user sys maxrss_kb" to race.txt
  /usr/bin/time -f "$1 %e %U %S %M" -o "$WORK/time.txt" sh -c "$2" >/dev/null 2>"$WORK/$1.err" ||
    { echo "executorch.sh: $1 failed:" >&2; tail -5 "$WORK/$1.err" >&2; exit 1; }
  cat "$WORK/time.txt" >>"$WORK/race.txt"
}
: >"$WORK/race.txt"
if [ -n "$PEER" ]; then
  for round in $(seq "$RUNS"); do
    if [ $((round % 2)) = 1 ]; then timed peer "rm -rf $WORK/peer-out && mkdir $WORK/peer-out && $PEER"; fi
    rm -rf "$WORK/cache-a" "$WORK/gen-a"
    timed opscan_cold "$RUN_A"
    timed opscan_nochange "$RUN_A"
    if [ $((round % 2)) = 0 ]; then timed peer "rm -rf $WORK/peer-out && mkdir $WORK/peer-out && $PEER"; fi
  done
fi

# import-yaml against a cold run: each round imports functions.yaml into
# fresh copies of the original sources (those kept above; the copy is not
# timed) and runs opscan cold on the annotated ones; odd rounds import first.
if [ -n "$ET" ] && [ "$RACE_ONLY" = 0 ]; then
  IMPORT="cd $WORK/imp && $OPSCAN import-yaml $ET/kernels/portable/functions.yaml kernels/op_*.cpp -- $FLAGS"
  fresh_sources() {
    rm -rf "$WORK/imp" && mkdir -p "$WORK/imp/kernels"
    for f in kernels/op_*.cpp; do cp "$ET/kernels/portable/cpu/${f#kernels/}" "$WORK/imp/kernels/"; done
  }
  for round in $(seq "$RUNS"); do
    if [ $((round % 2)) = 1 ]; then fresh_sources; timed import_yaml "$IMPORT"; fi
    rm -rf "$WORK/cache-a" "$WORK/gen-a"
    timed import_cold "$RUN_A"
    if [ $((round % 2)) = 0 ]; then fresh_sources; timed import_yaml "$IMPORT"; fi
  done
fi

# --- report -------------------------------------------------------------
python3 - "$WORK/hf.json" "$WORK/race.txt" "$WHAT" "$FILES" "$KERNELS" "$RUNS" "$NO_AUTO_PCH" \
  "$PEER_WHY" "${PEER_WHAT:-}" "$(uptime)" <<'EOF'
import json, os, statistics, sys
hf, race, what, files, kernels, runs, no_auto_pch, peer_why, peer_what, load = sys.argv[1:]
print(f"\n{what}: {files} files, {kernels} kernels; {runs} runs per command, "
      "median (min–max); 2 cores")
print(f"load at the end: {load.split('load average:')[-1].strip()}\n")
rows = {}
for line in open(race):
    name, wall, user, system, rss = line.split()
    rows.setdefault(name, []).append((float(wall), float(user) + float(system), int(rss)))
yes = lambda ok: "yes" if ok else "**no**"
if os.path.exists(hf):
    t = {r["command"]: r for r in json.load(open(hf))["results"]}
    def s(k):
        r = t[k]
        return f"{r['median']:.2f} s ({r['min']:.2f}–{r['max']:.2f})"
    a, c, d = (t[k]["median"] for k in ("a_run_auto_pch", "c_clang_p2", "d_run_nochange"))
    print("| measurement | time | ratio | target | met |")
    print("|---|---|---|---|---|")
    print(f"| (a) cold `opscan run -j2 --cache C` (automatic PCH) | {s('a_run_auto_pch')} | | | |")
    b_note = "" if no_auto_pch else " — binary has no `--no-auto-pch`: same command as (a)"
    print(f"| (b) the same, `--no-auto-pch`{b_note} | {s('b_run_no_auto_pch')} | (b)/(a) {t['b_run_no_auto_pch']['median'] / a:.2f} | | |")
    print(f"| (c) `clang++ -fsyntax-only` per file, `xargs -P2` | {s('c_clang_p2')} | (a)/(c) {a / c:.3f} | ≤ 0.1 | {yes(a / c <= 0.1)} |")
    print(f"| (d) no-change re-run of (a) | {s('d_run_nochange')} | | < 0.1 s | {yes(d < 0.1)} |")
    if "peer" not in rows:
        print(f"| (e) peer not measured: {peer_why} | about 1.6 s wall (assumed: issue 24 measured 1.3–1.9 s) | (a)/1.6 s {a / 1.6:.2f} | ≤ 1.0 | {yes(a <= 1.6)} |")
    print()
if "peer" in rows:
    print(f"Race against ExecuTorch's generator (gen_oplist + codegen.gen; {peer_what}),")
    print(f"{len(rows['peer'])} interleaved rounds; wall and CPU (user+sys) median (min–max), peak RSS of the largest process:\n")
    print("| side | wall | CPU | peak RSS |")
    print("|---|---|---|---|")
    def med(name, i):
        return statistics.median(r[i] for r in rows[name])
    def cell(name, i, unit):
        v = [r[i] for r in rows[name]]
        if unit == "MB":
            return f"{statistics.median(v) / 1024:.0f} MB ({min(v) / 1024:.0f}–{max(v) / 1024:.0f})"
        return f"{statistics.median(v):.2f} s ({min(v):.2f}–{max(v):.2f})"
    names = {"peer": "(e) ExecuTorch's generator", "opscan_cold": "(f) opscan `run --registration named`, cold",
             "opscan_nochange": "(g) opscan, no-change re-run of (f)"}
    for name, label in names.items():
        print(f"| {label} | {cell(name, 0, 's')} | {cell(name, 1, 's')} | {cell(name, 2, 'MB')} |")
    print()
    print("| ratio (medians; per-round range) | wall | CPU | target | met |")
    print("|---|---|---|---|---|")
    for name, label, wall_target, cpu_target in (
            ("opscan_cold", "(f)/(e) cold", 1.0, 2.0), ("opscan_nochange", "(g)/(e) no change", 0.05, None)):
        w = med(name, 0) / med("peer", 0)
        c = med(name, 1) / med("peer", 1)
        pw = [o[0] / p[0] for o, p in zip(rows[name], rows["peer"])]
        pc = [o[1] / p[1] for o, p in zip(rows[name], rows["peer"])]
        target = f"wall ≤ {wall_target}" + (f", CPU ≤ {cpu_target}" if cpu_target else "")
        met = w <= wall_target and (cpu_target is None or c <= cpu_target)
        print(f"| {label} | {w:.2f} ({min(pw):.2f}–{max(pw):.2f}) | {c:.2f} ({min(pc):.2f}–{max(pc):.2f}) | {target} | {yes(met)} |")
    nc = med("opscan_nochange", 0)
    print(f"\nno-change re-run under 0.1 s: {nc:.3f} s, {yes(nc < 0.1)}")
if "import_yaml" in rows:
    imp, cold = rows["import_yaml"], rows["import_cold"]
    def cell(v):
        return f"{statistics.median(v):.2f} s ({min(v):.2f}–{max(v):.2f})"
    print(f"\nimport-yaml against a cold run of the same files, {len(imp)} interleaved rounds;")
    print("wall and CPU (user+sys) median (min–max), peak RSS of the largest process:\n")
    print("| side | wall | CPU | peak RSS |")
    print("|---|---|---|---|")
    for label, v in (("(h) `opscan import-yaml` functions.yaml, fresh sources", imp),
                     ("(i) opscan `run --registration named`, cold", cold)):
        rss = [r[2] / 1024 for r in v]
        print(f"| {label} | {cell([r[0] for r in v])} | {cell([r[1] for r in v])} | "
              f"{statistics.median(rss):.0f} MB ({min(rss):.0f}–{max(rss):.0f}) |")
    w = statistics.median(r[0] for r in imp) / statistics.median(r[0] for r in cold)
    c = statistics.median(r[1] for r in imp) / statistics.median(r[1] for r in cold)
    pw = [i[0] / o[0] for i, o in zip(imp, cold)]
    print(f"\n(h)/(i): wall {w:.2f} (per round {min(pw):.2f}–{max(pw):.2f}), CPU {c:.2f}; "
          f"no slower than a cold run (wall ≤ 1.0): {yes(w <= 1.0)}")
EOF
[ -z "$PEER" ] && echo "peer not measured: $PEER_WHY" >&2
exit 0
