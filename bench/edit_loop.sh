#!/usr/bin/env bash
# The edit loop of a kernel library built with CMake and Ninja
# (opscan_add_kernel_library, kernels compiled at -O2): a clean build, a
# no-change build, a body edit (the lines kept), an edit that moves lines (a
# comment line at the top of a source) and a header edit, each with the
# commands Ninja ran (from .ninja_log) and their time; then opscan's share of
# the clean build.
#
#   bench/edit_loop.sh [--executorch DIR] [-n FILES] [--scan-modes R] [--keep]
#
#   --executorch DIR  an ExecuTorch checkout: its portable kernels
#                     (kernels/portable/cpu/op_*.cpp), annotated by `opscan
#                     import-yaml` from DIR/kernels/portable/functions.yaml, as
#                     bench/executorch.sh does, instead of the synthetic
#                     corpus (make_corpus.py -n FILES, default 100)
#   --scan-modes R    then R rounds, interleaved, of the library's cold scan
#                     as the build does it (opscan pch --shared, then one
#                     `opscan scan` process per source, two at a time) and as
#                     one process (`opscan scan -j2` of every source), each
#                     with a fresh cache and the build's flags; then a body
#                     edit rescanned both ways
#   --keep            keep the temporary work dir (path printed)
#   $OPSCAN_BENCH_SCHEMAS  with --executorch: a schemas file (SCHEMAS of the
#                     library, opscan --schemas), as for bench/executorch.sh
#   $OPSCAN_BUILD     an opscan build directory to install the package from
#                     (default: a Release build made in bench/build)
#   $OPSCAN_PEER_SHARE  the peer's time for the same library (seconds of its
#                     generator in a clean build), printed beside opscan's share
#
# Runs Ninja with -j2. The times are wall times on this machine: say the load
# (uptime, printed) next to them.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
ET= N=100 KEEP=0 MODES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --executorch) ET=$(realpath "$2"); shift ;;
    -n) N=$2; shift ;;
    --scan-modes) MODES=$2; shift ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "edit_loop.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

. "$HERE/tools.sh"
command -v ninja >/dev/null || { echo "edit_loop.sh: ninja is needed (apt-get install ninja-build)" >&2; exit 2; }
if [ -z "${OPSCAN_BUILD:-}" ]; then
  opscan_binary
  OPSCAN_BUILD=$HERE/build
fi

WORK=$(mktemp -d /tmp/opscan-editloop.XXXXXX)
if [ "$KEEP" = 1 ]; then echo "work dir: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
cmake --install "$OPSCAN_BUILD" --prefix "$WORK/prefix" >/dev/null
OPSCAN=$WORK/prefix/bin/opscan
SRC=$WORK/src
mkdir -p "$SRC"

