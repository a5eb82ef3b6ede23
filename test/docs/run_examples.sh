#!/usr/bin/env bash
# Runs the shell examples of documentation pages, so the docs cannot drift.
#
#   run_examples.sh SOURCE_DIR OPSCAN_DIR PAGE...
#
# Each page runs in a fresh directory holding copies of examples/, include/,
# lib/executorch/program.fbs and test/data/pte/, with OPSCAN_DIR first on PATH and
# include/ on CPATH (opscan's header where an installed opscan puts it), in
# the C locale. Its ```sh blocks run in order, each with
# `bash -e -o pipefail` and no stdin, and must exit 0.
# An HTML comment on the line just before a fence changes that:
#
#   <!-- docs-test: exit N -->          the ```sh block below must exit N
#   <!-- docs-test: skip REASON -->     the ```sh block below is not run
#   <!-- docs-test: output -->          the block below is the stdout of the
#                                       ```sh block just above it
#   <!-- docs-test: output 2>&1 -->     ... its stdout and stderr, merged
#                                       (in both, the directory the page
#                                       runs in is written $PWD)
#   <!-- docs-test: file PATH -->       the block below is written to PATH
#                                       before the next ```sh block runs
set -uo pipefail
source_dir=$1
opscan_dir=$2
shift 2

failures=0
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}

# The output as the page shows it: the page's temporary directory, which
# changes every run, is written $PWD (the directory the examples run in).
in_page_terms() {
  awk -v d="$dir" '{
    while ((i = index($0, d)) > 0) $0 = substr($0, 1, i - 1) "$PWD" substr($0, i + length(d))
    print
  }' "$1"
}

for page in "$@"; do
  name=${page#"$source_dir"/}
  work=$(mktemp -d "${TMPDIR:-/tmp}/opscan-docs-XXXXXX")
  blocks=$work/.blocks
  dir=$work/page
  mkdir -p "$blocks" "$dir/lib/executorch" "$dir/test/data"
  cp -R "$source_dir/examples" "$source_dir/include" "$dir/"
  cp "$source_dir/lib/executorch/program.fbs" "$dir/lib/executorch/"
  cp -R "$source_dir/test/data/pte" "$dir/test/data/"

  # Split the page into blocks: $blocks/N.{lang,marker,line,body}.
  n=0 in_block=0 previous="" lineno=0
  while IFS= read -r line || [[ -n $line ]]; do
    lineno=$((lineno + 1))
    if ((in_block)); then
      if [[ $line == '```' ]]; then
        in_block=0
      else
        printf '%s\n' "$line" >>"$blocks/$n.body"
      fi
    elif [[ $line == '```'* ]]; then
      n=$((n + 1)) in_block=1
      printf '%s' "${line#'```'}" >"$blocks/$n.lang"
      echo "$lineno" >"$blocks/$n.line"
      : >"$blocks/$n.body"
      marker=""
      if [[ $previous =~ ^'<!-- docs-test: '(.*)' -->'$ ]]; then
        marker=${BASH_REMATCH[1]}
      fi
      printf '%s' "$marker" >"$blocks/$n.marker"
    elif [[ $previous == '<!-- docs-test:'* ]]; then
      fail "$name:$((lineno - 1)): a docs-test marker must be on the line just before a fence"
    fi
    previous=$line
  done <"$page"

  ran=0 skipped=0
  for ((i = 1; i <= n; i++)); do
    lang=$(<"$blocks/$i.lang") marker=$(<"$blocks/$i.marker") at="$name:$(<"$blocks/$i.line")"
    case $marker in
      "" | "exit "[0-9]* | "skip "?* | output | "output 2>&1" | "file "?*) ;;
      *) fail "$at: unknown docs-test marker '$marker'"; continue ;;
    esac
    if [[ $marker == output* ]] && ! [[ -f $blocks/$((i - 1)).lang && $(<"$blocks/$((i - 1)).lang") == sh ]]; then
      fail "$at: an output block must follow a \`\`\`sh block"
      continue
    fi
    if [[ $marker == "file "* ]]; then
      mkdir -p "$dir/$(dirname "${marker#file }")"
      cp "$blocks/$i.body" "$dir/${marker#file }"
      continue
    fi
    [[ $lang == sh ]] || continue
    if [[ $marker == "skip "* ]]; then
      echo "$at: skipped (${marker#skip })"
      skipped=$((skipped + 1))
      continue
    fi
    expected_exit=0
    [[ $marker == "exit "* ]] && expected_exit=${marker#exit }
    # The block just below shows this one's output when marked so.
    expect=""
    j=$((i + 1))
    if [[ -f $blocks/$j.marker ]]; then
      case $(<"$blocks/$j.marker") in
        output) expect=stdout ;;
        "output 2>&1") expect=merged ;;
      esac
    fi
    if [[ $expect == merged ]]; then
      (cd "$dir" && PATH="$opscan_dir:$PATH" CPATH="$dir/include" LC_ALL=C \
        timeout 300 bash -e -o pipefail "$blocks/$i.body" </dev/null >"$work/out" 2>&1)
    else
      (cd "$dir" && PATH="$opscan_dir:$PATH" CPATH="$dir/include" LC_ALL=C \
        timeout 300 bash -e -o pipefail "$blocks/$i.body" </dev/null >"$work/out" 2>"$work/err")
    fi
    status=$?
    ran=$((ran + 1))
    if ((status != expected_exit)); then
      fail "$at: exit code $status, expected $expected_exit"
      sed 's/^/  | /' "$blocks/$i.body" >&2
      [[ -f $work/err ]] && sed 's/^/  stderr: /' "$work/err" >&2
      sed 's/^/  stdout: /' "$work/out" >&2
    elif [[ -n $expect ]] && ! diff -u "$blocks/$j.body" <(in_page_terms "$work/out") >"$work/diff"; then
      fail "$at: the output differs from the page's (- page, + actual):"
      cat "$work/diff" >&2
    else
      echo "$at: ok"
    fi
    rm -f "$work/err"
  done
  echo "$name: $ran blocks run, $skipped skipped"
  rm -rf "$work"
done

if ((failures)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
