#!/usr/bin/env bash
# The Bazel rule against a real remote cache: nginx with WebDAV on loopback
# serves Bazel's HTTP cache protocol. Two checkouts of the example workspace
# at different paths, each with its own output base:
#   1. the first builds //examples:run_examples and runs it (the cache fills);
#      its scans declare libclang's builtin headers as inputs;
#   2. the second builds it too: every scan and generate action must be a
#      remote cache hit, and its fragments and generated code are the same
#      bytes as the first's;
#   3. the second's one source gets a line more: exactly one scan and one
#      generate run, and the program still runs.
# Checked from Bazel's execution log. Then a workspace of its own loads the
# rule from the first checkout: its library builds, and two libraries of the
# same kernels fail their opscan_check.
#
#   bazel_cache_test.sh SOURCE_DIR OPSCAN WORK_DIR
# SOURCE_DIR: opscan's source tree; OPSCAN: the opscan binary the rule runs;
# WORK_DIR: made afresh. Prints "skipped: ..." (exit 0) where Bazel or nginx
# is missing.
set -euo pipefail

source_dir=$(cd "${1:?usage: bazel_cache_test.sh SOURCE_DIR OPSCAN WORK_DIR}" && pwd)
opscan=$(realpath "${2:?}")
work=${3:?}

command -v bazel >/dev/null || { echo "skipped: no bazel (Debian's bazel-bootstrap)"; exit 0; }
command -v nginx >/dev/null || { echo "skipped: no nginx (Debian's nginx-light)"; exit 0; }
[[ -d /usr/share/bazel/rules/java ]] || { echo "skipped: no bazel-rules-java"; exit 0; }

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The cache: nginx on a free loopback port, storing what Bazel PUTs.
mkdir -p "$work/cache/store" "$work/cache/tmp"
# nginx's workers drop root for another user, who must write there.
chmod 0777 "$work/cache/store" "$work/cache/tmp"
cat >"$work/cache/nginx.conf" <<EOF
daemon off;
pid $work/cache/nginx.pid;
error_log $work/cache/error.log;
events {}
http {
  access_log $work/cache/access.log;
  client_body_temp_path $work/cache/tmp;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:0;
    root $work/cache/store;
    location / {
      dav_methods PUT;
      create_full_put_path on;
    }
  }
}
EOF
port=""
for candidate in $(shuf -i 20000-60000 -n 20); do
  sed -i "s/listen 127.0.0.1:[0-9]*;/listen 127.0.0.1:$candidate;/" "$work/cache/nginx.conf"
  nginx -p "$work/cache" -c "$work/cache/nginx.conf" &
  nginx_pid=$!
  sleep 0.5
  if kill -0 "$nginx_pid" 2>/dev/null; then
    port=$candidate
    break
  fi
done
[[ -n $port ]] || fail "nginx did not start (log: $work/cache/error.log)"
first="$work/first/opscan"
second="$work/elsewhere/deeper/opscan-copy"
cleanup() {
  for dir in "$first" "$second" "$work/consumer"; do
    [[ -d $dir ]] && (cd "$dir" && bazel --output_base="$work/ob-$(basename "$dir")" --batch \
                        clean --expunge >/dev/null 2>&1) || true
  done
  kill "$nginx_pid" 2>/dev/null || true
}
trap cleanup EXIT


# The example workspace, copied into a checkout at `dir` (what Bazel reads
# of the repository). Both run the same opscan binary (--repo_env=OPSCAN).
checkout() {
  local dir=$1
  mkdir -p "$dir"
  (cd "$source_dir" && cp -r --parents WORKSPACE .bazelrc bazel include examples \
     test/et_runtime "$dir")
}
mkdir -p "$work/tool"
cp "$opscan" "$work/tool/opscan"

checkout "$first"
checkout "$second"

