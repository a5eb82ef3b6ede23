#!/usr/bin/env bash
# Installs what opscan needs (Debian packages), then configures and builds it
# in build/. Sourced by demo.sh and test.sh; safe to run again.
#
# OPSCAN_SETUP (set by the sourcing script) says how much: "tool" (the demo:
# the packages the opscan binary needs, and that binary alone, so a first
# run shows generated code in the time it takes to build opscan) or "all"
# (the default: every test's packages, npm packages, the whole build).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${OPSCAN_BUILD_DIR:-$repo/build}"
setup="${OPSCAN_SETUP:-all}"

# What the opscan binary needs to build.
packages=(cmake ninja-build g++ libclang-dev nlohmann-json3-dev libfmt-dev libcli11-dev
          libicu-dev libyaml-cpp-dev libflatbuffers-dev flatbuffers-compiler libssl-dev
          libsimdjson-dev)
# What the tests need besides: GoogleTest, libtorch (the torch target), clang
# (the compiler the CMake tests and the fuzz build try), Meson (a compile
# database of another build system), Neovim and Node.js (LSP clients),
# clang-tidy's tools (applying exported fixes), strace (signals injected
# between the renames of a generation), Bazel 4 with Debian's rules_java and
# nginx (the Bazel rule against a loopback remote cache).
if [[ $setup == all ]]; then
  packages+=(clang libgtest-dev libtorch-dev meson neovim clang-tools nodejs strace
             bazel-bootstrap bazel-rules-java nginx-light)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "opscan setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "opscan setup: missing Debian packages; install them with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# The tests' npm packages (test/npm: an LSP client library, the SARIF
# Multitool, ajv-cli), pinned by its lock file, in a build directory (its npm/).
install_npm_packages() {
  local npm_dir="$1/npm"
  if ! cmp -s "$repo/test/npm/package-lock.json" "$npm_dir/package-lock.json" 2>/dev/null; then
    command -v npm >/dev/null || { echo "opscan setup: npm (Node.js) is missing" >&2; exit 1; }
    echo "opscan setup: installing the tests' npm packages in $npm_dir"
    mkdir -p "$npm_dir"
    cp "$repo/test/npm/package.json" "$repo/test/npm/package-lock.json" "$npm_dir/"
    (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    # npm does not run the Multitool's install script (it sets the mode bit).
    chmod u+x "$npm_dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
  fi
}
if [[ $setup == all ]]; then
  install_npm_packages "$build"
fi

# A current libtorch for the torch_current tests: Debian's unstable suite in
# a chroot (scripts/libtorch-chroot.sh; made once, then updated), under the
# build directory unless OPSCAN_LIBTORCH_CHROOT names another place. Where it
# cannot be made (not root, no registry), those tests skip, saying why.
libtorch_chroot=""
if [[ $setup == all ]]; then
  chroot_dir="${OPSCAN_LIBTORCH_CHROOT:-$build/libtorch-chroot}"
  if "$repo/scripts/libtorch-chroot.sh" "$chroot_dir"; then
    libtorch_chroot="$chroot_dir"
  else
    echo "opscan setup: no current libtorch (exit $?): the torch_current tests will skip" >&2
  fi
fi

# opscan's own build, the default preset (CMakePresets.json): Ninja, and
# warnings are errors (OPSCAN_WERROR is off for others). The demo's build
# leaves the tests out; the test command's turns them on in the same tree.
build_tests=$([[ $setup == all ]] && echo ON || echo OFF)
if [[ ! -f "$build/build.ninja" ]]; then
  echo "opscan setup: configuring $build"
  cmake -S "$repo" --preset default -B "$build" -DOPSCAN_BUILD_TESTS="$build_tests" \
    "-DOPSCAN_LIBTORCH_CHROOT=$libtorch_chroot" >/dev/null
elif [[ $build_tests == ON ]] && ! grep -q '^OPSCAN_BUILD_TESTS:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "opscan setup: configuring $build with the tests"
  cmake -S "$repo" -B "$build" -DOPSCAN_BUILD_TESTS=ON >/dev/null
fi
if [[ $setup == all ]] &&
   ! grep -qx "OPSCAN_LIBTORCH_CHROOT:PATH=$libtorch_chroot" "$build/CMakeCache.txt"; then
  cmake -S "$repo" -B "$build" "-DOPSCAN_LIBTORCH_CHROOT=$libtorch_chroot" >/dev/null
fi
if [[ $setup == all ]]; then
  echo "opscan setup: building opscan and its tests in $build (about 10 minutes on 2 cores the first time)"
  targets=()
else
  echo "opscan setup: building the opscan tool in $build (a few minutes on 2 cores the first time)"
  targets=(--target opscan)
fi
if ! cmake --build "$build" -j"$(nproc)" "${targets[@]}" >"$build/build.log" 2>&1; then
  cat "$build/build.log" >&2
  echo "opscan setup: build failed (log: $build/build.log)" >&2
  exit 1
fi
