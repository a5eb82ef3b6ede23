#!/usr/bin/env bash
# A current libtorch for the tests: Debian's unstable suite, which packages
# libtorch 2.x, in a chroot made with debootstrap. Its libraries need a newer
# C library than the host's, so programs linking them are built and run
# inside it; opscan itself runs on the host and scans the chroot's headers.
#
#   scripts/libtorch-chroot.sh DIR
#
# Makes DIR once (about 3 minutes and 2 GB: the base system, then g++, CMake,
# Ninja, GoogleTest, libtorch-dev and python3-torch, with which the tests load
# an extension from Python), and on later runs brings its packages up to date
# when the suite has newer ones (or uses them as they are when the registry is
# out of reach). Exit status: 0 when DIR is ready;
# 3 when it cannot be made here (not root, no debootstrap, Debian's registry
# out of reach), with the reason on stderr; anything else is a failure.
set -euo pipefail

dir="${1:?usage: libtorch-chroot.sh DIR}"
packages=(g++ cmake ninja-build libtorch-dev libgtest-dev python3-torch)
ready="$dir/.opscan-libtorch-ready"

skip() {
  echo "opscan libtorch chroot: skipped: $*" >&2
  exit 3
}

[[ $(id -u) -eq 0 ]] || skip "making a chroot needs root"
# The host's own Debian mirror, else Debian's.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
         grep -v security | head -n 1 || true)
mirror="${mirror:-http://deb.debian.org/debian}"
# The suite's Release file is often past its validity date on mirrors.
apt_in_chroot() {
  chroot "$dir" env DEBIAN_FRONTEND=noninteractive \
    apt-get -qq -o Acquire::Check-Valid-Until=false "$@"
}

if [[ -f $ready ]]; then
  if ! apt_in_chroot update >/dev/null; then
    echo "opscan libtorch chroot: cannot reach $mirror: $dir is used as it is" >&2
    exit 0
  fi
  apt_in_chroot -y --no-install-recommends install "${packages[@]}" >/dev/null
  apt_in_chroot -y dist-upgrade >/dev/null
  exit 0
fi

if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
    >/dev/null 2>&1 || skip "debootstrap is not installed and cannot be"
fi
echo "opscan libtorch chroot: making $dir (Debian unstable, libtorch and its Python package, about 3 minutes)"
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
if ! debootstrap --variant=minbase sid "$dir" "$mirror" >"$dir.log" 2>&1; then
  rm -rf "$dir"
  skip "debootstrap could not make the base system from $mirror (log: $dir.log)"
fi
apt_in_chroot update >/dev/null || skip "cannot reach $mirror from the chroot"
apt_in_chroot -y --no-install-recommends install "${packages[@]}" >>"$dir.log" 2>&1
touch "$ready"