# Builds //examples:run_examples in checkout $1 with output base $2, its
# execution log in $3.
build() {
  (cd "$1" && bazel --output_base="$2" --batch build //examples:run_examples \
     --repo_env=OPSCAN="$work/tool/opscan" \
     --remote_cache="http://127.0.0.1:$port" \
     --execution_log_json_file="$3" >"$3.out" 2>&1) ||
    { tail -n 40 "$3.out"; fail "bazel build in $1 failed"; }
  "$1/bazel-bin/examples/run_examples" >"$3.run" || fail "run_examples of $1 failed"
}

# How many spawns of `mnemonic` the log $1 has, and how many were served
# by the remote cache: "<count> <hits>".
spawns() {
  python3 "$source_dir/test/bazel/actions.py" count "$1" "$2"
}

build "$first" "$work/ob-opscan" "$work/first.log"
read -r scans scan_hits < <(spawns "$work/first.log" OpscanScan)
[[ $scans -eq 2 ]] || fail "the first build ran $scans scans, not one per source (2)"
grep -q "opscan: 2 libraries (elementwise, reduce) can live in one program" "$work/first.log.out" ||
  fail "the program's build did not check its libraries (log: $work/first.log.out)"
python3 "$source_dir/test/bazel/actions.py" resource-dir "$work/first.log" ||
  fail "libclang's builtin headers are not a declared input of the scans"

build "$second" "$work/ob-opscan-copy" "$work/second.log"
for mnemonic in OpscanScan OpscanGenerate; do
  read -r count hits < <(spawns "$work/second.log" $mnemonic)
  [[ $count -gt 0 && $hits -eq $count ]] ||
    fail "the second checkout's $mnemonic actions: $hits of $count from the cache"
done
for lib in elementwise reduce; do
  diff -r "$first/bazel-bin/examples/${lib}_opscan.opscan" \
          "$second/bazel-bin/examples/${lib}_opscan.opscan" ||
    fail "the checkouts' fragments or generated files of library $lib differ"
done

# One source edited: its kernels move down a line.
sed -i '1i // An edit that moves every kernel of this file down a line.' \
  "$second/examples/kernels/reduce.cpp"
build "$second" "$work/ob-opscan-copy" "$work/edited.log"
read -r scans scan_hits < <(spawns "$work/edited.log" OpscanScan)
read -r generates generate_hits < <(spawns "$work/edited.log" OpscanGenerate)
[[ $scans -eq 1 && $scan_hits -eq 0 ]] || fail "after the edit: $scans scans ran ($scan_hits cached)"
[[ $generates -eq 1 && $generate_hits -eq 0 ]] ||
  fail "after the edit: $generates generates ran ($generate_hits cached)"

# Another workspace using opscan's rule as an external repository, as a
# project would: its own kernel library builds and passes its check; two
# libraries of one source in one program fail the check, naming an
# operator both register.
consumer="$work/consumer"
mkdir -p "$consumer"
cp "$first/.bazelrc" "$consumer/.bazelrc"
cat >"$consumer/WORKSPACE" <<WORKSPACE
workspace(name = "consumer")

local_repository(name = "opscan", path = "$first")

local_repository(name = "rules_cc", path = "$first/bazel/offline/rules_cc")

load("@opscan//bazel:repositories.bzl", "opscan_tool_repository")

opscan_tool_repository(name = "opscan_tool", opscan = "$work/tool/opscan")
WORKSPACE
cp "$first/examples/kernels/elementwise.cpp" "$consumer/kernels.cpp"
cat >"$consumer/BUILD.bazel" <<'BUILD'
load("@opscan//bazel:opscan.bzl", "opscan_check", "opscan_kernel_library")

KERNEL_DEPS = [
    "@opscan//examples:executorch_types",
    "@opscan//include:annotations",
    "@opscan//test/et_runtime",
]

[opscan_kernel_library(
    name = lib,
    srcs = ["kernels.cpp"],
    target = "executorch",
    registration = "named",
    deps = KERNEL_DEPS,
) for lib in ["one", "two"]]

opscan_check(name = "check_one", deps = [":one"])

# Through a library that links both: the check follows deps.
cc_library(name = "both", deps = [":one", ":two"])

opscan_check(name = "check_both", deps = [":both"])

