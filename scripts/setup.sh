#!/usr/bin/env bash
# Installs what opscan needs (Debian packages), then configures and builds it
# in build/. Sourced by demo.sh and test.sh; safe to run again.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${OPSCAN_BUILD_DIR:-$repo/build}"

packages=(cmake ninja-build g++ clang libclang-dev nlohmann-json3-dev libfmt-dev libcli11-dev
          libicu-dev libgtest-dev libtorch-dev libyaml-cpp-dev meson
          flatbuffers-compiler libflatbuffers-dev
          neovim clang-tools nodejs)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "opscan setup: installing ${missing[*]}"
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
install_npm_packages "$build"

if [[ ! -f "$build/build.ninja" ]]; then
  # opscan's own build, the default preset (CMakePresets.json): Ninja, and
  # warnings are errors (OPSCAN_WERROR is off for others).
  cmake -S "$repo" --preset default -B "$build" >/dev/null
fi
echo "opscan setup: building in $build"
if ! cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1; then
  cat "$build/build.log" >&2
  echo "opscan setup: build failed (log: $build/build.log)" >&2
  exit 1
fi
