#!/usr/bin/env bash
# `opscan diff --allow` on a large allow-list, written on one line and
# pretty-printed (issue 23: one line of 16,000 entries took 85 s, the same
# list pretty-printed 0.4 s). Each time should grow linearly with the
# entries, whatever the layout.
#
#   bench/allow_list.sh [--runs R] [-n ENTRIES]...
#
#   --runs R      hyperfine runs per command (default 3)
#   -n ENTRIES    list sizes (default 16000 and 64000; -n repeats)
#   $OPSCAN       the opscan binary (default: a Release build in bench/build)
#
# The lists allow nothing the diff finds (one library IR against itself), so
# every entry is located, matched and reported unused: the reader, the
# matching and the rendering of one warning per entry are all timed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
RUNS=3 SIZES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    -n) SIZES+=("$2"); shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "allow_list.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ ${#SIZES[@]} -gt 0 ] || SIZES=(16000 64000)

. "$HERE/tools.sh"
need_pkg hyperfine hyperfine
opscan_binary

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
IR=$REPO/test/data/ir/hostile/base/executorch_library.json
COMMANDS=()
for n in "${SIZES[@]}"; do
  python3 - "$WORK" "$n" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
entries = [{"operator": f"demo::op{i}.out", "change": "operator-removed",
            "reason": "benchmark", "expires": "2099-01-01"} for i in range(n)]
with open(f"{work}/one_line_{n}.json", "w") as f:
    json.dump({"allow": entries}, f)
with open(f"{work}/pretty_{n}.json", "w") as f:
    json.dump({"allow": entries}, f, indent=2)
PY
  for layout in one_line pretty; do
    COMMANDS+=(-n "$layout $n" "$OPSCAN diff $IR $IR --allow $WORK/${layout}_$n.json")
  done
done
# Without a shell (-N): the paths have no spaces; hyperfine discards the output.
hyperfine -N --runs "$RUNS" --warmup 1 --export-markdown "$WORK/table.md" "${COMMANDS[@]}" >&2
cat "$WORK/table.md"
