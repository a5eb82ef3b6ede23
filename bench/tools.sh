# Shared by the benchmark scripts, which source it after setting HERE (this
# directory) and REPO: the tools they need and the opscan binary they time.

# need_pkg COMMAND PACKAGE: installs PACKAGE when COMMAND is missing and we
# are root; otherwise says what to run, and exits.
need_pkg() {
  command -v "$1" >/dev/null && return
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null
  else
    echo "${0##*/}: missing $1; run: sudo apt-get install $2" >&2; exit 2
  fi
}

# Sets OPSCAN to an absolute path: $OPSCAN when given, else a Release build
# made in bench/build.
opscan_binary() {
  if [ -z "${OPSCAN:-}" ]; then
    # OPSCAN_WERROR=OFF: GCC 12 at -O3 reports a false -Wrestrict in
    # std::string code; a warning must not stop a benchmark build.
    cmake -S "$REPO" -B "$HERE/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DOPSCAN_BUILD_TESTS=OFF -DOPSCAN_WERROR=OFF >/dev/null
    ninja -j2 -C "$HERE/build" opscan >/dev/null
    OPSCAN=$HERE/build/tool/opscan
  fi
  OPSCAN=$(realpath "$OPSCAN")
}