# The generation options reach opscan and the kernels' defines.
opscan_kernel_library(
    name = "bounded",
    srcs = ["kernels.cpp"],
    target = "executorch",
    registration = "named",
    profiling = False,
    exception_boundary = True,
    deps = KERNEL_DEPS,
)

# Only analysed (they would compile against ATen): their commands.
[opscan_kernel_library(
    name = name,
    srcs = ["kernels.cpp"],
    target = target,
    registration = "static",
    aten_mode = aten_mode,
    torch_target_version = torch_target_version,
) for name, target, aten_mode, torch_target_version in [
    ("aten", "executorch", True, None),
    ("aot", "executorch-aot", False, None),
    ("stable", "torch-stable", False, "2.10"),
]]
BUILD
consumer_bazel() {
  (cd "$consumer" && bazel --output_base="$work/ob-consumer" --batch build "$@" >"$work/consumer.out" 2>&1)
}
# A tool repository given no opscan says so, and what to do.
if consumer_bazel //:one --repo_env=OPSCAN="$work/no-such-opscan"; then
  fail "a build with no opscan binary passed"
fi
grep -q "no opscan binary at $work/no-such-opscan (build opscan first" "$work/consumer.out" ||
  { tail -n 20 "$work/consumer.out"; fail "a missing opscan binary is not named"; }
consumer_bazel //:one //:check_one ||
  { tail -n 20 "$work/consumer.out"; fail "a kernel library in another workspace did not build"; }
[[ -f $consumer/bazel-bin/one_opscan.opscan/include/one/RegisterKernels.cpp ]] ||
  fail "the other workspace's library has no generated RegisterKernels.cpp"
if consumer_bazel //:check_both; then
  fail "two libraries registering the same operators passed the check"
fi
grep -q "aten::add.out" "$work/consumer.out" ||
  { tail -n 20 "$work/consumer.out"; fail "the check's error names no operator"; }
consumer_bazel //:bounded || { tail -n 20 "$work/consumer.out"; fail "//:bounded did not build"; }
bounded="$consumer/bazel-bin/bounded_opscan.opscan/include/bounded/RegisterKernels.cpp"
grep -q "catch (const ::std::exception" "$bounded" || fail "exception_boundary = True: no boundary in $bounded"
! grep -q "EXECUTORCH_SCOPE_PROF" "$bounded" || fail "profiling = False: profiling calls in $bounded"
# The libraries built against ATen are only analysed: their commands.
(cd "$consumer" && bazel --output_base="$work/ob-consumer" --batch aquery --output=jsonproto \
   'mnemonic("OpscanScan|OpscanGenerate|CppCompile", //:aten + //:aot + //:stable + //:aten_opscan + //:aot_opscan + //:stable_opscan)' \
   >"$work/aquery.json" 2>"$work/aquery.err") || { cat "$work/aquery.err"; fail "aquery failed"; }
python3 "$source_dir/test/bazel/actions.py" options "$work/aquery.json" ||
  fail "the generation options did not reach the commands (aquery: $work/aquery.json)"
# A malformed torch_target_version fails the package's loading, naming it.
mkdir -p "$consumer/bad"
cat >"$consumer/bad/BUILD.bazel" <<'BUILD'
load("@opscan//bazel:opscan.bzl", "opscan_kernel_library")

opscan_kernel_library(
    name = "stable",
    srcs = ["//:kernels.cpp"],
    target = "torch-stable",
    registration = "static",
    torch_target_version = "2.x",
)
BUILD
if consumer_bazel //bad:stable; then
  fail "torch_target_version = \"2.x\" passed"
fi
grep -q "opscan_kernel_library stable: torch_target_version is 2.<minor>, not '2.x'" "$work/consumer.out" ||
  { tail -n 20 "$work/consumer.out"; fail "a malformed torch_target_version is not named"; }

echo "ok: port $port; scans declare libclang's builtin headers; second checkout: every scan and generate from the cache; one edit: one scan, one generate; another workspace builds a library with the rule; overlapping libraries fail the check"
cat "$work/edited.log.run"