# --- the library ----------------------------------------------------------
if [ -z "$ET" ]; then
  python3 "$HERE/make_corpus.py" "$SRC" -n "$N" >/dev/null
  WHAT="synthetic corpus (make_corpus.py -n $N)"
  # Every source includes kernel_runtime.h, which includes this one.
  HEADER=$SRC/include/bench_kernels/reduce_util.h
  LIB=bench
  USAGE=$(cat <<EOF
# The kernels compile against the minimal types of executorch_types.h (as
# bench/run.sh's clang++ -fsyntax-only does), the generated code against the
# ExecuTorch stand-in of opscan's tests (as bench/compile_cost.sh does).
target_include_directories(bench_kernels PRIVATE include $REPO/examples/include)
set_source_files_properties(
  \${CMAKE_BINARY_DIR}/bench_kernels.opscan/include/bench/RegisterKernels.cpp
  \${CMAKE_BINARY_DIR}/bench_kernels.opscan/include/bench/KernelSources.cpp
  TARGET_DIRECTORY bench_kernels PROPERTIES
  INCLUDE_DIRECTORIES $REPO/test/et_runtime/include COMPILE_DEFINITIONS OPSCAN_ET_STAND_IN)
EOF
)
else
  [ -f "$ET/kernels/portable/functions.yaml" ] ||
    { echo "edit_loop.sh: $ET/kernels/portable/functions.yaml not found" >&2; exit 2; }
  # <executorch/...> resolves to DIR, but for kernels/portable/cpu, a copy
  # (its headers are the ones the header edit changes).
  inc=$SRC/inc/executorch
  mkdir -p "$inc/kernels/portable"
  for e in "$ET"/*; do [ "${e##*/}" = kernels ] || ln -s "$e" "$inc/"; done
  for e in "$ET"/kernels/*; do [ "${e##*/}" = portable ] || ln -s "$e" "$inc/kernels/"; done
  for e in "$ET"/kernels/portable/*; do [ "${e##*/}" = cpu ] || ln -s "$e" "$inc/kernels/portable/"; done
  cp -r "$ET/kernels/portable/cpu" "$inc/kernels/portable/cpu"
  FLAGS="-x c++ -std=c++17 -I$SRC/inc -I$ET/runtime/core/portable_type/c10"
  FLAGS="$FLAGS -DC10_USING_CUSTOM_GENERATED_MACROS -I$REPO/include"
  mkdir "$SRC/kernels" && cp "$ET"/kernels/portable/cpu/op_*.cpp "$SRC/kernels/"
  SCHEMAS=() SCHEMAS_OPTION=
  if [ -n "${OPSCAN_BENCH_SCHEMAS:-}" ]; then
    SCHEMAS=(--schemas "$(realpath "$OPSCAN_BENCH_SCHEMAS")")
    SCHEMAS_OPTION="SCHEMAS $(realpath "$OPSCAN_BENCH_SCHEMAS")"
  fi
  "$OPSCAN" import-yaml "$ET/kernels/portable/functions.yaml" "$SRC"/kernels/op_*.cpp -- $FLAGS \
    >"$WORK/import.out" 2>"$WORK/import.err" || echo "edit_loop.sh: import-yaml reported problems" >&2
  # As bench/executorch.sh: a file that does not scan is dropped, loudly.
  mkdir -p "$WORK/check"
  for f in "$SRC"/kernels/op_*.cpp; do
    "$OPSCAN" scan -o "$WORK/check/x.json" "${SCHEMAS[@]}" "$f" -- $FLAGS >/dev/null 2>&1 ||
      { echo "$f"; rm "$f"; }
  done >"$WORK/dropped.txt"
  [ -s "$WORK/dropped.txt" ] && echo "edit_loop.sh: DROPPED $(wc -l <"$WORK/dropped.txt") file(s)" >&2
  WHAT="ExecuTorch portable kernels from $ET ($(wc -l <"$WORK/dropped.txt") file(s) dropped)"
  HEADER=$inc/kernels/portable/cpu/util/padding_util.h
  LIB=portable
  USAGE=$(cat <<EOF
target_include_directories(portable_kernels PRIVATE $SRC/inc $ET/runtime/core/portable_type/c10)
target_compile_definitions(portable_kernels PRIVATE C10_USING_CUSTOM_GENERATED_MACROS)
set_target_properties(portable_kernels PROPERTIES CXX_STANDARD 17)
EOF
)
fi
cat >"$SRC/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(edit_loop CXX)
find_package(opscan CONFIG REQUIRED)
file(GLOB sources CONFIGURE_DEPENDS kernels/*.cpp)
opscan_add_kernel_library(${LIB}_kernels SOURCES \${sources} TARGET executorch
  REGISTRATION named LIB_NAME $LIB STATIC ${SCHEMAS_OPTION:-})
$USAGE
EOF
FILES=$(ls "$SRC"/kernels/*.cpp | wc -l)
# The edited source: the first; its last `return` line gets a comment.
EDITED=$(ls "$SRC"/kernels/*.cpp | sed -n 1p)

BUILD=$WORK/build
cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O2 \
  -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null

# --- one step of the loop ------------------------------------------------
# step NAME: builds, then prints the wall time and each command Ninja ran
# (its output, as .ninja_log names it, and its time), from the entries this
# build appended to the log (compacted first, so that they are the last).
step() {
  local name=$1 offset=0 start end
  if [ -f "$BUILD/.ninja_log" ]; then
    ninja -C "$BUILD" -t recompact >/dev/null
    offset=$(wc -l <"$BUILD/.ninja_log")
  fi
  start=$(date +%s.%N)
  ninja -C "$BUILD" -j2 >"$WORK/$name.out" 2>&1 || { cat "$WORK/$name.out" >&2; exit 1; }
  end=$(date +%s.%N)
  tail -n +$((offset + 1)) "$BUILD/.ninja_log" | grep -v '^#' >"$WORK/$name.log" || true
  python3 - "$name" "$start" "$end" "$WORK/$name.log" <<'EOF'
import sys
name, start, end, log = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
edges = {}
for line in open(log):
    s, e, _, out, h = line.rstrip("\n").split("\t")
    if out.startswith("/"):
        continue  # the same output spelled with its full path
    edges.setdefault((s, e, h), []).append(out)
def kind(outs):
    for o in outs:
        for key, label in (("/scan/", "opscan scan"), ("shared-pch-includes.stamp", "list #includes (cmake -P)"),
                           ("shared-pch.stamp", "opscan pch --shared"), ("generate.stamp", "opscan generate")):
            if key in o:
                return label
    o = outs[0]
    return "compile" if o.endswith(".o") else "link" if o.endswith((".a", ".so")) else "other"
rows = sorted(((int(e) - int(s)) / 1000, kind(o), o[0]) for (s, e, _), o in edges.items())
print(f"\n## {name}: {end - start:.2f} s wall, {len(rows)} command(s)")
tot = {}
for t, k, o in rows:
    tot.setdefault(k, [0, 0.0]); tot[k][0] += 1; tot[k][1] += t
for k, (n, t) in sorted(tot.items()):
    print(f"  {k}: {n} command(s), {t:.2f} s")
for t, k, o in rows if len(rows) <= 12 else rows[-12:]:
    print(f"    {t:7.2f} s  {k:28} {o.split('/')[-1]}")
if len(rows) > 12:
    print(f"    ({len(rows) - 12} shorter commands not listed)")
EOF
}

echo "# edit loop: $WHAT, $FILES sources; $(nproc) cores, ninja -j2"
echo "load before: $(uptime)"
step clean
step no-change
# A body edit that keeps the lines.
line=$(grep -n 'return' "$EDITED" | tail -1 | cut -d: -f1)
sed -i "${line}s|\$| /* edit-loop: a body edit */|" "$EDITED"
step body-edit
sed -i '1i // edit-loop: a line that moves every other' "$EDITED"
step line-shift
echo "// edit-loop: a header edit" >>"$HEADER"
step "header-edit ($(basename "$HEADER"))"
echo "load after: $(uptime)"

# --- opscan's share of the clean build ----------------------------------
# Its steps' own times (each command's end - start), against the sum over
# every command: the share of the build's work, however -j2 overlapped it.
python3 - "$WORK/clean.log" "${OPSCAN_PEER_SHARE:-}" <<'EOF'
import sys
log, peer = sys.argv[1], sys.argv[2]
edges = {}
for line in open(log):
    s, e, _, out, h = line.rstrip("\n").split("\t")
    edges.setdefault((s, e, h), []).append(out)
total = sum(int(e) - int(s) for s, e, _ in edges)
mine = sum(int(e) - int(s) for (s, e, _), outs in edges.items()
           if any(k in o for o in outs for k in ("/scan/", "shared-pch", "generate.stamp")))
print(f"\nopscan's share of the clean build: {mine / 1000:.1f} s of {total / 1000:.1f} s "
      f"of commands ({100 * mine / total:.0f}%)")
# The peer (ExecuTorch's generator): its time in the same build, when given.
# HOOK for the peer: bench/executorch.sh measures ExecuTorch's codegen/gen.py;
# pass its median as OPSCAN_PEER_SHARE to print its share beside opscan's.
if peer:
    p = float(peer) * 1000
    print(f"the peer's generator, {float(peer):.1f} s, would be {100 * p / (total - mine + p):.0f}% "
          "of the same build")
EOF

# --- one scan process per source, or one for the library ----------------
[ "$MODES" -gt 0 ] || exit 0
FLAGS_FILE=$(ls "$BUILD"/*.opscan/flags-*.txt)
SCHEMAS_ARG=(); [ -n "${SCHEMAS_OPTION:-}" ] && SCHEMAS_ARG=(--schemas "${SCHEMAS_OPTION#SCHEMAS }")
ls "$SRC"/kernels/*.cpp >"$WORK/sources.txt"
M=$WORK/modes
per_source() {
  rm -rf "$M" && mkdir -p "$M/out"
  "$OPSCAN" pch --shared $(cat "$WORK/sources.txt") --cache "$M/cache" -o "$M/shared.txt" \
    --flags-file "$FLAGS_FILE" 2>/dev/null
  xargs -P2 -I{} "$OPSCAN" scan "${SCHEMAS_ARG[@]}" {} -o "$M/out/one.json" --cache "$M/cache" \
    --flags-file "$FLAGS_FILE" <"$WORK/sources.txt" 2>/dev/null
}
one_process() {
  rm -rf "$M" && mkdir -p "$M/out"
  "$OPSCAN" scan -j2 "${SCHEMAS_ARG[@]}" $(cat "$WORK/sources.txt") -o "$M/out/all.json" \
    --cache "$M/cache" --flags-file "$FLAGS_FILE" 2>/dev/null
}
# Wall and CPU time of a command and its children.
timed() {
  local TIMEFORMAT="  $1: %R s wall, %U s user + %S s system"
  time "${@:2}"
}
echo
echo "## cold scan of the $FILES sources: per source (as the build) or one process"
for round in $(seq "$MODES"); do
  echo "round $round, load $(cut -d' ' -f1-3 /proc/loadavg)"
  timed "one process per source" per_source
  timed "one process          " one_process
done
# Each way from the same cache, the last cold scan's.
cp -r "$M/cache" "$M/cache-one"
sed -i "$(grep -n return "$EDITED" | tail -1 | cut -d: -f1)s|\$| /* again */|" "$EDITED"
echo "a body edit of $(basename "$EDITED"), load $(cut -d' ' -f1-3 /proc/loadavg)"
edit_one() {
  "$OPSCAN" scan "${SCHEMAS_ARG[@]}" "$EDITED" -o "$M/out/one.json" --cache "$M/cache-one" \
    --flags-file "$FLAGS_FILE" 2>/dev/null
}
edit_all() {
  "$OPSCAN" scan -j2 "${SCHEMAS_ARG[@]}" $(cat "$WORK/sources.txt") -o "$M/out/all.json" \
    --cache "$M/cache" --flags-file "$FLAGS_FILE" 2>/dev/null
}
timed "one process for the source   " edit_one
timed "one process for every source " edit_all
